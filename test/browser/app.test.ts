import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { setUserRole } from '../../src/modules/access/manage-users.ts';
import { partnerWithOctoberGutschrift } from '../commissions/helpers.ts';
import { type TestApp, testApp } from '../helpers/app.ts';
import { AT_BUSINESS_CUSTOMER, invoiceBody, postInvoice, putCustomer } from '../invoicing/helpers.ts';
import { camt, issueInvoice } from '../payments/helpers.ts';
import { sepaSchemaErrors } from '../payouts/sepa-schema.ts';
import { arrivedAt, assertAccessible, chromiumMissing, type InBrowser, openInBrowser, screenshot, seriousViolations } from './browser.ts';

// Issue 15, point 5: the app in a real browser (Debian's Chromium via playwright-core) over
// real HTTP: sign-in with the forced password change, the dashboard, the invoice list by
// keyboard, text from the database as text, a role that may not open a page, and an axe-core
// check of every page with no serious or critical violation. Screenshots of the main pages
// go to artifacts/screenshots/.

const XSS_NAME = '<img src=x onerror=alert(1)> & Söhne';
const missing = chromiumMissing();

describe('back-office app in Chromium', { skip: missing }, () => {
  let t: TestApp;
  let opened: InBrowser;
  let context: BrowserContext;
  let page: Page;
  let base: string;
  const dialogs: string[] = [];
  const drafts: Record<string, string> = {};
  let partnerId: string;

  before(async () => {
    t = await testApp();
    await putCustomer(t, 'kunde-1');
    await putCustomer(t, 'xss', { name: XSS_NAME });
    for (const ref of ['a-1', 'a-2', 'a-3']) await issueInvoice(t, ref);
    await issueInvoice(t, 'x-1', { customer: { source: 'crm', external_ref: 'xss' } });
    await putCustomer(t, 'wien', AT_BUSINESS_CUSTOMER);
    for (const [ref, customer] of [
      ['draft-de', 'kunde-1'],
      ['draft-at', 'wien'],
    ] as const) {
      const res = await postInvoice(t, invoiceBody(ref, { customer: { source: 'crm', external_ref: customer } }));
      assert.equal(res.statusCode, 201, res.body);
      drafts[ref] = res.json().id;
    }
    // A partner with an issued Gutschrift for October (80.00 net commission), to be paid out.
    partnerId = await partnerWithOctoberGutschrift(t, 'gs', { name: 'Vertriebspartner Nord GmbH', netAmount: '800.00' });
    // Signed in by the test below, which checks each step.
    opened = await openInBrowser(t, { signIn: false, dismissDialogs: dialogs });
    ({ context, page, base } = opened);
  });
  after(async () => {
    await opened?.close();
    await t?.close();
  });

  test('the accessibility check finds what it must (an image without text, an unlabelled field)', async () => {
    const probe = await context.newPage();
    await probe.setContent('<!doctype html><html lang="de"><title>x</title><main><img src="data:,"><input type="text"></main></html>');
    const found = (await seriousViolations(probe)).map((v) => v.id).sort();
    await probe.close();
    assert.deepEqual(found, ['image-alt', 'label']);
  });

  test('sign-in, the forced password change, then the dashboard', async () => {
    await page.goto(`${base}/app/invoices`);
    assert.match(page.url(), /\/app\/sign-in\?next=%2Fapp%2Finvoices$/);
    await assertAccessible(page, 'sign-in');
    await screenshot(page, 'sign-in');
    await page.getByLabel('E-Mail-Adresse').fill(t.company.adminEmail);
    await page.getByLabel('Passwort').fill('falsch falsch');
    await page.getByRole('button', { name: 'Anmelden' }).click();
    assert.equal(await page.getByRole('alert').textContent(), 'E-Mail-Adresse oder Passwort ist falsch.');
    await page.getByLabel('Passwort').fill(t.company.password);
    await page.getByRole('button', { name: 'Anmelden' }).click();
    await arrivedAt(page, /\/app\/password$/);
    assert.match((await page.getByRole('status').textContent()) ?? '', /Einmal-Passwort/);
    await assertAccessible(page, 'password change');
    await page.getByLabel('Aktuelles Passwort').fill(t.company.password);
    await page.getByLabel('Neues Passwort', { exact: true }).fill('ein gutes neues Passwort');
    await page.getByLabel('Neues Passwort wiederholen').fill('ein gutes neues Passwort');
    await page.getByRole('button', { name: 'Passwort ändern' }).click();
    await arrivedAt(page, /\/app\/dashboard$/);
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Übersicht');
    assert.match((await page.locator('.tile').first().textContent()) ?? '', /Offen\s*340,24\s€\s*4 Rechnungen/);
    await assertAccessible(page, 'dashboard');
    await screenshot(page, 'dashboard');
    // The session cookie is out of JavaScript's reach.
    assert.equal(await page.evaluate(() => document.cookie.includes('kontor_session')), false);
  });

  test('the invoice list by keyboard: "/" searches, headers sort, names show as text', async () => {
    await page.goto(`${base}/app/invoices`);
    await assertAccessible(page, 'invoices');
    await screenshot(page, 'invoices');
    await page.keyboard.press('/');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'q');
    await page.keyboard.type('Söhne');
    await page.keyboard.press('Enter');
    await arrivedAt(page, /q=S%C3%B6hne/);
    const cells = page.locator('tbody tr td:nth-child(2)');
    assert.equal(await cells.count(), 1);
    assert.equal(await cells.first().textContent(), XSS_NAME);
    assert.equal(await page.locator('tbody img').count(), 0);
    await page.getByRole('link', { name: 'Zurücksetzen' }).click();
    await page.getByRole('link', { name: 'Brutto' }).click();
    assert.match(page.url(), /sort=gross&dir=desc/);
    assert.equal(await page.locator('th[aria-sort="descending"]').textContent(), 'Brutto ▼');
    // The skip link is the first thing Tab reaches.
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Zum Inhalt springen');
    assert.deepEqual(dialogs, [], 'no script of a customer name ran');
  });

  test('issuing a draft, and confirming the VAT warning of another', async () => {
    await page.goto(`${base}/app/invoices?status=draft`);
    await page.locator(`a[href="/app/invoices/${drafts['draft-de']}"]`).click();
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Entwurf');
    await assertAccessible(page, 'draft');
    await page.getByRole('button', { name: 'Rechnung ausstellen' }).click();
    await arrivedAt(page, /done=issued$/);
    assert.match((await page.getByRole('heading', { level: 1 }).textContent()) ?? '', /^Rechnung RE-2026-\d{5}$/);
    assert.equal(await page.getByRole('status').textContent(), 'Die Rechnung wurde ausgestellt.');
    assert.equal(await page.locator('iframe.pdf').count(), 1);
    await assertAccessible(page, 'issued invoice');
    await screenshot(page, 'invoice');

    await page.goto(`${base}/app/invoices/${drafts['draft-at']}`);
    assert.equal(await page.getByRole('heading', { level: 2, name: 'Umsatzsteuer-Hinweis bestätigen' }).count(), 1);
    assert.match((await page.locator('.panel.warn li').first().textContent()) ?? '', /Position 1 hat 19 % Umsatzsteuer/);
    await assertAccessible(page, 'tax warning');
    await screenshot(page, 'tax-warning');
    // The confirmation box is required: the browser does not send the form without it.
    await page.getByRole('button', { name: 'Bestätigen und ausstellen' }).click();
    assert.match(page.url(), new RegExp(`/app/invoices/${drafts['draft-at']}$`));
    await page.getByLabel(/Der Leistungsort liegt in Deutschland/).check();
    await page.getByRole('button', { name: 'Bestätigen und ausstellen' }).click();
    await arrivedAt(page, /done=issued$/);
    assert.match((await page.locator('section', { hasText: 'Bestätigter Umsatzsteuer-Hinweis' }).textContent()) ?? '', /Bestätigt von admin-main-/);
  });

  test('a bank statement upload, and a credit assigned by hand', async () => {
    const open = await issueInvoice(t, 'bank-1');
    await page.goto(`${base}/app/bank`);
    await assertAccessible(page, 'bank');
    await page.getByLabel('Kontoauszug (camt.053 oder MT940)').setInputFiles({
      name: 'auszug.xml',
      mimeType: 'application/xml',
      buffer: Buffer.from(camt([{ amount: '85.06', text: 'Sammelzahlung November', name: 'Beispiel AG', date: '2026-11-20' }])),
    });
    await page.getByRole('button', { name: 'Importieren' }).click();
    await page.getByRole('heading', { name: 'Kontoauszug importiert' }).waitFor();
    assert.match((await page.locator('.facts').first().textContent()) ?? '', /Nicht zugeordnet\s*1/);
    await assertAccessible(page, 'bank import result');
    await screenshot(page, 'bank');
    await page.getByLabel(/Rechnungsnummer für 85,06\s€ von Beispiel AG/).fill(open.number);
    await page.getByRole('button', { name: 'Zuordnen' }).click();
    await arrivedAt(page, /assigned=/);
    assert.equal(await page.getByRole('status').textContent(), `Die Zahlung wurde der Rechnung ${open.number} zugeordnet und gebucht.`);
    const invoice = await t.handle.db.selectFrom('invoices').select('status').where('number', '=', open.number).executeTakeFirstOrThrow();
    assert.equal(invoice.status, 'paid');
  });

  test('setting a payout IBAN (a wrong check digit first), then a payout run with its pain.001 file', async () => {
    await page.goto(`${base}/app/partners`);
    await assertAccessible(page, 'partners');
    await page.getByRole('link', { name: 'Vertriebspartner Nord GmbH' }).click();
    await page.getByLabel('IBAN').fill('DE02 1203 0000 0000 2020 52');
    await page.getByRole('button', { name: 'Auszahlungskonto speichern' }).click();
    assert.match((await page.getByRole('alert').textContent()) ?? '', /Die IBAN ist ungültig/);
    assert.equal(await page.getByLabel('IBAN').getAttribute('aria-invalid'), 'true');
    await assertAccessible(page, 'payout account refused');
    await page.getByLabel('IBAN').fill('DE02 1203 0000 0000 2020 51');
    await page.getByRole('button', { name: 'Auszahlungskonto speichern' }).click();
    await arrivedAt(page, /done=1$/);
    assert.match((await page.getByRole('region', { name: 'Auszahlungskonto' }).textContent()) ?? '', /DE02 •••• 2051/);
    await screenshot(page, 'partner');

    await page.getByRole('link', { name: 'Auszahlungen' }).click();
    await assertAccessible(page, 'payouts');
    await screenshot(page, 'payouts');
    // Nothing is ticked (issue 25): choose, review, then confirm.
    await page.getByRole('checkbox').first().check();
    await page.getByRole('button', { name: 'Auszahlung prüfen' }).click();
    await page.getByRole('button', { name: 'Auszahlung ausführen und als bezahlt vermerken' }).click();
    await arrivedAt(page, /\/app\/payouts\/prn_/);
    assert.match((await page.getByRole('status').textContent()) ?? '', /1 Überweisung über 95,20\s€ als bezahlt vermerkt/);
    await assertAccessible(page, 'payout run');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'SEPA-Datei (pain.001) herunterladen' }).click()]);
    const file = readFileSync((await download.path()) as string, 'utf8');
    assert.deepEqual(await sepaSchemaErrors(file), []);
    assert.match(file, /<InstdAmt Ccy="EUR">95\.20<\/InstdAmt>/);
    assert.match(file, /<IBAN>DE02120300000000202051<\/IBAN>/);
    const statement = await t.handle.db.selectFrom('commission_statements').select('paid_at').where('partner_id', '=', partnerId).executeTakeFirstOrThrow();
    assert.ok(statement.paid_at, 'the statement is marked paid');
  });

  test('the users page is for admins; a member is refused and does not see it in the navigation', async () => {
    await page.goto(`${base}/app/users`);
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Benutzer');
    await assertAccessible(page, 'users');
    await screenshot(page, 'users');
    await setUserRole(t.handle.db, t.clock, t.company.adminEmail, 'member');
    const refused = await page.goto(`${base}/app/users`);
    assert.equal(refused?.status(), 403);
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Dafür brauchen Sie die Rolle Administrator.');
    await assertAccessible(page, 'refused');
    await page.goto(`${base}/app/dashboard`);
    assert.equal(await page.getByRole('link', { name: 'Benutzer' }).count(), 0);
    await setUserRole(t.handle.db, t.clock, t.company.adminEmail, 'admin');
  });

  test('English as the second language', async () => {
    await page.goto(`${base}/app/dashboard`);
    await page.getByRole('link', { name: 'English' }).click();
    await arrivedAt(page, /\/app\/dashboard$/);
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Overview');
    await assertAccessible(page, 'dashboard (en)');
    await page.getByRole('link', { name: 'Deutsch' }).click();
  });
});
