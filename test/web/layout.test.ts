import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestApp, testApp } from '../helpers/app.ts';
import { putCustomer } from '../invoicing/helpers.ts';
import { issueInvoice } from '../payments/helpers.ts';
import { signedIn, type WebClient } from './client.ts';

// Issue 25 §5 (a phone and a keyboard) as the server sends it; the browser test
// (test/browser/responsive.test.ts) shows it at 390 and 1366 px. Every page of the shell has a
// menu button for the navigation (a button that says what it opens and whether it is open) and
// a link to the navigation for a browser without script; every table box is reached by the
// keyboard and named (region), after the table's own name, else its heading, else the page.

const NAME = 'Müller "Söhne" <b>& Co.</b>';

describe('the page shell for a phone and a keyboard', () => {
  let t: TestApp;
  let web: WebClient;
  let customerId: string;

  before(async () => {
    t = await testApp();
    customerId = (await putCustomer(t, 'kunde-1', { name: NAME })).id;
    await issueInvoice(t, 'a-1');
    web = await signedIn(t);
  });
  after(async () => {
    await t?.close();
  });

  test('a menu button controls the navigation, and a link leads to it without script', async () => {
    const page = await web.get('/app/dashboard');
    assert.equal(page.status, 200);
    assert.match(page.body, /<button type="button" class="nav-toggle" aria-expanded="false" aria-controls="nav">Menü<\/button>/);
    assert.match(page.body, /<nav class="sidebar" id="nav" aria-label="Kontor">/);
    assert.match(page.body, /<a class="nav-jump" href="#nav">Menü<\/a>/);
    // The skip link comes first; the button and the navigation come before main.
    const at = (marker: string) => page.body.indexOf(marker);
    assert.ok(at('class="skip" href="#main"') < at('class="nav-toggle"'));
    assert.ok(at('class="nav-toggle"') < at('id="nav"') && at('id="nav"') < at('<main id="main"'));
    assert.match(page.body, /<meta name="viewport" content="width=device-width, initial-scale=1">/);
    // The script that opens it comes from /app/assets (the CSP allows no inline script).
    assert.doesNotMatch(page.body, /<script>/);
    const script = await web.get('/app/assets/app.js');
    assert.match(script.body, /aria-expanded/);
  });

  test('in English the button says Menu', async () => {
    await web.get('/app/lang?to=en');
    const page = await web.get('/app/dashboard');
    assert.match(page.body, /aria-controls="nav">Menu<\/button>/);
    await web.get('/app/lang?to=de');
  });

  test('every table box is focusable and named: by the page title, by its heading, never by raw data', async () => {
    const list = await web.get('/app/invoices');
    assert.match(list.body, /<div class="table-wrap" role="region" tabindex="0" aria-label="Rechnungen"><table/);
    assert.doesNotMatch(list.body, /<div class="table-wrap">/, 'no box left unnamed');

    const customer = await web.get(`/app/customers/${customerId}`);
    assert.equal(customer.status, 200);
    const boxes = [...customer.body.matchAll(/<div class="table-wrap"([^>]*)>/g)].map((m) => m[1]);
    assert.ok(boxes.length >= 1);
    for (const attributes of boxes) {
      assert.match(attributes ?? '', /^ role="region" tabindex="0" aria-(label|labelledby)="[^"<>]+"$/);
    }
    // A name taken from text of the database stays text (escaped, no tag, no broken quote).
    assert.doesNotMatch(customer.body, /aria-label="[^"]*<b>/);
  });

  test('a table named by its own aria-labelledby keeps that name (the new invoice form)', async () => {
    const form = await web.get(`/app/invoices/new?customer=${customerId}`);
    assert.equal(form.status, 200);
    assert.match(
      form.body,
      /<div class="table-wrap" role="region" tabindex="0" aria-labelledby="lines-heading"><table class="table compact" aria-labelledby="lines-heading"/,
    );
  });
});
