import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestApp, testApp } from '../helpers/app.ts';
import { putCustomer } from '../invoicing/helpers.ts';
import { issueInvoice } from '../payments/helpers.ts';
import { signedIn, type WebClient } from './client.ts';

// Issue 25, §4 (no 500 for bad query values): every list page of the app, given impossible
// dates, unknown statuses, negative or huge page values, malformed cursors, repeated
// parameters and control characters, answers a page (the value ignored) or a German 400 —
// never a server error. And /app/lang with a malformed Referer goes back to the app.

const cursor = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/**
 * Query strings no form of the app sends, but a hand-edited address or an old bookmark does;
 * each page reads its own parameters and ignores the rest, so one address tries several.
 */
const BAD = [
  'from=2026-02-30&to=2026-02-29&status=bogus&sort=nonsense&dir=sideways',
  'from=2026-13-01&to=2026-00-10&area=%00&person=-1&partner=%00',
  'from=0000-01-01&to=99999-01-01&status[]=open',
  'from=heute&to=2026-1-1&status=open&status=paid',
  'after=%%%&before=%%%&page=-1&limit=-5',
  'after=-1&before=-1&page=1e308&limit=999999999',
  'after=99999999999999999999999999&before=99999999999999999999999999',
  `after=${cursor({ value: 1 })}&before=${cursor([1, 2])}`,
  'q=%00&after=a%00&before=a%00',
  'q=x&q=y&after=1&after=2',
  `q=${'x'.repeat(5000)}&after=${'y'.repeat(5000)}`,
  'q=%C3%28&customer=%00',
];

/** Paging keys of the invoice list that decode but do not fit their sort column. */
const BAD_INVOICE_CURSORS = [
  `after=${cursor(['2026-02-30', 'inv_x'])}`,
  `sort=gross&after=${cursor(['zwölf', 'inv_x'])}`,
  `sort=gross&after=${cursor(['99999999999999999999999999', 'inv_x'])}`,
  `sort=due_date&after=${cursor(['not a date', 'inv_x'])}`,
  `sort=number&after=${cursor(['RE\u0000', 'inv_x'])}`,
];

describe('bad query values on the list pages', () => {
  let t: TestApp;
  let web: WebClient;
  let pages: string[];

  before(async () => {
    t = await testApp();
    await putCustomer(t, 'kunde-1');
    await issueInvoice(t, 'a-1');
    web = await signedIn(t);
    await web.get('/app/webhooks');
    const created = await web.postPairs('/app/webhooks', [
      ['url', 'https://hooks.example.com/kontor'],
      ['event', 'invoice.paid'],
    ]);
    assert.ok(created.statusCode < 400, created.body);
    const endpoint = await t.handle.db.selectFrom('webhook_endpoints').select('id').where('company_id', '=', t.company.companyId).executeTakeFirstOrThrow();
    pages = [
      '/app/invoices',
      '/app/invoices.csv',
      '/app/customers',
      '/app/contracts',
      '/app/statements',
      '/app/audit',
      `/app/webhooks/${endpoint.id}`,
      '/app/dunning',
      '/app/api-keys',
      '/app/exports',
      '/app/attributions',
      '/app/invoices/new',
      '/app/dashboard',
    ];
  });
  after(() => t.close());

  test('every list page answers a page or a German 400 for every bad value, never a 5xx', async () => {
    const failures: string[] = [];
    const addresses = [...pages.flatMap((path) => BAD.map((query) => `${path}?${query}`)), ...BAD_INVOICE_CURSORS.map((query) => `/app/invoices?${query}`)];
    for (const address of addresses) {
      const res = await web.get(address);
      if (res.status !== 200 && res.status !== 400) failures.push(`${address.slice(0, 120)} → ${res.status}`);
      else if (res.status === 400) assert.match(res.body, /<html lang="de">/, `${address}: a German page`);
    }
    assert.deepEqual(failures, []);
  });

  test('an impossible date is ignored: the invoice list shows every invoice, the filter field stays empty', async () => {
    const res = await web.get('/app/invoices?from=2026-02-30');
    assert.equal(res.status, 200);
    assert.match(res.body, /<input id="from" name="from" type="date" value="">/);
    assert.match(res.body, /RE-2026-\d+/);
    // A possible date still filters.
    assert.match((await web.get('/app/invoices?from=2026-11-22')).body, /Keine Rechnungen gefunden/);
  });

  test('/app/lang with a malformed or foreign Referer switches the language and goes to /app', async () => {
    for (const referer of ['http://', 'not a url', 'http://[::1', 'https://evil.example/app/invoices', '']) {
      const res = await web.get('/app/lang?to=de', { referer });
      assert.equal(res.status, 303, referer);
      assert.equal(res.location, '/app', referer);
    }
    const back = await web.get('/app/lang?to=de', { referer: 'http://kontor.test/app/invoices?status=open' });
    assert.equal(back.location, '/app/invoices');
  });
});
