import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { contractInvoices, putContract, putProducts, reportUsage, runBilling } from '../contracts/helpers.ts';
import { type TestApp, type TestCompany, testApp } from '../helpers/app.ts';
import { putCustomer } from '../invoicing/helpers.ts';
import { signedIn, type WebClient } from './client.ts';

// Issue 15 (contracts): the contract list (status filter, search by number or customer,
// paging by number, amount per cycle) and a contract — terms and items, two billed cycles
// with their invoices, the billings ahead with expected amounts, and the usage of the open
// period — and nothing of another company's.

const MONTHLY = {
  customer: { source: 'crm', external_ref: 'kunde-1' },
  name: 'SaaS Business',
  status: 'active',
  billing_interval: 'month',
  start_date: '2026-12-01',
  payment_terms_days: 14,
  items: [
    { ref: 'hosting', product_number: 'HOST-S' },
    { ref: 'support', description: 'Support-Pauschale', unit_price_net: '15.00', quantity: '2', ends_after: '2027-06-30' },
    { ref: 'api', product_ref: 'api-calls' },
  ],
};

const text = (body: string) =>
  body
    .replace(/<[^>]+>/g, ' ')
    .replace(/&nbsp;|\u00a0/g, ' ')
    .replace(/\s+/g, ' ');
const section = (body: string, id: string) => text(new RegExp(`<h2 id="${id}">[\\s\\S]*?</section>`).exec(body)?.[0] ?? '');

describe('contracts in the app', () => {
  let t: TestApp;
  let web: WebClient;
  let contractId: string;
  let draftId: string;
  let invoices: Awaited<ReturnType<typeof contractInvoices>>;
  let other: TestCompany;
  let otherContractId: string;

  before(async () => {
    t = await testApp();
    await putCustomer(t, 'kunde-1');
    await putCustomer(t, 'wien', { name: 'Wiener <Handel> GmbH' });
    await putProducts(t);
    contractId = (await putContract(t, 'saas-1', MONTHLY, [201])).id;
    draftId = (
      await putContract(
        t,
        'q-1',
        {
          customer: { source: 'crm', external_ref: 'wien' },
          name: 'Wartung',
          status: 'draft',
          billing_interval: 'quarter',
          start_date: '2027-01-01',
          items: [{ ref: 'w', description: 'Wartung', unit_price_net: '300.00', quantity: '1' }],
        },
        [201],
      )
    ).id;
    await runBilling(t, '2026-12-01');
    const december = await reportUsage(t, 'saas-1', [{ external_ref: 'u-1', item_ref: 'api', quantity: '2500', occurred_at: '2026-12-10T10:00:00+01:00' }]);
    assert.equal(december.statusCode, 201, december.body);
    await runBilling(t, '2027-01-01');
    t.clock.set('2027-01-15T10:00:00Z');
    const january = await reportUsage(t, 'saas-1', [{ external_ref: 'u-2', item_ref: 'api', quantity: '1200', occurred_at: '2027-01-12T10:00:00+01:00' }]);
    assert.equal(january.statusCode, 201, january.body);
    invoices = await contractInvoices(t, 'saas-1');
    assert.equal(invoices.length, 2);
    for (let i = 1; i <= 52; i++)
      await putContract(
        t,
        `p-${i}`,
        {
          customer: { source: 'crm', external_ref: 'kunde-1' },
          name: `Seitenvertrag ${i}`,
          status: 'draft',
          billing_interval: 'month',
          start_date: '2027-02-01',
          items: [],
        },
        [201],
      );
    other = await t.newCompany('other');
    const res = await t.request('PUT', '/v1/customers/by-ref/crm/fremd', { key: other.apiKey, body: { name: 'Fremdkunde GmbH', customer_type: 'business' } });
    assert.equal(res.statusCode, 201, res.body);
    const foreign = await t.request('PUT', '/v1/contracts/by-ref/crm/fremd-1', {
      key: other.apiKey,
      body: {
        customer: { source: 'crm', external_ref: 'fremd' },
        name: 'Fremdvertrag',
        status: 'draft',
        billing_interval: 'month',
        start_date: '2027-01-01',
        items: [],
      },
    });
    assert.equal(foreign.statusCode, 201, foreign.body);
    otherContractId = foreign.json().id;
    web = await signedIn(t);
  });
  after(() => t.close());

  test('a contract: terms, items, two billed cycles with their invoices, the next billings and the open usage', async () => {
    const page = await web.get(`/app/contracts/${contractId}`);
    assert.equal(page.status, 200);
    assert.match(page.body, /<h1>Vertrag V-00001<\/h1>/);
    const body = text(page.body);
    assert.match(body, /Bezeichnung SaaS Business Kunde Beispiel AG \(\d+\) Status Aktiv Nächste Abrechnung 01\.02\.2027/);
    assert.match(
      body,
      /Vertragsbeginn 01\.12\.2026 Vertragsende unbefristet Abrechnung monatlich Rechnungen automatisch ausstellen Zahlungsziel 14 Tage Nutzung offen ab 01\.01\.2027/,
    );
    assert.match(page.body, /href="\/app\/customers\/cus_[0-9a-z]{26}">Beispiel AG</);
    const items = section(page.body, 'items-heading');
    assert.match(items, /1 Hosting S Artikel HOST-S im Voraus Pauschale 1 Monat 29,00 € 19 %/);
    assert.match(items, /2 Support-Pauschale im Voraus Pauschale 2 15,00 € 19 %/);
    assert.match(
      items,
      /3 API-Aufrufe Artikel API-CALLS nachträglich Staffel \(gestaffelt\) Staffeln: 0 bis unter 1\.000: 0,00 €; 1\.000 bis unter 10\.000: 0,01 €; ab 10\.000: 0,005 € nach Nutzung/,
    );
    // Issue 25, §2: the day each item is billed until (advance items: January; usage: December,
    // billed in arrears) beside the item's own end ("unbefristet" when it has none).
    const ends = [...page.body.matchAll(/<td data-col="billed-until">([^<]*)<\/td><td data-col="ends">([^<]*)<\/td>/g)].map((m) => [m[1], m[2]]);
    assert.deepEqual(ends, [
      ['31.01.2027', 'unbefristet'],
      ['31.01.2027', '30.06.2027'],
      ['31.12.2026', 'unbefristet'],
    ]);
    assert.match(items, /Berechnet bis Läuft bis/);
    // Billed: January (59.00 in advance + 15.00 December usage), December (59.00), newest first.
    const cycles = section(page.body, 'cycles-heading');
    const [december, january] = invoices;
    assert.match(
      cycles,
      new RegExp(
        `01\\.01\\.2027 – 31\\.01\\.2027 01\\.01\\.2027 Abgerechnet ${january!.number} Ausgestellt 74,00 € 88,06 € 01\\.12\\.2026 – 31\\.12\\.2026 01\\.12\\.2026 Abgerechnet ${december!.number} Ausgestellt 59,00 € 70,21 €`,
      ),
    );
    assert.match(page.body, new RegExp(`href="/app/invoices/${january!.id}">${january!.number}<`));
    // Ahead: February with January's usage so far (1,200 calls: 2.00), then March and April.
    const upcoming = section(page.body, 'upcoming-heading');
    assert.match(
      upcoming,
      /01\.02\.2027 01\.02\.2027 – 28\.02\.2027 61,00 € zzgl\. Nutzung 01\.03\.2027 01\.03\.2027 – 31\.03\.2027 59,00 € zzgl\. Nutzung 01\.04\.2027 01\.04\.2027 – 30\.04\.2027 59,00 € zzgl\. Nutzung/,
    );
    const usage = section(page.body, 'usage-heading');
    assert.match(usage, /Gemeldete Nutzung vom 01\.01\.2027 bis 31\.01\.2027\. Beschreibung Menge Meldungen API-Aufrufe \(api\) 1\.200 Aufrufe 1/);
  });

  test('a draft contract: nothing billed, nothing planned yet; its customer name shows as text', async () => {
    const page = await web.get(`/app/contracts/${draftId}`);
    assert.equal(page.status, 200);
    assert.match(page.body, /Wiener &lt;Handel&gt; GmbH/);
    assert.doesNotMatch(page.body, /<Handel>/);
    const body = text(page.body);
    assert.match(body, /Status Entwurf/);
    assert.match(body, /Abrechnung vierteljährlich/);
    assert.match(body, /Der Vertrag ist ein Entwurf: Abgerechnet wird erst, wenn er aktiv ist\./);
    assert.match(body, /Noch nichts abgerechnet\./);
    assert.match(page.body, /<td data-col="billed-until">noch nicht<\/td><td data-col="ends">unbefristet<\/td>/);
    assert.doesNotMatch(page.body, /usage-heading/);
  });

  test('the list: amount per cycle, status filter, search by number, name and customer, paging by number', async () => {
    const list = await web.get('/app/contracts');
    assert.equal(list.status, 200);
    assert.match(list.body, /aria-current="page">Verträge</);
    const row = new RegExp(`<tr>\\s*<td class="wrap"><a href="/app/contracts/${contractId}">V-00001</a>[\\s\\S]*?</tr>`).exec(list.body)?.[0] ?? '';
    assert.match(text(row), /V-00001 SaaS Business Beispiel AG Aktiv monatlich 01\.02\.2027 59,00 € zzgl\. Nutzung/);
    const draftRow = new RegExp(`<tr>\\s*<td class="wrap"><a href="/app/contracts/${draftId}">V-00002</a>[\\s\\S]*?</tr>`).exec(list.body)?.[0] ?? '';
    assert.match(text(draftRow), /V-00002 Wartung Wiener &lt;Handel&gt; GmbH Entwurf vierteljährlich – 300,00 €/);
    const numbers = (body: string) => [...body.matchAll(/<a href="\/app\/contracts\/ctr_[0-9a-z]{26}">([^<]+)<\/a>/g)].map((m) => m[1]);
    assert.equal(numbers(list.body).length, 50);
    assert.equal(numbers(list.body)[0], 'V-00001');
    const next = await web.get(/href="([^"]+)" rel="next"/.exec(list.body)?.[1]?.replace(/&amp;/g, '&') as string);
    assert.deepEqual(numbers(next.body), ['V-00051', 'V-00052', 'V-00053', 'V-00054']);
    const back = await web.get(/href="([^"]+)" rel="prev"/.exec(next.body)?.[1]?.replace(/&amp;/g, '&') as string);
    assert.deepEqual(numbers(back.body), numbers(list.body));
    for (const [query, expected] of [
      ['status=active', ['V-00001']],
      ['q=wiener', ['V-00002']],
      ['q=V-00001', ['V-00001']],
      ['q=saas', ['V-00001']],
      ['q=Seitenvertrag%2052', ['V-00054']],
      ['q=wiener&status=active', []],
    ] as const) {
      const found = await web.get(`/app/contracts?${query}`);
      assert.equal(found.status, 200, query);
      assert.deepEqual(numbers(found.body), expected, query);
      if (expected.length === 0) assert.match(found.body, /Keine Verträge gefunden/);
    }
    assert.match((await web.get('/app/contracts?status=active')).body, /<option value="active" selected>Aktiv<\/option>/);
    for (const query of ['status=bogus&after=%00', 'q=%00', 'before=V%00']) assert.equal((await web.get(`/app/contracts?${query}`)).status, 200, query);
  });

  test("the customer's page lists the contracts", async () => {
    const customer = /href="(\/app\/customers\/cus_[0-9a-z]{26})">Beispiel AG</.exec((await web.get(`/app/contracts/${contractId}`)).body)?.[1] as string;
    const page = await web.get(customer);
    assert.match(section(page.body, 'contracts-heading'), /V-00001 SaaS Business Aktiv monatlich 01\.02\.2027/);
  });

  test("another company's contract, a malformed id: 404; the other company sees only its own", async () => {
    for (const path of [`/app/contracts/${otherContractId}`, '/app/contracts/x', '/app/contracts/ctr_', `/app/contracts/${contractId}x`]) {
      const res = await web.get(path);
      assert.equal(res.status, 404, path);
      assert.doesNotMatch(res.body, /Fremdvertrag/);
    }
    const client = await signedIn(t, 'ein gutes Passwort 9', other);
    const list = await client.get('/app/contracts');
    assert.match(list.body, /Fremdvertrag/);
    assert.doesNotMatch(list.body, /SaaS Business/);
    assert.equal((await client.get(`/app/contracts/${contractId}`)).status, 404);
  });
});
