import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runDueWork } from '../../src/jobs/index.ts';
import { confirmAttribution } from '../../src/modules/commissions/index.ts';
import { type TestApp, testApp } from '../helpers/app.ts';
import { putCustomer } from '../invoicing/helpers.ts';
import { camt, importFile, issueInvoice } from '../payments/helpers.ts';
import { balanceAgainstEntries, listEntries, partnerBalance, postEvent, putAgreement, putAttribution, putPartner, SELF_BILLING_PARTNER } from './helpers.ts';

// The ledger is a function of the facts, not of their arrival order (issue 24). A fact that
// arrives late — revenue paid before the customer's first paid revenue, an attribution made,
// ended or confirmed with dates in the past, an agreement's end moved — corrects the entries
// already written: an open entry is voided and written again, a statemented or paid one
// gets difference entries (open, pointing at what they correct). Each partner here earns on
// its own customer only (attributed agreements), so the figures do not mix.

const TIERS_20_THEN_10 = [
  { from_month: 1, to_month: 3, percent: 20 },
  { from_month: 4, to_month: null, percent: 10 },
];

type Entry = Record<string, unknown>;
const shape = (entries: Entry[]) => entries.map((e) => [e.source_id, e.basis_cents, e.amount_cents, e.percent, e.contract_month, e.status]);
/** The entries' shapes in a stable order (entries written by one step have no order of their own). */
const sorted = (entries: Entry[]) => shape(entries).sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
const sameEntries = (entries: Entry[], expected: unknown[][]) =>
  assert.deepEqual(
    sorted(entries),
    [...expected].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1)),
  );
const entriesOf = async (t: TestApp, partnerRef: string) => listEntries(t, { partner_source: 'crm', partner_ref: partnerRef });

async function assertKept(t: TestApp, partnerId: string) {
  const { kept, summed } = await balanceAgainstEntries(t, partnerId);
  assert.deepEqual(kept, summed);
}

async function statementRun(t: TestApp, day: string) {
  const clockBefore = t.clock.now().toISOString();
  t.clock.set(`${day}T12:00:00Z`);
  await runDueWork({ db: t.handle.db, clock: t.clock, services: { invoicing: t.invoicing } }, { asOf: day, companyId: t.company.companyId, log: () => {} });
  t.clock.set(clockBefore);
}

const sale = (t: TestApp, ref: string, customer: string, occurredAt: string, net: string) =>
  postEvent(t, { external_ref: ref, occurred_at: occurredAt, net_amount: net, customer: { source: 'crm', external_ref: customer } });

describe('late facts correct the ledger', () => {
  let t: TestApp;

  before(async () => {
    t = await testApp();
  });
  after(() => t.close());

  /** A partner with one attributed agreement and one customer attributed to it from `start`. */
  async function partnerFor(ref: string, agreement: Record<string, unknown>, start: string | null, partner: Record<string, unknown> = {}) {
    await putCustomer(t, `kunde-${ref}`, { name: `Kunde ${ref} GmbH` });
    const partnerId = await putPartner(t, ref, partner);
    const agreementId = await putAgreement(t, `ag-${ref}`, { partner_ref: ref, start_date: '2026-01-01', ...agreement });
    if (start)
      await putAttribution(t, `att-${ref}`, { agreement_ref: `ag-${ref}`, customer: { source: 'crm', external_ref: `kunde-${ref}` }, start_date: start });
    return { partnerId, agreementId, customer: `kunde-${ref}` };
  }

  test('revenue reported late, paid before the first paid revenue, moves month 1 (open entries voided and written again)', async () => {
    const p = await partnerFor('late-1', { anchor: 'first_paid_revenue', tiers: TIERS_20_THEN_10 }, '2026-01-01');
    // April's 100.00 arrives first: it is the first paid revenue, month 1, 20 % = 20.00.
    const april = await sale(t, 'l1-apr', p.customer, '2026-04-10T10:00:00Z', '100.00');
    assert.deepEqual(
      april.json().entries.map((e: Entry) => [e.contract_month, e.percent, e.amount_cents]),
      [[1, 20, 2000]],
    );
    // January's 50.00 arrives later: January is month 1 (20 % = 10.00), so April is month 4
    // (10 % = 10.00, not 20.00: the 20 % tier ends with March).
    const january = await sale(t, 'l1-jan', p.customer, '2026-01-15T10:00:00Z', '50.00');
    assert.equal(january.statusCode, 201, january.body);
    assert.deepEqual(
      january.json().entries.map((e: Entry) => [e.contract_month, e.percent, e.amount_cents]),
      [[1, 20, 1000]],
    );
    sameEntries(await entriesOf(t, 'late-1'), [
      ['l1-apr', 10000, 2000, 20, 1, 'void'],
      ['l1-jan', 5000, 1000, 20, 1, 'open'],
      ['l1-apr', 10000, 1000, 10, 4, 'open'],
    ]);
    assert.deepEqual(await partnerBalance(t, 'late-1'), { open: 2000, statemented: 0, paid: 0 });
    // The same revenue again changes nothing.
    assert.equal((await sale(t, 'l1-jan', p.customer, '2026-01-15T10:00:00Z', '50.00')).statusCode, 200);
    assert.equal((await entriesOf(t, 'late-1')).length, 3);
    await assertKept(t, p.partnerId);
  });

  test('a statemented entry keeps its statement and gets difference entries', async () => {
    const p = await partnerFor('late-2', { anchor: 'first_paid_revenue', tiers: TIERS_20_THEN_10 }, '2026-01-01', SELF_BILLING_PARTNER);
    await sale(t, 'l2-apr', p.customer, '2026-04-10T10:00:00Z', '100.00');
    await statementRun(t, '2026-05-01');
    assert.deepEqual(await partnerBalance(t, 'late-2'), { open: 0, statemented: 2000, paid: 0 });
    await sale(t, 'l2-jan', p.customer, '2026-01-15T10:00:00Z', '50.00');
    const entries = await entriesOf(t, 'late-2');
    // April's 20.00 stays on its statement; −20.00 takes it back at its terms (month 1, 20 %)
    // and +10.00 earns it at month 4, 10 %; January earns 10.00.
    sameEntries(entries, [
      ['l2-apr', 10000, 2000, 20, 1, 'statemented'],
      ['l2-jan', 5000, 1000, 20, 1, 'open'],
      ['l2-apr', -10000, -2000, 20, 1, 'open'],
      ['l2-apr', 10000, 1000, 10, 4, 'open'],
    ]);
    const statemented = entries.find((e) => e.status === 'statemented') as Entry;
    const corrections = entries.filter((e) => e.source_id === 'l2-apr' && e.status === 'open').map((e) => e.id as string);
    const corrects = await t.handle.db.selectFrom('commission_entries').select(['corrects_entry_id']).where('id', 'in', corrections).execute();
    assert.deepEqual(
      corrects.map((c) => c.corrects_entry_id),
      [statemented.id, statemented.id],
    );
    assert.deepEqual(await partnerBalance(t, 'late-2'), { open: 0, statemented: 2000, paid: 0 });
    await assertKept(t, p.partnerId);
  });

  test('an attribution made late with a start in the past earns on the revenue since; ending it in the past takes that back', async () => {
    const p = await partnerFor(
      'late-3',
      {
        tiers: [
          { from_month: 1, to_month: 1, percent: 30 },
          { from_month: 2, to_month: null, percent: 15 },
        ],
      },
      null,
    );
    await sale(t, 'l3-sep', p.customer, '2026-09-20T10:00:00Z', '100.00');
    await sale(t, 'l3-oct', p.customer, '2026-10-05T10:00:00Z', '100.00');
    await sale(t, 'l3-nov', p.customer, '2026-11-03T10:00:00Z', '100.00');
    assert.equal((await entriesOf(t, 'late-3')).length, 0);
    // Attributed from 1 October: October is month 1 (30 %), November month 2 (15 %);
    // September lies before the attribution.
    const body = { agreement_ref: 'ag-late-3', customer: { source: 'crm', external_ref: p.customer }, start_date: '2026-10-01' };
    await putAttribution(t, 'att-late-3', body);
    sameEntries(await entriesOf(t, 'late-3'), [
      ['l3-oct', 10000, 3000, 30, 1, 'open'],
      ['l3-nov', 10000, 1500, 15, 2, 'open'],
    ]);
    // Ended on 31 October: November's revenue no longer earns.
    await putAttribution(t, 'att-late-3', { ...body, end_date: '2026-10-31' });
    assert.deepEqual(await partnerBalance(t, 'late-3'), { open: 3000, statemented: 0, paid: 0 });
    assert.equal((await entriesOf(t, 'late-3')).find((e) => e.source_id === 'l3-nov')?.status, 'void');
    // Open-ended again: November earns again.
    await putAttribution(t, 'att-late-3', body);
    assert.deepEqual(await partnerBalance(t, 'late-3'), { open: 4500, statemented: 0, paid: 0 });
    await assertKept(t, p.partnerId);
  });

  test('a proposed attribution earns once a person confirms it, on the revenue since its start', async () => {
    await t.handle.db.updateTable('companies').set({ attributions_need_confirmation: true }).where('id', '=', t.company.companyId).execute();
    try {
      const p = await partnerFor('late-4', { tiers: [{ from_month: 1, to_month: null, percent: 10 }] }, '2026-11-01');
      const attribution = await t.request('GET', '/v1/commission-attributions/by-ref/crm/att-late-4');
      assert.equal(attribution.json().status, 'proposed');
      await sale(t, 'l4-nov', p.customer, '2026-11-05T10:00:00Z', '100.00');
      assert.equal((await entriesOf(t, 'late-4')).length, 0);
      await confirmAttribution({ db: t.handle.db, clock: t.clock }, attribution.json().id);
      assert.deepEqual(shape(await entriesOf(t, 'late-4')), [['l4-nov', 10000, 1000, 10, 1, 'open']]);
      await assertKept(t, p.partnerId);
    } finally {
      await t.handle.db.updateTable('companies').set({ attributions_need_confirmation: false }).where('id', '=', t.company.companyId).execute();
    }
  });

  test("an agreement's end moved into the past takes back the revenue after it; moved out again, it earns again", async () => {
    const agreement = { tiers: [{ from_month: 1, to_month: null, percent: 10 }] };
    const p = await partnerFor('late-5', agreement, '2026-09-01');
    await sale(t, 'l5-sep', p.customer, '2026-09-10T10:00:00Z', '100.00');
    await sale(t, 'l5-oct', p.customer, '2026-10-10T10:00:00Z', '100.00');
    assert.deepEqual(await partnerBalance(t, 'late-5'), { open: 2000, statemented: 0, paid: 0 });
    await putAgreement(t, 'ag-late-5', { partner_ref: 'late-5', start_date: '2026-01-01', ...agreement, end_date: '2026-09-30' });
    sameEntries(await entriesOf(t, 'late-5'), [
      ['l5-sep', 10000, 1000, 10, 1, 'open'],
      ['l5-oct', 10000, 1000, 10, 2, 'void'],
    ]);
    await putAgreement(t, 'ag-late-5', { partner_ref: 'late-5', start_date: '2026-01-01', ...agreement });
    assert.deepEqual(await partnerBalance(t, 'late-5'), { open: 2000, statemented: 0, paid: 0 });
    await assertKept(t, p.partnerId);
  });

  test('an invoice payment counts as first paid revenue too, also when its bank statement comes late', async () => {
    const p = await partnerFor('late-6', { anchor: 'first_paid_revenue', tiers: TIERS_20_THEN_10 }, '2026-01-01');
    await sale(t, 'l6-nov', p.customer, '2026-11-10T10:00:00Z', '100.00');
    assert.deepEqual(shape(await entriesOf(t, 'late-6')), [['l6-nov', 10000, 2000, 20, 1, 'open']]);
    // An invoice (net 74.00, gross 85.06) paid on 20 July: July is month 1 (20 % of
    // 74.00 = 14.80), November month 5 (10 % = 10.00).
    const invoice = await issueInvoice(t, 'inv-late-6', { customer: { source: 'crm', external_ref: p.customer } });
    await importFile(t, camt([{ amount: '85.06', text: invoice.number, date: '2026-07-20' }], { id: 'L6', msgId: 'L6' }));
    sameEntries(await entriesOf(t, 'late-6'), [
      ['l6-nov', 10000, 2000, 20, 1, 'void'],
      [invoice.id, 7400, 1480, 20, 1, 'open'],
      ['l6-nov', 10000, 1000, 10, 5, 'open'],
    ]);
    await assertKept(t, p.partnerId);
  });
});

describe('an agreement for all customers made with a start in the past', () => {
  let t: TestApp;

  before(async () => {
    t = await testApp();
    await putCustomer(t, 'kunde-1');
  });
  after(() => t.close());

  test('earns on the revenue paid since its start, as if it had been there', async () => {
    await sale(t, 'e-feb', 'kunde-1', '2026-02-10T10:00:00Z', '100.00');
    await postEvent(t, { external_ref: 'e-mar-anon', occurred_at: '2026-03-10T10:00:00Z', net_amount: '50.00' });
    await sale(t, 'e-apr', 'kunde-1', '2026-04-10T10:00:00Z', '200.00');
    const partnerId = await putPartner(t, 'p-all');
    // From 1 March, 10 %: February's revenue earns nothing, March's (no customer) 5.00,
    // April's 20.00; months count from each customer's first paid revenue since then.
    await putAgreement(t, 'all-since-march', {
      partner_ref: 'p-all',
      start_date: '2026-03-01',
      applies_to: 'all_customers',
      tiers: [{ from_month: 1, to_month: null, percent: 10 }],
    });
    sameEntries(await entriesOf(t, 'p-all'), [
      ['e-apr', 20000, 2000, 10, 1, 'open'],
      ['e-mar-anon', 5000, 500, 10, 1, 'open'],
    ]);
    const { kept, summed } = await balanceAgainstEntries(t, partnerId);
    assert.deepEqual(kept, summed);
  });
});
