import { Readable } from 'node:stream';
import type { Database } from '../../db/connection.ts';
import { formatDate } from '../../shared/german-format.ts';
import { formatCents } from '../../shared/money.ts';
import { allInvoices, type ListedInvoice, type ListQuery, openCents } from './invoice-list.ts';

// The invoice list as CSV for German Excel (issue 25): UTF-8 with BOM (else Excel reads it as
// Windows-1252), ";" between fields, decimal comma without thousands separator, dates
// DD.MM.YYYY, CRLF, one header row. Always German, whatever the page's language: it is read
// by German spreadsheets and bookkeepers. Streamed page by page (invoice-list.ts).

const HEADER = ['Rechnungsnummer', 'Art', 'Kunde', 'Rechnungsdatum', 'Fällig am', 'Netto', 'USt', 'Brutto', 'Bezahlt', 'Offen', 'Status', 'Überfällig'];

const STATUS_WORDS: Record<string, string> = {
  draft: 'Entwurf',
  issued: 'Ausgestellt',
  sent: 'Versendet',
  partially_paid: 'Teilweise bezahlt',
  paid: 'Bezahlt',
  cancelled: 'Storniert',
};

/**
 * One field: quoted when it holds ";", a quote or a line break; text that a spreadsheet
 * would run as a formula (=, +, -, @ first) gets a leading apostrophe.
 */
export function csvField(value: string, text = true): string {
  const safe = text && /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[;"\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** Cents as "1234,56" (German decimal comma, no thousands separator, as Excel reads a number). */
export const csvAmount = (cents: number): string => formatCents(cents, ',');

export function csvLine(row: ListedInvoice): string {
  const fields = [
    csvField(row.number ?? 'Entwurf'),
    row.type === 'storno' ? 'Storno' : 'Rechnung',
    csvField(row.customer_name),
    row.issue_date ? formatDate(row.issue_date) : '',
    row.due_date ? formatDate(row.due_date) : '',
    csvAmount(row.total_net_cents),
    csvAmount(row.total_tax_cents),
    csvAmount(row.total_gross_cents),
    csvAmount(row.amount_paid_cents),
    csvAmount(openCents(row)),
    STATUS_WORDS[row.status] ?? row.status,
    row.overdue && openCents(row) > 0 ? 'ja' : 'nein',
  ];
  return `${fields.join(';')}\r\n`;
}

/** The CSV of every invoice the list's filters find, as a stream of chunks (one per page). */
export function invoiceCsv(db: Database, companyId: string, query: ListQuery): Readable {
  async function* chunks() {
    yield `\ufeff${HEADER.join(';')}\r\n`;
    for await (const rows of allInvoices(db, companyId, { ...query, after: null })) yield rows.map(csvLine).join('');
  }
  return Readable.from(chunks());
}
