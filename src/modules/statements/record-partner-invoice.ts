import type { Database } from '../../db/connection.ts';
import { inTransaction, type Trx } from '../../db/transaction.ts';
import type { Clock } from '../../shared/clock.ts';
import { formatDate } from '../../shared/german-format.ts';
import { formatCents } from '../../shared/money.ts';
import { type Actor, recordAudit } from '../audit/audit-log.ts';
import { BookkeepingError, bookPartnerInvoice, type PartnerInvoiceToBook } from '../bookkeeping/index.ts';
import type { PartnerRow } from './build-statement.ts';
import {
  checkPartnerInvoice,
  invoiceDifferences,
  notRecordable,
  type Parsed,
  type PartnerInvoiceInput,
  PartnerInvoiceRefused,
} from './partner-invoice-checks.ts';
import type { StatementRow } from './statement-view.ts';
import { findStatement } from './statements.repository.ts';

// Recording the partner's own invoice for a request to invoice (issue 24, point 4): a
// person types what the partner's invoice says — number, date, net, VAT, gross — in the app
// or with `kontor admin statement record-invoice`. The invoice must be one the books can
// take (net + VAT = gross; 19 % VAT as DATEV derives it from the gross for a regular
// partner, none for a Kleinunternehmer or under § 13b); a difference to the statement is
// shown and recorded only when the person confirms it. In one transaction: the record, its
// booking (book-partner-invoice.ts: Belegfeld 1 = the partner's invoice number) and the
// audit row `statement.invoice_recorded`. Only then is the statement payable, and the
// payout pays the invoice's gross.

export {
  amountCents,
  invoiceDifferences,
  type PartnerInvoiceField,
  type PartnerInvoiceInput,
  type PartnerInvoiceRefusal,
  PartnerInvoiceRefused,
} from './partner-invoice-checks.ts';

export type RecordedPartnerInvoice = {
  statementId: string;
  statementNumber: string;
  number: string;
  invoiceDate: string;
  netCents: number;
  vatCents: number;
  grossCents: number;
  /** The differences to the statement as shown to the person (German), empty when it matches. */
  differences: string[];
  mismatchConfirmed: boolean;
  /** The person's e-mail address, or the partner account's when the partner uploaded it. */
  recordedBy: string;
  /** Typed by a person (the app, the command line) or uploaded by the partner (the portal). */
  via: 'app' | 'portal';
  recordedAt: Date;
};

/** The invoice recorded for a statement, or null. */
export async function findPartnerInvoice(db: Database | Trx, companyId: string, statementId: string): Promise<RecordedPartnerInvoice | null> {
  const row = await db
    .selectFrom('commission_partner_invoices as i')
    .innerJoin('commission_statements as s', (join) => join.onRef('s.company_id', '=', 'i.company_id').onRef('s.id', '=', 'i.statement_id'))
    .leftJoin('users as u', 'u.id', 'i.recorded_by')
    .leftJoin('partner_accounts as pa', (join) => join.onRef('pa.company_id', '=', 'i.company_id').onRef('pa.id', '=', 'i.recorded_by_partner'))
    .select([
      'i.number',
      'i.invoice_date',
      'i.net_cents',
      'i.vat_cents',
      'i.gross_cents',
      'i.mismatch_confirmed',
      'i.recorded_at',
      'u.email',
      'pa.email as partner_email',
      's.number as statement_number',
      's.net_cents as s_net',
      's.vat_cents as s_vat',
      's.gross_cents as s_gross',
    ])
    .where('i.company_id', '=', companyId)
    .where('i.statement_id', '=', statementId)
    .executeTakeFirst();
  if (!row) return null;
  const invoice = { netCents: Number(row.net_cents), vatCents: Number(row.vat_cents), grossCents: Number(row.gross_cents) };
  return {
    statementId,
    statementNumber: row.statement_number as string,
    number: row.number,
    invoiceDate: row.invoice_date,
    ...invoice,
    differences: invoiceDifferences({ net_cents: row.s_net, vat_cents: row.s_vat, gross_cents: row.s_gross }, invoice),
    mismatchConfirmed: row.mismatch_confirmed,
    recordedBy: (row.email ?? row.partner_email) as string,
    via: row.email !== null ? 'app' : 'portal',
    recordedAt: new Date(row.recorded_at),
  };
}

const same = (a: RecordedPartnerInvoice, b: Parsed) =>
  a.number === b.number && a.invoiceDate === b.invoiceDate && a.netCents === b.netCents && a.vatCents === b.vatCents && a.grossCents === b.grossCents;

/**
 * Records the partner's invoice for an issued request to invoice and books it. The same
 * invoice again changes nothing (`changed: false`); another one is refused (a recorded
 * invoice is not changed: cancel the statement instead).
 */
export function recordPartnerInvoice(
  deps: { db: Database; clock: Clock },
  statementId: string,
  input: PartnerInvoiceInput,
  actor: Actor & { email: string },
): Promise<RecordedPartnerInvoice & { changed: boolean }> {
  return inTransaction(deps.db, async (trx) => {
    const statement = await findStatement(trx, actor.companyId, statementId, true);
    if (!statement) throw new PartnerInvoiceRefused('not_found', `no statement ${statementId}`);
    const company = await trx.selectFrom('companies').select(['chart', 'timezone']).where('id', '=', statement.company_id).executeTakeFirstOrThrow();
    const today = deps.clock.today(company.timezone);
    const recorded = await findPartnerInvoice(trx, statement.company_id, statement.id);
    // The same invoice again is answered as recorded in any state (a repeated command).
    const why = recorded ? null : notRecordable(statement);
    if (why) throw new PartnerInvoiceRefused('not_recordable', why);
    const parsed = checkPartnerInvoice(input, statement, today);
    if (recorded) {
      if (same(recorded, parsed)) return { ...recorded, changed: false };
      throw new PartnerInvoiceRefused(
        'already_recorded',
        `Zu dieser Abrechnung ist bereits die Rechnung ${recorded.number} vom ${formatDate(recorded.invoiceDate)} erfasst. Eine erfasste Rechnung wird nicht geändert: ist sie falsch erfasst, stornieren Sie die Abrechnung (die Buchung wird dann umgekehrt).`,
      );
    }
    const taken = await statementWithNumber(trx, statement, parsed.number);
    if (taken) {
      const field = `Die Rechnung ${parsed.number} des Partners ist bereits zur Abrechnung ${taken} erfasst.`;
      throw new PartnerInvoiceRefused('invalid', field, { number: field });
    }
    const differences = invoiceDifferences(statement, parsed);
    if (differences.length > 0 && !input.confirmMismatch)
      throw new PartnerInvoiceRefused(
        'mismatch_unconfirmed',
        `Die Rechnung ${parsed.number} weicht von der Abrechnung ${statement.number} ab. Bitte prüfen Sie die Rechnung und bestätigen Sie die Abweichung, wenn sie so stimmt.`,
        {},
        differences,
      );
    const partner = (await trx
      .selectFrom('commission_partners')
      .selectAll()
      .where('company_id', '=', statement.company_id)
      .where('id', '=', statement.partner_id)
      .executeTakeFirstOrThrow()) as PartnerRow;
    const now = deps.clock.now();
    await writePartnerInvoice(
      trx,
      { statement, partner, chart: company.chart, today, now },
      parsed,
      { recorded_by: actor.userId, mismatch_confirmed: differences.length > 0 },
      (error) => `Der Buchungszeitraum ist gesperrt (${error.message}); die Rechnung kann heute nicht gebucht werden.`,
    );
    await recordAudit(trx, actor, now, {
      action: 'statement.invoice_recorded',
      subjectType: 'commission_statement',
      subjectId: statement.id,
      after: {
        ...invoiceAuditFields(statement, parsed),
        differences,
        mismatch_confirmed: differences.length > 0,
      },
    });
    return {
      statementId: statement.id,
      statementNumber: statement.number as string,
      ...parsed,
      differences,
      mismatchConfirmed: differences.length > 0,
      recordedBy: actor.email,
      via: 'app',
      recordedAt: now,
      changed: true,
    };
  });
}

/** What the books take of a recorded invoice (also for its reversal when the statement is cancelled). */
export function partnerInvoiceToBook(
  statement: Pick<StatementRow, 'id' | 'tax_note' | 'period_end'>,
  partner: PartnerRow,
  invoice: { number: string; invoiceDate: string; netCents: number; vatCents: number; grossCents: number },
  entryDate: string,
): PartnerInvoiceToBook {
  return {
    statementId: statement.id,
    invoiceNumber: invoice.number,
    invoiceDate: invoice.invoiceDate,
    entryDate,
    serviceDate: statement.period_end,
    partner: { name: partner.name, creditorNumber: String(partner.kreditorennummer), taxStatus: partner.tax_status, vatId: partner.vat_id },
    taxNote: statement.tax_note,
    netCents: invoice.netCents,
    vatCents: invoice.vatCents,
    grossCents: invoice.grossCents,
  };
}

/** The number of the partner's statement that holds an invoice with this number, or null. */
export async function statementWithNumber(trx: Trx, statement: StatementRow, number: string): Promise<string | null> {
  const taken = await trx
    .selectFrom('commission_partner_invoices as i')
    .innerJoin('commission_statements as s', (join) => join.onRef('s.company_id', '=', 'i.company_id').onRef('s.id', '=', 'i.statement_id'))
    .select('s.number')
    .where('i.company_id', '=', statement.company_id)
    .where('i.partner_id', '=', statement.partner_id)
    .where('i.number', '=', number)
    .executeTakeFirst();
  return taken ? (taken.number as string) : null;
}

/**
 * Records the partner's invoice for the statement and books it (Belegfeld 1 = its number),
 * in the caller's transaction: typed by a person (`recorded_by`) or uploaded by the partner
 * (`recorded_by_partner`). A booking into a locked period is the refusal `period_locked`,
 * worded by `locked` for whoever acts.
 */
export async function writePartnerInvoice(
  trx: Trx,
  at: { statement: StatementRow; partner: PartnerRow; chart: 'SKR03' | 'SKR04'; today: string; now: Date },
  parsed: Parsed,
  recorder: { recorded_by: string; mismatch_confirmed: boolean } | { recorded_by_partner: string },
  locked: (error: BookkeepingError) => string,
): Promise<void> {
  const { statement } = at;
  await trx
    .insertInto('commission_partner_invoices')
    .values({
      company_id: statement.company_id,
      statement_id: statement.id,
      partner_id: statement.partner_id,
      number: parsed.number,
      invoice_date: parsed.invoiceDate,
      net_cents: parsed.netCents,
      vat_cents: parsed.vatCents,
      gross_cents: parsed.grossCents,
      mismatch_confirmed: 'mismatch_confirmed' in recorder ? recorder.mismatch_confirmed : false,
      recorded_by: 'recorded_by' in recorder ? recorder.recorded_by : null,
      recorded_by_partner: 'recorded_by_partner' in recorder ? recorder.recorded_by_partner : null,
      recorded_at: at.now,
    })
    .execute();
  try {
    await bookPartnerInvoice(trx, statement.company_id, at.chart, partnerInvoiceToBook(statement, at.partner, parsed, at.today));
  } catch (error) {
    if (error instanceof BookkeepingError && error.code === 'period_locked') throw new PartnerInvoiceRefused('period_locked', locked(error));
    throw error;
  }
}

/** What the audit trail keeps of a partner's invoice, recorded by a person or uploaded by the partner. */
export function invoiceAuditFields(statement: Pick<StatementRow, 'number'>, parsed: Parsed): Record<string, unknown> {
  return {
    statement: statement.number,
    invoice_number: parsed.number,
    invoice_date: parsed.invoiceDate,
    net: formatCents(parsed.netCents),
    vat: formatCents(parsed.vatCents),
    gross: formatCents(parsed.grossCents),
  };
}
