import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { putContract, putProducts, runBilling } from '../contracts/helpers.ts';
import { type TestApp, testApp } from '../helpers/app.ts';
import { putCustomer } from '../invoicing/helpers.ts';
import { camt, importFile, issueInvoice } from '../payments/helpers.ts';
import { arrivedAt, assertAccessible, chromiumMissing, type InBrowser, openInBrowser, screenshot } from './browser.ts';

// Issue 15 (customers and contracts) in Chromium over real HTTP: both lists and both detail
// pages pass axe-core with no serious or critical violation; the customer list is searched
// and left for a customer's account by keyboard alone; the contract list is filtered and a
// contract opened by clicks. Screenshots: customers, customer-detail, contracts, contract-detail.

const XSS_NAME = '<img src=x onerror=alert(1)> & Söhne';
const missing = chromiumMissing();

describe('customers and contracts in Chromium', { skip: missing }, () => {
  let t: TestApp;
  let opened: InBrowser;
  let page: Page;
  let base: string;
  const dialogs: string[] = [];
  const numbers: Record<string, string> = {};

  before(async () => {
    t = await testApp({ now: '2026-10-01T08:00:00Z' });
    await putCustomer(t, 'kunde-1');
    await putCustomer(t, 'xss', { name: XSS_NAME });
    await putProducts(t);
    await putContract(
      t,
      'saas-1',
      {
        customer: { source: 'crm', external_ref: 'kunde-1' },
        name: 'SaaS Business',
        status: 'active',
        billing_interval: 'month',
        start_date: '2026-10-01',
        items: [
          { ref: 'hosting', product_number: 'HOST-S' },
          { ref: 'api', product_ref: 'api-calls' },
        ],
      },
      [201],
    );
    await putContract(
      t,
      'xss-1',
      { customer: { source: 'crm', external_ref: 'xss' }, name: 'Wartung', status: 'draft', billing_interval: 'year', start_date: '2027-01-01', items: [] },
      [201],
    );
    await runBilling(t, '2026-10-01');
    numbers['a-1'] = (await issueInvoice(t, 'a-1', { payment_terms_days: 14 })).number;
    await runBilling(t, '2026-11-01');
    t.clock.set('2026-11-21T09:00:00Z');
    await importFile(t, camt([{ amount: '50.00', text: `Teilzahlung ${numbers['a-1']}`, name: 'Beispiel AG', date: '2026-11-20' }]));
    opened = await openInBrowser(t, { dismissDialogs: dialogs });
    ({ page, base } = opened);
  });
  after(async () => {
    await opened?.close();
    await t?.close();
  });

  test('the customer list, searched and left for an account by keyboard alone', async () => {
    await page.goto(`${base}/app/customers`);
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Kunden');
    // The name is text: no image, no script.
    assert.equal(await page.getByRole('link', { name: XSS_NAME }).count(), 1);
    assert.equal(await page.locator('main img').count(), 0);
    await assertAccessible(page, 'customers');
    await screenshot(page, 'customers');
    await page.keyboard.press('/');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'q');
    await page.keyboard.type('Beispiel AG');
    await page.keyboard.press('Enter');
    await arrivedAt(page, /q=Beispiel\+AG/);
    assert.equal(await page.locator('tbody tr').count(), 1);
    // From the search field on by Tab: the search button, the reset link, the sort links, the customer.
    await page.keyboard.press('/');
    for (let i = 0; i < 10; i++) {
      if ((await page.evaluate(() => document.activeElement?.textContent)) === 'Beispiel AG') break;
      await page.keyboard.press('Tab');
    }
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Beispiel AG');
    await page.keyboard.press('Enter');
    await arrivedAt(page, /\/app\/customers\/cus_[0-9a-z]{26}$/);
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Beispiel AG');
    const overdue = page
      .locator('section', { has: page.getByRole('heading', { name: 'Offene Posten' }) })
      .locator('tbody tr', { hasText: numbers['a-1'] as string });
    assert.match((await overdue.textContent()) ?? '', /85,06\s€\s*50,00\s€\s*35,06\s€\s*37 Tage überfällig/);
    await assertAccessible(page, 'customer detail');
    await screenshot(page, 'customer-detail');
  });

  test('the contract list filtered by status, a contract opened by clicks: two billed cycles and the next', async () => {
    await page.goto(`${base}/app/contracts`);
    assert.equal(await page.getByRole('cell', { name: XSS_NAME }).count(), 1);
    await assertAccessible(page, 'contracts');
    await screenshot(page, 'contracts');
    await page.getByLabel('Status').selectOption('active');
    await page.getByRole('button', { name: 'Filtern' }).click();
    await arrivedAt(page, /status=active/);
    assert.equal(await page.locator('tbody tr').count(), 1);
    await page.getByRole('link', { name: 'V-00001' }).click();
    await arrivedAt(page, /\/app\/contracts\/ctr_[0-9a-z]{26}$/);
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Vertrag V-00001');
    const cycles = page.locator('section', { has: page.getByRole('heading', { name: 'Abgerechnete Zeiträume' }) }).locator('tbody tr');
    assert.equal(await cycles.count(), 2);
    assert.match((await cycles.first().textContent()) ?? '', /01\.11\.2026 – 30\.11\.2026/);
    const ahead = page.locator('section', { has: page.getByRole('heading', { name: 'Nächste Abrechnungen' }) }).locator('tbody tr');
    assert.match((await ahead.first().textContent()) ?? '', /01\.12\.2026\s*01\.12\.2026 – 31\.12\.2026\s*29,00\s€\s*zzgl\. Nutzung/);
    await assertAccessible(page, 'contract detail');
    await screenshot(page, 'contract-detail');
    assert.deepEqual(dialogs, [], 'no script of a customer name ran');
  });
});
