import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { getContract, putContract, putProducts, runBilling } from '../contracts/helpers.ts';
import { countRows, type TestApp, testApp } from '../helpers/app.ts';
import { signedIn, type WebClient } from '../web/client.ts';
import { BUSINESS_CUSTOMER, counts, invoiceBody, newKey, postInvoice, putCustomer } from './helpers.ts';

// Issue 24, point 5: a customer stored without country_code (the upsert allows it) made
// POST /v1/invoices with issue: true answer 500 internal_error, the only 5xx of the fuzz.
// Every way of issuing — the API, a draft issued in the app, the billing run — refuses such
// a customer with the German sentence naming what is missing, and never throws on a customer
// that lacks any of its optional fields.

/** The German sentence of each missing customer detail (issuing-checks.ts), for customer `name`. */
const MISSING: Record<'email' | 'street' | 'zip' | 'city' | 'country_code', string> = {
  email: 'die E-Mail-Adresse',
  street: 'die Straße',
  zip: 'die Postleitzahl',
  city: 'der Ort',
  country_code: 'das Land',
};
const missingSentence = (name: string, field: keyof typeof MISSING) => `Kunde ${name}: ${MISSING[field]} fehlt.`;

let t: TestApp;
before(async () => {
  t = await testApp();
});
after(() => t.close());

describe('issuing for a customer without country refuses with 422 invoice_not_issuable naming the country', () => {
  test('POST /v1/invoices with issue: true: 422 naming "das Land", nothing created, the key unused', async () => {
    await putCustomer(t, 'kunde-1', { country_code: null });
    const before = await counts(t);
    const key = newKey();
    const res = await postInvoice(t, invoiceBody('ohne-land', { issue: true }), key);
    assert.equal(res.statusCode, 422, res.body);
    const detail = res.json().detail;
    assert.equal(detail.code, 'invoice_not_issuable');
    // Only the country is missing: one sentence, no guess at a VAT verdict for an unknown country.
    assert.deepEqual(detail.messages, ['Kunde Beispiel AG: das Land fehlt.']);
    assert.equal(detail.message, 'Kunde Beispiel AG: das Land fehlt.');
    assert.deepEqual(await counts(t), before, 'no invoice, no line, no number, no key, no event');
    // With the country set, the same key and body issue the invoice: the refusal did not use it up.
    await putCustomer(t, 'kunde-1');
    const again = await postInvoice(t, invoiceBody('ohne-land', { issue: true }), key);
    assert.equal(again.statusCode, 201, again.body);
    assert.match(again.json().number, /^RE-2026-\d{5}$/);
  });

  test('the send flag changes nothing: 422, no mail attempt', async () => {
    await putCustomer(t, 'kunde-2', { country_code: null, name: 'Zweite GmbH' });
    const res = await postInvoice(t, invoiceBody('ohne-land-2', { issue: true, send: true, customer: { source: 'crm', external_ref: 'kunde-2' } }));
    assert.equal(res.statusCode, 422, res.body);
    assert.deepEqual(res.json().detail.messages, ['Kunde Zweite GmbH: das Land fehlt.']);
    assert.equal(await countRows(t.handle, 'invoice_mail_attempts'), 0);
  });

  test('names of every kind appear in the sentence as stored, and none makes the check fail', async () => {
    const names = [
      'O’Brien & Söhne GmbH',
      '  Leerzeichen KG  ', // stored trimmed
      'ÄÖÜ äöü ß',
      '東京商事株式会社',
      'شركة المثال', // Arabic, right to left, without direction controls
      'x'.repeat(255),
      '"Anführung" <Zeichen> %s {0} $1',
    ];
    for (const [i, name] of names.entries()) {
      await putCustomer(t, `name-${i}`, { name, country_code: null });
      const res = await postInvoice(t, invoiceBody(`name-${i}`, { issue: true, customer: { source: 'crm', external_ref: `name-${i}` } }));
      assert.equal(res.statusCode, 422, `${JSON.stringify(name)}: ${res.body}`);
      assert.deepEqual(res.json().detail.messages, [missingSentence(name.trim(), 'country_code')]);
    }
  });
});

describe('no combination of missing customer details makes issuing throw', () => {
  // Each of email, street, zip, city and country_code present or missing (32 combinations),
  // for a business and a private customer, with and without VAT ID (4 variants each): 128
  // customers. A customer with all five present is issued (201); every other one is refused
  // with exactly the sentences of its missing details — e.g. without zip and country_code:
  // "Kunde …: die Postleitzahl fehlt." and "Kunde …: das Land fehlt." — and never with a 5xx.
  test('128 customers: 201 when complete, else 422 listing exactly what is missing; nothing written on a refusal', async () => {
    const fields = Object.keys(MISSING) as (keyof typeof MISSING)[];
    let issued = 0;
    for (let mask = 0; mask < 2 ** fields.length; mask++) {
      const missing = fields.filter((_, bit) => mask & (1 << bit));
      for (const customerType of ['business', 'private'] as const) {
        for (const vatId of ['DE136695976', null]) {
          const ref = `c-${mask}-${customerType}-${vatId ? 'vat' : 'novat'}`;
          const name = `Kunde ${mask} ${customerType}`;
          const customer = {
            ...BUSINESS_CUSTOMER,
            name,
            customer_type: customerType,
            vat_id: vatId,
            ...Object.fromEntries(missing.map((field) => [field, null])),
          };
          await putCustomer(t, ref, customer);
          const before = await counts(t);
          const res = await postInvoice(t, invoiceBody(ref, { issue: true, customer: { source: 'crm', external_ref: ref } }));
          if (missing.length === 0) {
            assert.equal(res.statusCode, 201, `${ref}: ${res.body}`);
            issued += 1;
            continue;
          }
          assert.equal(res.statusCode, 422, `${ref}: ${res.body}`);
          assert.equal(res.json().detail.code, 'invoice_not_issuable');
          assert.deepEqual(
            res.json().detail.messages,
            missing.map((field) => missingSentence(name, field)),
            ref,
          );
          assert.deepEqual(await counts(t), before, `${ref}: nothing written`);
        }
      }
    }
    assert.equal(issued, 4, 'the complete customer, business and private, with and without VAT ID');
  });

  test('a customer with the required details but none of the optional ones (house number, contact, VAT ID, Leitweg-ID) is issued with its PDF and e-invoice', async () => {
    for (const customerType of ['business', 'private'] as const) {
      const ref = `bare-${customerType}`;
      await putCustomer(t, ref, { customer_type: customerType, house_number: null, contact_name: null, vat_id: null, leitweg_id: null });
      const res = await postInvoice(t, invoiceBody(ref, { issue: true, customer: { source: 'crm', external_ref: ref } }));
      assert.equal(res.statusCode, 201, `${ref}: ${res.body}`);
      const pdf = await t.request('GET', `/v1/invoices/${res.json().id}/pdf`);
      assert.equal(pdf.statusCode, 200);
      assert.equal(pdf.rawPayload.subarray(0, 5).toString(), '%PDF-');
      // A business customer gets its ZUGFeRD XML, a private one none.
      const xml = await t.request('GET', `/v1/invoices/${res.json().id}/xml`);
      assert.equal(xml.statusCode, customerType === 'business' ? 200 : 404, xml.body.slice(0, 200));
    }
  });

  test('a customer in Austria or the USA lacking details: 422 with the missing sentences, never a 5xx', async () => {
    // Abroad, the VAT verdict may add its own sentence (reverse charge needs 0 %); the
    // missing details are all named, and nothing is written.
    const abroad = [
      { country_code: 'AT', vat_id: 'ATU58219378', customer_type: 'business' },
      { country_code: 'AT', vat_id: null, customer_type: 'business' },
      { country_code: 'AT', vat_id: null, customer_type: 'private' },
      { country_code: 'US', vat_id: null, customer_type: 'business' },
      { country_code: 'US', vat_id: null, customer_type: 'private' },
    ];
    for (const [i, place] of abroad.entries()) {
      for (const gap of ['email', 'street', 'zip', 'city'] as const) {
        const ref = `abroad-${i}-${gap}`;
        await putCustomer(t, ref, { ...place, name: `Ausland ${i}`, [gap]: null });
        const res = await postInvoice(t, invoiceBody(ref, { issue: true, customer: { source: 'crm', external_ref: ref } }));
        assert.equal(res.statusCode, 422, `${ref}: ${res.body}`);
        assert.ok(res.json().detail.messages.includes(missingSentence(`Ausland ${i}`, gap)), `${ref}: ${res.body}`);
      }
    }
  });
});

describe('a draft for a customer without country, issued in the app', () => {
  let web: WebClient;
  before(async () => {
    web = await signedIn(t);
  });

  test('the draft page names the missing country and offers no issue button; a post is refused with 422 and the draft stays a draft', async () => {
    await putCustomer(t, 'ohne-land', { name: 'Landlos GmbH', country_code: null, city: null });
    const draft = await postInvoice(t, invoiceBody('entwurf', { customer: { source: 'crm', external_ref: 'ohne-land' } }));
    assert.equal(draft.statusCode, 201, draft.body);
    const id = draft.json().id as string;
    const page = await web.get(`/app/invoices/${id}`);
    assert.equal(page.status, 200, page.body);
    assert.match(page.body, /Nicht ausstellbar/);
    assert.match(page.body, /Kunde Landlos GmbH: der Ort fehlt\./);
    assert.match(page.body, /Kunde Landlos GmbH: das Land fehlt\./);
    assert.doesNotMatch(page.body, /Rechnung ausstellen<\/button>/);
    const issued = await web.post(`/app/invoices/${id}/issue`);
    assert.equal(issued.status, 422);
    assert.match(issued.body, /das Land fehlt/);
    const row = await t.handle.db.selectFrom('invoices').select(['status', 'number']).where('id', '=', id).executeTakeFirstOrThrow();
    assert.deepEqual(row, { status: 'draft', number: null });
  });
});

// Last: the billing run moves the test clock to its billing date.
describe('the billing run for a customer without country', () => {
  before(async () => {
    await putCustomer(t, 'abo-kunde', { name: 'Landlos GmbH', country_code: null });
    await putProducts(t);
    await putContract(t, 'abo-1', {
      customer: { source: 'crm', external_ref: 'abo-kunde' },
      name: 'Hosting',
      status: 'active',
      billing_interval: 'month',
      start_date: '2026-12-01',
      invoice_mode: 'issue',
      items: [{ ref: 'hosting', product_number: 'HOST-S' }],
    });
  });

  test('marks the cycle failed with the sentence naming the country; no invoice, no number', async () => {
    const { summary } = await runBilling(t, '2026-12-01');
    assert.equal(summary.jobs.failed, 0, JSON.stringify(summary));
    const contract = await getContract(t, 'abo-1');
    assert.deepEqual(
      contract.cycles.map((cycle: { start: string; status: string; invoice_id: string | null }) => [cycle.start, cycle.status, cycle.invoice_id]),
      [['2026-12-01', 'failed', null]],
    );
    const cycle = await t.handle.db.selectFrom('contract_cycles').select('reason').executeTakeFirstOrThrow();
    assert.equal(cycle.reason, 'Kunde Landlos GmbH: das Land fehlt.');
    const invoices = await t.handle.db.selectFrom('invoices').select('id').where('contract_id', 'is not', null).execute();
    assert.deepEqual(invoices, [], 'no invoice for the contract');
  });
});
