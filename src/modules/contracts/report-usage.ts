import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';
import type { ContractPause } from '../../db/schema-contracts.ts';
import { inTransaction, type Trx } from '../../db/transaction.ts';
import { type Clock, calendarDate } from '../../shared/clock.ts';
import { AppError, type ValidationIssue, validationFailed } from '../../shared/errors.ts';
import { formatDate } from '../../shared/german-format.ts';
import { billsUsage, type PlanItem } from './billing-plan.ts';
import { pausedOn, pausesHolding } from './contract-pauses.ts';

// reportUsage (interface §4 "Contracts and usage", design §6 Usage): a batch of up to 1000
// usage records for a contract's items, all or nothing. Each record's external_ref is
// stored once per contract; a repeat (stored before, or earlier in the same batch) counts
// as a duplicate and is not checked further, so a batch retried after its period was billed
// answers duplicates rather than contract.usage_period_closed. Usage is only taken for
// items billed by usage (contract.item_not_usage_priced) and never on a day the contract
// was paused, also after the resume (contract.usage_in_pause): neither would be billed.
//
// Consistency with the billing run: the contract row is read FOR SHARE in the transaction
// that inserts, and the billing run locks it FOR UPDATE while it bills and moves
// usage_open_from; so a batch lands either wholly before a billing run (and is billed by
// it) or wholly after (and is checked against the new usage_open_from).
//
// Cost per batch: two small reads and ONE insert of all new records (unnest of column
// arrays, ON CONFLICT DO NOTHING). Stored duplicates are only looked up when a record
// fails a check, to excuse those that are stored already; otherwise the insert's conflict
// handling finds them, which also counts right under concurrency.

export type UsageRecordInput = { external_ref: string; item_ref: string; quantity: string | number; occurred_at: string };
export type ReportUsageResult = { recorded: number; duplicates: number };

/** Statuses under which usage is accepted: a cancelled contract runs until its end_date. */
const TAKES_USAGE = new Set(['active', 'cancelled']);

type Candidate = { index: number; externalRef: string; itemRef: string; quantity: string; occurredAt: string; day: string };

function lockContract(trx: Trx, companyId: string, source: string, externalRef: string) {
  return trx
    .selectFrom('contracts')
    .innerJoin('companies', 'companies.id', 'contracts.company_id')
    .select([
      'contracts.id',
      'contracts.status',
      'contracts.start_date',
      'contracts.end_date',
      'contracts.usage_open_from',
      'contracts.pauses',
      'companies.timezone',
    ])
    .where('contracts.company_id', '=', companyId)
    .where('contracts.external_source', '=', source)
    .where('contracts.external_ref', '=', externalRef)
    .forShare('contracts')
    .executeTakeFirst();
}

async function storedRefs(trx: Trx, companyId: string, contractId: string, refs: string[]): Promise<Set<string>> {
  const rows = await trx
    .selectFrom('usage_records')
    .select('external_ref')
    .where('company_id', '=', companyId)
    .where('contract_id', '=', contractId)
    .where(sql<boolean>`external_ref = any(${refs}::text[])`)
    .execute();
  return new Set(rows.map((row) => row.external_ref));
}

/** Inserts the records (sorted by external_ref, so concurrent batches take row locks in one order); returns how many were new. */
async function insertRecords(trx: Trx, companyId: string, contractId: string, now: Date, rows: Candidate[]): Promise<number> {
  if (rows.length === 0) return 0;
  rows.sort((a, b) => (a.externalRef < b.externalRef ? -1 : a.externalRef > b.externalRef ? 1 : 0));
  const result = await sql<{ recorded: number }>`
    with inserted as (
      insert into usage_records (company_id, contract_id, external_ref, item_ref, quantity, occurred_at, occurred_on, recorded_at)
      select ${companyId}::text, ${contractId}::text, r.external_ref, r.item_ref, r.quantity, r.occurred_at, r.occurred_on, ${now.toISOString()}::timestamptz
      from unnest(${rows.map((r) => r.externalRef)}::text[], ${rows.map((r) => r.itemRef)}::text[], ${rows.map((r) => r.quantity)}::numeric[],
                  ${rows.map((r) => r.occurredAt)}::timestamptz[], ${rows.map((r) => r.day)}::date[])
        as r(external_ref, item_ref, quantity, occurred_at, occurred_on)
      on conflict do nothing
      returning 1
    )
    select count(*)::int as recorded from inserted`.execute(trx);
  return Number(result.rows[0]?.recorded ?? 0);
}

/** The records that fail a check, by kind (each record at most once: the first check it fails). */
type Refusals = {
  unknownItem: Candidate[];
  notUsagePriced: Candidate[];
  closed: Candidate[];
  paused: Candidate[];
  ended: { record: Candidate; msg: string; type?: string }[];
};
type UsageItem = { starts_on: string; ends_after: string | null } & Pick<PlanItem, 'billing_timing' | 'pricing_model'>;

const refusedCount = (refusals: Refusals) =>
  refusals.unknownItem.length + refusals.notUsagePriced.length + refusals.closed.length + refusals.paused.length + refusals.ended.length;

function check(
  candidates: Candidate[],
  items: Map<string, UsageItem>,
  contract: { end_date: string | null; pauses: readonly ContractPause[] },
  openFrom: string,
): Refusals & { count: number } {
  const refusals: Refusals = { unknownItem: [], notUsagePriced: [], closed: [], paused: [], ended: [] };
  for (const record of candidates) {
    const item = items.get(record.itemRef);
    if (!item) refusals.unknownItem.push(record);
    else if (!billsUsage(item)) refusals.notUsagePriced.push(record);
    else if (record.day < openFrom) refusals.closed.push(record);
    else if (pausedOn(contract.pauses, record.day)) refusals.paused.push(record);
    else if (contract.end_date !== null && record.day > contract.end_date)
      refusals.ended.push({ record, msg: `The contract ends on ${contract.end_date}; usage on a later day is refused` });
    else {
      const { starts_on: startsOn, ends_after: endsAfter } = items.get(record.itemRef)!;
      if (endsAfter !== null && record.day > endsAfter)
        refusals.ended.push({ record, msg: `Item ${record.itemRef} ends after ${endsAfter}; usage on a later day is refused` });
      // An item added to a running contract is billed from the day it was added.
      else if (record.day < startsOn)
        refusals.ended.push({
          record,
          msg: `Item ${record.itemRef} is billed from ${startsOn}; usage on an earlier day is refused`,
          type: 'less_than_minimum',
        });
    }
  }
  return { ...refusals, count: refusedCount(refusals) };
}

function refuse(refusals: Refusals, openFrom: string, pauses: readonly ContractPause[]): never {
  if (refusals.unknownItem.length)
    throw new AppError('contract.item_not_found', { item_refs: [...new Set(refusals.unknownItem.map((r) => r.itemRef))].sort() });
  if (refusals.notUsagePriced.length) {
    const refs = [...new Set(refusals.notUsagePriced.map((r) => r.itemRef))].sort();
    throw new AppError(
      'contract.item_not_usage_priced',
      { item_refs: refs },
      `Die Positionen ${refs.join(', ')} werden nach ihrer Menge abgerechnet, nicht nach Nutzung; Nutzung wird nur für nutzungsabhängig abgerechnete Positionen gemeldet.`,
    );
  }
  if (refusals.closed.length)
    throw new AppError('contract.usage_period_closed', {
      open_from: openFrom,
      refs: refusals.closed.sort((a, b) => a.index - b.index).map((r) => r.externalRef),
    });
  if (refusals.paused.length) {
    const held = pausesHolding(
      pauses,
      refusals.paused.map((r) => r.day),
    );
    throw new AppError(
      'contract.usage_in_pause',
      { refs: refusals.paused.sort((a, b) => a.index - b.index).map((r) => r.externalRef), pauses: held },
      `Der Vertrag war an diesen Tagen pausiert (${held.map((p) => (p.until ? `${formatDate(p.from)} bis ${formatDate(p.until)}` : `seit ${formatDate(p.from)}`)).join('; ')}): Nutzung aus einer Pause wird nicht abgerechnet.`,
    );
  }
  throw validationFailed(
    refusals.ended
      .sort((a, b) => a.record.index - b.record.index)
      .map(({ record, msg, type }): ValidationIssue => ({ loc: ['body', 'records', record.index, 'occurred_at'], type: type ?? 'greater_than_maximum', msg })),
  );
}

export async function reportUsage(
  db: Database,
  clock: Clock,
  companyId: string,
  ref: { source: string; externalRef: string },
  records: readonly UsageRecordInput[],
): Promise<ReportUsageResult> {
  // The first record of each external_ref; later ones in the batch are duplicates.
  const seen = new Set<string>();
  const firsts: Omit<Candidate, 'day'>[] = [];
  records.forEach((record, index) => {
    if (seen.has(record.external_ref)) return;
    seen.add(record.external_ref);
    firsts.push({
      index,
      externalRef: record.external_ref,
      itemRef: record.item_ref,
      quantity: String(record.quantity),
      // The schema allows 't' and 'z' (RFC 3339); PostgreSQL reads the upper-case form. It
      // keeps microseconds and would round finer digits, maybe into the next day: cut them.
      occurredAt: record.occurred_at.toUpperCase().replace(/(\.\d{6})\d+/, '$1'),
    });
  });

  const recorded = await inTransaction(db, async (trx) => {
    const contract = await lockContract(trx, companyId, ref.source, ref.externalRef);
    if (!contract) throw new AppError('contract_not_found');
    if (!TAKES_USAGE.has(contract.status))
      throw new AppError(
        'contract.not_active',
        {},
        `The contract is ${contract.status}; usage needs an active contract, or a cancelled one until its end date.`,
      );
    const items = new Map(
      (
        await trx
          .selectFrom('contract_items')
          .select(['ref', 'starts_on', 'ends_after', 'billing_timing', 'pricing_model'])
          .where('company_id', '=', companyId)
          .where('contract_id', '=', contract.id)
          .execute()
      ).map(({ ref, ...item }) => [ref, item] as const),
    );
    const openFrom = contract.usage_open_from ?? contract.start_date;
    let candidates: Candidate[] = firsts.map((record) => ({ ...record, day: calendarDate(new Date(record.occurredAt), contract.timezone) }));

    const refusals = check(candidates, items, contract, openFrom);
    if (refusals.count > 0) {
      // A refused record that is stored already is a duplicate and not refused.
      const refused = [...refusals.unknownItem, ...refusals.notUsagePriced, ...refusals.closed, ...refusals.paused, ...refusals.ended.map((e) => e.record)];
      const stored = await storedRefs(
        trx,
        companyId,
        contract.id,
        refused.map((r) => r.externalRef),
      );
      const fresh = (r: Candidate) => !stored.has(r.externalRef);
      const left: Refusals = {
        unknownItem: refusals.unknownItem.filter(fresh),
        notUsagePriced: refusals.notUsagePriced.filter(fresh),
        closed: refusals.closed.filter(fresh),
        paused: refusals.paused.filter(fresh),
        ended: refusals.ended.filter((e) => fresh(e.record)),
      };
      if (refusedCount(left) > 0) refuse(left, openFrom, contract.pauses);
      candidates = candidates.filter((r) => !stored.has(r.externalRef));
    }
    return insertRecords(trx, companyId, contract.id, clock.now(), candidates);
  });
  return { recorded, duplicates: records.length - recorded };
}
