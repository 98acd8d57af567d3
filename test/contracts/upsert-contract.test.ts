import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { updateCompany } from '../../src/modules/access/index.ts';
import { countRows, sealer, type TestApp, testApp } from '../helpers/app.ts';
import { putCustomer } from '../invoicing/helpers.ts';

// upsertContract / retrieveContract (issue 13, point 1): the Contract resource, its own
// number, items from products with frozen prices, and every contract.* rule.

const HOSTING = { product_number: 'HOST-S', name: 'Hosting S', unit: 'Monat', unit_price_net: '29.00', vat_rate: 19, billing_interval: 'month' };
const API_CALLS = {
  product_number: 'API-CALLS',
  name: 'API-Aufrufe',
  unit: 'Aufrufe',
  unit_price_net: '0',
  billing_interval: 'month',
  pricing_model: 'graduated',
  tiers: [
    { from: '0', to: '10000', unit_price: '0' },
    { from: '10000', to: null, unit_price: '0.002' },
  ],
};
const SETUP = { product_number: 'SETUP', name: 'Einrichtung', unit_price_net: '99.00', billing_interval: 'one_off' };

function body(overrides: Record<string, unknown> = {}) {
  return {
    customer: { source: 'crm', external_ref: 'kunde-1' },
    name: 'SaaS Business',
    billing_interval: 'month',
    start_date: '2026-12-01',
    items: [
      { ref: 'hosting', product_number: 'HOST-S' },
      { ref: 'api', product_ref: 'api-calls' },
      { ref: 'support', description: 'Support-Pauschale', unit_price_net: '15.00', quantity: '2' },
    ],
    ...overrides,
  };
}

describe('upsertContract and retrieveContract', () => {
  let t: TestApp;
  const put = (ref: string, payload: unknown) => t.request('PUT', `/v1/contracts/by-ref/crm/${ref}`, { body: payload });
  const get = (ref: string) => t.request('GET', `/v1/contracts/by-ref/crm/${ref}`);
  const counts = async () => ({ contracts: await countRows(t.handle, 'contracts'), items: await countRows(t.handle, 'contract_items') });

  before(async () => {
    t = await testApp();
    await putCustomer(t, 'kunde-1');
    await putCustomer(t, 'kunde-2', { name: 'Zweite GmbH' });
    for (const [ref, product] of [
      ['host-s', HOSTING],
      ['api-calls', API_CALLS],
      ['setup', SETUP],
    ] as const)
      assert.equal((await t.request('PUT', `/v1/products/by-ref/crm/${ref}`, { body: product })).statusCode, 201);
  });
  after(() => t.close());

  test('creates a draft with its number; items take the product terms; the same PUT again answers 200 unchanged', async () => {
    const res = await put('vertrag-1', body());
    assert.equal(res.statusCode, 201, res.body);
    const contract = res.json();
    assert.match(contract.id, /^ctr_/);
    assert.deepEqual(
      { ...contract, id: undefined },
      {
        id: undefined,
        number: 'V-00001',
        external_source: 'crm',
        external_ref: 'vertrag-1',
        customer_external_ref: 'kunde-1',
        name: 'SaaS Business',
        status: 'draft',
        billing_interval: 'month',
        start_date: '2026-12-01',
        billing_starts_on: null,
        end_date: null,
        invoice_mode: 'issue',
        payment_terms_days: null,
        next_billing_date: null,
        usage_open_from: null,
        items: [
          {
            ref: 'hosting',
            product_ref: 'host-s',
            description: 'Hosting S',
            quantity: '1',
            billing_timing: 'advance',
            unit_price_net: '29.00',
            pricing_model: 'flat',
            ends_after: null,
          },
          {
            ref: 'api',
            product_ref: 'api-calls',
            description: 'API-Aufrufe',
            quantity: '1',
            billing_timing: 'arrears',
            unit_price_net: '0',
            pricing_model: 'graduated',
            ends_after: null,
          },
          {
            ref: 'support',
            product_ref: null,
            description: 'Support-Pauschale',
            quantity: '2',
            billing_timing: 'advance',
            unit_price_net: '15.00',
            pricing_model: 'flat',
            ends_after: null,
          },
        ],
        cycles: [],
      },
    );
    const again = await put('vertrag-1', body());
    assert.equal(again.statusCode, 200);
    assert.deepEqual(again.json(), contract);
    assert.deepEqual((await get('vertrag-1')).json(), contract);
    assert.equal((await put('vertrag-2', body())).json().number, 'V-00002');
  });

  test('activating sets the first billing date and opens usage; a running contract cannot go back to draft', async () => {
    const res = await put('aktiv-1', body({ status: 'active', billing_starts_on: '2026-12-15' }));
    assert.equal(res.statusCode, 201);
    assert.deepEqual([res.json().status, res.json().next_billing_date, res.json().usage_open_from], ['active', '2026-12-15', '2026-12-01']);
    const back = await put('aktiv-1', body({ status: 'draft', billing_starts_on: '2026-12-15' }));
    assert.equal(back.statusCode, 409);
    assert.equal(back.json().detail.code, 'contract.not_draft');
    const paused = await put('aktiv-1', body({ status: 'paused', billing_starts_on: '2026-12-15' }));
    assert.equal(paused.statusCode, 200);
    assert.equal(paused.json().status, 'paused');
  });

  test('a running contract keeps interval, start and agreed prices; items keep their product and end with ends_after', async () => {
    assert.equal((await put('laufend', body({ status: 'active' }))).statusCode, 201);
    const before = await counts();
    const refusals: [Record<string, unknown>, number, string][] = [
      [body({ status: 'active', billing_interval: 'quarter' }), 409, 'contract.terms_frozen'],
      [body({ status: 'active', start_date: '2026-11-01' }), 409, 'contract.terms_frozen'],
      [
        body({ status: 'active', items: [{ ref: 'hosting', product_number: 'HOST-S', unit_price_net: '35.00' }, ...body().items.slice(1)] }),
        409,
        'contract.terms_frozen',
      ],
      [body({ status: 'active', items: body().items.slice(0, 2) }), 409, 'contract.terms_frozen'],
      [body({ status: 'active', items: [{ ref: 'hosting', product_ref: 'api-calls' }, ...body().items.slice(1)] }), 409, 'contract.item_product_changed'],
      [body({ status: 'active', customer: { source: 'crm', external_ref: 'kunde-2' } }), 409, 'contract.customer_mismatch'],
    ];
    for (const [payload, status, code] of refusals) {
      const res = await put('laufend', payload);
      assert.deepEqual([res.statusCode, res.json().detail.code], [status, code], JSON.stringify(payload).slice(0, 120));
    }
    const changed = await put('laufend', body({ status: 'active', items: [{ ref: 'hosting', product_ref: 'api-calls' }, ...body().items.slice(1)] }));
    assert.equal(changed.json().detail.ref, 'hosting');
    assert.deepEqual(await counts(), before, 'nothing written');

    // The product's price goes up: the item keeps the price agreed when it was added.
    assert.equal((await t.request('PUT', '/v1/products/by-ref/crm/host-s', { body: { ...HOSTING, unit_price_net: '39.00' } })).statusCode, 200);
    const ended = body({
      status: 'active',
      items: [
        { ref: 'hosting', product_number: 'HOST-S', ends_after: '2027-03-31' },
        ...body().items.slice(1),
        { ref: 'hosting-neu', product_number: 'HOST-S' },
      ],
    });
    const res = await put('laufend', ended);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(
      res.json().items.map((i: { ref: string; unit_price_net: string; ends_after: string | null }) => [i.ref, i.unit_price_net, i.ends_after]),
      [
        ['hosting', '29.00', '2027-03-31'],
        ['api', '0', null],
        ['support', '15.00', null],
        ['hosting-neu', '39.00', null],
      ],
    );
  });

  test('an end date inside a period billed in advance is refused with billed_until; an ended contract cannot change', async () => {
    const created = await put('abgerechnet', body({ status: 'active' }));
    assert.equal(created.statusCode, 201);
    // What the billing run leaves after billing December in advance.
    await t.handle.db.updateTable('contracts').set({ billed_until: '2026-12-31' }).where('id', '=', created.json().id).execute();
    const early = await put('abgerechnet', body({ status: 'cancelled', end_date: '2026-12-20' }));
    assert.equal(early.statusCode, 422);
    assert.deepEqual([early.json().detail.code, early.json().detail.args], ['contract.end_before_billed', { billed_until: '2026-12-31' }]);
    const cancelled = await put('abgerechnet', body({ status: 'cancelled', end_date: '2026-12-31' }));
    assert.equal(cancelled.statusCode, 200);
    assert.deepEqual([cancelled.json().status, cancelled.json().end_date], ['cancelled', '2026-12-31']);
    await t.handle.db.updateTable('contracts').set({ status: 'ended' }).where('id', '=', created.json().id).execute();
    const later = await put('abgerechnet', body({ status: 'cancelled', end_date: '2027-01-31' }));
    assert.deepEqual([later.statusCode, later.json().detail.code], [409, 'contract.ended']);
  });

  test('refusals write nothing and use no number', async () => {
    const before = await counts();
    const cases: [unknown, number, string][] = [
      [body({ customer: { source: 'crm', external_ref: 'unbekannt' } }), 404, 'customer_not_found'],
      [body({ items: [{ ref: 'x', product_number: 'GIBT-ES-NICHT' }] }), 404, 'product_not_found'],
      [body({ items: [{ ref: 'x', product_number: 'SETUP' }] }), 422, 'contract.interval_mismatch'],
      [body({ billing_interval: 'quarter' }), 422, 'contract.interval_mismatch'],
      [body({ end_date: '2026-11-30' }), 422, 'contract.date_range_invalid'],
      [body({ status: 'paused' }), 409, 'contract.not_active'],
      [body({ items: [{ ref: 'x', description: 'Stunden', unit_price_net: '-1' }] }), 422, 'pricing.negative_value'],
      [body({ items: [{ ref: 'x', description: 'Stunden', unit_price_net: '1', quantity: '-2' }] }), 422, 'pricing.quantity_negative'],
      [body({ items: [{ ref: 'x', description: 'Stunden', unit_price_net: '1', pricing_model: 'teuer' }] }), 422, 'pricing.model_unknown'],
      [
        body({
          items: [
            {
              ref: 'x',
              description: 'Speicher',
              unit_price_net: '0',
              pricing_model: 'graduated',
              tiers: [
                { from: '0', to: '10', unit_price: '1' },
                { from: '5', to: null, unit_price: '0.5' },
              ],
            },
          ],
        }),
        422,
        'pricing.tiers_overlap',
      ],
      [
        body({
          items: [
            {
              ref: 'x',
              description: 'Speicher',
              unit_price_net: '0',
              pricing_model: 'graduated',
              tiers: [
                { from: '0', to: '10', unit_price: '1' },
                { from: '12', to: null, unit_price: '0.5' },
              ],
            },
          ],
        }),
        422,
        'pricing.tier_invalid',
      ],
      [body({ rabatt: 5 }), 422, 'validation_failed'],
      [body({ items: [{ ref: 'x', description: 'Stunden' }] }), 422, 'validation_failed'],
      [body({ status: 'cancelled' }), 422, 'validation_failed'],
    ];
    for (const [payload, status, code] of cases) {
      const res = await put('abgelehnt', payload);
      assert.deepEqual([res.statusCode, res.json().detail.code], [status, code], JSON.stringify(payload).slice(0, 160));
    }
    assert.deepEqual(await counts(), before);
    const product = await put('abgelehnt', body({ items: [{ ref: 'x', product_number: 'SETUP' }] }));
    assert.equal(product.json().detail.product, 'SETUP');
    const next = await put('danach', body());
    assert.equal(next.statusCode, 201);
    assert.equal((await get('abgelehnt')).json().detail.code, 'contract_not_found');
    const numbers = await t.handle.db.selectFrom('contracts').select('number').orderBy('number').execute();
    assert.deepEqual(
      numbers.map((n) => n.number),
      numbers.map((_, i) => `V-${String(i + 1).padStart(5, '0')}`),
      'gapless',
    );
  });
  test('two creates of one reference at the same time: one 201, the other 200, one contract, one number', async () => {
    const before = await counts();
    const answers = await Promise.all([put('gleichzeitig', body()), put('gleichzeitig', body())]);
    assert.deepEqual(answers.map((res) => res.statusCode).sort(), [200, 201], answers.map((res) => res.body).join('\n'));
    assert.equal(answers[0]!.json().number, answers[1]!.json().number);
    assert.equal((await counts()).contracts, before.contracts + 1);
  });

  test('the contract number pattern is a company setting (kontor admin company update)', async () => {
    const result = await updateCompany(t.handle.db, t.clock, sealer, t.company.companyId, JSON.stringify({ contract_number_pattern: 'VT-{yyyy}-{seq:4}' }));
    assert.ok(result.updated.includes('contract_number_pattern'), JSON.stringify(result));
    const res = await put('nach-muster', body());
    assert.equal(res.statusCode, 201, res.body);
    assert.match(res.json().number, /^VT-2026-\d{4}$/);
    const refused = await updateCompany(t.handle.db, t.clock, sealer, t.company.companyId, JSON.stringify({ contract_number_pattern: 'V-ohne-Zaehler' })).catch(
      (error: Error) => error,
    );
    assert.ok(refused instanceof Error && /contract_number_pattern/.test(refused.message));
  });
});
