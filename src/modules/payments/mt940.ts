import mt940js, { type Tag } from 'mt940js';
import { isValidIban } from '../../shared/iban.ts';
import { decimal, formatAmount, mt940Amount } from './amounts.ts';
import { entryKeys, type UnkeyedEntry } from './entry-key.ts';
import { REMITTANCE_SUBFIELDS, readSepaRemittance } from './sepa-remittance.ts';
import { type ParsedStatement, type ParsedTransaction, StatementError, type StatementInfo } from './statement.ts';

// MT940 (german-rules §5.3) through mt940js, which splits the file into statements and
// tags and the German :86: field into its ?NN subfields ("structured details"). Two things
// are done here instead: mt940js reads amounts as binary floats, so amounts and the
// balance check use the tag texts and exact decimals; and it does not read the SEPA
// identifiers inside ?20–?29, which sepa-remittance.ts does.

/** :60F:/:62F: etc.: D/C mark, date YYMMDD, currency, amount. */
const BALANCE = /^([DC])(\d{6})([A-Z]{3})([0-9,]{0,16})/;
/** :61: as mt940js reads it: value date, entry date MMDD, mark (C, D, RC, RD), funds code, amount. */
const STATEMENT_LINE = /^(\d{2})(\d{2})(\d{2})((\d{2})(\d{2}))?(R?[DC])([A-Z])?([0-9,]{0,16})/;

type Signed = { amount: string; negative: boolean };

function signedValue({ amount, negative }: Signed) {
  return negative ? decimal(amount).negated() : decimal(amount);
}

function balanceOf(tag: Tag | undefined, statement: number): Signed | null {
  if (!tag) return null;
  const match = BALANCE.exec(tag.data);
  const amount = match ? mt940Amount(match[4]!) : null;
  if (!match || amount === null) throw new StatementError(`MT940 statement ${statement}: balance :${tag.id}: "${tag.data.slice(0, 40)}" cannot be read`);
  return { amount, negative: match[1] === 'D' };
}

function lineOf(tag: Tag, statement: number, line: number): { mark: string; amount: string; valueDate: string; entryMonthDay: string | null } {
  const match = STATEMENT_LINE.exec(tag.data);
  const amount = match ? mt940Amount(match[9]!) : null;
  if (!match || amount === null) throw new StatementError(`MT940 statement ${statement}, entry ${line}: :61: "${tag.data.slice(0, 40)}" cannot be read`);
  return { mark: match[7]!, amount, valueDate: `20${match[1]}-${match[2]}-${match[3]}`, entryMonthDay: match[4] ? `${match[5]}-${match[6]}` : null };
}

/** Debit lowers the balance; a reversal (RC, RD) turns the sign round. */
const lowersBalance = (mark: string) => mark === 'D' || mark === 'RC';

class ExactParser extends mt940js.Parser {
  protected override _validateGroup(group: Tag[], index: number): void {
    const opening = balanceOf(
      group.find((t) => t.id === 60),
      index,
    );
    const closing = balanceOf(
      group.find((t) => t.id === 62),
      index,
    );
    if (opening && closing) {
      let moved = decimal('0');
      group
        .filter((t) => t.id === 61)
        .forEach((tag, i) => {
          const line = lineOf(tag, index, i + 1);
          moved = lowersBalance(line.mark) ? moved.minus(decimal(line.amount)) : moved.plus(decimal(line.amount));
        });
      const open = signedValue(opening);
      const close = signedValue(closing);
      if (!open.plus(moved).equals(close))
        throw new StatementError(
          `MT940 statement ${index}: opening balance ${formatAmount(open, true)} + entries ${formatAmount(moved, true)} ≠ closing balance ${formatAmount(close, true)}`,
        );
    }
    super._validateGroup(group, index);
  }
}

/**
 * A date the bank wrote as it is, or, for a day the month does not have (Sparkassen and
 * Volksbanken date the quarterly fee closing, the Entgeltabschluss, on 30 February), the
 * month's last day, with a note. A month outside 1–12 is no date at all: the file is refused.
 */
function realDate(date: string, where: () => string, notes: string[]): string {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  if (month < 1 || month > 12 || day < 1) throw new StatementError(`${where()}: "${date}" is not a date`);
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day <= last) return date;
  const real = `${date.slice(0, 8)}${String(last).padStart(2, '0')}`;
  notes.push(`${where()}: the bank dated it ${germanDate(date)}, a day that does not exist; taken as ${germanDate(real)}, the last day of that month`);
  return real;
}

const germanDate = (date: string) => `${date.slice(8, 10)}.${date.slice(5, 7)}.${date.slice(0, 4)}`;

/** The booking date from the :61: entry date (MMDD), in the year that puts it nearest the value date. */
function bookingDate(valueDate: string, entryMonthDay: string | null): string {
  if (!entryMonthDay) return valueDate;
  const year = Number(valueDate.slice(0, 4));
  const monthGap = Number(entryMonthDay.slice(0, 2)) - Number(valueDate.slice(5, 7));
  const entryYear = monthGap > 6 ? year - 1 : monthGap < -6 ? year + 1 : year;
  return `${entryYear}-${entryMonthDay}`;
}

/** The account of :25: as IBAN: given directly, or derived from a German BLZ/account number. */
export function accountIban(account: string): string | null {
  const compact = account.replace(/\s+/g, '').toUpperCase();
  const direct = /(?:^|\/)([A-Z]{2}\d{2}[A-Z0-9]{10,30})$/.exec(compact)?.[1];
  if (direct && isValidIban(direct)) return direct;
  const german = /^(\d{8})\/(\d{1,10})$/.exec(compact);
  if (!german) return null;
  const bban = `${german[1]}${german[2]!.padStart(10, '0')}`;
  // ISO 13616 check digits: 98 − (BBAN + "DE00" as digits) mod 97.
  let remainder = 0;
  for (const digit of `${bban}131400`) remainder = (remainder * 10 + Number(digit)) % 97;
  const iban = `DE${String(98 - remainder).padStart(2, '0')}${bban}`;
  return isValidIban(iban) ? iban : null;
}

function subfield(details: Record<string, string> | undefined, ...keys: string[]): string | null {
  const value = keys.map((key) => details?.[key] ?? '').join('');
  return value.trim() || null;
}

/** Parses an MT940 file (one or more statements); refuses broken balances and unreadable tags. */
export function parseMt940(content: string): ParsedStatement {
  let parsed: ReturnType<ExactParser['parse']>;
  try {
    parsed = new ExactParser().parse(content, true);
  } catch (error) {
    if (error instanceof StatementError) throw error;
    const message = (error as Error).message;
    const missing = /^Mandatory tag (\w+) is missing in group (\d+)/.exec(message);
    if (missing) throw new StatementError(`the MT940 file cannot be read: statement ${missing[2]} has no :${missing[1]}: tag`);
    throw new StatementError(`the MT940 file cannot be read: ${message}`);
  }
  if (parsed.length === 0) throw new StatementError('the MT940 file holds no statement');

  const statements: StatementInfo[] = [];
  const entries: UnkeyedEntry[] = [];
  const notes: string[] = [];
  parsed.forEach((statement, statementIndex) => {
    const number = [statement.number.statement, statement.number.sequence].filter(Boolean).join('/');
    const account = statement.accountIdentification.trim();
    statements.push({
      id: [statement.transactionReference.trim(), number].filter(Boolean).join(' '),
      iban: accountIban(account),
      account,
      currency: statement.currency,
    });
    const iban = statements[statementIndex]!.iban;
    const lineTags = (statement.tags ?? []).filter((t) => t.id === 61);
    statement.transactions.forEach((tx, i) => {
      const line = lineOf(lineTags[i]!, statementIndex + 1, i + 1);
      const details = tx.structuredDetails;
      const structured = details !== undefined && Object.keys(details).some((key) => /^\d\d$/.test(key));
      const sepa = structured ? readSepaRemittance(REMITTANCE_SUBFIELDS.map((key) => details[key] ?? '').filter((part) => part !== '')) : null;
      // Unstructured :86: text: its lines are joined with a space (the matcher ignores separators).
      const remittanceText = sepa ? (sepa.fields.SVWZ ?? sepa.free) : tx.details.replace(/\s*\n\s*/g, ' ').trim() || null;
      const endToEndId = sepa?.fields.EREF && sepa.fields.EREF.toUpperCase() !== 'NOTPROVIDED' ? sepa.fields.EREF : null;
      const counterpartyIban = subfield(details, '31');
      const transaction: ParsedTransaction = {
        amount: line.amount,
        currency: statement.currency,
        remittanceText,
        endToEndId,
        creditorReference: null,
        counterpartyName: structured ? subfield(details, '32', '33') : null,
        counterpartyIban: counterpartyIban && /^[A-Z]{2}\d{2}[A-Z0-9]+$/.test(counterpartyIban) ? counterpartyIban : null,
      };
      const reversal = line.mark.startsWith('R');
      const where = () => `MT940 statement ${statementIndex + 1}, entry ${i + 1}`;
      const valueDate = realDate(line.valueDate, () => `${where()}, value date`, notes);
      entries.push({
        position: entries.length + 1,
        statementIndex,
        account: iban ?? account,
        bookingDate: realDate(bookingDate(line.valueDate, line.entryMonthDay), () => `${where()}, booking date`, notes),
        valueDate,
        direction: lowersBalance(line.mark) ? 'debit' : 'credit',
        reversal,
        status: 'BOOK',
        amount: line.amount,
        currency: statement.currency,
        bankReference: tx.bankReference.trim() || null,
        bookingText: structured ? subfield(details, '00') : null,
        transactions: [transaction],
      });
    });
  });
  // MT940 has no reference the bank guarantees unique: every entry is keyed by its content.
  const keys = entryKeys(entries, () => null);
  return { format: 'mt940', statements, entries: entries.map((entry, i) => ({ ...entry, key: keys[i]! })), notes };
}
