import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';
import type { EntryStatus } from '../../db/schema-commissions.ts';

// The partner's own ledger as the portal shows it (issue 27 §2): every entry that counts
// (a voided open entry never counted and is left out), with the day its revenue was paid,
// the contract month, percent, basis and amount. The customer is named only where the
// partner earns on it as *its* customer (an agreement for attributed customers); revenue
// under an all-customers agreement names no customer. Reversals of a refund or returned
// debit are marked as clawbacks, differences after a change as corrections.

export type PortalEntryKind = 'revenue' | 'clawback' | 'correction';

export type PortalEntry = {
  id: string;
  paidOn: string;
  agreementName: string | null;
  agreementRef: string;
  /** Null under an all-customers agreement (allCustomers) and for revenue without customer. */
  customerName: string | null;
  allCustomers: boolean;
  contractMonth: number | null;
  percent: string;
  basisCents: number;
  amountCents: number;
  status: EntryStatus;
  kind: PortalEntryKind;
  statementNumber: string | null;
};

/** A month range "YYYY-MM" … "YYYY-MM" (either end open) as paid-on days. */
export type MonthRange = { from: string | null; to: string | null };

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;

export const isMonth = (text: string) => MONTH.test(text);

function lastDayOf(month: string): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  const day = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return `${month}-${String(day).padStart(2, '0')}`;
}

function ledgerQuery(db: Database, companyId: string, partnerId: string, range: MonthRange) {
  let query = db
    .selectFrom('commission_entries as e')
    .innerJoin('commission_agreements as a', (join) => join.onRef('a.company_id', '=', 'e.company_id').onRef('a.id', '=', 'e.agreement_id'))
    .leftJoin('customers as c', (join) => join.onRef('c.company_id', '=', 'e.company_id').onRef('c.id', '=', 'e.customer_id'))
    .leftJoin('commission_statements as s', (join) => join.onRef('s.company_id', '=', 'e.company_id').onRef('s.id', '=', 'e.statement_id'))
    .where('e.company_id', '=', companyId)
    .where('e.partner_id', '=', partnerId)
    .where('e.status', '<>', 'void');
  if (range.from) query = query.where('e.paid_on', '>=', `${range.from}-01`);
  if (range.to) query = query.where('e.paid_on', '<=', lastDayOf(range.to));
  return query;
}

/** The entries of the range, oldest payment first, at most `limit`; with the range's sum and count. */
export async function partnerLedger(
  db: Database,
  companyId: string,
  partnerId: string,
  range: MonthRange,
  limit: number,
): Promise<{ entries: PortalEntry[]; count: number; sumCents: bigint }> {
  const rows = await ledgerQuery(db, companyId, partnerId, range)
    .select([
      'e.id',
      'e.paid_on',
      'a.name as agreement_name',
      'a.external_ref as agreement_ref',
      'a.applies_to',
      'c.name as customer_name',
      'e.contract_month',
      'e.percent',
      'e.basis_cents',
      'e.amount_cents',
      'e.status',
      'e.reverses_event_id',
      'e.corrects_entry_id',
      's.number as statement_number',
    ])
    .orderBy('e.paid_on')
    .orderBy('e.seq')
    .limit(limit)
    .execute();
  const total = await ledgerQuery(db, companyId, partnerId, range)
    .select([sql<string>`coalesce(sum(e.amount_cents), 0)::text`.as('sum'), sql<string>`count(*)::text`.as('count')])
    .executeTakeFirstOrThrow();
  return {
    entries: rows.map((row) => {
      const allCustomers = row.applies_to === 'all_customers';
      return {
        id: row.id,
        paidOn: row.paid_on,
        agreementName: row.agreement_name,
        agreementRef: row.agreement_ref,
        customerName: allCustomers ? null : row.customer_name,
        allCustomers,
        contractMonth: row.contract_month,
        percent: String(row.percent),
        basisCents: Number(row.basis_cents),
        amountCents: Number(row.amount_cents),
        status: row.status,
        kind: row.reverses_event_id !== null ? 'clawback' : row.corrects_entry_id !== null ? 'correction' : 'revenue',
        statementNumber: row.statement_number ?? null,
      };
    }),
    count: Number(total.count),
    sumCents: BigInt(total.sum),
  };
}
