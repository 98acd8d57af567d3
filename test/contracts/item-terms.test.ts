import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { countRows, type TestApp, testApp } from '../helpers/app.ts';
import { putCustomer } from '../invoicing/helpers.ts';
import { contractInvoices, getContract, invoiceLines, putContract, reportUsage, runBilling } from './helpers.ts';

// Issue 24, point 1: every term of a contract item (product, pricing model, tiers, package
// size, quota, overage price, unit price, VAT rate, billing timing) is frozen when the item
// is added. Re-sending the same terms is a no-op, also after the product changed; other
// terms on the same ref are refused with 409 and change nothing; a new deal is a new ref.

const API = {
  product_number: 'API-X',
  name: 'API-Aufrufe',
  unit: 'Aufrufe',
  unit_price_net: '0',
  billing_interval: 'month',
  pricing_model: 'graduated',
  tiers: [
    { from: '0', to: '1000', unit_price: '0' },
    { from: '1000', to: null, unit_price: '0.05' },
  ],
};
// The product's price list changes later: the second tier doubles.
const API_DEARER = { ...API, tiers: [API.tiers[0], { from: '1000', to: null, unit_price: '0.10' }] };

const customer = { source: 'crm', external_ref: 'kunde-1' };
const contract = (items: unknown[], overrides: Record<string, unknown> = {}) => ({
  customer,
  name: 'API-Vertrag',
  status: 'active',
  billing_interval: 'month',
  start_date: '2026-12-01',
  items,
  ...overrides,
});

// A quota item with its own terms: 9.00 a month with 1,000 calls included, 0.003 per call beyond.
const QUOTA = {
  ref: 'kontingent',
  description: 'Kontingent',
  unit: 'Aufrufe',
  pricing_model: 'quota',
  unit_price_net: '9.00',
  included_quantity: '1000',
  overage_price: '0.003',
};
// A package item: 0.37 per started package of 100 units.
const PACKAGE = { ref: 'pakete', description: 'SMS', unit: 'SMS', pricing_model: 'package', unit_price_net: '0.37', included_quantity: '100' };
const FLAT = { ref: 'hosting', description: 'Hosting', unit_price_net: '29.00', vat_rate: 19 };

describe('contract items keep their terms', () => {
  let t: TestApp;
  const put = (ref: string, body: unknown) => t.request('PUT', `/v1/contracts/by-ref/crm/${ref}`, { body });

  before(async () => {
    t = await testApp();
    await putCustomer(t, 'kunde-1');
    assert.equal((await t.request('PUT', '/v1/products/by-ref/crm/api-x', { body: API })).statusCode, 201);
  });
  after(() => t.close());

  test('the same body again after the product tiers changed changes nothing; the period is billed at the agreed tiers (125.00, not 250.00)', async () => {
    const items = [{ ref: 'api', product_ref: 'api-x' }];
    const created = await putContract(t, 'api-1', contract(items), [201]);
    const usage = await reportUsage(t, 'api-1', [{ external_ref: 'u-1', item_ref: 'api', quantity: '3500', occurred_at: '2026-12-10T10:00:00+01:00' }]);
    assert.equal(usage.statusCode, 201, usage.body);
    assert.equal((await t.request('PUT', '/v1/products/by-ref/crm/api-x', { body: API_DEARER })).statusCode, 200);

    const again = await put('api-1', contract(items));
    assert.equal(again.statusCode, 200, again.body);
    assert.deepEqual(again.json(), created);

    await runBilling(t, '2027-01-01');
    const [invoice] = await contractInvoices(t, 'api-1');
    // 3,500 calls: 1,000 free, 2,500 × 0.05 = 125.00 (at the product's new tiers it would be 2,500 × 0.10 = 250.00).
    assert.equal(invoice!.total_net, '125.00');
    assert.deepEqual(
      (await invoiceLines(t, invoice!.id)).map((l) => [l.description, l.quantity, l.unit_price_net, l.net_cents]),
      [
        ['API-Aufrufe, Staffel 0 bis unter 1.000 Aufrufe', '1000', '0', 0],
        ['API-Aufrufe, Staffel ab 1.000 Aufrufe', '2500', '0.05', 12500],
      ],
    );
  });

  test('other terms on the same ref are refused with 409 contract.terms_frozen naming ref and terms; nothing changes', async () => {
    await putContract(t, 'terms-1', contract([QUOTA, PACKAGE, FLAT]), [201]);
    const stored = async () =>
      t.handle.db
        .selectFrom('contract_items')
        .select(['ref', 'pricing_model', 'unit_price_net', 'included_quantity', 'overage_price', 'tiers', 'vat_rate', 'billing_timing', 'quantity'])
        .where('contract_id', '=', (await getContract(t, 'terms-1')).id)
        .orderBy('position')
        .execute();
    const before = await stored();
    const view = await getContract(t, 'terms-1');
    const changes: [string, Record<string, unknown>, string[]][] = [
      ['kontingent', { pricing_model: 'per_unit', included_quantity: null, overage_price: null }, ['pricing_model', 'included_quantity', 'overage_price']],
      ['kontingent', { included_quantity: '2000' }, ['included_quantity']],
      ['kontingent', { overage_price: '0.002' }, ['overage_price']],
      ['kontingent', { unit_price_net: '12.00' }, ['unit_price_net']],
      ['kontingent', { vat_rate: 7 }, ['vat_rate']],
      ['kontingent', { billing_timing: 'advance' }, ['billing_timing']],
      ['pakete', { included_quantity: '1000' }, ['included_quantity']],
      [
        'pakete',
        {
          pricing_model: 'graduated',
          included_quantity: null,
          tiers: [
            { from: '0', to: '100', unit_price: '0' },
            { from: '100', to: null, unit_price: '0.01' },
          ],
        },
        ['pricing_model', 'included_quantity', 'tiers'],
      ],
      ['hosting', { unit_price_net: '35.00' }, ['unit_price_net']],
    ];
    for (const [ref, change, terms] of changes) {
      const items = [QUOTA, PACKAGE, FLAT].map((item) => (item.ref === ref ? { ...item, ...change } : item));
      const res = await put('terms-1', contract(items));
      assert.equal(res.statusCode, 409, `${ref} ${JSON.stringify(change)}: ${res.body}`);
      assert.equal(res.json().detail.code, 'contract.terms_frozen');
      assert.deepEqual(res.json().detail.args, { ref, terms });
      assert.match(res.json().detail.message, new RegExp(`${ref}.*neue`, 'i'));
    }
    assert.deepEqual(await stored(), before, 'nothing changed');
    assert.deepEqual(await getContract(t, 'terms-1'), view);
  });

  test('a tiered item keeps its tiers: other tiers on the same ref are refused, the same tiers (also as numbers) are a no-op', async () => {
    const tiered = {
      ref: 'speicher',
      description: 'Speicher',
      unit: 'GB',
      pricing_model: 'volume',
      unit_price_net: '0',
      tiers: [
        { from: '0', to: '100', unit_price: '0.20' },
        { from: '100', to: null, unit_price: '0.15' },
      ],
    };
    const created = await putContract(t, 'tiers-1', contract([tiered]), [201]);
    const same = await put(
      'tiers-1',
      contract([
        {
          ...tiered,
          tiers: [
            { from: 0, to: 100, unit_price: '0.2' },
            { from: 100, to: null, unit_price: '0.150' },
          ],
        },
      ]),
    );
    assert.equal(same.statusCode, 200, same.body);
    assert.deepEqual(same.json(), created);
    const other = await put(
      'tiers-1',
      contract([
        {
          ...tiered,
          tiers: [
            { from: '0', to: '100', unit_price: '0.20' },
            { from: '100', to: null, unit_price: '0.10' },
          ],
        },
      ]),
    );
    assert.equal(other.statusCode, 409);
    assert.deepEqual([other.json().detail.code, other.json().detail.args], ['contract.terms_frozen', { ref: 'speicher', terms: ['tiers'] }]);
  });

  test('a product-backed item sent with the product terms spelled out is unchanged; the product itself stays its product', async () => {
    const created = await putContract(t, 'api-2', contract([{ ref: 'api', product_ref: 'api-x' }]), [201]);
    // Added now, the item took the product's tiers of today (the dearer ones); sent with them spelled out it is unchanged.
    const explicit = await put(
      'api-2',
      contract([{ ref: 'api', product_ref: 'api-x', pricing_model: 'graduated', tiers: API_DEARER.tiers, vat_rate: 19, billing_timing: 'arrears' }]),
    );
    assert.equal(explicit.statusCode, 200, explicit.body);
    assert.deepEqual(explicit.json(), created);
    const cheaper = await put('api-2', contract([{ ref: 'api', product_ref: 'api-x', tiers: API.tiers }]));
    assert.deepEqual(
      [cheaper.statusCode, cheaper.json().detail.code, cheaper.json().detail.args],
      [409, 'contract.terms_frozen', { ref: 'api', terms: ['tiers'] }],
    );
    const otherProduct = await put('api-2', contract([{ ref: 'api', description: 'API', unit_price_net: '0.05', pricing_model: 'per_unit' }]));
    assert.deepEqual([otherProduct.statusCode, otherProduct.json().detail.code, otherProduct.json().detail.ref], [409, 'contract.item_product_changed', 'api']);
  });

  test('a new deal is a new ref: the old item ends, the new one bills the new terms from the day it is added', async () => {
    t.clock.set('2026-12-15T09:00:00Z');
    await putContract(t, 'deal-1', contract([QUOTA], { start_date: '2026-12-01' }), [201]);
    const items = [
      { ...QUOTA, ends_after: '2026-12-14' },
      { ...QUOTA, ref: 'kontingent-2', unit_price_net: '12.00', included_quantity: '2000' },
    ];
    const res = await put('deal-1', contract(items));
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(
      res.json().items.map((i: { ref: string; unit_price_net: string; ends_after: string | null }) => [i.ref, i.unit_price_net, i.ends_after]),
      [
        ['kontingent', '9.00', '2026-12-14'],
        ['kontingent-2', '12.00', null],
      ],
    );
  });

  test('a draft is still negotiable: its items take the terms sent', async () => {
    await putContract(t, 'entwurf-1', contract([QUOTA], { status: 'draft' }), [201]);
    const res = await put('entwurf-1', contract([{ ...QUOTA, included_quantity: '5000', unit_price_net: '19.00' }], { status: 'draft' }));
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().items[0].unit_price_net, '19.00');
    const row = await t.handle.db.selectFrom('contract_items').select('included_quantity').where('contract_id', '=', res.json().id).executeTakeFirstOrThrow();
    assert.equal(row.included_quantity, '5000');
  });

  test('a refusal writes nothing', async () => {
    const before = { items: await countRows(t.handle, 'contract_items'), contracts: await countRows(t.handle, 'contracts') };
    const res = await put('terms-1', contract([QUOTA, { ...PACKAGE, unit_price_net: '0.40' }, FLAT]));
    assert.equal(res.statusCode, 409);
    assert.deepEqual({ items: await countRows(t.handle, 'contract_items'), contracts: await countRows(t.handle, 'contracts') }, before);
  });
});
