import type { Database } from '../../db/connection.ts';
import { inTransaction } from '../../db/transaction.ts';
import type { Clock } from '../../shared/clock.ts';
import { newId } from '../../shared/ids.ts';
import { formatCents } from '../../shared/money.ts';
import type { Sealer } from '../../shared/secrets.ts';
import { type Actor, recordAudit } from '../audit/audit-log.ts';
import { BookkeepingError, bookPayout } from '../bookkeeping/index.ts';
import { maskIban } from '../commissions/index.ts';
import { markStatementPaidIn } from '../statements/index.ts';
import { buildPain001, PayoutFileError, type PayoutPayment } from './pain001.ts';

// The payout run (issue 15, interface §1: paying a partner is a person's decision in the
// app): the chosen statements are marked paid (entries paid, balances moved, events
// commission_statement.paid), each payout is booked (S creditor / H Geldtransit, dated the
// execution date) and the SEPA credit-transfer file is written and kept — one transaction,
// so a refused file pays nothing and a paid statement is always in a file and the books.
// Each transfer carries the statement's number as EndToEndId and Verwendungszweck. A
// request to invoice is paid only once the partner's invoice is recorded (issue 24): the
// transfer pays that invoice's gross and names its number first, and its booking settles
// that invoice's open item (Belegfeld 1 = the partner's invoice number).

export class PayoutRunError extends Error {}

export type PayableStatement = {
  id: string;
  number: string;
  kind: string;
  partner_id: string;
  partner_name: string;
  iban_masked: string | null;
  gross_cents: number;
  period_start: string;
  period_end: string;
  issued_on: string | null;
  /** For a request to invoice: the partner's recorded invoice (null: not yet, so not payable). */
  invoice_number: string | null;
  invoice_gross_cents: number | null;
};

/** Issued or sent statements not paid yet, not cancelled, with a positive amount, oldest first. */
export function payableStatements(db: Database, companyId: string): Promise<PayableStatement[]> {
  return db
    .selectFrom('commission_statements as s')
    .innerJoin('commission_partners as p', (join) => join.onRef('p.company_id', '=', 's.company_id').onRef('p.id', '=', 's.partner_id'))
    .leftJoin('commission_partner_invoices as i', (join) => join.onRef('i.company_id', '=', 's.company_id').onRef('i.statement_id', '=', 's.id'))
    .select([
      's.id',
      's.number',
      's.kind',
      's.partner_id',
      'p.name as partner_name',
      'p.iban_masked',
      's.gross_cents',
      's.period_start',
      's.period_end',
      's.issue_date as issued_on',
      'i.number as invoice_number',
      'i.gross_cents as invoice_gross_cents',
    ])
    .where('s.company_id', '=', companyId)
    .where('s.type', '=', 'statement')
    .where('s.status', 'in', ['issued', 'sent'])
    .where('s.paid_at', 'is', null)
    .where('s.gross_cents', '>', 0)
    .orderBy('s.seq')
    .execute() as Promise<PayableStatement[]>;
}

export type PayoutRunResult = { runId: string; messageId: string; count: number; totalCents: bigint; file: string };

export async function runPayout(
  deps: { db: Database; clock: Clock; sealer: Sealer },
  companyId: string,
  input: { statementIds: readonly string[]; executionDate: string },
  actor: Actor & { email: string },
): Promise<PayoutRunResult> {
  const ids = [...new Set(input.statementIds)];
  if (ids.length === 0) throw new PayoutRunError('Bitte wählen Sie mindestens eine Gutschrift oder Abrechnung aus.');
  if (!/^\d{4}-\d{2}-\d{2}$/.test(input.executionDate)) throw new PayoutRunError('Das Ausführungsdatum fehlt.');
  return inTransaction(deps.db, async (trx) => {
    const company = await trx
      .selectFrom('companies')
      .select(['name', 'account_holder', 'iban', 'bic', 'timezone', 'chart'])
      .where('id', '=', companyId)
      .executeTakeFirstOrThrow();
    if (!company.iban) throw new PayoutRunError('Für die Firma ist keine Bankverbindung (IBAN) hinterlegt, von der gezahlt werden kann.');
    if (input.executionDate < deps.clock.today(company.timezone)) throw new PayoutRunError('Das Ausführungsdatum liegt in der Vergangenheit.');
    const rows = await trx
      .selectFrom('commission_statements as s')
      .innerJoin('commission_partners as p', (join) => join.onRef('p.company_id', '=', 's.company_id').onRef('p.id', '=', 's.partner_id'))
      .leftJoin('commission_partner_invoices as i', (join) => join.onRef('i.company_id', '=', 's.company_id').onRef('i.statement_id', '=', 's.id'))
      .select([
        's.id',
        's.number',
        's.kind',
        's.type',
        's.status',
        's.paid_at',
        's.gross_cents',
        's.partner_id',
        's.period_start',
        's.period_end',
        'p.name',
        'p.kreditorennummer',
        'p.iban_sealed',
        'p.bic',
        'p.payout_rail',
        'i.number as invoice_number',
        'i.gross_cents as invoice_gross_cents',
      ])
      .where('s.company_id', '=', companyId)
      .where('s.id', 'in', ids)
      .orderBy('s.seq')
      // The statements only: the partners' rows carry the ledger's key-share locks.
      .forNoKeyUpdate('s')
      .execute();
    if (rows.length !== ids.length) throw new PayoutRunError('Eine der gewählten Abrechnungen gibt es nicht (mehr).');
    const payments: PayoutPayment[] = [];
    const amounts = new Map<string, number>();
    const masked = new Map<string, string>();
    for (const row of rows) {
      const label = row.number ?? row.id;
      if (row.type !== 'statement' || (row.status !== 'issued' && row.status !== 'sent'))
        throw new PayoutRunError(`${label} ist ${row.type === 'statement' ? 'nicht ausgestellt' : 'eine Stornierung'} und kann nicht ausgezahlt werden.`);
      if (row.paid_at) throw new PayoutRunError(`${label} ist bereits als bezahlt vermerkt.`);
      if (row.kind === 'partner_invoice' && row.invoice_number === null)
        throw new PayoutRunError(
          `${label} ist eine Bitte um Rechnungsstellung: ausgezahlt wird erst, wenn die Rechnung von ${row.name} erfasst ist (auf der Seite der Abrechnung).`,
        );
      // A request to invoice pays the partner's invoice as recorded (a confirmed difference included).
      const amount = row.kind === 'partner_invoice' ? Number(row.invoice_gross_cents) : Number(row.gross_cents);
      if (amount <= 0) throw new PayoutRunError(`${label} hat keinen auszuzahlenden Betrag.`);
      if (row.payout_rail !== 'sepa_credit_transfer') throw new PayoutRunError(`${row.name} wird nicht per SEPA-Überweisung ausgezahlt (${label}).`);
      if (!row.iban_sealed) throw new PayoutRunError(`Für ${row.name} ist kein Auszahlungskonto hinterlegt (${label}).`);
      amounts.set(row.id, amount);
      const iban = deps.sealer.open(row.iban_sealed);
      masked.set(row.id, maskIban(iban));
      const invoice = row.invoice_number ? `Rechnung ${row.invoice_number} ` : '';
      payments.push({
        endToEndId: label,
        amountCents: BigInt(amount),
        creditor: { name: row.name, iban, bic: row.bic },
        remittance: `${invoice}${label} Provision ${row.period_start} bis ${row.period_end}`,
      });
    }
    const runId = newId('prn');
    const messageId = `KONTOR-${runId.slice(4, 30).toUpperCase()}`;
    const now = deps.clock.now();
    let file: string;
    try {
      file = buildPain001({
        messageId,
        createdAt: now,
        executionDate: input.executionDate,
        debtor: { name: company.account_holder ?? company.name, iban: company.iban, bic: company.bic },
        payments,
      });
    } catch (error) {
      if (error instanceof PayoutFileError) throw new PayoutRunError(`Die Überweisungsdatei kann so nicht erstellt werden: ${error.message}`);
      throw error;
    }
    const totalCents = payments.reduce((sum, p) => sum + BigInt(p.amountCents), 0n);
    await trx
      .insertInto('payout_runs')
      .values({
        company_id: companyId,
        id: runId,
        message_id: messageId,
        execution_date: input.executionDate,
        payment_count: payments.length,
        total_cents: Number(totalCents),
        file,
        created_by: actor.userId,
        created_at: now,
      })
      .execute();
    await trx
      .insertInto('payout_run_items')
      .values(
        rows.map((row) => ({
          company_id: companyId,
          run_id: runId,
          statement_id: row.id,
          partner_id: row.partner_id,
          amount_cents: amounts.get(row.id) as number,
          end_to_end_id: row.number ?? row.id,
          iban_masked: masked.get(row.id) as string,
        })),
      )
      .execute();
    for (const row of rows) {
      await markStatementPaidIn(trx, deps.clock, row.id, actor.email);
      try {
        await bookPayout(trx, companyId, company.chart, {
          statementId: row.id,
          statementNumber: row.number as string,
          settlesNumber: row.invoice_number,
          partner: { name: row.name, creditorNumber: String(row.kreditorennummer) },
          amountCents: amounts.get(row.id) as number,
          executionDate: input.executionDate,
        });
      } catch (error) {
        if (error instanceof BookkeepingError && error.code === 'period_locked')
          throw new PayoutRunError('Das Ausführungsdatum liegt in einem gesperrten Buchungszeitraum; die Auszahlung kann so nicht gebucht werden.');
        throw error;
      }
    }
    await recordAudit(trx, actor, now, {
      action: 'payout.run',
      subjectType: 'payout_run',
      subjectId: runId,
      after: { statements: rows.map((r) => r.number), total: formatCents(totalCents), execution_date: input.executionDate, message_id: messageId },
    });
    return { runId, messageId, count: payments.length, totalCents, file };
  });
}
