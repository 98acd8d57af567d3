import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setUserRole } from '../../src/modules/access/manage-users.ts';
import { type TestApp, type TestCompany, testApp } from '../helpers/app.ts';
import { putCustomer } from '../invoicing/helpers.ts';
import { camt, importFile, issueInvoice } from '../payments/helpers.ts';
import { signedIn, type WebClient } from './client.ts';

// Issue 15 (customers): the customer list (search, sort, paging by key, open and overdue
// amounts) and a customer's account — open items after a partial payment with days
// overdue and totals, the credit an overpayment leaves, the last invoices — for members
// and admins, and nothing of another company's.

const XSS_NAME = '<img src=x onerror=alert(1)> & Söhne';
const text = (body: string) =>
  body
    .replace(/<[^>]+>/g, ' ')
    .replace(/&nbsp;|\u00a0/g, ' ')
    .replace(/\s+/g, ' ');

describe('customers in the app', () => {
  let t: TestApp;
  let web: WebClient;
  let customerId: string;
  let kundennummer: string;
  const numbers: Record<string, string> = {};
  let other: TestCompany;
  let otherCustomerId: string;

  before(async () => {
    t = await testApp({ now: '2026-10-20T09:00:00Z' });
    const customer = await putCustomer(t, 'kunde-1');
    customerId = customer.id;
    kundennummer = customer.kundennummer;
    // Two invoices on 20 October, due on 3 November; one more on 21 November.
    for (const ref of ['a-1', 'a-2']) numbers[ref] = (await issueInvoice(t, ref, { payment_terms_days: 14 })).number;
    t.clock.set('2026-11-21T09:00:00Z');
    numbers['a-3'] = (await issueInvoice(t, 'a-3', { payment_terms_days: 14 })).number;
    // 50.00 of a-1 (85.06) paid; a-2 paid with 100.00: 14.94 credit.
    const imported = await importFile(
      t,
      camt([
        { amount: '50.00', text: `Teilzahlung ${numbers['a-1']}`, name: 'Beispiel AG', date: '2026-11-20' },
        { amount: '100.00', text: `Rechnung ${numbers['a-2']}`, name: 'Beispiel AG', date: '2026-11-20' },
      ]),
    );
    assert.deepEqual([imported.totals.partially_matched + imported.totals.matched, imported.totals.credited], [2, '14.94'], JSON.stringify(imported.totals));
    await putCustomer(t, 'xss', { name: XSS_NAME, email: 'xss@example.com' });
    for (let i = 1; i <= 55; i++)
      await putCustomer(t, `p-${i}`, {
        name: `Seitenkunde ${String(i).padStart(3, '0')}`,
        customer_type: 'private',
        vat_id: null,
        email: `seite-${i}@example.com`,
      });
    other = await t.newCompany('other');
    const res = await t.request('PUT', '/v1/customers/by-ref/crm/fremd', { key: other.apiKey, body: { name: 'Fremdkunde GmbH', customer_type: 'business' } });
    assert.equal(res.statusCode, 201, res.body);
    otherCustomerId = res.json().id;
    web = await signedIn(t);
  });
  after(() => t.close());

  test('the account: open items after a partial payment, days overdue, totals, the credit of an overpayment', async () => {
    const page = await web.get(`/app/customers/${customerId}`);
    assert.equal(page.status, 200);
    const body = text(page.body);
    assert.match(page.body, /<h1>Beispiel AG<\/h1>/);
    assert.match(body, new RegExp(`Kundennummer ${kundennummer}`));
    assert.match(body, /Ringstraße 5 80331 München DE/);
    assert.match(body, /USt-IdNr\. DE136695976/);
    assert.match(page.body, /buchhaltung@<wbr>beispiel\.example/);
    // Open items: a-1 (35.06 left, 18 days overdue) and a-3 (not due); a-2 is paid.
    const open = /<h2 id="open-heading">[\s\S]*?<\/section>/.exec(page.body)?.[0] ?? '';
    assert.match(text(open), new RegExp(`${numbers['a-1']} Teilweise bezahlt 20\\.10\\.2026 03\\.11\\.2026 85,06 € 50,00 € 35,06 € 18 Tage überfällig`));
    assert.match(text(open), new RegExp(`${numbers['a-3']} 21\\.11\\.2026 05\\.12\\.2026 85,06 € 0,00 € 85,06 € nicht fällig`));
    assert.doesNotMatch(open, new RegExp(numbers['a-2'] as string));
    assert.match(open, new RegExp(`href="/app/invoices/inv_[0-9a-z]{26}">${numbers['a-1']}<`));
    assert.match(text(open), /Offen gesamt 120,12 € Davon überfällig 35,06 €/);
    // The facts on top say the same, and the credit.
    assert.match(body, /Offen gesamt 120,12 € Davon überfällig 35,06 € Guthaben 14,94 €/);
    const credits = /<h2 id="credits-heading">[\s\S]*?<\/section>/.exec(page.body)?.[0] ?? '';
    assert.match(text(credits), new RegExp(`20\\.11\\.2026 14,94 € ${numbers['a-2']} Beispiel AG Rechnung ${numbers['a-2']} Summe 14,94 €`));
    // The last invoices, newest first, with their states.
    const invoices = /<h2 id="invoices-heading">[\s\S]*?<\/section>/.exec(page.body)?.[0] ?? '';
    assert.match(text(invoices), new RegExp(`${numbers['a-3']} .*Ausgestellt.* ${numbers['a-2']} .*Bezahlt.* ${numbers['a-1']} .*Teilweise bezahlt`));
    assert.match(page.body, /Keine Verträge mit diesem Kunden\./);
    // In English the labels and the formats of amounts and dates change (issue 25).
    web.cookies.set('kontor_lang', 'en');
    const en = text((await web.get(`/app/customers/${customerId}`)).body);
    web.cookies.delete('kontor_lang');
    assert.match(en, /Total open €120\.12 Of which overdue €35\.06 Credit €14\.94/);
    assert.match(en, /18 days overdue/);
  });

  test('the list: open and overdue amounts per customer, names as text, search by name, number and e-mail', async () => {
    const list = await web.get('/app/customers');
    assert.equal(list.status, 200);
    assert.match(list.body, /aria-current="page">Kunden</);
    const row = new RegExp(`<tr>\\s*<td class="wrap"><a href="/app/customers/${customerId}">Beispiel AG</a>[\\s\\S]*?</tr>`).exec(list.body)?.[0] ?? '';
    assert.match(text(row), new RegExp(`Beispiel AG buchhaltung@beispiel.example ${kundennummer} kunde-1 Geschäftskunde DE 120,12 € 35,06 €`));
    // The name is shown as text, never as markup.
    assert.match(list.body, /&lt;img src=x onerror=alert\(1\)&gt; &amp; Söhne/);
    assert.doesNotMatch(list.body, /<img src=x/);
    const names = (body: string) => [...body.matchAll(/<a href="\/app\/customers\/cus_[0-9a-z]{26}">([^<]+)<\/a>/g)].map((m) => m[1]);
    // Sorted by name: "&lt;img…" first (as text), Beispiel AG, then the Seitenkunden.
    assert.deepEqual(names(list.body).slice(0, 3), ['&lt;img src=x onerror=alert(1)&gt; &amp; Söhne', 'Beispiel AG', 'Seitenkunde 001']);
    for (const [q, expected] of [
      ['söhne', ['&lt;img src=x onerror=alert(1)&gt; &amp; Söhne']],
      ['BEISPIEL', ['Beispiel AG']],
      [kundennummer, ['Beispiel AG']],
      ['xss@example', ['&lt;img src=x onerror=alert(1)&gt; &amp; Söhne']],
      ['100%', []],
    ] as const) {
      const found = await web.get(`/app/customers?q=${encodeURIComponent(q)}`);
      assert.equal(found.status, 200, q);
      assert.deepEqual(names(found.body), expected, q);
      if (expected.length === 0) assert.match(found.body, /Keine Kunden gefunden/);
    }
  });

  test('paging by key, 50 a page, both ways, and sorted by name either way', async () => {
    const first = await web.get('/app/customers?q=Seitenkunde');
    const names = (body: string) => [...body.matchAll(/>(Seitenkunde \d{3})<\/a>/g)].map((m) => m[1]);
    assert.equal(names(first.body).length, 50);
    assert.equal(names(first.body)[0], 'Seitenkunde 001');
    assert.doesNotMatch(first.body, /rel="prev"/);
    const next = /href="([^"]+)" rel="next"/.exec(first.body)?.[1]?.replace(/&amp;/g, '&') as string;
    const second = await web.get(next);
    assert.deepEqual(names(second.body), ['Seitenkunde 051', 'Seitenkunde 052', 'Seitenkunde 053', 'Seitenkunde 054', 'Seitenkunde 055']);
    assert.doesNotMatch(second.body, /rel="next"/);
    const prev = /href="([^"]+)" rel="prev"/.exec(second.body)?.[1]?.replace(/&amp;/g, '&') as string;
    const back = await web.get(prev);
    assert.deepEqual(names(back.body), names(first.body));
    assert.doesNotMatch(back.body, /rel="prev"/);
    const desc = await web.get('/app/customers?q=Seitenkunde&dir=desc');
    assert.equal(names(desc.body)[0], 'Seitenkunde 055');
    assert.match(desc.body, /aria-sort="descending"/);
    const byNumber = await web.get('/app/customers?q=Seitenkunde&sort=number&dir=desc');
    assert.equal(names(byNumber.body)[0], 'Seitenkunde 055');
    const page2 = await web.get(/href="([^"]+)" rel="next"/.exec(byNumber.body)?.[1]?.replace(/&amp;/g, '&') as string);
    assert.deepEqual(names(page2.body), ['Seitenkunde 005', 'Seitenkunde 004', 'Seitenkunde 003', 'Seitenkunde 002', 'Seitenkunde 001']);
    // A cursor made up by hand does no harm.
    for (const query of ['after=%27%3B--&sort=bogus&dir=sideways', `after=${Buffer.from('["a\\u0000","b"]').toString('base64url')}`, 'q=%00'])
      assert.equal((await web.get(`/app/customers?${query}`)).status, 200, query);
  });

  test("another company's customer, a malformed id: 404, nothing shown", async () => {
    for (const path of [`/app/customers/${otherCustomerId}`, '/app/customers/nope', '/app/customers/cus_123', `/app/customers/${customerId.toUpperCase()}`]) {
      const res = await web.get(path);
      assert.equal(res.status, 404, path);
      assert.doesNotMatch(res.body, /Fremdkunde/);
    }
  });

  test('a member sees the pages; a company without customers shows the empty state', async () => {
    const client = await signedIn(t, 'ein gutes Passwort 9', other);
    await setUserRole(t.handle.db, t.clock, other.adminEmail, 'member');
    const own = await client.get(`/app/customers/${otherCustomerId}`);
    assert.equal(own.status, 200);
    assert.match(own.body, /Keine offenen Posten/);
    assert.match(own.body, /Kein Guthaben\./);
    assert.equal((await client.get(`/app/customers/${customerId}`)).status, 404);
    const empty = await t.newCompany('empty');
    const newcomer = await signedIn(t, 'ein gutes Passwort 8', empty);
    const list = await newcomer.get('/app/customers');
    assert.equal(list.status, 200);
    assert.match(list.body, /Noch keine Kunden\./);
  });
});
