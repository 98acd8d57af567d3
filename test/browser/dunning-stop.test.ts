import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { issueInvoice, putCustomerOf } from '../dunning/helpers.ts';
import { type TestApp, testApp } from '../helpers/app.ts';
import { BUSINESS_CUSTOMER } from '../invoicing/helpers.ts';
import { arrivedAt, assertAccessible, chromiumMissing, type InBrowser, openInBrowser, screenshot } from './browser.ts';

// Issue 25 (dunning) in Chromium: an overdue invoice's "Mahnwesen" box sets a Mahnsperre
// with its reason by keyboard, shows it with who and when; the dunning page lists it with
// the admins' Basiszinssatz warning (the built-in table lacks 2026-H2). Axe-clean at 1280 px
// and 390 px. Screenshots: dunning-stop (the invoice page), dunning-stops, dunning-stops-390 (the dunning page).

const missing = chromiumMissing();

describe('Mahnsperre in Chromium', { skip: missing }, () => {
  let t: TestApp;
  let opened: InBrowser;
  let page: Page;
  let base: string;
  let invoice: { id: string; number: string };

  before(async () => {
    t = await testApp();
    const s = { company: t.company, mailer: t.mailer };
    await putCustomerOf(t, s, 'strittig', { ...BUSINESS_CUSTOMER, name: 'Strittig KG', email: 'buchhaltung@strittig.example' });
    invoice = await issueInvoice(t, s, 'b-1', 'strittig', '2026-11-21');
    t.clock.set('2026-12-08T09:00:00Z');
    opened = await openInBrowser(t);
    ({ page, base } = opened);
  });
  after(async () => {
    await opened?.close();
    await t?.close();
  });

  test('set a Mahnsperre on the invoice page by keyboard; the dunning page lists it and warns about the Basiszinssatz', async () => {
    await page.goto(`${base}/app/invoices/${invoice.id}`);
    const box = page.getByRole('region', { name: 'Mahnwesen' });
    assert.equal(await box.getByRole('button', { name: 'Zahlungserinnerung jetzt senden' }).count(), 1);
    await assertAccessible(page, 'invoice with dunning box');
    await box.getByLabel('Grund der Mahnsperre').fill('Kunde bestreitet die Leistung');
    await page.keyboard.press('Enter');
    await arrivedAt(page, /dunning=stop_set$/);
    assert.match((await box.getByRole('status').textContent()) ?? '', /Die Mahnsperre ist gesetzt\./);
    assert.match((await box.textContent()) ?? '', /Mahnsperre seit 08\.12\.2026, \d\d:\d\d \(gesetzt von .+\): „?Kunde bestreitet die Leistung/);
    assert.equal(await box.getByRole('button', { name: /jetzt senden/ }).count(), 0);
    await assertAccessible(page, 'invoice with a Mahnsperre');
    await screenshot(page, 'dunning-stop');

    await page.goto(`${base}/app/dunning`);
    assert.equal(await page.getByRole('heading', { name: 'Basiszinssatz fehlt' }).count(), 1);
    const stops = page.locator('section[aria-labelledby="stops-heading"]');
    assert.match((await stops.textContent()) ?? '', new RegExp(`${invoice.number}.*Strittig KG.*Kunde bestreitet die Leistung`, 's'));
    await assertAccessible(page, 'dunning page');
    await screenshot(page, 'dunning-stops');
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await assertAccessible(page, 'dunning page at 390 px');
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1), 'no sideways scrolling at 390 px');
    await screenshot(page, 'dunning-stops-390');

    // Lifted by keyboard from the list.
    await page.getByRole('button', { name: `Mahnsperre aufheben – Mahnsperre für ${invoice.number} aufheben` }).focus();
    await page.keyboard.press('Enter');
    await arrivedAt(page, /dunning=stop_lifted$/);
    assert.match((await page.getByRole('status').textContent()) ?? '', /Die Mahnsperre ist aufgehoben\./);
    await page.setViewportSize({ width: 1280, height: 800 });
  });
});
