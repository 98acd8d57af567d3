import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import iconv from 'iconv-lite';
import type { Page } from 'playwright-core';
import { issueInvoice, putCustomerOf, runDay, type Scenario } from '../dunning/helpers.ts';
import { type TestApp, testApp } from '../helpers/app.ts';
import { BUSINESS_CUSTOMER } from '../invoicing/helpers.ts';
import { camt } from '../payments/helpers.ts';
import { arrivedAt, assertAccessible, chromiumMissing, type InBrowser, openInBrowser, screenshot } from './browser.ts';

// Issue 15, point 2 in Chromium: the dunning page (a failed reminder sent again with a click),
// the DATEV export (the download read back) and the bank import's German notes — each page
// without serious or critical axe-core violations. Screenshots: dunning, exports, bank-notes.

const missing = chromiumMissing();
const { email: _dropped, ...WITHOUT_EMAIL } = BUSINESS_CUSTOMER;

describe('dunning, DATEV export and bank notes in Chromium', { skip: missing }, () => {
  let t: TestApp;
  let opened: InBrowser;
  let page: Page;
  let base: string;
  let failing: { id: string; number: string };

  before(async () => {
    t = await testApp();
    const s: Scenario = { company: t.company, mailer: t.mailer };
    await putCustomerOf(t, s, 'ohne-mail');
    await putCustomerOf(t, s, 'mit-mail', { ...BUSINESS_CUSTOMER, name: 'Mahn & Söhne KG' });
    failing = await issueInvoice(t, s, 'b-1', 'ohne-mail', '2026-11-21');
    await issueInvoice(t, s, 'b-2', 'mit-mail', '2026-11-21');
    await putCustomerOf(t, s, 'ohne-mail', WITHOUT_EMAIL);
    await runDay(t, s, '2026-12-12');
    // The bookkeeper adds the address; the reminder is then sent again from the page.
    await putCustomerOf(t, s, 'ohne-mail', { ...BUSINESS_CUSTOMER, email: 'neu@beispiel.example' });

    opened = await openInBrowser(t, { acceptDownloads: true });
    ({ page, base } = opened);
  });
  after(async () => {
    await opened?.close();
    await t?.close();
  });

  test('the failed reminder with its German reason, sent again with a click', async () => {
    await page.getByRole('link', { name: 'Mahnwesen' }).click();
    await arrivedAt(page, /\/app\/dunning$/);
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Mahnwesen');
    const row = page.locator('tr', { hasText: failing.number });
    assert.match((await row.textContent()) ?? '', /Beim Kunden ist keine gültige E-Mail-Adresse hinterlegt\./);
    await assertAccessible(page, 'dunning');
    await screenshot(page, 'dunning');
    await row.getByRole('button', { name: /Erneut versuchen/ }).click();
    await arrivedAt(page, /\/app\/dunning\?retried=dun_/);
    assert.match((await page.getByRole('status').textContent()) ?? '', /wird erneut gesendet, an neu@beispiel\.example/);
    assert.match((await page.locator('main').textContent()) ?? '', /Keine fehlgeschlagenen Mahnungen\./);
    await assertAccessible(page, 'dunning after the retry');
  });

  test('the DATEV export of the previous month downloads through the page', async () => {
    await page.goto(`${base}/app/exports`);
    assert.equal(await page.getByLabel('Von').inputValue(), '2026-11-01');
    assert.equal(await page.getByLabel('Bis').inputValue(), '2026-11-30');
    await assertAccessible(page, 'exports');
    await screenshot(page, 'exports');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Buchungsstapel herunterladen' }).click()]);
    assert.equal(download.suggestedFilename(), 'EXTF_Buchungsstapel_2026-11-01_2026-11-30.csv');
    const csv = iconv.decode(readFileSync((await download.path()) as string), 'win1252');
    assert.match(csv, /^"EXTF";700;21;"Buchungsstapel";13;/);
    assert.match(csv, new RegExp(`^1190,00;"S";"EUR";;;;10000;8400;.*"${failing.number}"`, 'm'));
    await page.reload();
    assert.match((await page.locator('section', { hasText: 'Letzte Exporte' }).textContent()) ?? '', /01\.11\.2026 – 30\.11\.2026\s*2/);
    await assertAccessible(page, 'exports with the latest export');
  });

  test('a bank statement with notes shows them in German', async () => {
    await page.goto(`${base}/app/bank`);
    await page.getByLabel('Kontoauszug (camt.053 oder MT940)').setInputFiles({
      name: 'auszug.xml',
      mimeType: 'application/xml',
      buffer: Buffer.from(camt([{ amount: '25.00', text: 'Danke!', name: 'Unbekannt & Co', date: '2026-12-11' }], { id: 'browser-1' })),
    });
    await page.getByRole('button', { name: 'Importieren' }).click();
    await page.getByRole('heading', { name: 'Nicht zugeordnet (1)' }).waitFor();
    assert.match((await page.locator('table.compact').textContent()) ?? '', /Unbekannt & CoDanke!25,00\s€Keine Rechnungsnummer im Verwendungszweck gefunden/);
    await assertAccessible(page, 'bank with notes');
    await screenshot(page, 'bank-notes');
  });
});
