import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { allInvoices, parseListQuery } from '../../src/web/pages/invoice-list.ts';
import { type TestApp, testApp } from '../helpers/app.ts';
import { invoiceBody, postInvoice, putCustomer } from '../invoicing/helpers.ts';
import { issueInvoice } from '../payments/helpers.ts';
import { signedIn, type WebClient } from './client.ts';

// Issue 15, points 2 and 4 (first screens): the invoice list (search by number or customer,
// status, period, sortable columns, paging by key) and the dashboard (open, overdue, paid,
// revenue by month); text from the database is shown as text, never as markup.

const XSS_NAME = '<script>alert("x")</script><img src=x onerror=alert(1)> & Söhne';

/** The rows of the invoice table: [number, customer, date, due, gross, status]. */
function rows(body: string): string[][] {
  const tbody = /<tbody>([\s\S]*?)<\/tbody>/.exec(body)?.[1] ?? '';
  return [...tbody.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((m) =>
    [...(m[1] as string).matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((c) =>
      (c[1] as string)
        .replace(/<[^>]+>/g, '')
        .replace(/\s+/g, ' ')
        .trim(),
    ),
  );
}

describe('back-office invoice list and dashboard', () => {
  let t: TestApp;
  let web: WebClient;
  const issued: { number: string; total_gross: string }[] = [];

  before(async () => {
    t = await testApp();
    await putCustomer(t, 'kunde-1');
    await putCustomer(t, 'xss', { name: XSS_NAME });
    await putCustomer(t, 'zeta', { name: 'Zeta Handel GmbH' });
    for (const ref of ['a-1', 'a-2', 'a-3']) issued.push(await issueInvoice(t, ref));
    issued.push(await issueInvoice(t, 'x-1', { customer: { source: 'crm', external_ref: 'xss' } }));
    issued.push(await issueInvoice(t, 'z-1', { customer: { source: 'crm', external_ref: 'zeta' } }));
    // 52 drafts with distinct amounts (1.00 … 52.00 net at 19 %) for sorting and paging.
    for (let i = 1; i <= 52; i++) {
      const res = await postInvoice(
        t,
        invoiceBody(`d-${i}`, { lines: [{ description: 'Beratung', quantity: '1', unit: 'Stunde', unit_price_net: `${i}.00`, vat_rate: 19 }] }),
      );
      assert.equal(res.statusCode, 201, res.body);
    }
    // As the daily overdue marking leaves an unpaid invoice past its due date.
    await t.handle.db
      .updateTable('invoices')
      .set({ overdue: true })
      .where('number', '=', issued[1]?.number as string)
      .execute();
    web = await signedIn(t);
  });
  after(() => t.close());

  test('names from the database show as text: no markup of theirs reaches the page', async () => {
    const page = await web.get('/app/invoices?q=S%C3%B6hne');
    assert.equal(page.status, 200);
    assert.doesNotMatch(page.body, /<script>alert|<img src=x/);
    assert.match(page.body, /&lt;script&gt;alert\(&quot;x&quot;\)&lt;\/script&gt;&lt;img src=x onerror=alert\(1\)&gt; &amp; Söhne/);
    assert.deepEqual(
      rows(page.body).map((r) => r[0]),
      [issued[3]?.number],
    );
    // A search term with markup comes back in the search field as text, too.
    const echoed = await web.get(`/app/invoices?q=${encodeURIComponent('"><script>alert(2)</script>')}`);
    assert.doesNotMatch(echoed.body, /<script>alert\(2\)/);
    assert.match(echoed.body, /value="&quot;&gt;&lt;script&gt;alert\(2\)&lt;\/script&gt;"/);
  });

  test('search by number or customer, filter by status and period', async () => {
    const byNumber = rows((await web.get(`/app/invoices?q=${encodeURIComponent(issued[2]?.number as string)}`)).body);
    assert.deepEqual(
      byNumber.map((r) => r[0]),
      [issued[2]?.number],
    );
    const byCustomer = rows((await web.get('/app/invoices?q=zeta&status=issued')).body);
    assert.deepEqual(byCustomer, [[issued[4]?.number, 'Zeta Handel GmbH', '21.11.2026', '05.12.2026', '85,06 €', 'Ausgestellt']]);
    const open = rows((await web.get('/app/invoices?status=open')).body);
    assert.equal(open.length, 5);
    const overdue = rows((await web.get('/app/invoices?status=overdue')).body);
    assert.deepEqual(
      overdue.map((r) => [r[0], r[5]]),
      [[issued[1]?.number, 'Ausgestellt überfällig']],
    );
    const drafts = await web.get('/app/invoices?status=draft&sort=gross&dir=asc');
    assert.equal(rows(drafts.body)[0]?.[0], 'Entwurf');
    assert.equal(rows((await web.get('/app/invoices?from=2026-11-22')).body).length, 0);
    assert.match((await web.get('/app/invoices?from=2026-11-22')).body, /Keine Rechnungen gefunden/);
    assert.equal(rows((await web.get('/app/invoices?from=2026-11-21&to=2026-11-21')).body).length, 5);
  });

  test('columns sort both ways, and paging by key shows every invoice exactly once', async () => {
    const first = await web.get('/app/invoices?status=draft&sort=gross&dir=asc');
    const page1 = rows(first.body);
    assert.equal(page1.length, 50);
    assert.equal(page1[0]?.[4], '1,19 €');
    assert.equal(page1[49]?.[4], '59,50 €');
    const next = /<a href="([^"]+)" rel="next">Weiter<\/a>/.exec(first.body)?.[1]?.replace(/&amp;/g, '&');
    assert.ok(next, 'a next page link');
    const page2 = rows((await web.get(next)).body);
    assert.deepEqual(
      page2.map((r) => r[4]),
      ['60,69 €', '61,88 €'],
    );
    const desc = rows((await web.get('/app/invoices?status=draft&sort=gross&dir=desc')).body);
    assert.equal(desc[0]?.[4], '61,88 €');
    // The active column says how it is sorted, for screen readers too.
    assert.match(first.body, /aria-sort="ascending"><a href="[^"]*dir=desc[^"]*">Brutto ▲/);
    const byCustomer = rows((await web.get('/app/invoices?status=issued&sort=customer&dir=asc')).body).map((r) => r[1]);
    assert.deepEqual(
      byCustomer,
      [...byCustomer].sort((a, b) => (a as string).toLowerCase().localeCompare((b as string).toLowerCase())),
    );
    // A broken cursor is ignored (the first page), never an error.
    assert.equal((await web.get('/app/invoices?after=%%%')).status, 200);
  });

  test('net and open amount columns when switched on; the links keep them', async () => {
    const page = await web.get('/app/invoices?q=zeta&col_net=1&col_open=1');
    assert.deepEqual(rows(page.body), [[issued[4]?.number, 'Zeta Handel GmbH', '21.11.2026', '05.12.2026', '74,00 €', '85,06 €', '85,06 €', 'Ausgestellt']]);
    assert.match(page.body, /<th scope="col" class="num">Netto<\/th>/);
    assert.match(page.body, /<th scope="col" class="num">Offen<\/th>/);
    assert.match(page.body, /<input type="checkbox" name="col_net" value="1" checked>/);
    assert.match(page.body, /href="\/app\/invoices\?q=zeta&amp;sort=number&amp;dir=asc&amp;col_net=1&amp;col_open=1"/);
    // Without them, the list is as before: six columns.
    assert.equal(rows((await web.get('/app/invoices?q=zeta')).body)[0]?.length, 6);
    // A draft owes nothing yet: "–".
    assert.equal(rows((await web.get('/app/invoices?status=draft&sort=gross&dir=asc&col_open=1')).body)[0]?.[5], '–');
  });

  test('the filtered list downloads as CSV for German Excel: BOM, ";", decimal comma, DD.MM.YYYY, CRLF, a header row', async () => {
    const page = await web.get('/app/invoices?status=issued&sort=number&dir=asc');
    assert.match(
      page.body,
      /<a class="button" href="\/app\/invoices\.csv\?status=issued&amp;sort=number&amp;dir=asc" download>Als CSV exportieren \(Excel\)<\/a>/,
    );
    const res = await t.app.inject({
      method: 'GET',
      url: '/app/invoices.csv?status=issued&sort=number&dir=asc',
      headers: { host: 'kontor.test', cookie: [...web.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'text/csv; charset=utf-8');
    assert.match(String(res.headers['content-disposition']), /^attachment; filename="rechnungen-2026-11-21\.csv"$/);
    const raw = res.rawPayload;
    assert.deepEqual([...raw.subarray(0, 3)], [0xef, 0xbb, 0xbf], 'UTF-8 byte order mark');
    const text = raw.subarray(3).toString('utf8');
    assert.ok(text.endsWith('\r\n'));
    const lines = text.split('\r\n').slice(0, -1);
    assert.ok(!lines.some((l) => l.includes('\n')), 'CRLF only');
    assert.equal(lines[0], 'Rechnungsnummer;Art;Kunde;Rechnungsdatum;Fällig am;Netto;USt;Brutto;Bezahlt;Offen;Status;Überfällig');
    assert.equal(lines.length, 6);
    assert.equal(lines[1], `${issued[0]?.number};Rechnung;Beispiel AG;21.11.2026;05.12.2026;74,00;11,06;85,06;0,00;85,06;Ausgestellt;nein`);
    assert.equal(lines[2], `${issued[1]?.number};Rechnung;Beispiel AG;21.11.2026;05.12.2026;74,00;11,06;85,06;0,00;85,06;Ausgestellt;ja`);
    // A name with quotes and markup is one quoted field, as a spreadsheet reads it.
    assert.equal(
      lines[4],
      `${issued[3]?.number};Rechnung;"<script>alert(""x"")</script><img src=x onerror=alert(1)> & Söhne";21.11.2026;05.12.2026;74,00;11,06;85,06;0,00;85,06;Ausgestellt;nein`,
    );
  });

  test('the export reads the database page by page: every invoice exactly once, never more than a page in memory', async () => {
    const query = parseListQuery({ sort: 'gross', dir: 'asc' });
    const pages: number[] = [];
    const ids: string[] = [];
    for await (const page of allInvoices(t.handle.db, t.company.companyId, query, 10)) {
      pages.push(page.length);
      ids.push(...page.map((r) => r.id));
    }
    assert.deepEqual(pages, [10, 10, 10, 10, 10, 7]);
    assert.equal(new Set(ids).size, 57);
  });

  test('the dashboard shows open, overdue and paid amounts and net revenue by month', async () => {
    const page = await web.get('/app/dashboard');
    assert.equal(page.status, 200);
    const tile = (label: string) =>
      new RegExp(`${label}</span><span class="tile-amount">([^<]+)</span><span class="tile-count">([^<]+)</span>`).exec(page.body)?.slice(1);
    assert.deepEqual(tile('Offen'), ['425,30\u00a0€', '5 Rechnungen']);
    assert.deepEqual(tile('Überfällig'), ['85,06\u00a0€', '1 Rechnung']);
    assert.deepEqual(tile('Bezahlt 2026'), ['0,00\u00a0€', '0 Rechnungen']);
    // November 2026: five issued invoices of 74.00 net each (drafts do not count).
    assert.match(page.body, /<th scope="row">Nov 2026<\/th><td class="num">370,00\u00a0€<\/td>/);
    assert.match(page.body, /<th scope="row">Okt 2026<\/th><td class="num">0,00\u00a0€<\/td>/);
    // Issue 25: each bar carries its amount and its month with the year, for screen readers too
    // (a list of named items); the year stands under the first bar and under January.
    assert.match(page.body, /<svg viewBox="0 0 720 240" role="list" aria-labelledby="chart-title">/);
    assert.match(page.body, /<g role="listitem" aria-label="Nov 2026: 370,00\u00a0€">/);
    assert.equal([...page.body.matchAll(/<g role="listitem" aria-label="[^"]+ 20\d\d: [^"]+">/g)].length, 12);
    const labels = [...page.body.matchAll(/class="value">([^<]+)<\/text>/g)].map((m) => m[1]);
    assert.deepEqual(labels, [...Array(11).fill('0\u00a0€'), '370\u00a0€']);
    const years = [...page.body.matchAll(/class="axis year">(\d{4})<\/text>/g)].map((m) => m[1]);
    assert.deepEqual(years, ['2025', '2026']);
  });

  test('in English, labels change and amounts follow the English format', async () => {
    await web.get('/app/lang?to=en');
    const page = await web.get('/app/dashboard');
    assert.match(page.body, /<html lang="en">/);
    assert.match(page.body, /<h1>Overview<\/h1>/);
    assert.match(page.body, /€425\.30/);
    assert.match(page.body, /<g role="listitem" aria-label="Nov 2026: €370\.00">/);
    assert.match(page.body, /class="value">€370<\/text>/);
    await web.get('/app/lang?to=de');
  });
});
