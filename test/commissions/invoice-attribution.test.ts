import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestApp, testApp } from '../helpers/app.ts';
import { counts, invoiceBody, newKey, postInvoice, putCustomer } from '../invoicing/helpers.ts';
import { putAgreement, putAttribution, putPartner } from './helpers.ts';

// createInvoice's `attribution` {partner_ref, agreement_ref} (interface §4 rule 4): in the
// invoice's transaction the customer is attributed to the partner under the agreement from
// the company's today, as upsertCommissionAttribution would (source invoice, reference =
// the invoice's external_ref), unless an attribution under the agreement is active or
// proposed today. A refusal creates no invoice and leaves the idempotency key unused. The
// test clock stands at 2026-11-21 (Berlin); refs are in the customer's source 'crm'.

const TIERS = [{ from_month: 1, to_month: null, percent: 10 }];

describe('createInvoice with attribution', () => {
  let t: TestApp;
  const ids: Record<string, string> = {};
  const attributions = (customerId?: string) => {
    let query = t.handle.db.selectFrom('commission_attributions').selectAll().where('company_id', '=', t.company.companyId);
    if (customerId) query = query.where('customer_id', '=', customerId);
    return query.orderBy('created_at').orderBy('id').execute();
  };
  const written = async () => ({ ...(await counts(t)), attributions: (await attributions()).length });
  const forCustomer = (customerRef: string, ref: string, attribution: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    invoiceBody(ref, { customer: { source: 'crm', external_ref: customerRef }, attribution, ...extra });
  const viaP1 = { partner_ref: 'p1', agreement_ref: 'a1' };

  before(async () => {
    t = await testApp();
    ids.p1 = await putPartner(t, 'p1', { name: 'Vertriebspartner Nord GmbH' });
    ids.p2 = await putPartner(t, 'p2', { name: 'Entwicklerin Ada' });
    ids.a1 = await putAgreement(t, 'a1', { partner_ref: 'p1', name: 'Nord 2026', start_date: '2026-01-01', tiers: TIERS });
    ids.a2 = await putAgreement(t, 'a2', { partner_ref: 'p2', start_date: '2026-01-01', tiers: TIERS });
    ids.all = await putAgreement(t, 'all-1', { partner_ref: 'p1', start_date: '2026-01-01', tiers: TIERS, applies_to: 'all_customers' });
    for (const ref of ['kunde-1', 'kunde-2', 'kunde-3', 'kunde-4', 'kunde-5', 'kunde-6', 'kunde-7']) ids[ref] = (await putCustomer(t, ref)).id;
  });
  after(() => t.close());

  test('a draft attributes its customer: one active attribution from today, source invoice, reference the invoice’s external_ref', async () => {
    const res = await postInvoice(t, forCustomer('kunde-1', 'inv-1', viaP1));
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().status, 'draft');
    const [stored, ...more] = await attributions(ids['kunde-1']);
    assert.equal(more.length, 0);
    assert.deepEqual(
      {
        agreement_id: stored?.agreement_id,
        partner_id: stored?.partner_id,
        start_date: stored?.start_date,
        end_date: stored?.end_date,
        status: stored?.status,
        source: stored?.source,
        source_ref: stored?.source_ref,
        external_source: stored?.external_source,
        external_ref: stored?.external_ref,
        confirmed_at: stored?.confirmed_at?.toISOString(),
      },
      {
        agreement_id: ids.a1,
        partner_id: ids.p1,
        start_date: '2026-11-21',
        end_date: null,
        status: 'active',
        source: 'invoice',
        source_ref: 'inv-1',
        external_source: 'crm',
        external_ref: 'inv-1',
        confirmed_at: '2026-11-21T10:00:00.000Z',
      },
    );
    const read = await t.request('GET', '/v1/commission-attributions/by-ref/crm/inv-1');
    assert.equal(read.statusCode, 200, read.body);
    assert.deepEqual(
      [read.json().source, read.json().source_ref, read.json().partner_name, read.json().agreement_name],
      ['invoice', 'inv-1', 'Vertriebspartner Nord GmbH', 'Nord 2026'],
    );
  });

  test('an issued invoice attributes too; a customer already attributed under the agreement today gets nothing new', async () => {
    const issued = await postInvoice(t, forCustomer('kunde-2', 'inv-2', viaP1, { issue: true }));
    assert.equal(issued.statusCode, 201, issued.body);
    assert.equal(issued.json().status, 'issued');
    assert.equal((await attributions(ids['kunde-2'])).length, 1);
    const before = await attributions();
    const again = await postInvoice(t, forCustomer('kunde-1', 'inv-1b', viaP1));
    assert.equal(again.statusCode, 201, again.body);
    assert.deepEqual(await attributions(), before, 'nothing new, nothing changed');
    // An attribution made through the API counts as well.
    await putAttribution(t, 'api-3', {
      agreement_ref: 'a1',
      customer: { source: 'crm', external_ref: 'kunde-3' },
      start_date: '2026-01-01',
      end_date: '2026-11-21',
    });
    const viaApi = await postInvoice(t, forCustomer('kunde-3', 'inv-3', viaP1));
    assert.equal(viaApi.statusCode, 201, viaApi.body);
    assert.equal((await attributions(ids['kunde-3'])).length, 1);
  });

  test('an attribution under the agreement that does not cover today (ended, or starting later) does not count: a new one from today', async () => {
    await putAttribution(t, 'api-4-old', {
      agreement_ref: 'a1',
      customer: { source: 'crm', external_ref: 'kunde-4' },
      start_date: '2026-01-01',
      end_date: '2026-11-20',
    });
    const res = await postInvoice(t, forCustomer('kunde-4', 'inv-4', viaP1));
    assert.equal(res.statusCode, 201, res.body);
    const list = await attributions(ids['kunde-4']);
    assert.deepEqual(
      list.map((a) => [a.external_ref, a.start_date, a.end_date]),
      [
        ['api-4-old', '2026-01-01', '2026-11-20'],
        ['inv-4', '2026-11-21', null],
      ],
    );
    const laterId = (await putCustomer(t, 'kunde-4-later')).id;
    await putAttribution(t, 'api-4-later', { agreement_ref: 'a1', customer: { source: 'crm', external_ref: 'kunde-4-later' }, start_date: '2026-12-01' });
    const later = await postInvoice(t, forCustomer('kunde-4-later', 'inv-4-later', viaP1));
    assert.equal(later.statusCode, 201, later.body);
    assert.deepEqual(
      (await attributions(laterId)).map((a) => [a.external_ref, a.start_date, a.end_date]),
      [
        ['api-4-later', '2026-12-01', null],
        ['inv-4-later', '2026-11-21', null],
      ],
    );
  });

  test('each refusal creates no invoice and no attribution, and leaves the idempotency key unused', async () => {
    // kunde-5 is held by partner p2 from 2026-06-01 on; the reference api-6 belongs to kunde-6.
    const held = await putAttribution(t, 'held-5', { agreement_ref: 'a2', customer: { source: 'crm', external_ref: 'kunde-5' }, start_date: '2026-06-01' });
    await putAttribution(t, 'api-6', { agreement_ref: 'a1', customer: { source: 'crm', external_ref: 'kunde-6' } });
    const refusals: { rule: string; body: Record<string, unknown>; status: number; code: string }[] = [
      {
        rule: 'unknown agreement',
        body: forCustomer('kunde-7', 'ref-1', { partner_ref: 'p1', agreement_ref: 'nope' }),
        status: 404,
        code: 'commission.agreement_not_found',
      },
      {
        rule: 'the agreement of another partner',
        body: forCustomer('kunde-7', 'ref-2', { partner_ref: 'p2', agreement_ref: 'a1' }),
        status: 404,
        code: 'commission.agreement_not_found',
      },
      {
        rule: 'unknown partner',
        body: forCustomer('kunde-7', 'ref-3', { partner_ref: 'nobody', agreement_ref: 'a1' }),
        status: 404,
        code: 'commission.agreement_not_found',
      },
      {
        rule: 'an agreement for all customers',
        body: forCustomer('kunde-7', 'ref-4', { partner_ref: 'p1', agreement_ref: 'all-1' }),
        status: 422,
        code: 'commission.agreement_takes_no_attributions',
      },
      {
        rule: 'the invoice’s reference names another customer’s attribution',
        body: forCustomer('kunde-7', 'api-6', viaP1),
        status: 409,
        code: 'commission.attribution_reference_mismatch',
      },
      {
        rule: 'another partner holds the customer',
        body: forCustomer('kunde-5', 'ref-5', viaP1, { issue: true }),
        status: 409,
        code: 'commission.attribution_conflict',
      },
    ];
    for (const { rule, body, status, code } of refusals) {
      const before = await written();
      const key = newKey();
      const res = await postInvoice(t, body, key);
      assert.equal(res.statusCode, status, `${rule}: ${res.body}`);
      assert.equal(res.json().detail.code, code, rule);
      if (code === 'commission.attribution_conflict') assert.equal(res.json().detail.conflicts_with_id, held.id, rule);
      assert.deepEqual(await written(), before, `${rule}: nothing written`);
      // The key is free: the same key serves a request without the attribution.
      const { attribution: _, ...plain } = body;
      const retry = await postInvoice(t, plain, key);
      assert.equal(retry.statusCode, 201, `${rule}: the key was not used up: ${retry.body}`);
    }
  });

  test('a refused attribution can be retried with the same key and body once the cause is gone', async () => {
    await putAttribution(t, 'held-7', { agreement_ref: 'a2', customer: { source: 'crm', external_ref: 'kunde-7' }, start_date: '2026-01-01' });
    const key = newKey();
    const body = forCustomer('kunde-7', 'inv-7', viaP1);
    const refused = await postInvoice(t, body, key);
    assert.equal(refused.statusCode, 409, refused.body);
    // p2's attribution ends yesterday: from today kunde-7 is free.
    await putAttribution(t, 'held-7', {
      agreement_ref: 'a2',
      customer: { source: 'crm', external_ref: 'kunde-7' },
      start_date: '2026-01-01',
      end_date: '2026-11-20',
    });
    const created = await postInvoice(t, body, key);
    assert.equal(created.statusCode, 201, created.body);
    assert.deepEqual(
      (await attributions(ids['kunde-7'])).map((a) => [a.external_ref, a.partner_id, a.status]),
      [
        ['held-7', ids.p2, 'active'],
        ['inv-7', ids.p1, 'active'],
      ],
    );
  });

  test('a replay creates nothing: 200 with the first answer, no attribution written or changed', async () => {
    const customerId = (await putCustomer(t, 'kunde-replay')).id;
    const key = newKey();
    const body = forCustomer('kunde-replay', 'inv-replay', viaP1);
    const first = await postInvoice(t, body, key);
    assert.equal(first.statusCode, 201, first.body);
    const before = await written();
    const stored = await attributions(customerId);
    assert.equal(stored.length, 1);
    // Even once the attribution no longer covers today, the replay only answers.
    await putAttribution(t, 'inv-replay', { agreement_ref: 'a1', customer: { source: 'crm', external_ref: 'kunde-replay' }, end_date: '2026-11-21' });
    t.clock.set('2026-11-23T10:00:00Z');
    try {
      const ended = await attributions(customerId);
      const replay = await postInvoice(t, body, key);
      assert.equal(replay.statusCode, 200, replay.body);
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.equal(replay.body, first.body);
      assert.deepEqual(await written(), before);
      assert.deepEqual(await attributions(customerId), ended);
    } finally {
      t.clock.set('2026-11-21T10:00:00Z');
    }
  });

  test('when the company has a person confirm attributions, the invoice’s attribution is proposed; a proposed one covering today counts', async () => {
    await t.handle.db.updateTable('companies').set({ attributions_need_confirmation: true }).where('id', '=', t.company.companyId).execute();
    try {
      const customerId = (await putCustomer(t, 'kunde-prop')).id;
      const first = await postInvoice(t, forCustomer('kunde-prop', 'inv-prop-1', viaP1));
      assert.equal(first.statusCode, 201, first.body);
      const second = await postInvoice(t, forCustomer('kunde-prop', 'inv-prop-2', viaP1));
      assert.equal(second.statusCode, 201, second.body);
      const list = await attributions(customerId);
      assert.deepEqual(
        list.map((a) => [a.external_ref, a.status, a.confirmed_at]),
        [['inv-prop-1', 'proposed', null]],
      );
      // Another partner's invoice proposes too, marked as conflicting with the first.
      const other = await postInvoice(t, forCustomer('kunde-prop', 'inv-prop-3', { partner_ref: 'p2', agreement_ref: 'a2' }));
      assert.equal(other.statusCode, 201, other.body);
      const marked = (await attributions(customerId)).find((a) => a.external_ref === 'inv-prop-3');
      assert.deepEqual([marked?.status, marked?.conflicts_with_id], ['proposed', list[0]?.id]);
    } finally {
      await t.handle.db.updateTable('companies').set({ attributions_need_confirmation: false }).where('id', '=', t.company.companyId).execute();
    }
  });

  test('concurrent invoices of one customer under one agreement make one attribution', async () => {
    const customerId = (await putCustomer(t, 'kunde-race')).id;
    const answers = await Promise.all(Array.from({ length: 5 }, (_, i) => postInvoice(t, forCustomer('kunde-race', `inv-race-${i}`, viaP1))));
    for (const res of answers) assert.equal(res.statusCode, 201, res.body);
    assert.equal((await attributions(customerId)).length, 1);
  });

  test('concurrent invoices of two partners for one customer: one attribution, the other invoice refused with commission.attribution_conflict', async () => {
    for (let round = 0; round < 3; round++) {
      const ref = `kunde-duel-${round}`;
      const customerId = (await putCustomer(t, ref)).id;
      const answers = await Promise.all([
        postInvoice(t, forCustomer(ref, `inv-duel-${round}-p1`, viaP1)),
        postInvoice(t, forCustomer(ref, `inv-duel-${round}-p2`, { partner_ref: 'p2', agreement_ref: 'a2' })),
      ]);
      assert.deepEqual(answers.map((res) => res.statusCode).sort(), [201, 409], answers.map((res) => res.body).join('\n'));
      assert.equal(answers.find((res) => res.statusCode === 409)?.json().detail.code, 'commission.attribution_conflict');
      assert.equal((await attributions(customerId)).length, 1, `round ${round}`);
    }
  });
});
