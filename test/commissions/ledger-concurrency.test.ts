import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { inTransaction } from '../../src/db/transaction.ts';
import { LOCK_BUCKETS, lockLedgers } from '../../src/modules/commissions/ledger/ledger-locks.ts';
import { prepareRevenueEvent } from '../../src/modules/commissions/revenue-event-input.ts';
import { RevenueEventWriter } from '../../src/modules/commissions/revenue-event-writer.ts';
import { type TestApp, testApp } from '../helpers/app.ts';
import { putCustomer } from '../invoicing/helpers.ts';
import { balanceAgainstEntries, partnerBalance, postEvent, putAgreement, putAttribution, putPartner } from './helpers.ts';

// Late facts for one customer from several transactions at once (issue 24; meaningful on
// PostgreSQL, where they really run side by side — KONTOR_TEST_DB=postgres): revenue paid
// before the customer's first paid revenue, later revenue, and an attribution with a start in
// the past, all at the same moment. Each writes under the customer's ledger lock (shared for
// new revenue, exclusive when the customer's ledger is computed again), so whatever the
// interleaving, the ledger ends as the facts in paid-day order give it.
//
// A earns 20 % for two months from each customer's first paid revenue, then 10 %; C earns
// 10 % of its attributed customers. Each customer had 100.00 paid on 10 April (A: month 1,
// 20.00); then at once: 100.00 paid 15 January and 15 February, 100.00 paid 15 May, and C's
// attribution from 1 March. In paid-day order: January is month 1, so A earns 20.00
// (January) + 20.00 (February) + 10.00 (April, month 4) + 10.00 (May, month 5) = 60.00 per
// customer; C earns 10.00 for April and 10.00 for May = 20.00 per customer.

describe('late facts for one customer at once', () => {
  let t: TestApp;
  const customers = ['k1', 'k2', 'k3', 'k4', 'k5'];
  let partnerA: string;
  let partnerC: string;

  before(async () => {
    t = await testApp();
    for (const ref of customers) await putCustomer(t, ref, { name: `Kunde ${ref} GmbH` });
    partnerA = await putPartner(t, 'pa');
    partnerC = await putPartner(t, 'pc');
    await putAgreement(t, 'ag-a', {
      partner_ref: 'pa',
      start_date: '2026-01-01',
      applies_to: 'all_customers',
      tiers: [
        { from_month: 1, to_month: 2, percent: 20 },
        { from_month: 3, to_month: null, percent: 10 },
      ],
    });
    await putAgreement(t, 'ag-c', { partner_ref: 'pc', start_date: '2026-01-01', tiers: [{ from_month: 1, to_month: null, percent: 10 }] });
    for (const ref of customers) {
      const res = await postEvent(t, {
        external_ref: `${ref}-apr`,
        occurred_at: '2026-04-10T10:00:00Z',
        net_amount: '100.00',
        customer: { source: 'crm', external_ref: ref },
      });
      assert.equal(res.json().entries[0].amount_cents, 2000);
    }
  });
  after(() => t.close());

  test('revenue before the anchor, later revenue and a past attribution at once end as in paid-day order', async () => {
    const companyId = t.company.companyId;
    // One writer per fact: each its own transaction (one writer would batch them into one).
    const sale = (ref: string, customer: string, occurredAt: string) =>
      new RevenueEventWriter(t.handle.db, t.clock).submit(
        companyId,
        prepareRevenueEvent({
          source: 'crm',
          external_ref: ref,
          occurred_at: occurredAt,
          net_amount: '100.00',
          customer: { source: 'crm', external_ref: customer },
        }),
      );
    const answers = await Promise.all(
      customers.flatMap((ref) => [
        sale(`${ref}-jan`, ref, '2026-01-15T10:00:00Z'),
        sale(`${ref}-feb`, ref, '2026-02-15T10:00:00Z'),
        sale(`${ref}-may`, ref, '2026-05-15T10:00:00Z'),
        putAttribution(t, `att-${ref}`, { agreement_ref: 'ag-c', customer: { source: 'crm', external_ref: ref }, start_date: '2026-03-01' }),
      ]),
    );
    assert.equal(answers.length, customers.length * 4);
    assert.deepEqual(await partnerBalance(t, 'pa'), { open: customers.length * 6000, statemented: 0, paid: 0 });
    assert.deepEqual(await partnerBalance(t, 'pc'), { open: customers.length * 2000, statemented: 0, paid: 0 });
    for (const id of [partnerA, partnerC]) {
      const { kept, summed } = await balanceAgainstEntries(t, id);
      assert.deepEqual(kept, summed);
    }
    // Per revenue: the open entries of each at its month and percent, nothing else.
    const rows = await t.handle.db
      .selectFrom('commission_entries as e')
      .innerJoin('revenue_events as r', (join) => join.onRef('r.company_id', '=', 'e.company_id').onRef('r.id', '=', 'e.revenue_event_id'))
      .select(['r.external_ref', 'e.partner_id', 'e.contract_month', 'e.percent', 'e.amount_cents'])
      .where('e.company_id', '=', companyId)
      .where('e.status', '=', 'open')
      .execute();
    for (const ref of customers) {
      const of = (event: string, partnerId: string) =>
        rows
          .filter((r) => r.external_ref === `${ref}-${event}` && r.partner_id === partnerId)
          .map((r) => [r.contract_month, r.percent, Number(r.amount_cents)]);
      assert.deepEqual(of('jan', partnerA), [[1, '20', 2000]], ref);
      assert.deepEqual(of('feb', partnerA), [[2, '20', 2000]], ref);
      assert.deepEqual(of('apr', partnerA), [[4, '10', 1000]], ref);
      assert.deepEqual(of('may', partnerA), [[5, '10', 1000]], ref);
      assert.deepEqual(of('jan', partnerC), [], ref);
      assert.deepEqual(of('apr', partnerC), [[2, '10', 1000]], ref);
      assert.deepEqual(of('may', partnerC), [[3, '10', 1000]], ref);
    }
    const anchors = await t.handle.db.selectFrom('commission_anchors').select(['customer_key', 'anchor_date']).where('company_id', '=', companyId).execute();
    assert.deepEqual(
      anchors.map((a) => a.anchor_date),
      customers.map(() => '2026-01-15'),
    );
  });

  test('writing revenue of 10,000 customers at once holds at most one lock per bucket (the lock table is shared)', async () => {
    // A bank import paying 10,000 customers' invoices: one lock per customer would need
    // 10,000 of PostgreSQL's lock slots (6,400 by default for all connections together).
    const held = await inTransaction(t.handle.db, async (trx) => {
      await lockLedgers(
        trx,
        t.company.companyId,
        Array.from({ length: 10_000 }, (_, i): [string, 'shared'] => [`cus_${i}`, 'shared']),
      );
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_locks where locktype = 'advisory' and pid = pg_backend_pid()`.execute(trx);
      return rows[0]?.n ?? 0;
    });
    assert.ok(held > 0 && held <= LOCK_BUCKETS, `${held} advisory locks`);
  });
});
