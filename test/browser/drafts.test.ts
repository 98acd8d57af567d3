import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { type TestApp, testApp } from '../helpers/app.ts';
import { putCustomer } from '../invoicing/helpers.ts';
import { arrivedAt, assertAccessible, chromiumMissing, type InBrowser, openInBrowser, screenshot } from './browser.ts';

// Issue 15: writing an invoice in the app in Chromium over real HTTP — the customer search,
// the form filled in and saved with the keyboard alone — then issuing, mailing and cancelling
// it on its page (the cancel asks first). axe-core finds no serious or critical violation.

const missing = chromiumMissing();

describe('invoices written in the app, in Chromium', { skip: missing }, () => {
  let t: TestApp;
  let opened: InBrowser;
  let page: Page;
  let base: string;

  before(async () => {
    t = await testApp();
    await putCustomer(t, 'kunde-1');
    await putCustomer(t, 'kunde-2', { name: 'Nordlicht Medien GmbH' });
    opened = await openInBrowser(t, { viewport: { width: 1280, height: 900 }, from: '/app/invoices' });
    ({ page, base } = opened);
    await page.goto(`${base}/app/invoices`);
  });
  after(async () => {
    await opened?.close();
    await t?.close();
  });

  test('a new invoice with the keyboard: find the customer, fill in two lines in German notation, save the draft', async () => {
    await page.getByRole('link', { name: 'Neue Rechnung' }).click();
    await arrivedAt(page, /\/app\/invoices\/new$/);
    await assertAccessible(page, 'customer step');
    await page.keyboard.press('/');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'q');
    await page.keyboard.type('Nordlicht');
    await page.keyboard.press('Enter');
    await arrivedAt(page, /q=Nordlicht/);
    await page.getByRole('link', { name: 'Nordlicht Medien GmbH auswählen' }).focus();
    await page.keyboard.press('Enter');
    await arrivedAt(page, /customer=cus_/);
    await assertAccessible(page, 'new invoice');
    await screenshot(page, 'invoice-new');

    await page.getByLabel('Beschreibung, Position 1').focus();
    await page.keyboard.type('Redaktionelle Betreuung Oktober');
    await page.keyboard.press('Tab');
    await page.keyboard.type('12,5');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Stunde');
    await page.keyboard.press('Tab');
    await page.keyboard.type('1.080,00');
    await page.keyboard.press('Tab'); // the VAT rate: 19 % stays
    await page.getByLabel('Beschreibung, Position 2').focus();
    await page.keyboard.type('Fachzeitschrift Jahresabo');
    await page.keyboard.press('Tab');
    await page.keyboard.type('1');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.type('89,90');
    await page.keyboard.press('Tab');
    await page.keyboard.press('ArrowDown'); // 19 % → 7 %
    assert.equal(await page.getByLabel('USt.-Satz, Position 2').inputValue(), '7');
    await page.getByRole('button', { name: 'Entwurf speichern' }).focus();
    await page.keyboard.press('Enter');
    await arrivedAt(page, /\/app\/invoices\/inv_[0-9a-z]{26}\?done=draft$/);
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Entwurf');
    assert.match((await page.getByRole('status').textContent()) ?? '', /Der Entwurf wurde gespeichert/);
    // 12,5 × 1.080,00 = 13.500,00 + 19 %; 89,90 + 7 %: 16.161,19 € gross.
    assert.match((await page.locator('dl.facts').textContent()) ?? '', /16\.161,19\s€/);
    assert.equal(await page.locator('.badge', { hasText: 'in der App erstellt' }).count(), 1);
    await assertAccessible(page, 'draft');
  });

  test('on its page the invoice is issued, mailed and cancelled (the cancel asks first)', async () => {
    await page.getByRole('button', { name: 'Rechnung ausstellen' }).click();
    await arrivedAt(page, /done=issued$/);
    const number = ((await page.getByRole('heading', { level: 1 }).textContent()) ?? '').replace('Rechnung ', '');
    assert.match(number, /^RE-2026-\d{5}$/);
    await page.getByRole('button', { name: 'Per E-Mail senden' }).click();
    await arrivedAt(page, /done=sent$/);
    assert.equal(await page.getByRole('status').textContent(), 'Die Rechnung wurde per E-Mail an buchhaltung@beispiel.example gesendet.');
    await assertAccessible(page, 'issued invoice with its actions');
    await screenshot(page, 'invoice-detail-actions');
    const asked: string[] = [];
    page.once('dialog', (dialog) => {
      asked.push(dialog.message());
      void dialog.accept();
    });
    await page.getByRole('button', { name: 'Stornieren' }).click();
    await arrivedAt(page, /done=cancelled$/);
    assert.match(asked[0] ?? '', new RegExp(`^Rechnung ${number} wirklich stornieren\\?`));
    assert.match((await page.getByRole('status').textContent()) ?? '', /Die Rechnung wurde storniert\. Stornorechnung: RE-2026-\d{5}\./);
    await page.getByRole('link', { name: /^RE-2026-\d{5}$/ }).click();
    assert.match((await page.getByRole('heading', { level: 1 }).textContent()) ?? '', /^Storno RE-2026-\d{5}$/);
    await assertAccessible(page, 'storno');
  });
});
