import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { countRows, type TestApp, testApp } from '../helpers/app.ts';

const fullCustomer = {
  name: 'Beispiel AG',
  email: 'buchhaltung@beispiel.example',
  street: 'Ringstraße',
  house_number: '5a',
  zip: '80331',
  city: 'München',
  country_code: 'DE',
  vat_id: 'de 136 695 976',
  customer_type: 'business',
  leitweg_id: null,
  contact_name: 'Max Muster',
};

describe('upsertCustomer', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp();
  });
  after(() => t.close());

  test('creates a customer with the first customer number and answers 201', async () => {
    const res = await t.request('PUT', '/v1/customers/by-ref/crm/cust-1', { body: fullCustomer });
    assert.equal(res.statusCode, 201);
    const body = res.json();
    assert.match(body.id, /^cus_/);
    assert.equal(body.kundennummer, '10000');
    assert.equal(body.external_source, 'crm');
    assert.equal(body.external_ref, 'cust-1');
    assert.equal(body.vat_id, 'DE136695976', 'VAT ID normalised');
    assert.deepEqual(Object.keys(body).sort(), [
      'city',
      'contact_name',
      'country_code',
      'customer_type',
      'email',
      'external_ref',
      'external_source',
      'house_number',
      'id',
      'kundennummer',
      'leitweg_id',
      'name',
      'street',
      'vat_id',
      'zip',
    ]);
  });

  test('the same request twice gives one record and answers 200 the second time', async () => {
    const first = await t.request('PUT', '/v1/customers/by-ref/crm/cust-twice', { body: fullCustomer });
    const second = await t.request('PUT', '/v1/customers/by-ref/crm/cust-twice', { body: fullCustomer });
    assert.equal(first.statusCode, 201);
    assert.equal(second.statusCode, 200);
    assert.deepEqual(second.json(), first.json());
  });

  test('an update replaces the record with what is sent and keeps id and customer number', async () => {
    const created = (await t.request('PUT', '/v1/customers/by-ref/crm/cust-upd', { body: fullCustomer })).json();
    const res = await t.request('PUT', '/v1/customers/by-ref/crm/cust-upd', { body: { name: 'Beispiel AG & Co. KG', customer_type: 'private' } });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.equal(body.id, created.id);
    assert.equal(body.kundennummer, created.kundennummer);
    assert.equal(body.name, 'Beispiel AG & Co. KG');
    assert.equal(body.customer_type, 'private');
    assert.equal(body.email, null, 'omitted optional fields become null');
    const read = await t.request('GET', '/v1/customers/by-ref/crm/cust-upd');
    assert.deepEqual(read.json(), body);
  });

  test('customer numbers count up in order per company', async () => {
    const numbers: number[] = [];
    for (const ref of ['n-1', 'n-2', 'n-3']) {
      numbers.push(Number((await t.request('PUT', `/v1/customers/by-ref/crm/${ref}`, { body: { name: ref } })).json().kundennummer));
    }
    assert.deepEqual(numbers, [numbers[0], numbers[0]! + 1, numbers[0]! + 2]);
    const other = await t.newCompany('numbers');
    const res = await t.request('PUT', '/v1/customers/by-ref/crm/n-1', { key: other.apiKey, body: { name: 'elsewhere' } });
    assert.equal(res.json().kundennummer, '10000', 'each company has its own range');
  });

  test('refuses with customer_number_range_exhausted past 69999 and writes nothing', async () => {
    const other = await t.newCompany('full');
    await t.request('PUT', '/v1/customers/by-ref/crm/first', { key: other.apiKey, body: { name: 'first' } });
    await t.handle.db.updateTable('number_ranges').set({ next_value: 69999 }).where('company_id', '=', other.companyId).execute();
    const last = await t.request('PUT', '/v1/customers/by-ref/crm/last', { key: other.apiKey, body: { name: 'last' } });
    assert.equal(last.json().kundennummer, '69999');
    const before = await countRows(t.handle, 'customers');
    const res = await t.request('PUT', '/v1/customers/by-ref/crm/too-many', { key: other.apiKey, body: { name: 'too many' } });
    assert.equal(res.statusCode, 409);
    assert.equal(res.json().detail.code, 'customer_number_range_exhausted');
    assert.equal(await countRows(t.handle, 'customers'), before);
    const update = await t.request('PUT', '/v1/customers/by-ref/crm/last', { key: other.apiKey, body: { name: 'last, renamed' } });
    assert.equal(update.statusCode, 200, 'updates still work when the range is used up');
  });

  test('concurrent upserts of one reference give one record', async () => {
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => t.request('PUT', '/v1/customers/by-ref/crm/race', { body: { ...fullCustomer, contact_name: `caller ${i % 2}` } })),
    );
    const statuses = results.map((r) => r.statusCode).sort();
    assert.equal(statuses.filter((s) => s === 201).length, 1, `one create, got ${statuses}`);
    assert.ok(statuses.every((s) => s === 200 || s === 201));
    assert.equal(new Set(results.map((r) => r.json().id)).size, 1);
    const rows = await t.handle.db.selectFrom('customers').select('id').where('external_ref', '=', 'race').execute();
    assert.equal(rows.length, 1);
  });

  test('concurrent creates of different references draw distinct gapless numbers', async () => {
    const other = await t.newCompany('parallel');
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => t.request('PUT', `/v1/customers/by-ref/crm/p-${i}`, { key: other.apiKey, body: { name: `p ${i}` } })),
    );
    assert.ok(results.every((r) => r.statusCode === 201));
    const numbers = results.map((r) => Number(r.json().kundennummer)).sort((a, b) => a - b);
    assert.deepEqual(
      numbers,
      Array.from({ length: 20 }, (_, i) => 10000 + i),
    );
  });

  // Issue 24, point 5: on PostgreSQL twenty parallel creates of one new customer skipped
  // numbers (10005, 10009, 10015): each racer drew a number, and the losers' were lost.
  test('twenty parallel creates of one new customer draw one number: the next customer gets the next one', async () => {
    const other = await t.newCompany('one-ref-race');
    const results = await Promise.all(
      Array.from({ length: 20 }, () => t.request('PUT', '/v1/customers/by-ref/crm/same', { key: other.apiKey, body: fullCustomer })),
    );
    assert.deepEqual(results.map((r) => r.statusCode).sort(), [...Array(19).fill(200), 201], results.map((r) => r.body).join('\n'));
    assert.deepEqual([...new Set(results.map((r) => r.json().kundennummer))], ['10000']);
    // Had a racer drawn a number and lost the insert, the next customer would get 10001 + lost.
    const next = await t.request('PUT', '/v1/customers/by-ref/crm/next', { key: other.apiKey, body: { name: 'Danach GmbH' } });
    assert.equal(next.json().kundennummer, '10001');
  });

  test('twenty new customers, each sent three times in parallel and mixed: numbers 10000–10019 without gaps, one customer per reference', async () => {
    const other = await t.newCompany('mixed-race');
    // 60 requests: refs m-0 … m-19, each three times, interleaved (m-0, m-1, …, m-19, m-0, …).
    const refs = Array.from({ length: 60 }, (_, i) => `m-${i % 20}`);
    const results = await Promise.all(refs.map((ref) => t.request('PUT', `/v1/customers/by-ref/crm/${ref}`, { key: other.apiKey, body: { name: ref } })));
    assert.ok(
      results.every((r) => r.statusCode === 200 || r.statusCode === 201),
      results.map((r) => r.body).join('\n'),
    );
    assert.equal(results.filter((r) => r.statusCode === 201).length, 20, 'one create per reference');
    const numberOf = new Map<string, Set<string>>();
    for (const [i, res] of results.entries()) numberOf.set(refs[i]!, (numberOf.get(refs[i]!) ?? new Set()).add(res.json().kundennummer));
    assert.ok(
      [...numberOf.values()].every((numbers) => numbers.size === 1),
      'every answer for a reference names the same number',
    );
    const rows = await t.handle.db
      .selectFrom('customers')
      .select(['external_ref', 'kundennummer'])
      .where('company_id', '=', other.companyId)
      .orderBy('kundennummer')
      .execute();
    assert.equal(rows.length, 20, 'one customer per reference');
    assert.deepEqual(
      rows.map((row) => Number(row.kundennummer)),
      Array.from({ length: 20 }, (_, i) => 10000 + i),
      'numbers 10000 to 10019, none skipped',
    );
    const range = await t.handle.db
      .selectFrom('number_ranges')
      .select('next_value')
      .where('company_id', '=', other.companyId)
      .where('range_key', '=', 'customer')
      .executeTakeFirstOrThrow();
    assert.equal(Number(range.next_value), 10020, 'the range hands out 10020 next');
  });

  test('another company sees 404 customer_not_found for this customer', async () => {
    await t.request('PUT', '/v1/customers/by-ref/crm/mine', { body: fullCustomer });
    const other = await t.newCompany('foreign');
    const res = await t.request('GET', '/v1/customers/by-ref/crm/mine', { key: other.apiKey });
    assert.equal(res.statusCode, 404);
    assert.equal(res.json().detail.code, 'customer_not_found');
  });

  test('GET of an unknown reference answers 404 customer_not_found', async () => {
    const res = await t.request('GET', '/v1/customers/by-ref/crm/never-created');
    assert.equal(res.statusCode, 404);
    assert.equal(res.json().detail.code, 'customer_not_found');
  });
});

describe('upsertCustomer: VAT ID checks', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp();
  });
  after(() => t.close());

  const swissCustomer = { name: 'Muster Handels AG', street: 'Bahnhofstrasse', house_number: '1', zip: '8001', city: 'Zürich', country_code: 'CH' };

  async function refusedVatId(ref: string, body: Record<string, unknown>): Promise<void> {
    const res = await t.request('PUT', `/v1/customers/by-ref/crm/${ref}`, { body });
    assert.equal(res.statusCode, 422);
    const detail = res.json().detail;
    assert.equal(detail.code, 'validation_failed');
    assert.deepEqual(
      detail.errors.map((e: { loc: string[]; type: string }) => [e.loc, e.type]),
      [[['body', 'vat_id'], 'pattern']],
    );
    const digits = String(body.vat_id).replace(/\D/g, '');
    assert.ok(!res.body.replace(/\D/g, ' ').includes(digits), 'the VAT ID sent is not echoed');
    assert.equal((await t.request('GET', `/v1/customers/by-ref/crm/${ref}`)).statusCode, 404, 'nothing stored');
  }

  const swissForms: [string, string][] = [
    ['CHE-483.729.158 MWST', 'CHE-483.729.158 MWST'],
    ['che 483 729 158 tva', 'CHE-483.729.158 TVA'],
    ['CHE-483.729.158 IVA', 'CHE-483.729.158 IVA'],
    ['CHE-483.729.158', 'CHE-483.729.158'],
  ];
  for (const [sent, stored] of swissForms) {
    test(`accepts the Swiss UID ${JSON.stringify(sent)} for a customer in CH and stores ${JSON.stringify(stored)}`, async () => {
      const ref = `ch-${stored.replace(/\W/g, '')}`;
      const res = await t.request('PUT', `/v1/customers/by-ref/crm/${ref}`, { body: { ...swissCustomer, vat_id: sent } });
      assert.equal(res.statusCode, 201);
      assert.equal(res.json().vat_id, stored);
      const again = await t.request('PUT', `/v1/customers/by-ref/crm/${ref}`, { body: { ...swissCustomer, vat_id: stored } });
      assert.equal(again.statusCode, 200);
      assert.deepEqual(again.json(), res.json(), 'the stored form sent again changes nothing');
    });
  }

  test('refuses a Swiss UID with a wrong check digit with validation_failed / pattern', async () => {
    await refusedVatId('ch-wrong', { ...swissCustomer, vat_id: 'CHE-483.729.159 MWST' });
  });

  test('refuses a Swiss UID for a customer in DE with validation_failed / pattern', async () => {
    await refusedVatId('de-swiss', { ...fullCustomer, vat_id: 'CHE-483.729.158 MWST' });
  });

  test('refuses an EU VAT ID with a wrong check digit with validation_failed / pattern', async () => {
    await refusedVatId('at-wrong', { ...fullCustomer, country_code: 'AT', vat_id: 'ATU58219379' });
  });

  test('accepts an EU VAT ID with its check digit', async () => {
    const res = await t.request('PUT', '/v1/customers/by-ref/crm/at-right', { body: { ...fullCustomer, country_code: 'AT', vat_id: 'ATU 5821 9378' } });
    assert.equal(res.statusCode, 201);
    assert.equal(res.json().vat_id, 'ATU58219378');
  });
});
