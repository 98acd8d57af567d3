import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { countRows, type TestApp, testApp } from '../helpers/app.ts';
import { putCustomer } from '../invoicing/helpers.ts';
import { putAgreement, putPartner } from './helpers.ts';

// upsertCommissionAttribution and its GET (issue 14, point 3): 201 on create, 200 on update
// or no change; defaults; the ended view; proposed attributions when the company has a
// person confirm them; every refusal in order, writing nothing; two partners racing for
// one customer. The test clock stands at 2026-11-21 (Berlin). Everything lives in source 'crm'.

// Interface §2 CommissionAttribution, in its order.
const FIELDS = [
  'id',
  'agreement_id',
  'agreement_name',
  'partner_id',
  'partner_name',
  'customer_id',
  'customer_name',
  'start_date',
  'end_date',
  'status',
  'source',
  'source_ref',
  'conflicts_with_id',
  'confirmed_at',
  'external_ref',
];

const TIERS = [{ from_month: 1, to_month: null, percent: 10 }];

describe('upsertCommissionAttribution', () => {
  let t: TestApp;
  const ids: Record<string, string> = {};
  const put = (ref: string, body: unknown, key?: string) =>
    t.request('PUT', `/v1/commission-attributions/by-ref/crm/${ref}`, { body, ...(key ? { key } : {}) });
  const get = (ref: string, key?: string) => t.request('GET', `/v1/commission-attributions/by-ref/crm/${ref}`, key ? { key } : {});
  const row = (ref: string) =>
    t.handle.db
      .selectFrom('commission_attributions')
      .selectAll()
      .where('company_id', '=', t.company.companyId)
      .where('external_source', '=', 'crm')
      .where('external_ref', '=', ref)
      .executeTakeFirst();
  const written = () => countRows(t.handle, 'commission_attributions');
  const customer = (ref: string) => ({ source: 'crm', external_ref: ref });
  const setNeedsConfirmation = (value: boolean) =>
    t.handle.db.updateTable('companies').set({ attributions_need_confirmation: value }).where('id', '=', t.company.companyId).execute();

  before(async () => {
    t = await testApp();
    ids.p1 = await putPartner(t, 'p1', { name: 'Vertriebspartner Nord GmbH' });
    ids.p2 = await putPartner(t, 'p2', { name: 'Entwicklerin Ada' });
    ids.a1 = await putAgreement(t, 'a1', { partner_ref: 'p1', name: 'Nord 2026', start_date: '2026-01-01', tiers: TIERS });
    ids.a1b = await putAgreement(t, 'a1b', { partner_ref: 'p1', name: 'Nord Zusatz', start_date: '2026-01-01', tiers: TIERS });
    ids.a2 = await putAgreement(t, 'a2', { partner_ref: 'p2', start_date: '2026-01-01', tiers: TIERS });
    ids.all = await putAgreement(t, 'all-1', { partner_ref: 'p1', start_date: '2026-01-01', tiers: TIERS, applies_to: 'all_customers' });
    for (const ref of ['kunde-1', 'kunde-2', 'kunde-c', 'kunde-p']) ids[ref] = (await putCustomer(t, ref, { name: `Kunde ${ref}` })).id;
  });
  after(() => t.close());

  test('creates an attribution: 201, every field of the interface in order; start defaults to the company’s today, active at once', async () => {
    const res = await put('att-1', { agreement_ref: 'a1', customer: customer('kunde-1') });
    assert.equal(res.statusCode, 201, res.body);
    const attribution = res.json();
    assert.deepEqual(Object.keys(attribution), FIELDS);
    assert.match(attribution.id, /^cat_/);
    assert.deepEqual(attribution, {
      id: attribution.id,
      agreement_id: ids.a1,
      agreement_name: 'Nord 2026',
      partner_id: ids.p1,
      partner_name: 'Vertriebspartner Nord GmbH',
      customer_id: ids['kunde-1'],
      customer_name: 'Kunde kunde-1',
      start_date: '2026-11-21',
      end_date: null,
      status: 'active',
      source: 'api',
      source_ref: null,
      conflicts_with_id: null,
      confirmed_at: '2026-11-21T10:00:00.000Z',
      external_ref: 'att-1',
    });
    const stored = await row('att-1');
    assert.deepEqual([stored?.status, stored?.decided_by, stored?.decided_at], ['active', null, null]);
    const read = await get('att-1');
    assert.equal(read.statusCode, 200, read.body);
    assert.deepEqual(read.json(), attribution);
  });

  test('the same PUT again answers 200 unchanged (updated_at too); an omitted start keeps the stored one', async () => {
    const before = await row('att-1');
    const count = await written();
    t.clock.set('2026-11-21T12:00:00Z');
    const res = await put('att-1', { agreement_ref: 'a1', customer: customer('kunde-1') });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(await row('att-1'), before);
    // The next day an omitted start still means the stored one, not the new today.
    t.clock.set('2026-11-22T09:00:00Z');
    const nulls = await put('att-1', { agreement_ref: 'a1', customer: customer('kunde-1'), start_date: null, end_date: null });
    assert.equal(nulls.statusCode, 200, nulls.body);
    assert.equal(nulls.json().start_date, '2026-11-21');
    assert.deepEqual(await row('att-1'), before);
    assert.equal(await written(), count);
    t.clock.set('2026-11-21T10:00:00Z');
  });

  test('dates follow the PUT: 200 with updated_at moved, created_at and id kept; an omitted end_date clears it', async () => {
    const first = await row('att-1');
    t.clock.set('2026-11-21T13:00:00Z');
    const res = await put('att-1', { agreement_ref: 'a1', customer: customer('kunde-1'), start_date: '2026-10-01', end_date: '2027-03-31' });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual([res.json().id, res.json().start_date, res.json().end_date, res.json().status], [first?.id, '2026-10-01', '2027-03-31', 'active']);
    const stored = await row('att-1');
    assert.equal(stored?.updated_at.toISOString(), '2026-11-21T13:00:00.000Z');
    assert.equal(stored?.created_at.toISOString(), first?.created_at.toISOString());
    assert.equal(stored?.confirmed_at?.toISOString(), first?.confirmed_at?.toISOString(), 'confirmed once, at creation');
    const open = await put('att-1', { agreement_ref: 'a1', customer: customer('kunde-1') });
    assert.deepEqual([open.json().start_date, open.json().end_date], ['2026-10-01', null]);
    t.clock.set('2026-11-21T10:00:00Z');
  });

  test('status: ended once an active attribution’s end_date lies before the company’s today, active on the end day itself', async () => {
    const body = { agreement_ref: 'a1', customer: customer('kunde-2'), start_date: '2026-01-01' };
    assert.equal((await put('end-1', { ...body, end_date: '2026-11-21' })).json().status, 'active');
    const ended = await put('end-1', { ...body, end_date: '2026-11-20' });
    assert.equal(ended.statusCode, 200, ended.body);
    assert.equal(ended.json().status, 'ended');
    assert.equal((await row('end-1'))?.status, 'active', 'stored active; ended is a view');
    assert.equal((await get('end-1')).json().status, 'ended');
    // 23:30 UTC on 2026-11-20 is already 2026-11-21 in Berlin: the 20th is over.
    t.clock.set('2026-11-20T23:30:00Z');
    assert.equal((await get('end-1')).json().status, 'ended');
    t.clock.set('2026-11-20T22:30:00Z');
    assert.equal((await get('end-1')).json().status, 'active');
    t.clock.set('2026-11-21T10:00:00Z');
  });

  test('another partner holding the customer in an overlapping period: 409 commission.attribution_conflict naming it; adjoining periods and the same partner are fine', async () => {
    const held = await put('conf-p1', { agreement_ref: 'a1', customer: customer('kunde-c'), start_date: '2026-01-01', end_date: '2026-06-30' });
    assert.equal(held.statusCode, 201, held.body);
    const heldId = held.json().id;
    const count = await written();
    const overlapping: [string, Record<string, unknown>][] = [
      ['starts on the last day', { start_date: '2026-06-30' }],
      ['lies inside', { start_date: '2026-03-01', end_date: '2026-03-31' }],
      ['encloses it', { start_date: '2025-01-01', end_date: '2027-01-01' }],
      ['ends on the first day', { start_date: '2025-06-01', end_date: '2026-01-01' }],
      ['open-ended from before', { start_date: '2025-06-01' }],
    ];
    for (const [rule, dates] of overlapping) {
      const res = await put('conf-p2', { agreement_ref: 'a2', customer: customer('kunde-c'), ...dates });
      assert.equal(res.statusCode, 409, `${rule}: ${res.body}`);
      assert.equal(res.json().detail.code, 'commission.attribution_conflict', rule);
      assert.equal(res.json().detail.conflicts_with_id, heldId, rule);
      assert.equal(await written(), count, rule);
    }
    const after = await put('conf-p2', { agreement_ref: 'a2', customer: customer('kunde-c'), start_date: '2026-07-01' });
    assert.equal(after.statusCode, 201, after.body);
    const before = await put('conf-p2-early', { agreement_ref: 'a2', customer: customer('kunde-c'), start_date: '2025-01-01', end_date: '2025-12-31' });
    assert.equal(before.statusCode, 201, before.body);
    // The same partner under another agreement, overlapping: no conflict.
    const same = await put('conf-p1-b', { agreement_ref: 'a1b', customer: customer('kunde-c'), start_date: '2026-02-01', end_date: '2026-02-28' });
    assert.equal(same.statusCode, 201, same.body);
    // An update that would reach into the other partner's period is refused and changes nothing.
    const stored = await row('conf-p2');
    const longer = await put('conf-p2', { agreement_ref: 'a2', customer: customer('kunde-c'), start_date: '2026-06-01' });
    assert.equal(longer.statusCode, 409, longer.body);
    assert.equal(longer.json().detail.conflicts_with_id, heldId);
    assert.deepEqual(await row('conf-p2'), stored);
  });

  test('every refusal in order answers its code and writes nothing', async () => {
    // att-1: a1 / kunde-1. kunde-c is held by p1 in the first half of 2026 (conf-p1).
    const count = await written();
    const before = await row('att-1');
    const refusals: { rule: string; ref: string; body: Record<string, unknown>; status: number; code: string }[] = [
      {
        rule: 'end before start',
        ref: 'new-1',
        body: { agreement_ref: 'a1', customer: customer('kunde-2'), start_date: '2026-05-02', end_date: '2026-05-01' },
        status: 422,
        code: 'commission.date_range_invalid',
      },
      {
        rule: 'end before start wins over an unknown agreement and customer',
        ref: 'new-1',
        body: { agreement_ref: 'nope', customer: customer('nobody'), start_date: '2026-05-02', end_date: '2026-05-01' },
        status: 422,
        code: 'commission.date_range_invalid',
      },
      {
        rule: 'end before the defaulted start (today)',
        ref: 'new-1',
        body: { agreement_ref: 'a1', customer: customer('kunde-2'), end_date: '2026-11-20' },
        status: 422,
        code: 'commission.date_range_invalid',
      },
      {
        rule: 'end before the stored start',
        ref: 'att-1',
        body: { agreement_ref: 'a1', customer: customer('kunde-1'), end_date: '2026-09-30' },
        status: 422,
        code: 'commission.date_range_invalid',
      },
      {
        rule: 'unknown agreement',
        ref: 'new-1',
        body: { agreement_ref: 'nope', customer: customer('kunde-2') },
        status: 404,
        code: 'commission.agreement_not_found',
      },
      {
        rule: 'unknown agreement wins over an unknown customer',
        ref: 'new-1',
        body: { agreement_ref: 'nope', customer: customer('nobody') },
        status: 404,
        code: 'commission.agreement_not_found',
      },
      {
        rule: 'an agreement for all customers',
        ref: 'new-1',
        body: { agreement_ref: 'all-1', customer: customer('nobody') },
        status: 422,
        code: 'commission.agreement_takes_no_attributions',
      },
      { rule: 'unknown customer', ref: 'new-1', body: { agreement_ref: 'a1', customer: customer('nobody') }, status: 404, code: 'customer_not_found' },
      {
        rule: 'a customer of another source',
        ref: 'new-1',
        body: { agreement_ref: 'a1', customer: { source: 'shop', external_ref: 'kunde-2' } },
        status: 404,
        code: 'customer_not_found',
      },
      {
        rule: 'the reference for another customer',
        ref: 'att-1',
        body: { agreement_ref: 'a1', customer: customer('kunde-2') },
        status: 409,
        code: 'commission.attribution_reference_mismatch',
      },
      {
        rule: 'the reference for another agreement',
        ref: 'att-1',
        body: { agreement_ref: 'a1b', customer: customer('kunde-1') },
        status: 409,
        code: 'commission.attribution_reference_mismatch',
      },
      {
        rule: 'a mismatch wins over a conflict',
        ref: 'att-1',
        body: { agreement_ref: 'a2', customer: customer('kunde-c'), start_date: '2026-03-01' },
        status: 409,
        code: 'commission.attribution_reference_mismatch',
      },
      {
        rule: 'another partner holds the customer',
        ref: 'new-1',
        body: { agreement_ref: 'a2', customer: customer('kunde-c'), start_date: '2026-03-01', end_date: '2026-03-01' },
        status: 409,
        code: 'commission.attribution_conflict',
      },
    ];
    for (const { rule, ref, body, status, code } of refusals) {
      const res = await put(ref, body);
      assert.equal(res.statusCode, status, `${rule}: ${res.body}`);
      assert.equal(res.json().detail.code, code, rule);
      assert.equal(await written(), count, rule);
      assert.deepEqual(await row('att-1'), before, rule);
    }
    assert.equal(await row('new-1'), undefined);
  });

  test('bad input is validation_failed and writes nothing', async () => {
    const count = await written();
    const ok = { agreement_ref: 'a1', customer: customer('kunde-2') };
    const cases: { rule: string; body: unknown; loc: (string | number)[]; type: string }[] = [
      { rule: 'agreement_ref missing', body: { customer: customer('kunde-2') }, loc: ['body', 'agreement_ref'], type: 'missing' },
      { rule: 'agreement_ref with a space', body: { ...ok, agreement_ref: 'a 1' }, loc: ['body', 'agreement_ref'], type: 'pattern' },
      { rule: 'customer missing', body: { agreement_ref: 'a1' }, loc: ['body', 'customer'], type: 'missing' },
      { rule: 'customer without source', body: { ...ok, customer: { external_ref: 'kunde-2' } }, loc: ['body', 'customer', 'source'], type: 'missing' },
      {
        rule: 'customer with an unknown field',
        body: { ...ok, customer: { ...customer('kunde-2'), id: 'cus_1' } },
        loc: ['body', 'customer', 'id'],
        type: 'extra_forbidden',
      },
      { rule: 'an unknown field', body: { ...ok, partner_ref: 'p1' }, loc: ['body', 'partner_ref'], type: 'extra_forbidden' },
      { rule: 'status is not a request field', body: { ...ok, status: 'active' }, loc: ['body', 'status'], type: 'extra_forbidden' },
      { rule: 'start_date no date', body: { ...ok, start_date: '2026-02-30' }, loc: ['body', 'start_date'], type: 'format' },
      { rule: 'end_date no string', body: { ...ok, end_date: 20261231 }, loc: ['body', 'end_date'], type: 'type_error' },
    ];
    for (const { rule, body, loc, type } of cases) {
      const res = await put('bad-1', body);
      assert.equal(res.statusCode, 422, `${rule}: ${res.body}`);
      const detail = res.json().detail;
      assert.equal(detail.code, 'validation_failed', `${rule}: ${res.body}`);
      assert.ok(
        detail.errors.some((e: { loc: unknown[]; type: string }) => JSON.stringify(e.loc) === JSON.stringify(loc) && e.type === type),
        `${rule}: ${JSON.stringify(detail.errors)}`,
      );
      assert.equal(await written(), count, rule);
    }
  });

  test('when the company has a person confirm attributions: proposed, not confirmed; an overlapping proposal of another partner is marked, an active holder still refuses', async () => {
    await setNeedsConfirmation(true);
    try {
      const first = await put('prop-p1', { agreement_ref: 'a1', customer: customer('kunde-p'), start_date: '2026-11-01' });
      assert.equal(first.statusCode, 201, first.body);
      assert.deepEqual([first.json().status, first.json().confirmed_at, first.json().conflicts_with_id], ['proposed', null, null]);
      const second = await put('prop-p2', { agreement_ref: 'a2', customer: customer('kunde-p'), start_date: '2026-12-01', end_date: '2027-01-31' });
      assert.equal(second.statusCode, 201, second.body);
      assert.deepEqual([second.json().status, second.json().conflicts_with_id], ['proposed', first.json().id]);
      // Moved out of the other one's period (it is open-ended, so: before it), the mark goes.
      const moved = await put('prop-p2', { agreement_ref: 'a2', customer: customer('kunde-p'), start_date: '2026-10-01', end_date: '2026-10-31' });
      assert.equal(moved.statusCode, 200, moved.body);
      assert.deepEqual([moved.json().status, moved.json().conflicts_with_id], ['proposed', null]);
      // An active attribution of another partner still refuses (conf-p1: p1 holds kunde-c in 2026-01..06).
      const count = await written();
      const held = await put('prop-conf', { agreement_ref: 'a2', customer: customer('kunde-c'), start_date: '2026-05-01', end_date: '2026-05-31' });
      assert.equal(held.statusCode, 409, held.body);
      assert.equal(held.json().detail.code, 'commission.attribution_conflict');
      assert.equal(await written(), count);
      // An update leaves an active attribution active: the setting applies to new ones.
      const active = await put('att-1', { agreement_ref: 'a1', customer: customer('kunde-1'), start_date: '2026-10-01', end_date: '2027-12-31' });
      assert.equal(active.statusCode, 200, active.body);
      assert.equal(active.json().status, 'active');
    } finally {
      await setNeedsConfirmation(false);
    }
    // A proposed attribution stays proposed on a later PUT once the setting is off again.
    const later = await put('prop-p1', { agreement_ref: 'a1', customer: customer('kunde-p'), start_date: '2026-11-02' });
    assert.equal(later.statusCode, 200, later.body);
    assert.equal(later.json().status, 'proposed');
  });

  test('GET: unknown references and another company’s attributions give 404 commission.attribution_not_found', async () => {
    const unknown = await get('nope');
    assert.equal(unknown.statusCode, 404, unknown.body);
    assert.equal(unknown.json().detail.code, 'commission.attribution_not_found');
    const other = await t.newCompany('other');
    const otherKey = await t.newKey({ company: other });
    const foreign = await get('att-1', otherKey);
    assert.equal(foreign.statusCode, 404, foreign.body);
    assert.equal(foreign.json().detail.code, 'commission.attribution_not_found');
    // There, the agreement is unknown: nothing is written for another company.
    const count = await written();
    const put404 = await put('att-1', { agreement_ref: 'a1', customer: customer('kunde-1') }, otherKey);
    assert.equal(put404.json().detail.code, 'commission.agreement_not_found');
    assert.equal(await written(), count);
  });

  test('scopes: PUT needs partner:commissions:write (checked before the body), GET partner:commissions:read', async () => {
    const readOnly = await t.newKey({ scopes: ['partner:commissions:read'] });
    for (const body of [{ agreement_ref: 'a1', customer: customer('kunde-2') }, { unknown: 1 }]) {
      const res = await put('scoped', body, readOnly);
      assert.equal(res.statusCode, 403, res.body);
      assert.equal(res.json().detail.code, 'api_key_scope_missing');
      assert.equal(res.json().detail.scope, 'partner:commissions:write');
    }
    assert.equal((await get('att-1', readOnly)).statusCode, 200);
    const writeOnly = await t.newKey({ scopes: ['partner:commissions:write'] });
    const read = await get('att-1', writeOnly);
    assert.equal(read.statusCode, 403);
    assert.equal(read.json().detail.scope, 'partner:commissions:read');
    assert.equal((await put('scoped', { agreement_ref: 'a1', customer: customer('kunde-2'), start_date: '2026-01-01' }, writeOnly)).statusCode, 201);
  });

  test('concurrent creates of one reference: one attribution; one 201, the others 200 (or conflict_retry)', async () => {
    const count = await written();
    await putCustomer(t, 'kunde-race');
    const body = { agreement_ref: 'a1', customer: customer('kunde-race'), start_date: '2026-01-01' };
    const answers = await Promise.all(Array.from({ length: 6 }, () => put('race-1', body)));
    const statuses = answers.map((res) => res.statusCode);
    assert.equal(statuses.filter((status) => status === 201).length, 1, JSON.stringify(statuses));
    for (const res of answers) {
      if (res.statusCode === 409) assert.equal(res.json().detail.code, 'conflict_retry');
      else assert.ok([200, 201].includes(res.statusCode), res.body);
    }
    assert.equal(new Set(answers.filter((res) => res.statusCode !== 409).map((res) => res.json().id)).size, 1);
    assert.equal(await written(), count + 1);
  });

  test('two partners racing for one customer: never both active; the loser gets commission.attribution_conflict', async () => {
    for (let round = 0; round < 5; round++) {
      const ref = `kunde-duel-${round}`;
      const customerId = (await putCustomer(t, ref)).id;
      const answers = await Promise.all([
        put(`duel-${round}-p1`, { agreement_ref: 'a1', customer: customer(ref), start_date: '2026-01-01' }),
        put(`duel-${round}-p2`, { agreement_ref: 'a2', customer: customer(ref), start_date: '2026-06-01' }),
      ]);
      const statuses = answers.map((res) => res.statusCode).sort();
      assert.deepEqual(statuses, [201, 409], answers.map((res) => res.body).join('\n'));
      const loser = answers.find((res) => res.statusCode === 409)!;
      const winner = answers.find((res) => res.statusCode === 201)!;
      assert.equal(loser.json().detail.code, 'commission.attribution_conflict');
      assert.equal(loser.json().detail.conflicts_with_id, winner.json().id);
      const active = await t.handle.db
        .selectFrom('commission_attributions')
        .select('partner_id')
        .where('customer_id', '=', customerId)
        .where('status', '=', 'active')
        .execute();
      assert.equal(active.length, 1, `round ${round}`);
    }
  });
});
