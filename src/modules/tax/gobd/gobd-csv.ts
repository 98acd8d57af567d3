import { zonedParts } from '../../../shared/clock.ts';
import { formatDate } from '../../../shared/german-format.ts';
import { formatCents } from '../../../shared/money.ts';
import type { ColumnType, GobdColumn } from './gobd-tables.ts';

// One value of a GoBD table as its CSV cell, as index.xml declares it: `;` between cells,
// CRLF between records, text in `"` (a `"` inside doubled), decimal comma without digit
// grouping, dates DD.MM.YYYY, moments as local time of the company (DD.MM.YYYY hh:mm:ss).
// Exact: cents and decimals are formatted from integers and decimal text, never floats.

export const COLUMN_DELIMITER = ';';
export const RECORD_DELIMITER = '\r\n';

/** Decimal places of a Numeric column (index.xml Accuracy); null for non-numeric types. */
export function accuracyOf(type: ColumnType): number | null {
  switch (type) {
    case 'int':
      return 0;
    case 'cents':
    case 'dec2':
      return 2;
    case 'dec4':
      return 4;
    case 'dec6':
      return 6;
    default:
      return null;
  }
}

const quote = (text: string) => `"${text.replaceAll('"', '""')}"`;

/** A decimal given as text ("2.5", "-0.125") or a number with `places` decimals and a comma. */
export function fixedDecimal(value: string | number, places: number): string {
  const text = typeof value === 'number' ? String(value) : value.trim();
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) throw new Error(`not a decimal: ${text}`);
  const [, sign = '', whole = '0', fraction = ''] = match;
  if (fraction.length > places && /[1-9]/.test(fraction.slice(places))) throw new Error(`${text} has more than ${places} decimals`);
  return `${sign}${whole},${fraction.slice(0, places).padEnd(places, '0')}`;
}

// The zone's offset from UTC, kept per quarter of an hour: Intl takes microseconds per
// moment, and an export formats millions of them. A quarter hour whose start and end have
// the same offset has it throughout (time zones change offset at most once in minutes, not
// back and forth); one where it changes is formatted by Intl, moment by moment.
const QUARTER_HOUR = 15 * 60 * 1000;
const offsets = new Map<string, number>();

function offsetAt(ms: number, timeZone: string): number {
  const p = zonedParts(new Date(ms), timeZone);
  return Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute), Number(p.second)) - Math.floor(ms / 1000) * 1000;
}

const two = (n: number) => (n < 10 ? `0${n}` : String(n));

/** The moment as the company's wall-clock time: DD.MM.YYYY hh:mm:ss. */
export function localMoment(instant: Date, timeZone: string): string {
  const ms = instant.getTime();
  const start = Math.floor(ms / QUARTER_HOUR) * QUARTER_HOUR;
  const key = `${timeZone} ${start}`;
  let offset = offsets.get(key);
  if (offset === undefined) {
    const first = offsetAt(start, timeZone);
    offset = first === offsetAt(start + QUARTER_HOUR - 1000, timeZone) ? first : Number.NaN;
    if (offsets.size >= 10_000) offsets.clear();
    offsets.set(key, offset);
  }
  if (Number.isNaN(offset)) {
    const p = zonedParts(instant, timeZone);
    return `${p.day}.${p.month}.${p.year} ${p.hour}:${p.minute}:${p.second}`;
  }
  const local = new Date(Math.floor(ms / 1000) * 1000 + offset);
  return `${two(local.getUTCDate())}.${two(local.getUTCMonth() + 1)}.${String(local.getUTCFullYear()).padStart(4, '0')} ${two(local.getUTCHours())}:${two(local.getUTCMinutes())}:${two(local.getUTCSeconds())}`;
}

export function cell(column: GobdColumn, value: unknown, timeZone: string): string {
  if (value === null || value === undefined) return '';
  switch (column.type) {
    case 'text':
      return quote(String(value));
    case 'int':
      return String(value);
    case 'cents':
      return formatCents(BigInt(value as string | number), ',');
    case 'dec2':
      return fixedDecimal(value as string | number, 2);
    case 'dec4':
      return fixedDecimal(value as string | number, 4);
    case 'dec6':
      return fixedDecimal(value as string | number, 6);
    case 'date':
      return formatDate(value instanceof Date ? value.toISOString().slice(0, 10) : String(value));
    case 'time':
      return quote(localMoment(value instanceof Date ? value : new Date(String(value)), timeZone));
    case 'bool':
      return quote(value ? 'ja' : 'nein');
    case 'json':
      return quote(typeof value === 'string' ? value : JSON.stringify(value));
  }
}

export const headerLine = (columns: GobdColumn[]) => columns.map((column) => quote(column.name)).join(COLUMN_DELIMITER) + RECORD_DELIMITER;

export const csvLine = (columns: GobdColumn[], row: Record<string, unknown>, timeZone: string) =>
  columns.map((column, i) => cell(column, row[`c${i}`], timeZone)).join(COLUMN_DELIMITER) + RECORD_DELIMITER;
