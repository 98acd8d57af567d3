import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { type TestApp, testApp } from '../helpers/app.ts';
import { putCustomer } from '../invoicing/helpers.ts';
import { camt, issueInvoice } from '../payments/helpers.ts';
import { arrivedAt, assertAccessible, chromiumMissing, type InBrowser, openInBrowser, screenshot } from './browser.ts';

// Issue 25, points 1.2 and 1.3 in Chromium: a statement uploaded on the bank page; the
// result lists the invoice paid (its number a link, the customer, the amount), the one paid
// in part with what is open, and the credit left unmatched with the reason; the credit is
// assigned by typing the number as a payer writes it ("re 2026 00003"); a PDF is refused
// with a German message. axe-clean at 1280 and 390 px. Screenshots: bank-result,
// bank-result-390, bank-refused.

const missing = chromiumMissing();

describe('the bank upload’s result in Chromium', { skip: missing }, () => {
  let t: TestApp;
  let opened: InBrowser;
  let page: Page;
  let base: string;
  let paid: { id: string; number: string };
  let partly: { id: string; number: string };
  let later: { id: string; number: string };

  const choose = (name: string, mimeType: string, content: string) =>
    page.getByLabel('Kontoauszug (camt.053 oder MT940)').setInputFiles({ name, mimeType, buffer: Buffer.from(content) });

  before(async () => {
    t = await testApp();
    await putCustomer(t, 'kunde-1');
    paid = await issueInvoice(t, 'browser-result-1');
    partly = await issueInvoice(t, 'browser-result-2');
    later = await issueInvoice(t, 'browser-result-3');
    opened = await openInBrowser(t);
    ({ page, base } = opened);
  });
  after(async () => {
    await opened?.close();
    await t?.close();
  });

  test('the result says what happened to each transaction; the credit left over is assigned by a spelling of the number', async () => {
    await page.goto(`${base}/app/bank`);
    await choose(
      'auszug.xml',
      'application/xml',
      camt(
        [
          { amount: '85.06', text: `Rechnung ${paid.number}`, name: 'Beispiel AG', date: '2026-11-20' },
          { amount: '50.00', text: `Abschlag ${partly.number}`, name: 'Beispiel AG', date: '2026-11-20' },
          { amount: '85.06', text: 'Vielen Dank fuer die Lieferung', name: 'Beispiel AG', date: '2026-11-21' },
        ],
        { id: 'BR-1', msgId: 'BR-1' },
      ),
    );
    await page.getByRole('button', { name: 'Importieren' }).click();
    await page.getByRole('heading', { name: 'Kontoauszug importiert' }).waitFor();
    const paidTable = page.getByRole('region', { name: /Bezahlte Rechnungen/ });
    const rows = paidTable.locator('tbody tr');
    assert.equal(await rows.count(), 2);
    assert.match((await rows.nth(0).textContent()) ?? '', new RegExp(`${paid.number}Beispiel AG85,06\\s€bezahlt`));
    assert.match((await rows.nth(1).textContent()) ?? '', /teilweise bezahlt, 35,06\s€ offen/);
    const waiting = page.getByRole('region', { name: /Nicht zugeordnet/ });
    assert.match(
      (await waiting.textContent()) ?? '',
      /Vielen Dank fuer die Lieferung.*Keine Rechnungsnummer im Verwendungszweck gefunden; bitte von Hand zuordnen\./,
    );
    await assertAccessible(page, 'bank result');
    await screenshot(page, 'bank-result');
    await page.setViewportSize({ width: 390, height: 844 });
    assert.ok(
      await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
      'no sideways scrolling at 390 px: the tables scroll inside their box',
    );
    await assertAccessible(page, 'bank result at 390 px');
    await screenshot(page, 'bank-result-390');
    await page.setViewportSize({ width: 1280, height: 800 });

    // The number links to the invoice.
    await paidTable.getByRole('link', { name: paid.number }).click();
    await arrivedAt(page, new RegExp(`/app/invoices/${paid.id}$`));

    await page.goto(`${base}/app/bank`);
    await page.getByLabel(/Rechnungsnummer für 85,06\s€ von Beispiel AG/).fill(later.number.toLowerCase().replaceAll('-', ' '));
    await page.getByRole('button', { name: 'Zuordnen' }).click();
    await arrivedAt(page, /assigned=/);
    assert.equal(await page.getByRole('status').textContent(), `Die Zahlung wurde der Rechnung ${later.number} zugeordnet und gebucht.`);
  });

  test('a PDF is refused with a German message', async () => {
    await page.goto(`${base}/app/bank`);
    await choose('kontoauszug.pdf', 'application/pdf', '%PDF-1.7 kein Auszug');
    await page.getByRole('button', { name: 'Importieren' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    assert.match((await alert.textContent()) ?? '', /^Die Datei wurde nicht importiert\. Die Datei ist ein PDF-Dokument, kein Kontoauszug\./);
    await assertAccessible(page, 'bank refused');
    await screenshot(page, 'bank-refused');
  });
});
