import { sql } from 'kysely';
import type { Trx } from '../../db/transaction.ts';
import { RetryTransaction } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { balanceMoveWrite } from '../commissions/index.ts';
import type { CompanyRow } from '../invoicing/build-document.ts';
import { type EntryForStatement, type PartnerRow, statementLines, statementTotals } from './build-statement.ts';
import { issueStatement } from './issue-statement.ts';
import { partnerContact, xrechnungContactGaps, xrechnungContactSentence } from './partner-contact.ts';
import { statementEInvoice, statementKind, statementTax } from './statement-terms.ts';
import type { StatementRow } from './statement-view.ts';

// The statement run's work for one partner and one closed cadence period (design §6), in
// the caller's transaction: the partner's open entries paid up to the period's end go on
// one statement when they reach the minimum payout (else they wait for the next period);
// the entries become `statemented`, the balance moves from open to statemented, and the
// statement is issued at once unless the company reviews statements (then a draft). A
// run row per partner and period makes the run idempotent.

type Period = { start: string; end: string };

export type MadeStatement =
  | { outcome: 'made'; statement: StatementRow }
  /** Left a draft: issuing would need what the partner has not given (`reason`, German; kept on the statement). */
  | { outcome: 'held'; statement: StatementRow; reason: string }
  | { outcome: 'below_minimum' | 'nothing_open' | 'done_before' };

export async function makeStatement(
  trx: Trx,
  input: {
    company: CompanyRow;
    partnerId: string;
    /** The closed cadence period, or how to find it from the partner (its cadence). */
    period: Period | ((partner: PartnerRow) => Period);
    issueDate: string;
    now: Date;
  },
): Promise<MadeStatement> {
  const { company, now } = input;
  const partner = (await trx
    .selectFrom('commission_partners')
    .selectAll()
    .where('company_id', '=', company.id)
    .where('id', '=', input.partnerId)
    .forUpdate()
    .executeTakeFirstOrThrow()) as PartnerRow;
  const period = typeof input.period === 'function' ? input.period(partner) : input.period;
  const done = await trx
    .selectFrom('commission_statement_runs')
    .select('statement_id')
    .where('company_id', '=', company.id)
    .where('partner_id', '=', partner.id)
    .where('period_end', '=', period.end)
    .executeTakeFirst();
  if (done) return { outcome: 'done_before' };

  const entries = (await trx
    .selectFrom('commission_entries as e')
    .innerJoin('commission_agreements as a', (join) => join.onRef('a.company_id', '=', 'e.company_id').onRef('a.id', '=', 'e.agreement_id'))
    .leftJoin('customers as c', (join) => join.onRef('c.company_id', '=', 'e.company_id').onRef('c.id', '=', 'e.customer_id'))
    .select([
      'e.id',
      'e.agreement_id',
      'a.name as agreement_name',
      'a.external_ref as agreement_ref',
      'e.customer_id',
      'c.name as customer_name',
      'e.contract_month',
      'e.percent',
      'e.basis_cents',
      'e.amount_cents',
      'e.paid_on',
      'e.service_period_start',
    ])
    .where('e.company_id', '=', company.id)
    .where('e.partner_id', '=', partner.id)
    .where('e.status', '=', 'open')
    .where('e.paid_on', '<=', period.end)
    .orderBy('e.seq')
    .execute()) as EntryForStatement[];
  const total = entries.reduce((sum, entry) => sum + Number(entry.amount_cents), 0);
  const runRow = (statementId: string | null) => ({
    company_id: company.id,
    partner_id: partner.id,
    period_end: period.end,
    statement_id: statementId,
    created_at: now,
  });
  if (entries.length === 0 || total <= 0 || total < Number(partner.min_payout_cents)) {
    await trx.insertInto('commission_statement_runs').values(runRow(null)).execute();
    return { outcome: entries.length === 0 ? 'nothing_open' : 'below_minimum' };
  }

  const kind = statementKind(partner);
  const { vatRate, taxNote } = statementTax(partner);
  const lines = statementLines(entries);
  const totals = statementTotals(lines, vatRate);
  const statementId = newId('cst');
  // One statement (issue 26: a round trip each was ~4 % of the run's CPU): the draft, its
  // entries moved to `statemented`, the partner's balance moved from open to statemented by
  // the same total (the balance is kept equal to its entries; the partner's row is locked
  // above), and the run's row. The entries' and the run's
  // references to the new statement are checked at the statement's end.
  const made = (await trx
    .with('moved', (db) =>
      db
        .updateTable('commission_entries')
        .set({ status: 'statemented', statement_id: statementId, updated_at: now })
        .where('company_id', '=', company.id)
        .where(sql<boolean>`id = any(${entries.map((e) => e.id)}::text[])`)
        .where('status', '=', 'open')
        .returning('id'),
    )
    .with('balance', () => balanceMoveWrite(trx, company.id, partner.id, { from: 'open', to: 'statemented', cents: total }))
    .with('run', (db) => db.insertInto('commission_statement_runs').values(runRow(statementId)).returning('partner_id'))
    .with('draft', (db) =>
      db
        .insertInto('commission_statements')
        .values({
          company_id: company.id,
          id: statementId,
          partner_id: partner.id,
          kind,
          status: 'draft',
          number: null,
          issue_date: null,
          period_start: period.start,
          period_end: period.end,
          net_cents: totals.net,
          vat_cents: totals.vat,
          gross_cents: totals.gross,
          vat_rate: vatRate === 19 ? '19' : '0',
          tax_note: taxNote,
          lines: JSON.stringify(lines),
          e_invoice_format: statementEInvoice(partner, kind),
          document: null,
          cancels_statement_id: null,
          created_at: now,
          updated_at: now,
        })
        .returningAll(),
    )
    .selectFrom('draft')
    .selectAll('draft')
    .select(sql<string>`(select count(*) from moved)`.as('moved_entries'))
    .executeTakeFirstOrThrow()) as StatementRow & { moved_entries: string };
  // A refund voided one of them meanwhile: start over with the entries as they are now.
  if (Number(made.moved_entries) !== entries.length) throw new RetryTransaction();
  const { moved_entries: _moved, ...draft } = made;
  if (company.statements_need_review) return { outcome: 'made', statement: draft };
  // An XRechnung needs the partner's telephone and e-mail (BR-DE-6/7): without them the
  // statement waits as a draft, saying what is missing, until a person adds it and issues it.
  // The contact is read once and handed on to the issuing, which needs it for the document.
  const contact = await partnerContact(trx, company.id, partner.id);
  if (draft.e_invoice_format === 'xrechnung') {
    const gaps = xrechnungContactGaps(partner, contact);
    if (gaps.length > 0) {
      const reason = xrechnungContactSentence(partner.name, gaps);
      const held = (await trx
        .updateTable('commission_statements')
        .set({ held_reason: reason })
        .where('company_id', '=', company.id)
        .where('id', '=', statementId)
        .returningAll()
        .executeTakeFirstOrThrow()) as StatementRow;
      return { outcome: 'held', statement: held, reason };
    }
  }
  return { outcome: 'made', statement: await issueStatement(trx, { company, partner, statement: draft, issueDate: input.issueDate, now, contact }) };
}
