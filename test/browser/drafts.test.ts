import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { type TestApp, testApp } from '../helpers/app.ts';
import { putCustomer } from '../invoicing/helpers.ts';
import { chromiumMissing, describeViolations, launch, screenshot, seriousViolations } from './browser.ts';

// Issue 15: writing an invoice in the app in Chromium over real HTTP — the customer search,
// the form filled in and saved with the keyboard alone — then issuing, mailing and cancelling
// it on its page (the cancel asks first). axe-core finds no serious or critical violation.

const missing = chromiumMissing();

describe('invoices written in the app, in Chromium', { skip: missing }, () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let base: string;

  const axe = async (name: string) => {
    const violations = await seriousViolations(page);
    assert.deepEqual(violations, [], `${name}:\n${describeViolations(violations)}`);
  };

  before(async () => {
    t = await testApp();
    await putCustomer(t, 'kunde-1');
    await putCustomer(t, 'kunde-2', { name: 'Nordlicht Medien GmbH' });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    browser = await launch();
    // bypassCSP only so that the axe script can be injected; the app's own pages run under their CSP.
    const context = await browser.newContext({ locale: 'de-DE', bypassCSP: true, viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    await page.goto(`${base}/app/invoices`);
    await page.getByLabel('E-Mail-Adresse').fill(t.company.adminEmail);
    await page.getByLabel('Passwort').fill(t.company.password);
    await page.getByRole('button', { name: 'Anmelden' }).click();
    await page.waitForURL(/\/app\/password$/);
    await page.getByLabel('Aktuelles Passwort').fill(t.company.password);
    await page.getByLabel('Neues Passwort', { exact: true }).fill('ein gutes neues Passwort');
    await page.getByLabel('Neues Passwort wiederholen').fill('ein gutes neues Passwort');
    await page.getByRole('button', { name: 'Passwort ändern' }).click();
    await page.waitForURL(/\/app\/dashboard$/);
    await page.goto(`${base}/app/invoices`);
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  test('a new invoice with the keyboard: find the customer, fill in two lines in German notation, save the draft', async () => {
    await page.getByRole('link', { name: 'Neue Rechnung' }).click();
    await page.waitForURL(/\/app\/invoices\/new$/);
    await axe('customer step');
    await page.keyboard.press('/');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'q');
    await page.keyboard.type('Nordlicht');
    await page.keyboard.press('Enter');
    await page.waitForURL(/q=Nordlicht/);
    await page.getByRole('link', { name: 'Nordlicht Medien GmbH auswählen' }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(/customer=cus_/);
    await axe('new invoice');
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
    await page.waitForURL(/\/app\/invoices\/inv_[0-9a-z]{26}\?done=draft$/);
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Entwurf');
    assert.match((await page.getByRole('status').textContent()) ?? '', /Der Entwurf wurde gespeichert/);
    // 12,5 × 1.080,00 = 13.500,00 + 19 %; 89,90 + 7 %: 16.161,19 € gross.
    assert.match((await page.locator('dl.facts').textContent()) ?? '', /16\.161,19\s€/);
    assert.equal(await page.locator('.badge', { hasText: 'in der App erstellt' }).count(), 1);
    await axe('draft');
  });

  test('on its page the invoice is issued, mailed and cancelled (the cancel asks first)', async () => {
    await page.getByRole('button', { name: 'Rechnung ausstellen' }).click();
    await page.waitForURL(/done=issued$/);
    const number = ((await page.getByRole('heading', { level: 1 }).textContent()) ?? '').replace('Rechnung ', '');
    assert.match(number, /^RE-2026-\d{5}$/);
    await page.getByRole('button', { name: 'Per E-Mail senden' }).click();
    await page.waitForURL(/done=sent$/);
    assert.equal(await page.getByRole('status').textContent(), 'Die Rechnung wurde per E-Mail an buchhaltung@beispiel.example gesendet.');
    await axe('issued invoice with its actions');
    await screenshot(page, 'invoice-detail-actions');
    const asked: string[] = [];
    page.once('dialog', (dialog) => {
      asked.push(dialog.message());
      void dialog.accept();
    });
    await page.getByRole('button', { name: 'Stornieren' }).click();
    await page.waitForURL(/done=cancelled$/);
    assert.match(asked[0] ?? '', new RegExp(`^Rechnung ${number} wirklich stornieren\\?`));
    assert.match((await page.getByRole('status').textContent()) ?? '', /Die Rechnung wurde storniert\. Stornorechnung: RE-2026-\d{5}\./);
    await page.getByRole('link', { name: /^RE-2026-\d{5}$/ }).click();
    assert.match((await page.getByRole('heading', { level: 1 }).textContent()) ?? '', /^Storno RE-2026-\d{5}$/);
    await axe('storno');
  });
});
