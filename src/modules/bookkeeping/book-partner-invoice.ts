import type { Chart } from '../../db/schema-bookkeeping.ts';
import type { Trx } from '../../db/transaction.ts';
import { formatDate } from '../../shared/german-format.ts';
import { newId } from '../../shared/ids.ts';
import type { StatementDocument } from '../statements/statement-document.ts';
import { commissionJournalLines, partnerVatId } from './book-statement.ts';
import { BookkeepingError } from './bookkeeping-error.ts';
import { insertJournalEntry, lockedUntil } from './journal.repository.ts';
import { type JournalLine, mirror } from './journal.ts';

// The partner's own invoice for a request to invoice (issue 24): the request is no
// accounting document (it is not booked); the partner's invoice is. It is booked like the
// statement would have been — H creditor against the commission expense with the input VAT
// (BU 9), or the § 13b automatic account — but with the invoice's amounts, Belegfeld 1 =
// the partner's invoice number (the open item its payout closes), entry date = the day it
// is recorded (input VAT needs the invoice at hand, § 15 Abs. 1 Nr. 1 UStG; the open
// period), Leistungsdatum = the end of the commission period. A cancelled request whose
// invoice was recorded books the mirror under the cancellation's number, settling the
// partner's invoice number.

export type PartnerInvoiceToBook = {
  statementId: string;
  /** The partner's invoice number: Belegfeld 1 of its booking and of the payout. */
  invoiceNumber: string;
  invoiceDate: string;
  /** The day it is booked (the day recorded, or the cancellation's issue date for the reversal). */
  entryDate: string;
  /** End of the commission period (Leistungsdatum). */
  serviceDate: string;
  partner: Pick<StatementDocument['partner'], 'name' | 'creditorNumber' | 'taxStatus' | 'vatId'>;
  taxNote: StatementDocument['taxNote'];
  netCents: number;
  vatCents: number;
  grossCents: number;
};

/**
 * The 19 % VAT DATEV derives from a gross booked with BU-Schlüssel 9: round half up(gross ×
 * 19 / 119). The export hands an invoice's expense over as its gross with key 9, so its VAT
 * must be exactly this for DATEV to book the same input VAT (export-datev.ts checks it).
 */
export function vatDatevDerives(grossCents: number): number {
  const gross = BigInt(grossCents);
  return Number((2n * gross * 19n + 119n) / 238n);
}

/** The journal lines of a partner's invoice (pure). Refuses amounts the books cannot take as they are. */
export function partnerInvoiceJournalLines(chart: Chart, input: PartnerInvoiceToBook): JournalLine[] {
  const { netCents: net, vatCents: vat, grossCents: gross } = input;
  const what = `the partner's invoice ${input.invoiceNumber}`;
  if (!(net > 0 && vat >= 0 && net + vat === gross)) throw new BookkeepingError('invalid_document', `${what}: ${net} + ${vat} is not ${gross} cents`);
  if (input.taxNote === 'regular' ? vat !== vatDatevDerives(gross) : vat !== 0)
    throw new BookkeepingError('invalid_document', `${what}: VAT ${vat} cents does not fit a ${input.taxNote} partner's invoice of ${gross} cents`);
  return commissionJournalLines(chart, {
    taxNote: input.taxNote,
    taxStatus: input.partner.taxStatus,
    creditorNumber: input.partner.creditorNumber,
    net,
    vat,
    gross,
    what,
  });
}

/** Books the partner's invoice in the caller's transaction (document `<statement id>.invoice`). False when booked already. */
export async function bookPartnerInvoice(trx: Trx, companyId: string, chart: Chart, input: PartnerInvoiceToBook): Promise<boolean> {
  const lines = partnerInvoiceJournalLines(chart, input);
  return insert(trx, companyId, chart, input, {
    documentId: `${input.statementId}.invoice`,
    documentNumber: input.invoiceNumber,
    settlesNumber: null,
    description: `Rechnung ${input.invoiceNumber} vom ${formatDate(input.invoiceDate)} ${input.partner.name}`,
    lines,
  });
}

/** Books the mirror of the partner's invoice under the cancelling statement's number (document `<statement id>.invoice-reversal`). */
export async function reversePartnerInvoice(
  trx: Trx,
  companyId: string,
  chart: Chart,
  input: PartnerInvoiceToBook & { cancellationNumber: string },
): Promise<boolean> {
  const lines = mirror(partnerInvoiceJournalLines(chart, input));
  return insert(trx, companyId, chart, input, {
    documentId: `${input.statementId}.invoice-reversal`,
    documentNumber: input.cancellationNumber,
    settlesNumber: input.invoiceNumber,
    description: `Storno ${input.cancellationNumber} zu Rechnung ${input.invoiceNumber} ${input.partner.name}`,
    lines,
  });
}

async function insert(
  trx: Trx,
  companyId: string,
  chart: Chart,
  input: PartnerInvoiceToBook,
  entry: { documentId: string; documentNumber: string; settlesNumber: string | null; description: string; lines: JournalLine[] },
): Promise<boolean> {
  const locked = await lockedUntil(trx, companyId);
  if (locked !== null && input.entryDate <= locked)
    throw new BookkeepingError('period_locked', `the accounting period is locked up to ${locked}; ${entry.documentNumber} is dated ${input.entryDate}`, locked);
  return insertJournalEntry(
    trx,
    {
      company_id: companyId,
      id: newId('jen'),
      entry_date: input.entryDate,
      document_type: 'commission_statement',
      document_id: entry.documentId,
      document_number: entry.documentNumber,
      description: entry.description.slice(0, 255),
      chart,
      service_date: input.serviceDate,
      counterparty_vat_id: partnerVatId({ partner: input.partner as StatementDocument['partner'] }),
      settles_number: entry.settlesNumber,
    },
    entry.lines,
  );
}
