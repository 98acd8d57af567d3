import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { type TestApp, testApp } from '../helpers/app.ts';
import { arrivedAt, assertAccessible, chromiumMissing, type InBrowser, openInBrowser, screenshot } from './browser.ts';

// Issue 15, point 3 in Chromium over real HTTP: the settings page and the period locks, each
// checked with axe-core (no serious or critical violation); one field saved with the
// keyboard, a refusal shown at its field, and a period locked after the confirmation.
// Screenshots: settings, settings-period-locks.

const missing = chromiumMissing();

describe('settings in Chromium', { skip: missing }, () => {
  let t: TestApp;
  let opened: InBrowser;
  let page: Page;
  let base: string;

  before(async () => {
    t = await testApp();
    opened = await openInBrowser(t);
    ({ page, base } = opened);
  });
  after(async () => {
    await opened?.close();
    await t?.close();
  });

  test('the settings page: a field saved with the keyboard, a wrong IBAN shown at its field', async () => {
    await page.getByRole('link', { name: 'Einstellungen' }).click();
    await arrivedAt(page, /\/app\/settings$/);
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Einstellungen');
    await assertAccessible(page, 'settings');
    await screenshot(page, 'settings');

    const phone = page.getByLabel('Telefon');
    await phone.fill('+49 30 555 0100');
    await phone.press('Enter');
    await arrivedAt(page, /saved=issuing/);
    assert.equal(await page.getByRole('status').textContent(), '„Rechnungsangaben“ wurde gespeichert.');
    assert.equal(await page.getByLabel('Telefon').inputValue(), '+49 30 555 0100');
    const row = await t.handle.db.selectFrom('companies').select('phone').where('id', '=', t.company.companyId).executeTakeFirstOrThrow();
    assert.equal(row.phone, '+49 30 555 0100');

    await page.getByLabel('IBAN').fill('DE89 3704 0044 0532 0130 01');
    await page.locator('#issuing').getByRole('button', { name: 'Speichern' }).click();
    assert.match((await page.getByRole('alert').textContent()) ?? '', /„Rechnungsangaben“ wurde nicht gespeichert/);
    assert.equal(await page.getByLabel('IBAN').getAttribute('aria-invalid'), 'true');
    assert.equal(await page.getByLabel('IBAN').inputValue(), 'DE89 3704 0044 0532 0130 01');
    assert.match((await page.locator('#f-iban-error').textContent()) ?? '', /Keine gültige IBAN/);
    await assertAccessible(page, 'settings refused');
  });

  test('the period locks: the form asks first, then the period is locked', async () => {
    await page.goto(`${base}/app/settings`);
    await page.getByRole('link', { name: 'Buchungszeiträume sperren' }).click();
    await arrivedAt(page, /\/app\/settings\/period-locks$/);
    await assertAccessible(page, 'period locks');
    await page.getByLabel('Buchungszeitraum sperren bis').fill('2026-10-31');
    const asked: string[] = [];
    page.once('dialog', (dialog) => {
      asked.push(dialog.message());
      void dialog.accept();
    });
    await page.getByRole('button', { name: 'Endgültig sperren' }).click();
    await arrivedAt(page, /done=locked$/);
    assert.deepEqual(asked, ['Buchungszeitraum wirklich bis zum gewählten Tag sperren? Das lässt sich nicht rückgängig machen.']);
    assert.equal(await page.getByRole('status').textContent(), 'Der Buchungszeitraum ist jetzt bis einschließlich 31.10.2026 gesperrt.');
    assert.equal(await page.locator('tbody tr').count(), 1);
    await assertAccessible(page, 'period locks after the lock');
    await screenshot(page, 'settings-period-locks');
  });
});
