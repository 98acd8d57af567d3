import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { countRows, type TestApp, testApp } from '../helpers/app.ts';

// Every refusal of upsertProduct: the pricing.* codes in their precedence (they win over
// validation_failed), and validation_failed for types, unknown fields, patterns, lengths.
// Each one writes nothing.

const base = { product_number: 'P-1', name: 'Produkt', unit_price_net: '10.00', vat_rate: 19, billing_interval: 'month' };
const open = (from: string | number, unitPrice = '1') => ({ from, to: null, unit_price: unitPrice });
const tier = (from: string | number, to: string | number | null, unitPrice = '1') => ({ from, to, unit_price: unitPrice });

const refusals: { rule: string; body: Record<string, unknown>; code: string }[] = [
  { rule: 'an unknown pricing model', body: { pricing_model: 'freemium' }, code: 'pricing.model_unknown' },
  { rule: 'an unknown model wins over a negative price', body: { pricing_model: 'Flat', unit_price_net: '-1' }, code: 'pricing.model_unknown' },
  {
    rule: 'an unknown model wins over a price above the maximum',
    body: { pricing_model: 'Flat', unit_price_net: '1000000000' },
    code: 'pricing.model_unknown',
  },
  { rule: 'a negative included_quantity', body: { pricing_model: 'quota', included_quantity: '-1', overage_price: '0.1' }, code: 'pricing.quantity_negative' },
  { rule: 'a negative included_quantity as a JSON number', body: { pricing_model: 'package', included_quantity: -5 }, code: 'pricing.quantity_negative' },
  { rule: 'a negative tier from', body: { pricing_model: 'volume', tiers: [open('-1')] }, code: 'pricing.quantity_negative' },
  { rule: 'a negative tier to', body: { pricing_model: 'volume', tiers: [tier(0, -10), open(10)] }, code: 'pricing.quantity_negative' },
  {
    rule: 'a negative quantity wins over a negative price',
    body: { pricing_model: 'quota', unit_price_net: '-1', included_quantity: '-1', overage_price: '0.1' },
    code: 'pricing.quantity_negative',
  },
  { rule: 'a negative unit_price_net', body: { unit_price_net: '-0.01' }, code: 'pricing.negative_value' },
  { rule: 'a negative overage_price', body: { pricing_model: 'quota', included_quantity: 10, overage_price: '-0.10' }, code: 'pricing.negative_value' },
  { rule: 'a negative tier unit_price', body: { pricing_model: 'graduated', tiers: [open(0, '-1')] }, code: 'pricing.negative_value' },
  { rule: 'a negative tier flat_price', body: { pricing_model: 'graduated', tiers: [{ ...open(0), flat_price: '-5' }] }, code: 'pricing.negative_value' },
  { rule: 'a negative price wins over overage without quota', body: { unit_price_net: '-1', overage_price: '0.1' }, code: 'pricing.negative_value' },
  { rule: 'overage_price without included_quantity', body: { pricing_model: 'quota', overage_price: '0.10' }, code: 'pricing.overage_needs_quota' },
  { rule: 'overage_price without included_quantity on the default model', body: { overage_price: '0.10' }, code: 'pricing.overage_needs_quota' },
  { rule: 'quota without included_quantity', body: { pricing_model: 'quota' }, code: 'pricing.overage_needs_quota' },
  {
    rule: 'overage_price on a model other than quota',
    body: { pricing_model: 'package', included_quantity: 10, overage_price: '0.1' },
    code: 'pricing.overage_needs_quota',
  },
  { rule: 'package without included_quantity', body: { pricing_model: 'package' }, code: 'pricing.package_size_missing' },
  { rule: 'package with included_quantity 0', body: { pricing_model: 'package', included_quantity: '0.00' }, code: 'pricing.package_size_missing' },
  { rule: 'graduated without tiers', body: { pricing_model: 'graduated' }, code: 'pricing.tiers_empty' },
  { rule: 'volume with tiers null', body: { pricing_model: 'volume', tiers: null }, code: 'pricing.tiers_empty' },
  { rule: 'volume with no tiers', body: { pricing_model: 'volume', tiers: [] }, code: 'pricing.tiers_empty' },
  { rule: 'a tier without from', body: { pricing_model: 'graduated', tiers: [{ to: null, unit_price: '1' }] }, code: 'pricing.tier_incomplete' },
  { rule: 'a tier with from null', body: { pricing_model: 'graduated', tiers: [{ from: null, unit_price: '1' }] }, code: 'pricing.tier_incomplete' },
  { rule: 'a tier without unit_price', body: { pricing_model: 'volume', tiers: [tier(0, 10), { from: 10, to: null }] }, code: 'pricing.tier_incomplete' },
  {
    rule: 'an incomplete later tier wins over a bad first tier',
    body: { pricing_model: 'volume', tiers: [open(5), { from: 10 }] },
    code: 'pricing.tier_incomplete',
  },
  { rule: 'a first tier not starting at 0', body: { pricing_model: 'graduated', tiers: [open(1)] }, code: 'pricing.tier_invalid' },
  { rule: 'a gap between tiers', body: { pricing_model: 'graduated', tiers: [tier(0, 10), open(11)] }, code: 'pricing.tier_invalid' },
  { rule: 'a tier whose to equals its from', body: { pricing_model: 'volume', tiers: [tier(0, 0), open(0)] }, code: 'pricing.tier_invalid' },
  { rule: 'a tier whose to is below its from', body: { pricing_model: 'volume', tiers: [tier(0, 10), tier(10, 5), open(5)] }, code: 'pricing.tier_invalid' },
  { rule: 'tiers on the flat model', body: { pricing_model: 'flat', tiers: [open(0)] }, code: 'pricing.tier_invalid' },
  { rule: 'tiers on the default model', body: { tiers: [open(0)] }, code: 'pricing.tier_invalid' },
  { rule: 'overlapping tiers', body: { pricing_model: 'graduated', tiers: [tier(0, 10), open(9)] }, code: 'pricing.tiers_overlap' },
  { rule: 'an open-ended tier that is not last', body: { pricing_model: 'volume', tiers: [open(0), tier(10, 20)] }, code: 'pricing.tiers_overlap' },
  { rule: 'decimal tier bounds that overlap', body: { pricing_model: 'volume', tiers: [tier('0', '10.5'), open('10.25')] }, code: 'pricing.tiers_overlap' },
];

const invalid: { rule: string; body: Record<string, unknown>; url?: string; loc: (string | number)[]; type: string }[] = [
  { rule: 'an unknown field', body: { x: 1 }, loc: ['body', 'x'], type: 'extra_forbidden' },
  {
    rule: 'an unknown field inside a tier',
    body: { pricing_model: 'volume', tiers: [{ ...open(0), x: 1 }] },
    loc: ['body', 'tiers', 0, 'x'],
    type: 'extra_forbidden',
  },
  { rule: 'a VAT rate outside 0, 7, 19', body: { vat_rate: 8 }, loc: ['body', 'vat_rate'], type: 'enum' },
  { rule: 'a price with more than 6 decimals', body: { unit_price_net: '1.1234567' }, loc: ['body', 'unit_price_net'], type: 'decimal' },
  { rule: 'a price with an exponent', body: { unit_price_net: '1e3' }, loc: ['body', 'unit_price_net'], type: 'decimal' },
  { rule: 'a price sent as a JSON number', body: { unit_price_net: 12.5 }, loc: ['body', 'unit_price_net'], type: 'type_error' },
  { rule: 'a unit price above 999999999.999999', body: { unit_price_net: '1000000000' }, loc: ['body', 'unit_price_net'], type: 'greater_than_maximum' },
  {
    rule: 'an overage price above 999999999.999999',
    body: { pricing_model: 'quota', included_quantity: 10, overage_price: '1000000000.000001' },
    loc: ['body', 'overage_price'],
    type: 'greater_than_maximum',
  },
  {
    rule: 'a tier price above 999999999.999999',
    body: { pricing_model: 'graduated', tiers: [tier(0, 10), { ...open(10, '999999999999'), flat_price: '999999999999.5' }] },
    loc: ['body', 'tiers', 1, 'flat_price'],
    type: 'greater_than_maximum',
  },
  {
    rule: 'a tier bound with too many decimals',
    body: { pricing_model: 'volume', tiers: [tier(0, 0.12345678), open(1)] },
    loc: ['body', 'tiers', 0, 'to'],
    type: 'decimal',
  },
  { rule: 'pricing_model of the wrong type', body: { pricing_model: 3 }, loc: ['body', 'pricing_model'], type: 'type_error' },
  { rule: 'an unknown billing interval', body: { billing_interval: 'week' }, loc: ['body', 'billing_interval'], type: 'enum' },
  { rule: 'a missing name', body: { name: undefined }, loc: ['body', 'name'], type: 'missing' },
  { rule: 'a blank name', body: { name: '   ' }, loc: ['body', 'name'], type: 'too_short' },
  { rule: 'a missing billing interval', body: { billing_interval: undefined }, loc: ['body', 'billing_interval'], type: 'missing' },
  { rule: 'an article number with a space', body: { product_number: 'A 1' }, loc: ['body', 'product_number'], type: 'pattern' },
  { rule: 'an article number longer than 64', body: { product_number: 'A'.repeat(65) }, loc: ['body', 'product_number'], type: 'too_long' },
  { rule: 'a unit longer than 32', body: { unit: 'u'.repeat(33) }, loc: ['body', 'unit'], type: 'too_long' },
  { rule: 'a description longer than 2000', body: { description: 'd'.repeat(2001) }, loc: ['body', 'description'], type: 'too_long' },
  {
    rule: 'more than 50 tiers',
    body: { pricing_model: 'graduated', tiers: Array.from({ length: 51 }, (_, i) => tier(i, i + 1)) },
    loc: ['body', 'tiers'],
    type: 'too_long',
  },
  { rule: 'a tier that is not an object', body: { pricing_model: 'graduated', tiers: ['0-10'] }, loc: ['body', 'tiers', 0], type: 'type_error' },
  {
    rule: 'included_quantity on a model that does not use it',
    body: { pricing_model: 'per_unit', included_quantity: 10 },
    loc: ['body', 'included_quantity'],
    type: 'extra_forbidden',
  },
  { rule: 'quota without overage_price', body: { pricing_model: 'quota', included_quantity: 10 }, loc: ['body', 'overage_price'], type: 'missing' },
  { rule: 'a source outside the path pattern', body: {}, url: '/v1/products/by-ref/Shop/p-1', loc: ['path', 'source'], type: 'pattern' },
  { rule: 'an external_ref outside the path pattern', body: {}, url: '/v1/products/by-ref/shop/-p', loc: ['path', 'external_ref'], type: 'pattern' },
];

describe('upsertProduct refusals', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp();
  });
  after(() => t.close());

  for (const { rule, body, code } of refusals) {
    test(`refuses ${rule} with 422 ${code} and writes nothing`, async () => {
      const before = await countRows(t.handle, 'products');
      const res = await t.request('PUT', '/v1/products/by-ref/shop/p-1', { body: { ...base, ...body } });
      assert.equal(res.statusCode, 422, res.body);
      assert.equal(res.json().detail.code, code);
      assert.equal(await countRows(t.handle, 'products'), before);
    });
  }

  for (const { rule, body, url, loc, type } of invalid) {
    test(`refuses ${rule} with validation_failed ${type} at ${loc.join('.')}`, async () => {
      const before = await countRows(t.handle, 'products');
      const res = await t.request('PUT', url ?? '/v1/products/by-ref/shop/p-1', { body: { ...base, ...body } });
      assert.equal(res.statusCode, 422, res.body);
      const detail = res.json().detail;
      assert.equal(detail.code, 'validation_failed');
      assert.ok(
        detail.errors.some((e: { loc: unknown; type: string }) => JSON.stringify(e.loc) === JSON.stringify(loc) && e.type === type),
        JSON.stringify(detail.errors),
      );
      assert.equal(await countRows(t.handle, 'products'), before);
    });
  }

  test('a refusal never echoes the value sent', async () => {
    const res = await t.request('PUT', '/v1/products/by-ref/shop/p-1', { body: { ...base, unit_price_net: '9.87654321', x: 'geheim-123' } });
    assert.equal(res.json().detail.code, 'validation_failed');
    assert.ok(!res.body.includes('9.87654321') && !res.body.includes('geheim-123'));
  });

  test('a refused update leaves the product as it was', async () => {
    const created = await t.request('PUT', '/v1/products/by-ref/shop/kept', { body: { ...base, product_number: 'KEPT' } });
    assert.equal(created.statusCode, 201);
    const res = await t.request('PUT', '/v1/products/by-ref/shop/kept', {
      body: { ...base, product_number: 'KEPT', pricing_model: 'volume', tiers: [open(1)] },
    });
    assert.equal(res.json().detail.code, 'pricing.tier_invalid');
    assert.deepEqual((await t.request('GET', '/v1/products/by-ref/shop/kept')).json(), created.json());
  });

  test('zero prices and quantities are accepted', async () => {
    const res = await t.request('PUT', '/v1/products/by-ref/shop/zero', {
      body: { ...base, product_number: 'ZERO', unit_price_net: '0', pricing_model: 'quota', included_quantity: 0, overage_price: '0.00' },
    });
    assert.equal(res.statusCode, 201, res.body);
  });

  test('prices of exactly 999999999.999999 are accepted (the most an invoice line takes)', async () => {
    const res = await t.request('PUT', '/v1/products/by-ref/shop/dearest', {
      body: {
        ...base,
        product_number: 'DEAREST',
        unit_price_net: '999999999.999999',
        pricing_model: 'quota',
        included_quantity: 1,
        overage_price: '999999999.999999',
      },
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().unit_price_net, '999999999.999999');
  });
});
