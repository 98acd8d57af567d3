import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { newId } from '../../src/shared/ids.ts';
import { type TestApp, testApp } from '../helpers/app.ts';
import { putCustomer } from '../invoicing/helpers.ts';
import { camt, importFile, issueInvoice } from '../payments/helpers.ts';
import { arrivedAt, assertAccessible, chromiumMissing, type InBrowser, openInBrowser, screenshot } from './browser.ts';

// Issue 25, points 1.1, 2.2 and 2.5 in Chromium at 1366 px: a partly paid invoice with its
// payments, history and bookings, and the audit trail — which was 2,516 px wide — fitting the
// window with long values folded, filtered by area with the form; each page axe-clean.
// Screenshots: invoice-money, audit, audit-390.

const missing = chromiumMissing();
const WIDTH = 1366;

describe('invoice money and the audit trail in Chromium', { skip: missing }, () => {
  let t: TestApp;
  let opened: InBrowser;
  let page: Page;
  let base: string;
  let invoice: { id: string; number: string };

  before(async () => {
    t = await testApp();
    await putCustomer(t, 'kunde-1');
    invoice = await issueInvoice(t, 'b-money');
    await importFile(
      t,
      camt([{ amount: '50.00', text: `Rechnung ${invoice.number} Teilzahlung`, name: 'Beispiel AG', date: '2026-11-20' }], { id: 'B-PAY' }),
      'november.xml',
    );
    // Entries with the long values that made the trail 2,516 px wide: a URL without spaces, long warnings.
    const long = `https://hooks.beispiel.example/${'kontor-webhook-empfaenger-'.repeat(12)}`;
    const warning = 'Der Leistungsort liegt nach Angabe des Kunden in Deutschland; bitte prüfen Sie die USt-IdNr. und den Leistungsort. '.repeat(3);
    const row = (action: string, minute: number, subject: [string, string | null], before: object | null, after: object) => ({
      organization_id: t.company.organizationId,
      id: newId('aud'),
      company_id: t.company.companyId,
      user_id: t.company.userId,
      at: new Date(Date.UTC(2026, 10, 20, 9, minute)),
      action,
      subject_type: subject[0],
      subject_id: subject[1],
      before: before ? JSON.stringify(before) : null,
      after: JSON.stringify(after),
    });
    await t.handle.db
      .insertInto('audit_log')
      .values([
        row('webhook.endpoint_added', 1, ['webhook_endpoint', 'whe_unknown'], null, {
          url: long,
          events: ['invoice.issued', 'invoice.paid', 'invoice.dunning_sent'],
        }),
        row(
          'invoice.issued',
          2,
          ['invoice', invoice.id],
          { status: 'draft' },
          { status: 'issued', number: invoice.number, confirmed_warnings: [warning, warning] },
        ),
        row('company.settings_changed', 3, ['company', t.company.companyId], { footer: 'alt' }, { footer: warning, iban: 'DE89 **** 3000', logo: long }),
      ])
      .execute();
    opened = await openInBrowser(t, { viewport: { width: WIDTH, height: 900 } });
    ({ page, base } = opened);
  });
  after(async () => {
    await opened?.close();
    await t?.close();
  });

  const width = () => page.evaluate(() => document.documentElement.scrollWidth);

  test('a partly paid invoice shows paid, open, the payment and the bookings', async () => {
    await page.goto(`${base}/app/invoices/${invoice.id}`);
    const payments = page.getByRole('region', { name: 'Zahlungen' }).or(page.locator('section[aria-labelledby="payments-heading"]')).first();
    assert.match((await payments.textContent()) ?? '', /Bezahlt50,00\u00a0€.*Offen35,06\u00a0€/s);
    assert.match((await payments.textContent()) ?? '', /Beispiel AG.*Rechnung RE-\d{4}-\d{5} Teilzahlung.*november\.xml/s);
    assert.match((await page.locator('.timeline').textContent()) ?? '', /Zahlung über 50,00\u00a0€ eingegangen/);
    assert.match((await page.locator('section[aria-labelledby="bookings-heading"]').textContent()) ?? '', /Zahlungseingang/);
    assert.ok((await width()) <= WIDTH, `invoice page ${await width()} px wide`);
    await assertAccessible(page, 'invoice with payments');
    await screenshot(page, 'invoice-money');
  });

  test(`the audit trail fits ${WIDTH} px, names its subjects, folds long values and filters by area`, async () => {
    await page.goto(`${base}/app/audit`);
    assert.ok((await width()) <= WIDTH, `audit page ${await width()} px wide`);
    const text = (await page.locator('table.audit').textContent()) ?? '';
    assert.match(text, new RegExp(`Rechnung ${invoice.number} ausgestellt von`));
    assert.doesNotMatch(text, /inv_[0-9a-z]{26}/);
    await page.locator('table.audit summary').first().click();
    assert.ok((await width()) <= WIDTH, `audit page with values open ${await width()} px wide`);
    await assertAccessible(page, 'audit');
    await screenshot(page, 'audit');
    await page.getByLabel('Bereich').selectOption({ label: 'Rechnungen' });
    await page.getByRole('button', { name: 'Filtern' }).click();
    await arrivedAt(page, /\/app\/audit\?area=invoices/);
    assert.equal(await page.locator('table.audit tbody tr').count(), 1);
    await assertAccessible(page, 'audit filtered');
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${base}/app/audit`);
    assert.ok((await width()) <= 390, `audit page at 390 px: ${await width()} px wide`);
    await assertAccessible(page, 'audit at 390 px');
    await screenshot(page, 'audit-390');
  });
});
