import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { findProductByRefOrNumber } from '../../src/modules/products/index.ts';
import { countRows, type TestApp, testApp } from '../helpers/app.ts';

const license = {
  product_number: 'LIZ-100',
  name: 'Kontor Lizenz',
  description: 'Monatliche Nutzungslizenz',
  unit: 'Monat',
  unit_price_net: '12.50',
  vat_rate: 19,
  billing_interval: 'month',
};

const PRODUCT_KEYS = [
  'billing_interval',
  'description',
  'external_ref',
  'external_source',
  'id',
  'included_quantity',
  'name',
  'overage_price',
  'pricing_model',
  'product_number',
  'tiers',
  'unit',
  'unit_price_net',
  'vat_rate',
];

describe('upsertProduct and retrieveProduct', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp();
  });
  after(() => t.close());

  test('creates a product and answers 201 with exactly the listed fields', async () => {
    const res = await t.request('PUT', '/v1/products/by-ref/shop/liz-100', { body: license });
    assert.equal(res.statusCode, 201);
    const body = res.json();
    assert.match(body.id, /^prd_/);
    assert.deepEqual(Object.keys(body).sort(), PRODUCT_KEYS);
    assert.deepEqual(body, {
      id: body.id,
      external_source: 'shop',
      external_ref: 'liz-100',
      ...license,
      pricing_model: 'flat',
      included_quantity: null,
      overage_price: null,
      tiers: null,
    });
  });

  test('keeps decimals as sent: "12.50" stays "12.50"', async () => {
    const res = await t.request('PUT', '/v1/products/by-ref/shop/scale', {
      body: { ...license, product_number: 'SCALE', unit_price_net: '0.100000', pricing_model: 'quota', included_quantity: '1000.0', overage_price: '0.0150' },
    });
    assert.equal(res.statusCode, 201);
    const body = res.json();
    assert.equal(body.unit_price_net, '0.100000');
    assert.equal(body.included_quantity, '1000.0');
    assert.equal(body.overage_price, '0.0150');
    assert.deepEqual((await t.request('GET', '/v1/products/by-ref/shop/scale')).json(), body);
  });

  test('a JSON number as included_quantity comes back as a decimal string', async () => {
    const res = await t.request('PUT', '/v1/products/by-ref/shop/pkg', {
      body: { ...license, product_number: 'PKG', pricing_model: 'package', included_quantity: 250 },
    });
    assert.equal(res.statusCode, 201);
    assert.equal(res.json().included_quantity, '250');
  });

  test('pricing_model defaults to flat for recurring intervals and per_unit for one_off', async () => {
    const recurring = await t.request('PUT', '/v1/products/by-ref/shop/def-rec', { body: { ...license, product_number: 'DEF-REC', billing_interval: 'year' } });
    assert.equal(recurring.json().pricing_model, 'flat');
    const oneOff = await t.request('PUT', '/v1/products/by-ref/shop/def-one', {
      body: { ...license, product_number: 'DEF-ONE', billing_interval: 'one_off', unit: 'h' },
    });
    assert.equal(oneOff.json().pricing_model, 'per_unit');
    const nulled = await t.request('PUT', '/v1/products/by-ref/shop/def-null', { body: { ...license, product_number: 'DEF-NULL', pricing_model: null } });
    assert.equal(nulled.json().pricing_model, 'flat');
  });

  test('vat_rate defaults to the standard rate 19 when omitted', async () => {
    const { vat_rate: _omitted, ...body } = license;
    const res = await t.request('PUT', '/v1/products/by-ref/shop/vat-default', { body: { ...body, product_number: 'VAT-DEF' } });
    assert.equal(res.statusCode, 201);
    assert.equal(res.json().vat_rate, 19);
  });

  test('tiers come back with every field, flat_price null where not sent', async () => {
    const tiers = [
      { from: 0, to: '10', unit_price: '1.00' },
      { from: '10', to: null, unit_price: '0.80', flat_price: '5.00' },
    ];
    const res = await t.request('PUT', '/v1/products/by-ref/shop/tiered', {
      body: { ...license, product_number: 'TIER', pricing_model: 'graduated', tiers },
    });
    assert.equal(res.statusCode, 201);
    assert.deepEqual(res.json().tiers, [
      { from: '0', to: '10', unit_price: '1.00', flat_price: null },
      { from: '10', to: null, unit_price: '0.80', flat_price: '5.00' },
    ]);
    const again = await t.request('PUT', '/v1/products/by-ref/shop/tiered', {
      body: { ...license, product_number: 'TIER', pricing_model: 'graduated', tiers },
    });
    assert.equal(again.statusCode, 200);
    assert.deepEqual(again.json(), res.json());
  });

  test('the same request twice gives one record, 201 then 200, and the second writes nothing', async () => {
    const body = { ...license, product_number: 'TWICE' };
    const first = await t.request('PUT', '/v1/products/by-ref/shop/twice', { body });
    const stamp = await t.handle.db.selectFrom('products').select('updated_at').where('external_ref', '=', 'twice').executeTakeFirstOrThrow();
    t.clock.set('2026-11-21T11:00:00Z');
    const second = await t.request('PUT', '/v1/products/by-ref/shop/twice', { body });
    assert.equal(first.statusCode, 201);
    assert.equal(second.statusCode, 200);
    assert.deepEqual(second.json(), first.json());
    const rows = await t.handle.db.selectFrom('products').select('updated_at').where('external_ref', '=', 'twice').execute();
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.updated_at.getTime(), stamp.updated_at.getTime());
  });

  test('an update replaces the record with what is sent and keeps the id', async () => {
    const created = (await t.request('PUT', '/v1/products/by-ref/shop/upd', { body: { ...license, product_number: 'UPD' } })).json();
    const res = await t.request('PUT', '/v1/products/by-ref/shop/upd', {
      body: { product_number: 'UPD-2', name: 'Beratung', unit_price_net: '95', vat_rate: 7, billing_interval: 'one_off' },
    });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.equal(body.id, created.id);
    assert.equal(body.product_number, 'UPD-2');
    assert.equal(body.unit_price_net, '95');
    assert.equal(body.vat_rate, 7);
    assert.equal(body.pricing_model, 'per_unit');
    assert.equal(body.description, null, 'omitted optional fields become null');
    assert.equal(body.unit, null);
    assert.deepEqual((await t.request('GET', '/v1/products/by-ref/shop/upd')).json(), body);
  });

  test('refuses an article number of another product with 409 product_number_taken and writes nothing', async () => {
    await t.request('PUT', '/v1/products/by-ref/shop/holder', { body: { ...license, product_number: 'TAKEN-1' } });
    const before = await countRows(t.handle, 'products');
    const create = await t.request('PUT', '/v1/products/by-ref/shop/newcomer', { body: { ...license, product_number: 'TAKEN-1' } });
    assert.equal(create.statusCode, 409);
    assert.equal(create.json().detail.code, 'product_number_taken');
    assert.equal(await countRows(t.handle, 'products'), before);

    await t.request('PUT', '/v1/products/by-ref/shop/renamer', { body: { ...license, product_number: 'TAKEN-2' } });
    const rename = await t.request('PUT', '/v1/products/by-ref/shop/renamer', { body: { ...license, product_number: 'TAKEN-1' } });
    assert.equal(rename.statusCode, 409);
    assert.equal(rename.json().detail.code, 'product_number_taken');
    assert.equal((await t.request('GET', '/v1/products/by-ref/shop/renamer')).json().product_number, 'TAKEN-2', 'unchanged');
  });

  test('the same article number in another company is fine', async () => {
    const other = await t.newCompany('numbers');
    const res = await t.request('PUT', '/v1/products/by-ref/shop/holder', { key: other.apiKey, body: { ...license, product_number: 'TAKEN-1' } });
    assert.equal(res.statusCode, 201);
  });

  test('GET of an unknown reference answers 404 product_not_found naming the reference', async () => {
    const res = await t.request('GET', '/v1/products/by-ref/shop/never-created');
    assert.equal(res.statusCode, 404);
    assert.equal(res.json().detail.code, 'product_not_found');
    assert.equal(res.json().detail.product_ref, 'never-created');
  });

  test('another company sees 404 product_not_found for this product', async () => {
    await t.request('PUT', '/v1/products/by-ref/shop/mine', { body: { ...license, product_number: 'MINE' } });
    const other = await t.newCompany('foreign');
    const res = await t.request('GET', '/v1/products/by-ref/shop/mine', { key: other.apiKey });
    assert.equal(res.statusCode, 404);
    assert.equal(res.json().detail.code, 'product_not_found');
  });

  test('PUT needs partner:invoices:write and GET partner:invoices:read', async () => {
    const readOnly = await t.newKey({ scopes: ['partner:invoices:read'] });
    const put = await t.request('PUT', '/v1/products/by-ref/shop/scoped', { key: readOnly, body: { ...license, product_number: 'SCOPED' } });
    assert.equal(put.statusCode, 403);
    assert.equal(put.json().detail.code, 'api_key_scope_missing');
    assert.equal(put.json().detail.scope, 'partner:invoices:write');
    const writeOnly = await t.newKey({ scopes: ['partner:invoices:write'] });
    const get = await t.request('GET', '/v1/products/by-ref/shop/liz-100', { key: writeOnly });
    assert.equal(get.statusCode, 403);
    assert.equal(get.json().detail.scope, 'partner:invoices:read');
    assert.equal((await t.request('GET', '/v1/products/by-ref/shop/liz-100', { key: readOnly })).statusCode, 200);
  });

  test('concurrent upserts of one reference give one record', async () => {
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        t.request('PUT', '/v1/products/by-ref/shop/race', { body: { ...license, product_number: 'RACE', name: `caller ${i % 2}` } }),
      ),
    );
    const statuses = results.map((r) => r.statusCode).sort();
    assert.equal(statuses.filter((s) => s === 201).length, 1, `one create, got ${statuses}`);
    assert.ok(
      statuses.every((s) => s === 200 || s === 201),
      `got ${statuses}`,
    );
    assert.equal(new Set(results.map((r) => r.json().id)).size, 1);
    const rows = await t.handle.db.selectFrom('products').select('id').where('external_ref', '=', 'race').execute();
    assert.equal(rows.length, 1);
  });

  test('concurrent creates of one article number under different references: one wins, the others get product_number_taken', async () => {
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => t.request('PUT', `/v1/products/by-ref/shop/contest-${i}`, { body: { ...license, product_number: 'CONTEST' } })),
    );
    const statuses = results.map((r) => r.statusCode).sort();
    assert.deepEqual(statuses, [201, 409, 409, 409, 409, 409]);
    assert.ok(results.filter((r) => r.statusCode === 409).every((r) => r.json().detail.code === 'product_number_taken'));
  });

  test('findProductByRefOrNumber finds a product by reference or by article number within the company', async () => {
    const { companyId } = t.company;
    const byRef = await findProductByRefOrNumber(t.handle.db, companyId, { source: 'shop', ref: 'liz-100' });
    const byNumber = await findProductByRefOrNumber(t.handle.db, companyId, { productNumber: 'LIZ-100' });
    assert.ok(byRef);
    assert.equal(byNumber?.id, byRef.id);
    assert.equal(await findProductByRefOrNumber(t.handle.db, companyId, { productNumber: 'NOPE' }), undefined);
    const other = await t.newCompany('lookup');
    assert.equal(await findProductByRefOrNumber(t.handle.db, other.companyId, { source: 'shop', ref: 'liz-100' }), undefined);
  });

  test('the OpenAPI document lists both operations under Products', async () => {
    const doc = (await t.request('GET', '/v1/openapi.json', { key: null })).json();
    const path = doc.paths['/v1/products/by-ref/{source}/{external_ref}'];
    assert.equal(path.put.operationId, 'upsertProduct');
    assert.equal(path.get.operationId, 'retrieveProduct');
    assert.deepEqual(path.put.tags, ['Products']);
    assert.deepEqual(path.get.tags, ['Products']);
    assert.ok(path.put.summary && path.put.description);
  });
});
