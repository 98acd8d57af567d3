import type { Database } from '../../db/connection.ts';
import { type Html, html } from '../html.ts';
import type { Messages } from '../i18n.ts';
import { date, euro } from './money.ts';

// An invoice's money on its page (pages/invoice-detail.ts): what was paid and what is open,
// each payment with the bank transaction it came from (booking day, payer, remittance, the
// imported statement file), the money a debit took back (issue 24) as a negative row, and
// the journal entries of the invoice, its payments and its reversals as Soll/Haben rows.

export type InvoiceMoneyHead = {
  id: string;
  type: string;
  status: string;
  total_gross_cents: number | string | bigint;
  amount_paid_cents: number | string | bigint;
};

/** The payments and reversals of an invoice, oldest first, with their bank transaction and import. */
async function loadMovements(db: Database, companyId: string, invoiceId: string) {
  const [payments, reversals] = await Promise.all([
    db
      .selectFrom('payment_allocations as p')
      .innerJoin('bank_transactions as t', (join) =>
        join.onRef('t.company_id', '=', 'p.company_id').onRef('t.entry_id', '=', 'p.entry_id').onRef('t.position', '=', 'p.transaction_position'),
      )
      .innerJoin('bank_entries as e', (join) => join.onRef('e.company_id', '=', 'p.company_id').onRef('e.id', '=', 'p.entry_id'))
      .innerJoin('bank_statements as s', (join) => join.onRef('s.company_id', '=', 'e.company_id').onRef('s.id', '=', 'e.statement_id'))
      .select([
        'p.id',
        'p.amount_cents',
        'p.booking_date',
        'p.created_at',
        'e.booking_date as bank_date',
        't.payer_name',
        't.remittance_text',
        's.file_name',
        's.imported_at',
      ])
      .where('p.company_id', '=', companyId)
      .where('p.invoice_id', '=', invoiceId)
      .orderBy('p.created_at')
      .orderBy('p.id')
      .execute(),
    db
      .selectFrom('payment_reversals as r')
      .innerJoin('bank_transactions as t', (join) =>
        join.onRef('t.company_id', '=', 'r.company_id').onRef('t.entry_id', '=', 'r.entry_id').onRef('t.position', '=', 'r.transaction_position'),
      )
      .innerJoin('bank_entries as e', (join) => join.onRef('e.company_id', '=', 'r.company_id').onRef('e.id', '=', 'r.entry_id'))
      .innerJoin('bank_statements as s', (join) => join.onRef('s.company_id', '=', 'e.company_id').onRef('s.id', '=', 'e.statement_id'))
      .select([
        'r.id',
        'r.invoice_cents',
        'r.credit_cents',
        'r.kind',
        'r.booking_date',
        'r.created_at',
        'e.booking_date as bank_date',
        't.payer_name',
        't.remittance_text',
        's.file_name',
        's.imported_at',
      ])
      .where('r.company_id', '=', companyId)
      .where('r.invoice_id', '=', invoiceId)
      .orderBy('r.created_at')
      .orderBy('r.id')
      .execute(),
  ]);
  return { payments, reversals };
}

/** The journal entries of the invoice, its payments and reversals, with their lines. */
async function loadBookings(db: Database, companyId: string, documentIds: string[]) {
  return db
    .selectFrom('journal_entries as e')
    .innerJoin('journal_lines as l', (join) => join.onRef('l.company_id', '=', 'e.company_id').onRef('l.entry_id', '=', 'e.id'))
    .select(['e.id', 'e.entry_date', 'e.document_number', 'e.description', 'l.account', 'l.side', 'l.amount_cents', 'l.tax_key'])
    .where('e.company_id', '=', companyId)
    .where('e.document_id', 'in', documentIds)
    .orderBy('e.entry_date')
    .orderBy('e.created_at')
    .orderBy('e.id')
    .orderBy('l.position')
    .execute();
}

type BookingLine = Awaited<ReturnType<typeof loadBookings>>[number];
export type BookingRow = { date: string; document: string; text: string; debit: string; credit: string; cents: bigint; taxKey: string };

/**
 * An entry's lines as Soll/Haben rows, as a bookkeeper reads a journal: when one side has a
 * single line, each line of the other side is booked against it; otherwise each line stands
 * alone with its side.
 */
export function bookingRows(lines: BookingLine[]): BookingRow[] {
  const entries = new Map<string, BookingLine[]>();
  for (const line of lines) entries.set(line.id, [...(entries.get(line.id) ?? []), line]);
  const rows: BookingRow[] = [];
  for (const entry of entries.values()) {
    const head = entry[0] as BookingLine;
    const debits = entry.filter((l) => l.side === 'S');
    const credits = entry.filter((l) => l.side === 'H');
    const row = (debit: string, credit: string, line: BookingLine): BookingRow => ({
      date: head.entry_date,
      document: head.document_number,
      text: head.description,
      debit,
      credit,
      cents: BigInt(line.amount_cents),
      taxKey: line.tax_key ?? '',
    });
    if (debits.length === 1) for (const c of credits) rows.push(row((debits[0] as BookingLine).account, c.account, c));
    else if (credits.length === 1) for (const d of debits) rows.push(row(d.account, (credits[0] as BookingLine).account, d));
    else for (const l of entry) rows.push(row(l.side === 'S' ? l.account : '', l.side === 'H' ? l.account : '', l));
  }
  return rows;
}

export async function loadInvoiceMoney(db: Database, companyId: string, invoiceId: string) {
  const movements = await loadMovements(db, companyId, invoiceId);
  const ids = [invoiceId, ...movements.payments.map((p) => p.id), ...movements.reversals.map((r) => r.id)];
  return { ...movements, bookings: bookingRows(await loadBookings(db, companyId, ids)) };
}

export type InvoiceMoney = Awaited<ReturnType<typeof loadInvoiceMoney>>;

/** The payments as lines of the invoice's history (a reversal has its own line there already). */
export function paymentHistory(t: Messages, money: InvoiceMoney): { at: Date; text: string }[] {
  return money.payments.map((p) => ({ at: p.created_at, text: t.trail.paymentHistory(euro(p.amount_cents), date(p.bank_date), p.payer_name ?? '') }));
}

/** "Zahlungen": paid, open, and one row per payment (positive) or reversal (negative). */
export function paymentsSection(t: Messages, invoice: InvoiceMoneyHead, money: InvoiceMoney, time: Intl.DateTimeFormat): Html {
  const w = t.trail;
  if (invoice.type !== 'invoice' || invoice.status === 'draft') return html``;
  const paid = BigInt(invoice.amount_paid_cents);
  const open = BigInt(invoice.total_gross_cents) - paid;
  const rows = [
    ...money.payments.map((p) => ({ ...p, cents: BigInt(p.amount_cents), kind: w.paymentKind, note: '' })),
    ...money.reversals.map((r) => ({
      ...r,
      cents: -BigInt(r.invoice_cents),
      kind: w.reversalKinds[r.kind] ?? r.kind,
      note: BigInt(r.credit_cents) > 0n ? w.creditAlsoTaken(euro(r.credit_cents)) : '',
    })),
  ].sort((a, b) => a.created_at.getTime() - b.created_at.getTime());
  const importDate = (at: Date) => time.format(at).split(',')[0] ?? '';
  const table =
    rows.length === 0
      ? html`<p class="muted">${w.noPayments}</p>`
      : html`<div class="table-wrap"><table class="table payments">
<thead><tr><th scope="col">${w.paymentDate}</th><th scope="col">${w.kind}</th><th scope="col">${w.bankTransaction}</th><th scope="col">${w.payerPayee}</th><th scope="col">${w.remittance}</th><th scope="col">${w.fromImport}</th><th scope="col" class="num">${t.amount}</th></tr></thead>
<tbody>${rows.map(
          (r) =>
            html`<tr><td>${date(r.booking_date)}</td><td>${r.kind}${r.note ? html`<br><span class="muted">${r.note}</span>` : ''}</td><td>${w.bookingDay(date(r.bank_date))}</td><td class="wrap">${r.payer_name ?? '–'}</td><td class="wrap">${r.remittance_text ?? '–'}</td><td class="wrap">${w.importOf(r.file_name ?? '–', importDate(r.imported_at))}</td><td class="num">${euro(r.cents)}</td></tr>`,
        )}</tbody>
<tfoot><tr><th scope="row" colspan="6">${w.paymentsTotal}</th><td class="num strong">${euro(rows.reduce((sum, r) => sum + r.cents, 0n))}</td></tr></tfoot></table></div>`;
  return html`<section aria-labelledby="payments-heading"><h2 id="payments-heading">${w.payments}</h2>
<dl class="facts"><div><dt>${t.gross}</dt><dd>${euro(invoice.total_gross_cents)}</dd></div><div><dt>${w.paid}</dt><dd class="strong">${euro(paid)}</dd></div><div><dt>${w.openAmount}</dt><dd class="strong">${invoice.status === 'cancelled' ? w.cancelledNothingOpen : euro(open)}</dd></div></dl>
${table}</section>`;
}

/** "Buchungen": the journal rows of the invoice, its payments and reversals. */
export function bookingsSection(t: Messages, money: InvoiceMoney): Html {
  const w = t.trail;
  const body =
    money.bookings.length === 0
      ? html`<p class="muted">${t.noBookings}</p>`
      : html`<p class="hint">${w.bookingsIntro}</p><div class="table-wrap"><table class="table compact bookings">
<thead><tr><th scope="col">${w.bookingDate}</th><th scope="col">${w.documentNumber}</th><th scope="col">${w.bookingText}</th><th scope="col">${w.debitAccount}</th><th scope="col">${w.creditAccount}</th><th scope="col" class="num">${t.amount}</th><th scope="col">${t.taxKey}</th></tr></thead>
<tbody>${money.bookings.map(
          (b) =>
            html`<tr><td>${date(b.date)}</td><td>${b.document}</td><td class="wrap">${b.text}</td><td>${b.debit || '–'}</td><td>${b.credit || '–'}</td><td class="num">${euro(b.cents)}</td><td>${b.taxKey}</td></tr>`,
        )}</tbody></table></div>`;
  return html`<section aria-labelledby="bookings-heading"><h2 id="bookings-heading">${t.bookings}</h2>${body}</section>`;
}
