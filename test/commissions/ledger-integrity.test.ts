import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { bulkInsert } from '../../src/db/bulk-insert.ts';
import { inTransaction } from '../../src/db/transaction.ts';
import { type EntryRow, insertEntryRows } from '../../src/modules/commissions/ledger/write-entries.ts';
import { prepareRevenueEvent } from '../../src/modules/commissions/revenue-event-input.ts';
import { RevenueEventWriter } from '../../src/modules/commissions/revenue-event-writer.ts';
import { countRows, type TestApp, type TestCompany, testApp } from '../helpers/app.ts';
import { putCustomer } from '../invoicing/helpers.ts';
import { balanceAgainstEntries, postEvent, putAgreement, putPartner } from './helpers.ts';

// The ledger's integrity (issue 26): every commission entry is tied to a revenue event of its
// company and to an agreement of its company whose partner is the entry's partner, every line
// to its revenue event; a referenced event or agreement can be neither deleted nor re-keyed,
// nor an agreement given another partner. These tests try to break each tie with SQL that
// goes around the operations, on both databases; each attempt must fail with 23503
// (foreign_key_violation) and leave every table as it was. Then the API path, also with many
// requests at once: every tie holds and every partner's kept balance is the sum of its entries.

const refused = (error: { code?: string }) => error.code === '23503';

describe('ledger integrity: entries and lines stay tied to their event, agreement and partner', () => {
  let t: TestApp;
  let other: TestCompany;
  let partnerA: string;
  let partnerB: string;
  let agreementA: string;
  let agreementB: string;
  let otherPartner: string;
  let otherAgreement: string;
  let otherEventId: string;
  let entry: EntryRow;

  const tables = ['revenue_events', 'revenue_event_lines', 'commission_entries', 'commission_agreements', 'commission_partners'] as const;
  const counts = async () => Object.fromEntries(await Promise.all(tables.map(async (table) => [table, await countRows(t.handle, table)])));
  /** A stored entry as an insertable row with another id (and whatever else the attempt changes). */
  const entryLike = (changes: Partial<EntryRow>): EntryRow => ({ ...entry, id: `cen_probe_${Math.random().toString(36).slice(2)}`, ...changes });
  const insertEntry = (row: EntryRow) => inTransaction(t.handle.db, (trx) => insertEntryRows(trx, [row]));

  before(async () => {
    t = await testApp();
    await putCustomer(t, 'kunde-1');
    await putCustomer(t, 'kunde-2', { name: 'Zweite GmbH' });
    partnerA = await putPartner(t, 'partner-a');
    partnerB = await putPartner(t, 'partner-b');
    agreementA = await putAgreement(t, 'ag-a', {
      partner_ref: 'partner-a',
      start_date: '2026-01-01',
      applies_to: 'all_customers',
      tiers: [{ from_month: 1, to_month: null, percent: 10 }],
    });
    agreementB = await putAgreement(t, 'ag-b', {
      partner_ref: 'partner-b',
      start_date: '2026-01-01',
      applies_to: 'all_customers',
      tiers: [{ from_month: 1, to_month: null, percent: 5 }],
    });
    // A second company with its own customer, partner, agreement and event.
    other = await t.newCompany('andere');
    const key = other.apiKey;
    await putCustomer(t, 'kunde-x', {}, key);
    const partner = await t.request('PUT', '/v1/commission-partners/by-ref/crm/partner-x', { key, body: { name: 'Partner X' } });
    otherPartner = partner.json().id;
    const agreement = await t.request('PUT', '/v1/commission-agreements/by-ref/crm/ag-x', {
      key,
      body: { partner_ref: 'partner-x', start_date: '2026-01-01', applies_to: 'all_customers', tiers: [{ from_month: 1, to_month: null, percent: 10 }] },
    });
    otherAgreement = agreement.json().id;
    const otherEvent = await t.request('POST', '/v1/revenue-events', {
      key,
      body: {
        source: 'crm',
        external_ref: 'x-1',
        occurred_at: '2026-11-02T10:00:00Z',
        net_amount: '50.00',
        customer: { source: 'crm', external_ref: 'kunde-x' },
      },
    });
    assert.equal(otherEvent.statusCode, 201, otherEvent.body);
    otherEventId = otherEvent.json().id;

    const res = await postEvent(t, {
      external_ref: 'pay-1',
      occurred_at: '2026-11-02T10:00:00Z',
      net_amount: '100.00',
      customer: { source: 'crm', external_ref: 'kunde-1' },
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().entries.length, 2);
    const { seq: _seq, ...stored } = await t.handle.db
      .selectFrom('commission_entries')
      .selectAll()
      .where('company_id', '=', t.company.companyId)
      .where('agreement_id', '=', agreementA)
      .executeTakeFirstOrThrow();
    entry = stored as EntryRow;
  });
  after(() => t.close());

  test('an entry naming a revenue event that does not exist, or one of another company, is refused', async () => {
    const before = await counts();
    await assert.rejects(insertEntry(entryLike({ revenue_event_id: 'rev_does_not_exist' })), refused);
    await assert.rejects(insertEntry(entryLike({ revenue_event_id: otherEventId })), refused);
    assert.deepEqual(await counts(), before);
  });

  test("an entry whose agreement is another partner's, another company's, or unknown is refused", async () => {
    const before = await counts();
    await assert.rejects(insertEntry(entryLike({ partner_id: partnerB })), refused);
    await assert.rejects(insertEntry(entryLike({ agreement_id: agreementB })), refused);
    await assert.rejects(insertEntry(entryLike({ agreement_id: otherAgreement, partner_id: otherPartner })), refused);
    await assert.rejects(insertEntry(entryLike({ agreement_id: 'cag_does_not_exist' })), refused);
    // The other company's own rows do not make an entry of this company valid, nor the reverse.
    await assert.rejects(insertEntry(entryLike({ company_id: other.companyId })), refused);
    assert.deepEqual(await counts(), before);
  });

  test('an entry with every tie in place is accepted (the probe itself is sound)', async () => {
    const probe = entryLike({ amount_cents: 0, basis_cents: 0, status: 'void' });
    await insertEntry(probe);
    assert.ok(await t.handle.db.selectFrom('commission_entries').select('id').where('id', '=', probe.id).executeTakeFirst());
  });

  test('a line naming a revenue event that does not exist, or one of another company, is refused', async () => {
    const before = await counts();
    const line = (eventId: string) =>
      inTransaction(t.handle.db, (trx) =>
        bulkInsert(
          trx,
          'revenue_event_lines',
          { company_id: 'text', event_id: 'text', position: 'integer', net_cents: 'bigint', product_id: 'text', description: 'text' },
          [{ company_id: t.company.companyId, event_id: eventId, position: 9, net_cents: 100, product_id: null, description: null }],
        ),
      );
    await assert.rejects(line('rev_does_not_exist'), refused);
    await assert.rejects(line(otherEventId), refused);
    assert.deepEqual(await counts(), before);
  });

  test('a statement of many rows with one bad row is refused whole', async () => {
    const before = await counts();
    const good = [1, 2, 3].map(() => entryLike({ amount_cents: 0, basis_cents: 0, status: 'void' }));
    await assert.rejects(
      inTransaction(t.handle.db, (trx) => insertEntryRows(trx, [...good, entryLike({ revenue_event_id: 'rev_does_not_exist' })])),
      refused,
    );
    await assert.rejects(
      inTransaction(t.handle.db, (trx) => insertEntryRows(trx, [good[0] as EntryRow, entryLike({ partner_id: partnerB }), ...good.slice(1)])),
      refused,
    );
    const lines = [1, 2, 3].map((position) => ({
      company_id: t.company.companyId,
      event_id: entry.revenue_event_id,
      position: 10 + position,
      net_cents: 1,
      product_id: null,
      description: null,
    }));
    await assert.rejects(
      inTransaction(t.handle.db, (trx) =>
        bulkInsert(
          trx,
          'revenue_event_lines',
          { company_id: 'text', event_id: 'text', position: 'integer', net_cents: 'bigint', product_id: 'text', description: 'text' },
          [...lines, { ...lines[0]!, position: 20, event_id: 'rev_does_not_exist' }],
        ),
      ),
      refused,
    );
    assert.deepEqual(await counts(), before);
  });

  test('a referenced revenue event or agreement cannot be deleted or re-keyed, nor an agreement given another partner', async () => {
    const before = await counts();
    const eventId = entry.revenue_event_id;
    const db = t.handle.db;
    await assert.rejects(db.deleteFrom('revenue_events').where('id', '=', eventId).execute(), refused);
    await assert.rejects(db.updateTable('revenue_events').set({ id: 'rev_renamed' }).where('id', '=', eventId).execute(), refused);
    await assert.rejects(db.updateTable('revenue_events').set({ company_id: other.companyId }).where('id', '=', eventId).execute(), refused);
    await assert.rejects(db.deleteFrom('commission_agreements').where('id', '=', agreementA).execute(), refused);
    await assert.rejects(db.updateTable('commission_agreements').set({ id: 'cag_renamed' }).where('id', '=', agreementA).execute(), refused);
    await assert.rejects(db.updateTable('commission_agreements').set({ partner_id: partnerB }).where('id', '=', agreementA).execute(), refused);
    await assert.rejects(db.deleteFrom('commission_partners').where('id', '=', partnerA).execute(), refused);
    assert.deepEqual(await counts(), before);
  });

  test("an entry's or a line's tie cannot be moved to a parent that does not hold", async () => {
    const db = t.handle.db;
    await assert.rejects(db.updateTable('commission_entries').set({ revenue_event_id: 'rev_does_not_exist' }).where('id', '=', entry.id).execute(), refused);
    await assert.rejects(db.updateTable('commission_entries').set({ partner_id: partnerB }).where('id', '=', entry.id).execute(), refused);
    await assert.rejects(db.updateTable('commission_entries').set({ agreement_id: otherAgreement }).where('id', '=', entry.id).execute(), refused);
    await assert.rejects(
      db.updateTable('revenue_event_lines').set({ event_id: otherEventId }).where('event_id', '=', entry.revenue_event_id).execute(),
      refused,
    );
    const still = await db.selectFrom('commission_entries').selectAll().where('id', '=', entry.id).executeTakeFirstOrThrow();
    assert.equal(still.revenue_event_id, entry.revenue_event_id);
    assert.equal(still.partner_id, partnerA);
  });

  test('many events at once through the API and the writer: every tie holds, balances = Σ entries', async () => {
    const writer = new RevenueEventWriter(t.handle.db, t.clock);
    const viaApi = Array.from({ length: 120 }, (_, i) =>
      postEvent(t, {
        external_ref: `burst-${i}`,
        occurred_at: `2026-11-${String(1 + (i % 20)).padStart(2, '0')}T10:00:00Z`,
        net_amount: `${10 + i}.${String(i % 100).padStart(2, '0')}`,
        customer: { source: 'crm', external_ref: i % 2 ? 'kunde-1' : 'kunde-2' },
      }),
    );
    const viaWriter = Array.from({ length: 120 }, (_, i) =>
      writer.submit(
        t.company.companyId,
        prepareRevenueEvent({
          source: 'crm',
          external_ref: `direct-${i}`,
          occurred_at: `2026-11-${String(1 + (i % 20)).padStart(2, '0')}T12:00:00Z`,
          net_amount: `${5 + i}.00`,
          customer: { source: 'crm', external_ref: i % 2 ? 'kunde-2' : 'kunde-1' },
        }),
      ),
    );
    for (const res of await Promise.all(viaApi)) assert.equal(res.statusCode, 201, res.body);
    for (const answer of await Promise.all(viaWriter)) assert.equal(answer.status, 201);

    const orphans = await sql<{ what: string; n: string }>`
      select 'entry without its event' as what, count(*)::text as n from commission_entries e
        where not exists (select from revenue_events r where r.company_id = e.company_id and r.id = e.revenue_event_id
                          and r.customer_id is not distinct from e.customer_id)
      union all
      select 'entry without its agreement and partner', count(*)::text from commission_entries e
        where not exists (select from commission_agreements a where a.company_id = e.company_id and a.id = e.agreement_id and a.partner_id = e.partner_id)
      union all
      select 'line without its event', count(*)::text from revenue_event_lines l
        where not exists (select from revenue_events r where r.company_id = l.company_id and r.id = l.event_id)
      union all
      select 'api event without 2 entries', count(*)::text from revenue_events r
        where r.company_id = ${t.company.companyId} and r.kind = 'api'
          and (select count(*) from commission_entries e where e.company_id = r.company_id and e.revenue_event_id = r.id and e.status = 'open') <> 2`.execute(
      t.handle.db,
    );
    assert.deepEqual(
      orphans.rows.map((row) => [row.what, Number(row.n)]),
      [
        ['entry without its event', 0],
        ['entry without its agreement and partner', 0],
        ['line without its event', 0],
        ['api event without 2 entries', 0],
      ],
    );
    for (const partner of [partnerA, partnerB, otherPartner]) {
      const { kept, summed } = await balanceAgainstEntries(t, partner);
      assert.deepEqual(kept, summed, partner);
    }
  });
});
