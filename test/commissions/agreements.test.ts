import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { countRows, type TestApp, testApp } from '../helpers/app.ts';

// upsertCommissionAgreement (issue 14, point 2): 201 on create, 200 on update or no change;
// frozen terms (409), the commission.* refusals in the order of design §3 before the
// tiers' validation_failed, nothing written by a refusal, status ended after end_date.
// The test clock stands at 2026-11-21.

const TIERS = [
  { from_month: 1, to_month: 12, percent: 12.5 },
  { from_month: 13, to_month: 24, percent: 7.25 },
  { from_month: 25, to_month: null, percent: 2 },
];

const FULL = {
  partner_ref: 'partner-1',
  name: 'Vertriebsvereinbarung Nord 2026',
  start_date: '2026-01-01',
  end_date: '2027-12-31',
  accrue_from: '2026-02-01',
  tiers: TIERS,
  applies_to: 'attributed_customers',
  anchor: 'attribution_start',
  product_numbers: ['P-200', 'P-100'],
  condition_id: null,
  contract_reference: 'VP-2026/17',
  basis: 'net_paid',
};

// Interface §2 CommissionAgreement, in its order.
const FIELDS = [
  'id',
  'partner_id',
  'partner_name',
  'condition_id',
  'name',
  'start_date',
  'end_date',
  'accrue_from',
  'contract_reference',
  'status',
  'external_source',
  'external_ref',
  'applies_to',
  'product_ids',
  'tiers',
  'anchor',
  'basis',
];

const MINIMAL = { partner_ref: 'partner-1', start_date: '2026-03-01', tiers: [{ from_month: 1, to_month: null, percent: 10 }] };

describe('upsertCommissionAgreement', () => {
  let t: TestApp;
  const partners = new Map<string, string>();
  const products = new Map<string, string>();
  const put = (ref: string, body: unknown, key?: string) => t.request('PUT', `/v1/commission-agreements/by-ref/shop/${ref}`, { body, ...(key ? { key } : {}) });
  const row = (ref: string, companyId = t.company.companyId) =>
    t.handle.db
      .selectFrom('commission_agreements')
      .selectAll()
      .where('company_id', '=', companyId)
      .where('external_source', '=', 'shop')
      .where('external_ref', '=', ref)
      .executeTakeFirst();
  const written = async () => ({
    agreements: await countRows(t.handle, 'commission_agreements'),
    products: await countRows(t.handle, 'commission_agreement_products'),
  });
  const putPartner = async (ref: string, name: string, key?: string) => {
    const res = await t.request('PUT', `/v1/commission-partners/by-ref/shop/${ref}`, { body: { name }, ...(key ? { key } : {}) });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().id as string;
  };

  before(async () => {
    t = await testApp();
    partners.set('partner-1', await putPartner('partner-1', 'Vertriebspartner Nord GmbH'));
    partners.set('partner-2', await putPartner('partner-2', 'Entwicklerin Ada'));
    for (const number of ['P-100', 'P-200', 'P-300']) {
      const res = await t.request('PUT', `/v1/products/by-ref/shop/prod-${number}`, {
        body: { product_number: number, name: `Tarif ${number}`, unit_price_net: '10', billing_interval: 'month' },
      });
      assert.equal(res.statusCode, 201, res.body);
      products.set(number, res.json().id);
    }
  });
  after(() => t.close());

  test('creates an agreement: 201, every field of the interface in order, percents exact', async () => {
    const res = await put('agr-1', FULL);
    assert.equal(res.statusCode, 201, res.body);
    const agreement = res.json();
    assert.deepEqual(Object.keys(agreement), FIELDS);
    assert.match(agreement.id, /^cag_/);
    assert.deepEqual(agreement, {
      id: agreement.id,
      partner_id: partners.get('partner-1'),
      partner_name: 'Vertriebspartner Nord GmbH',
      condition_id: null,
      name: 'Vertriebsvereinbarung Nord 2026',
      start_date: '2026-01-01',
      end_date: '2027-12-31',
      accrue_from: '2026-02-01',
      contract_reference: 'VP-2026/17',
      status: 'active',
      external_source: 'shop',
      external_ref: 'agr-1',
      applies_to: 'attributed_customers',
      product_ids: [products.get('P-100'), products.get('P-200')].sort(),
      tiers: TIERS,
      anchor: 'attribution_start',
      basis: 'net_paid',
    });
    const stored = await row('agr-1');
    assert.deepEqual(
      stored?.tiers.map((tier) => tier.percent),
      ['12.5', '7.25', '2'],
      'percents stored as exact decimal text',
    );
    assert.deepEqual(await written(), { agreements: 1, products: 2 });
  });

  test('the same PUT again answers 200 unchanged (updated_at too); product order does not matter', async () => {
    const before = await row('agr-1');
    const counts = await written();
    t.clock.set('2026-11-21T12:00:00Z');
    const res = await put('agr-1', { ...FULL, product_numbers: ['P-100', 'P-200'] });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().id, before?.id);
    assert.deepEqual(await row('agr-1'), before);
    assert.deepEqual(await written(), counts);
  });

  test('name, end_date and contract_reference may change: 200, terms and id kept', async () => {
    const first = await row('agr-1');
    t.clock.set('2026-11-21T13:00:00Z');
    const res = await put('agr-1', { ...FULL, name: 'Nord, verlängert', end_date: '2028-06-30', contract_reference: null });
    assert.equal(res.statusCode, 200, res.body);
    const agreement = res.json();
    assert.deepEqual([agreement.id, agreement.name, agreement.end_date, agreement.contract_reference], [first?.id, 'Nord, verlängert', '2028-06-30', null]);
    assert.deepEqual(agreement.tiers, TIERS);
    const stored = await row('agr-1');
    assert.equal(stored?.updated_at.toISOString(), '2026-11-21T13:00:00.000Z');
    assert.equal(stored?.created_at.toISOString(), first?.created_at.toISOString());
    // Omitting them clears them (PUT semantics).
    const cleared = await put('agr-1', { ...FULL, name: undefined, end_date: undefined, contract_reference: undefined });
    assert.equal(cleared.statusCode, 200, cleared.body);
    assert.deepEqual([cleared.json().name, cleared.json().end_date, cleared.json().contract_reference], [null, null, null]);
    assert.equal((await put('agr-1', FULL)).statusCode, 200);
  });

  test('status: ended once end_date lies before the company’s today (2026-11-21), active on the end day itself', async () => {
    const body = { ...MINIMAL, start_date: '2025-01-01' };
    assert.equal((await put('status-1', { ...body, end_date: '2026-11-21' })).json().status, 'active');
    // Ending the deal later: set end_date.
    const ended = await put('status-1', { ...body, end_date: '2026-11-20' });
    assert.equal(ended.statusCode, 200, ended.body);
    assert.equal(ended.json().status, 'ended');
    assert.equal((await put('status-2', { ...body, end_date: '2026-06-30' })).json().status, 'ended');
    // 23:30 UTC on 2026-11-20 is already 2026-11-21 in Berlin: the 20th is over.
    t.clock.set('2026-11-20T23:30:00Z');
    assert.equal((await put('status-1', { ...body, end_date: '2026-11-20' })).json().status, 'ended');
    t.clock.set('2026-11-21T10:00:00Z');
  });

  test('only the required fields: defaults (every product, anchor attribution_start, basis net_paid)', async () => {
    const res = await put('minimal-1', { ...MINIMAL, partner_ref: 'partner-2' });
    assert.equal(res.statusCode, 201, res.body);
    const agreement = res.json();
    assert.deepEqual(
      [agreement.partner_name, agreement.name, agreement.end_date, agreement.accrue_from, agreement.applies_to, agreement.anchor, agreement.basis],
      ['Entwicklerin Ada', null, null, null, 'attributed_customers', 'attribution_start', 'net_paid'],
    );
    assert.deepEqual(agreement.product_ids, []);
    assert.deepEqual(agreement.tiers, [{ from_month: 1, to_month: null, percent: 10 }]);
    // Nulls are the same as omitted.
    const nulls = { name: null, end_date: null, accrue_from: null, applies_to: null, anchor: null, product_numbers: null, condition_id: null, basis: null };
    const again = await put('minimal-1', { ...MINIMAL, partner_ref: 'partner-2', ...nulls });
    assert.equal(again.statusCode, 200, again.body);
    assert.deepEqual(again.json(), agreement);
  });

  test('all_customers: anchor defaults to first_paid_revenue; attribution_start is refused', async () => {
    const res = await put('all-1', { ...MINIMAL, applies_to: 'all_customers' });
    assert.equal(res.statusCode, 201, res.body);
    assert.deepEqual([res.json().applies_to, res.json().anchor], ['all_customers', 'first_paid_revenue']);
    const counts = await written();
    const refused = await put('all-2', { ...MINIMAL, applies_to: 'all_customers', anchor: 'attribution_start' });
    assert.equal(refused.statusCode, 422, refused.body);
    assert.equal(refused.json().detail.code, 'commission.anchor_invalid');
    assert.match(refused.json().detail.message, /all customers has no attribution/);
    assert.deepEqual(await written(), counts);
    const explicit = await put('all-3', { ...MINIMAL, applies_to: 'all_customers', anchor: 'first_paid_revenue' });
    assert.equal(explicit.statusCode, 201, explicit.body);
  });

  test('each frozen term changed gives 409 commission.agreement_terms_frozen naming it; another partner gives commission.agreement_partner_mismatch', async () => {
    const before = await row('agr-1');
    const counts = await written();
    const changes: { term: string; body: Record<string, unknown>; code: string; named?: string }[] = [
      { term: 'partner', body: { partner_ref: 'partner-2' }, code: 'commission.agreement_partner_mismatch' },
      {
        term: 'tiers (percent)',
        body: { tiers: [{ ...TIERS[0], percent: 12.4 }, TIERS[1], TIERS[2]] },
        code: 'commission.agreement_terms_frozen',
        named: 'tiers',
      },
      {
        term: 'tiers (months)',
        body: { tiers: [{ from_month: 1, to_month: 6, percent: 12.5 }, { from_month: 7, to_month: 24, percent: 7.25 }, TIERS[2]] },
        code: 'commission.agreement_terms_frozen',
        named: 'tiers',
      },
      { term: 'tiers (one fewer)', body: { tiers: TIERS.slice(0, 2) }, code: 'commission.agreement_terms_frozen', named: 'tiers' },
      {
        term: 'applies_to',
        body: { applies_to: 'all_customers', anchor: 'first_paid_revenue' },
        code: 'commission.agreement_terms_frozen',
        named: 'applies_to',
      },
      { term: 'anchor', body: { anchor: 'first_paid_revenue' }, code: 'commission.agreement_terms_frozen', named: 'anchor' },
      { term: 'products', body: { product_numbers: ['P-100', 'P-300'] }, code: 'commission.agreement_terms_frozen', named: 'product_numbers' },
      { term: 'products: every product', body: { product_numbers: null }, code: 'commission.agreement_terms_frozen', named: 'product_numbers' },
      { term: 'accrue_from', body: { accrue_from: '2026-03-01' }, code: 'commission.agreement_terms_frozen', named: 'accrue_from' },
      { term: 'accrue_from removed', body: { accrue_from: null }, code: 'commission.agreement_terms_frozen', named: 'accrue_from' },
      { term: 'start_date', body: { start_date: '2026-01-02' }, code: 'commission.agreement_terms_frozen', named: 'start_date' },
    ];
    for (const { term, body, code, named } of changes) {
      const res = await put('agr-1', { ...FULL, ...body });
      assert.equal(res.statusCode, 409, `${term}: ${res.body}`);
      assert.equal(res.json().detail.code, code, term);
      if (named) assert.match(res.json().detail.message, new RegExp(`differ: .*${named}`), term);
      assert.deepEqual(await row('agr-1'), before, term);
      assert.deepEqual(await written(), counts, term);
    }
    const two = await put('agr-1', { ...FULL, anchor: 'first_paid_revenue', accrue_from: null, name: 'Neu' });
    assert.match(two.json().detail.message, /differ: accrue_from, anchor\./);
    // A condition on an existing agreement: none exist, so 404 before the frozen check.
    const condition = await put('agr-1', { ...FULL, condition_id: 'cond_1' });
    assert.equal(condition.json().detail.code, 'commission.condition_not_found');
  });

  test('every refusal in design §3 order answers its code and writes nothing', async () => {
    const counts = await written();
    const refusals: { rule: string; ref?: string; body: Record<string, unknown>; status: number; code: string }[] = [
      { rule: 'start_date missing', body: { ...MINIMAL, start_date: undefined }, status: 422, code: 'commission.start_date_missing' },
      { rule: 'start_date null', body: { ...MINIMAL, start_date: null }, status: 422, code: 'commission.start_date_missing' },
      { rule: 'tiers missing', body: { ...MINIMAL, tiers: undefined }, status: 422, code: 'commission.tiers_empty' },
      { rule: 'tiers null', body: { ...MINIMAL, tiers: null }, status: 422, code: 'commission.tiers_empty' },
      { rule: 'tiers empty', body: { ...MINIMAL, tiers: [] }, status: 422, code: 'commission.tiers_empty' },
      { rule: 'unknown applies_to', body: { ...MINIMAL, applies_to: 'some_customers' }, status: 422, code: 'commission.applies_to_invalid' },
      { rule: 'unknown anchor', body: { ...MINIMAL, anchor: 'contract_start' }, status: 422, code: 'commission.anchor_invalid' },
      { rule: 'end before start', body: { ...MINIMAL, end_date: '2026-02-28' }, status: 422, code: 'commission.date_range_invalid' },
      { rule: 'unknown partner', body: { ...MINIMAL, partner_ref: 'nobody' }, status: 404, code: 'commission.partner_not_found' },
      {
        rule: 'another partner’s agreement',
        ref: 'agr-1',
        body: { ...FULL, partner_ref: 'partner-2' },
        status: 409,
        code: 'commission.agreement_partner_mismatch',
      },
      { rule: 'an empty product list', body: { ...MINIMAL, product_numbers: [] }, status: 422, code: 'commission.product_scope_invalid' },
      { rule: 'a product named twice', body: { ...MINIMAL, product_numbers: ['P-100', 'P-100'] }, status: 422, code: 'commission.product_scope_invalid' },
      { rule: 'an unknown product', body: { ...MINIMAL, product_numbers: ['P-100', 'P-999'] }, status: 404, code: 'commission.product_not_found' },
      { rule: 'a condition', body: { ...MINIMAL, condition_id: 'cond_1' }, status: 404, code: 'commission.condition_not_found' },
      { rule: 'changed terms', ref: 'agr-1', body: { ...FULL, start_date: '2026-01-02' }, status: 409, code: 'commission.agreement_terms_frozen' },
      // Precedence when two problems meet.
      {
        rule: 'start_date missing wins over empty tiers',
        body: { ...MINIMAL, start_date: undefined, tiers: [] },
        status: 422,
        code: 'commission.start_date_missing',
      },
      { rule: 'empty tiers win over an unknown applies_to', body: { ...MINIMAL, tiers: [], applies_to: 'x' }, status: 422, code: 'commission.tiers_empty' },
      {
        rule: 'unknown applies_to wins over unknown anchor',
        body: { ...MINIMAL, applies_to: 'x', anchor: 'y' },
        status: 422,
        code: 'commission.applies_to_invalid',
      },
      {
        rule: 'unknown anchor wins over end before start',
        body: { ...MINIMAL, anchor: 'y', end_date: '2026-01-01' },
        status: 422,
        code: 'commission.anchor_invalid',
      },
      {
        rule: 'end before start wins over a tier gap',
        body: { ...MINIMAL, end_date: '2026-01-01', tiers: [{ from_month: 2, to_month: null, percent: 10 }] },
        status: 422,
        code: 'commission.date_range_invalid',
      },
      {
        rule: 'a tier gap (validation_failed) wins over an unknown partner',
        body: { ...MINIMAL, partner_ref: 'nobody', tiers: [{ from_month: 2, to_month: null, percent: 10 }] },
        status: 422,
        code: 'validation_failed',
      },
      {
        rule: 'an unknown partner wins over another partner’s agreement',
        ref: 'agr-1',
        body: { ...FULL, partner_ref: 'nobody' },
        status: 404,
        code: 'commission.partner_not_found',
      },
      {
        rule: 'another partner’s agreement wins over an unknown product',
        ref: 'agr-1',
        body: { ...FULL, partner_ref: 'partner-2', product_numbers: ['P-999'] },
        status: 409,
        code: 'commission.agreement_partner_mismatch',
      },
      {
        rule: 'a product named twice wins over an unknown product',
        body: { ...MINIMAL, product_numbers: ['P-999', 'P-999'] },
        status: 422,
        code: 'commission.product_scope_invalid',
      },
      {
        rule: 'an unknown product wins over a condition',
        body: { ...MINIMAL, product_numbers: ['P-999'], condition_id: 'cond_1' },
        status: 404,
        code: 'commission.product_not_found',
      },
      {
        rule: 'a condition wins over changed terms',
        ref: 'agr-1',
        body: { ...FULL, start_date: '2026-01-02', condition_id: 'cond_1' },
        status: 404,
        code: 'commission.condition_not_found',
      },
      {
        rule: 'a schema error (wrong type) wins over a missing start',
        body: { ...MINIMAL, start_date: undefined, name: 42 },
        status: 422,
        code: 'validation_failed',
      },
    ];
    for (const { rule, ref, body, status, code } of refusals) {
      const res = await put(ref ?? 'refused', body);
      assert.equal(res.statusCode, status, `${rule}: ${res.body}`);
      assert.equal(res.json().detail.code, code, `${rule}: ${res.body}`);
      assert.deepEqual(await written(), counts, rule);
    }
    assert.equal(await row('refused'), undefined);
  });

  test('unknown article numbers: 404 commission.product_not_found with the unknown ones, sorted', async () => {
    const res = await put('refused', { ...MINIMAL, product_numbers: ['P-900', 'P-100', 'A-1'] });
    assert.equal(res.statusCode, 404, res.body);
    assert.deepEqual(res.json().detail.product_numbers, ['A-1', 'P-900']);
  });

  test('tiers: contiguous from month 1, only the last open, percent above 0 and at most 100 with at most 4 decimals (validation_failed)', async () => {
    const counts = await written();
    const cases: { rule: string; tiers: unknown[]; loc: (string | number)[]; type: string }[] = [
      {
        rule: 'first tier not at month 1',
        tiers: [{ from_month: 2, to_month: null, percent: 5 }],
        loc: ['body', 'tiers', 0, 'from_month'],
        type: 'greater_than_maximum',
      },
      {
        rule: 'first tier at month 0',
        tiers: [{ from_month: 0, to_month: null, percent: 5 }],
        loc: ['body', 'tiers', 0, 'from_month'],
        type: 'less_than_minimum',
      },
      {
        rule: 'a gap',
        tiers: [
          { from_month: 1, to_month: 6, percent: 5 },
          { from_month: 8, to_month: null, percent: 3 },
        ],
        loc: ['body', 'tiers', 1, 'from_month'],
        type: 'greater_than_maximum',
      },
      {
        rule: 'an overlap',
        tiers: [
          { from_month: 1, to_month: 6, percent: 5 },
          { from_month: 6, to_month: null, percent: 3 },
        ],
        loc: ['body', 'tiers', 1, 'from_month'],
        type: 'less_than_minimum',
      },
      {
        rule: 'an open tier not last',
        tiers: [
          { from_month: 1, to_month: null, percent: 5 },
          { from_month: 7, to_month: null, percent: 3 },
        ],
        loc: ['body', 'tiers', 0, 'to_month'],
        type: 'missing',
      },
      {
        rule: 'to_month before from_month',
        tiers: [{ from_month: 1, to_month: 0, percent: 5 }],
        loc: ['body', 'tiers', 0, 'to_month'],
        type: 'less_than_minimum',
      },
      { rule: 'percent 0', tiers: [{ from_month: 1, to_month: null, percent: 0 }], loc: ['body', 'tiers', 0, 'percent'], type: 'less_than_minimum' },
      { rule: 'a negative percent', tiers: [{ from_month: 1, to_month: null, percent: -1 }], loc: ['body', 'tiers', 0, 'percent'], type: 'less_than_minimum' },
      { rule: 'percent 100.5', tiers: [{ from_month: 1, to_month: null, percent: 100.5 }], loc: ['body', 'tiers', 0, 'percent'], type: 'greater_than_maximum' },
      { rule: 'percent with 5 decimals', tiers: [{ from_month: 1, to_month: null, percent: 1.23456 }], loc: ['body', 'tiers', 0, 'percent'], type: 'decimal' },
      { rule: 'percent with an exponent', tiers: [{ from_month: 1, to_month: null, percent: 1e-7 }], loc: ['body', 'tiers', 0, 'percent'], type: 'decimal' },
      { rule: 'percent as a string', tiers: [{ from_month: 1, to_month: null, percent: '5' }], loc: ['body', 'tiers', 0, 'percent'], type: 'type_error' },
      { rule: 'a fractional month', tiers: [{ from_month: 1.5, to_month: null, percent: 5 }], loc: ['body', 'tiers', 0, 'from_month'], type: 'type_error' },
      { rule: 'to_month missing', tiers: [{ from_month: 1, percent: 5 }], loc: ['body', 'tiers', 0, 'to_month'], type: 'missing' },
      {
        rule: 'an unknown tier field',
        tiers: [{ from_month: 1, to_month: null, percent: 5, flat: 1 }],
        loc: ['body', 'tiers', 0, 'flat'],
        type: 'extra_forbidden',
      },
    ];
    for (const { rule, tiers, loc, type } of cases) {
      const res = await put('refused', { ...MINIMAL, tiers });
      assert.equal(res.statusCode, 422, `${rule}: ${res.body}`);
      const detail = res.json().detail;
      assert.equal(detail.code, 'validation_failed', `${rule}: ${res.body}`);
      assert.ok(
        detail.errors.some((e: { loc: unknown[]; type: string }) => JSON.stringify(e.loc) === JSON.stringify(loc) && e.type === type),
        `${rule}: ${JSON.stringify(detail.errors)}`,
      );
      assert.deepEqual(await written(), counts, rule);
    }
    // The bounds themselves are fine: 100 %, 4 decimals, a one-month tier.
    const ok = await put('tiers-ok', {
      ...MINIMAL,
      tiers: [
        { from_month: 1, to_month: 1, percent: 100 },
        { from_month: 2, to_month: 3, percent: 33.3333 },
        { from_month: 4, to_month: 4, percent: 0.0001 },
      ],
    });
    assert.equal(ok.statusCode, 201, ok.body);
    assert.deepEqual(
      ok.json().tiers.map((tier: { percent: number }) => tier.percent),
      [100, 33.3333, 0.0001],
    );
    assert.deepEqual(
      (await row('tiers-ok'))?.tiers.map((tier) => tier.percent),
      ['100', '33.3333', '0.0001'],
    );
  });

  test('other bad input is validation_failed and writes nothing', async () => {
    const counts = await written();
    const cases: { rule: string; body: Record<string, unknown>; loc: (string | number)[]; type: string }[] = [
      { rule: 'partner_ref missing', body: { ...MINIMAL, partner_ref: undefined }, loc: ['body', 'partner_ref'], type: 'missing' },
      { rule: 'partner_ref with a space', body: { ...MINIMAL, partner_ref: 'a b' }, loc: ['body', 'partner_ref'], type: 'pattern' },
      { rule: 'an unknown field', body: { ...MINIMAL, percent: 10 }, loc: ['body', 'percent'], type: 'extra_forbidden' },
      { rule: 'status is not a request field', body: { ...MINIMAL, status: 'ended' }, loc: ['body', 'status'], type: 'extra_forbidden' },
      { rule: 'another basis', body: { ...MINIMAL, basis: 'gross_invoiced' }, loc: ['body', 'basis'], type: 'enum' },
      { rule: 'start_date no date', body: { ...MINIMAL, start_date: '2026-02-30' }, loc: ['body', 'start_date'], type: 'format' },
      { rule: 'accrue_from no date', body: { ...MINIMAL, accrue_from: 'morgen' }, loc: ['body', 'accrue_from'], type: 'format' },
      { rule: 'applies_to no string', body: { ...MINIMAL, applies_to: 1 }, loc: ['body', 'applies_to'], type: 'type_error' },
      { rule: 'a name longer than 255', body: { ...MINIMAL, name: 'N'.repeat(256) }, loc: ['body', 'name'], type: 'too_long' },
      { rule: 'product_numbers no array', body: { ...MINIMAL, product_numbers: 'P-100' }, loc: ['body', 'product_numbers'], type: 'type_error' },
    ];
    for (const { rule, body, loc, type } of cases) {
      const res = await put('refused', body);
      assert.equal(res.statusCode, 422, `${rule}: ${res.body}`);
      const detail = res.json().detail;
      assert.equal(detail.code, 'validation_failed', `${rule}: ${res.body}`);
      assert.ok(
        detail.errors.some((e: { loc: unknown[]; type: string }) => JSON.stringify(e.loc) === JSON.stringify(loc) && e.type === type),
        `${rule}: ${JSON.stringify(detail.errors)}`,
      );
      assert.deepEqual(await written(), counts, rule);
    }
  });

  test('another company’s partner and products are unknown; the same reference there is its own agreement', async () => {
    const other = await t.newCompany('other');
    const otherKey = await t.newKey({ company: other });
    const counts = await written();
    const foreign = await put('agr-1', FULL, otherKey);
    assert.equal(foreign.statusCode, 404, foreign.body);
    assert.equal(foreign.json().detail.code, 'commission.partner_not_found');
    assert.deepEqual(await written(), counts);
    await putPartner('partner-1', 'Partner der anderen Firma', otherKey);
    const products = await put('agr-1', FULL, otherKey);
    assert.equal(products.statusCode, 404, products.body);
    assert.deepEqual(products.json().detail.product_numbers, ['P-100', 'P-200']);
    const own = await put('agr-1', { ...FULL, product_numbers: null }, otherKey);
    assert.equal(own.statusCode, 201, own.body);
    assert.equal(own.json().partner_name, 'Partner der anderen Firma');
    assert.notEqual(own.json().id, (await row('agr-1'))?.id);
  });

  test('scope: partner:commissions:write is needed, checked before the body', async () => {
    const readOnly = await t.newKey({ scopes: ['partner:commissions:read'] });
    for (const body of [MINIMAL, { unknown: 1 }]) {
      const res = await put('scoped', body, readOnly);
      assert.equal(res.statusCode, 403);
      assert.equal(res.json().detail.code, 'api_key_scope_missing');
      assert.equal(res.json().detail.scope, 'partner:commissions:write');
    }
    const writeOnly = await t.newKey({ scopes: ['partner:commissions:write'] });
    assert.equal((await put('scoped', MINIMAL, writeOnly)).statusCode, 201);
  });

  test('concurrent creates of one reference: one agreement; one 201, the others 200 (or conflict_retry)', async () => {
    const counts = await written();
    const body = { ...MINIMAL, product_numbers: ['P-300'] };
    const answers = await Promise.all(Array.from({ length: 6 }, () => put('race-1', body)));
    const statuses = answers.map((res) => res.statusCode);
    assert.equal(statuses.filter((status) => status === 201).length, 1, JSON.stringify(statuses));
    for (const res of answers) {
      if (res.statusCode === 409) assert.equal(res.json().detail.code, 'conflict_retry');
      else assert.ok([200, 201].includes(res.statusCode), res.body);
    }
    const ids = new Set(answers.filter((res) => res.statusCode !== 409).map((res) => res.json().id));
    assert.equal(ids.size, 1);
    assert.deepEqual(await written(), { agreements: counts.agreements + 1, products: counts.products + 1 });
  });
});
