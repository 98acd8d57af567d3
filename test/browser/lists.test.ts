import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { putContract, putProducts, runBilling } from '../contracts/helpers.ts';
import { type TestApp, testApp } from '../helpers/app.ts';
import { putCustomer } from '../invoicing/helpers.ts';
import { issueInvoice } from '../payments/helpers.ts';
import { arrivedAt, assertAccessible, chromiumMissing, type InBrowser, openInBrowser, screenshot } from './browser.ts';

// Issue 25 (helper C) in Chromium: the dashboard's bars with their amounts and years, the
// invoice list with net and open columns and its CSV download, a contract's items with the
// day each is billed until, and the English formats — each page axe-clean, at 1280 and 390 px.
// Screenshots: dashboard-bars(-390), invoices-columns(-390), contract-billed-until, dashboard-en.

const missing = chromiumMissing();

describe('dashboard, invoice list and contract page in Chromium', { skip: missing }, () => {
  let t: TestApp;
  let opened: InBrowser;
  let page: Page;
  let base: string;
  let contractId: string;

  before(async () => {
    t = await testApp({ now: '2026-10-01T08:00:00Z' });
    await putCustomer(t, 'kunde-1');
    await putProducts(t);
    contractId = (
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
            { ref: 'support', description: 'Support-Pauschale', unit_price_net: '15.00', quantity: '2', ends_after: '2027-03-31' },
          ],
        },
        [201],
      )
    ).id;
    await runBilling(t, '2026-10-01');
    await runBilling(t, '2026-11-01');
    t.clock.set('2026-11-21T09:00:00Z');
    await issueInvoice(t, 'a-1', { lines: [{ description: 'Beratung', quantity: '10', unit: 'Stunde', unit_price_net: '1234.56', vat_rate: 19 }] });
    opened = await openInBrowser(t, { acceptDownloads: true });
    ({ page, base } = opened);
  });
  after(async () => {
    await opened?.close();
    await t?.close();
  });

  test('the dashboard: each bar with its amount, the months with their year', async () => {
    await page.goto(`${base}/app/dashboard`);
    const bars = page.getByRole('list', { name: 'Umsatz nach Monat (netto, ausgestellte Rechnungen)' }).getByRole('listitem');
    assert.equal(await bars.count(), 12);
    // November: the contract's billing (59.00) and 12,345.60 of consulting.
    assert.equal(await bars.last().getAttribute('aria-label'), 'Nov 2026: 12.404,60\u00a0€');
    assert.equal(await page.locator('svg text.value').last().textContent(), '12.405\u00a0€');
    assert.deepEqual(await page.locator('svg text.year').allTextContents(), ['2025', '2026']);
    await assertAccessible(page, 'dashboard');
    await screenshot(page, 'dashboard-bars');
    await page.setViewportSize({ width: 390, height: 844 });
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 390), 'no sideways scrolling at 390 px');
    await screenshot(page, 'dashboard-bars-390');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  test('the invoice list with net and open columns, and the CSV of the filter', async () => {
    await page.goto(`${base}/app/invoices?status=open`);
    await page.getByLabel('Netto').check();
    await page.getByLabel('Offen', { exact: true }).check();
    await page.getByRole('button', { name: 'Filtern' }).click();
    await arrivedAt(page, /col_net=1&col_open=1/);
    const header = await page.locator('thead th').allTextContents();
    assert.deepEqual(header.slice(4, 7), ['Netto', 'Brutto', 'Offen']);
    await assertAccessible(page, 'invoice list with columns');
    await screenshot(page, 'invoices-columns');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Als CSV exportieren (Excel)' }).click()]);
    assert.match(download.suggestedFilename(), /^rechnungen-2026-11-21\.csv$/);
    const stream = await download.createReadStream();
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    const csv = Buffer.concat(chunks).toString('utf8');
    assert.ok(csv.startsWith('\ufeffRechnungsnummer;'));
    assert.match(csv, /;12345,60;2345,66;14691,26;0,00;14691,26;Ausgestellt;nein\r\n/);
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'invoices-columns-390');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  test('a contract: the day each item is billed until beside its own end', async () => {
    await page.goto(`${base}/app/contracts/${contractId}`);
    const items = page.locator('section', { has: page.getByRole('heading', { name: 'Positionen' }) });
    const support = items.locator('tbody tr', { hasText: 'Support-Pauschale' });
    assert.equal(await support.locator('td[data-col="billed-until"]').textContent(), '30.11.2026');
    assert.equal(await support.locator('td[data-col="ends"]').textContent(), '31.03.2027');
    await assertAccessible(page, 'contract detail');
    await screenshot(page, 'contract-billed-until');
  });

  test('in English: €12,405 on the bar, €14,691.26 and 21 Nov 2026 in the list', async () => {
    await page.goto(`${base}/app/lang?to=en`);
    await page.goto(`${base}/app/dashboard`);
    assert.equal(await page.locator('svg text.value').last().textContent(), '€12,405');
    await page.goto(`${base}/app/invoices`);
    assert.match((await page.locator('tbody').textContent()) ?? '', /21 Nov 2026/);
    assert.match((await page.locator('tbody').textContent()) ?? '', /€14,691\.26/);
    await assertAccessible(page, 'invoice list in English');
    await screenshot(page, 'invoices-en');
    await page.goto(`${base}/app/lang?to=de`);
  });
});
