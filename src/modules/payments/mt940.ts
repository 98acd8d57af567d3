import { formatDate } from '../../shared/german-format.ts';
import { isValidIban } from '../../shared/iban.ts';
import { decimal, formatAmount, mt940Amount } from './amounts.ts';
import { type EntryDetails, readDetails } from './mt940-details.ts';
import { type MtField, type MtMessage, readMtMessages } from './mt940-lines.ts';
import { RETURN_GVC, type ReturnMark } from './return-mark.ts';
import { type ParsedTransaction, StatementError, type StatementInfo, type StatementNote, type UnkeyedEntry, type UnkeyedStatement } from './statement.ts';

// MT940 statements and MT942 intraday reports (german-rules §5.3). mt940-lines.ts splits the
// file into messages and fields; this reads them: amounts as exact decimals, the balance
// check in exact decimals, the :86: text through mt940-details.ts. (mt940js, used before,
// refused real layouts, e.g. a :61: without transaction type, ":28C: /1", a :65F: the bank
// filled with "null", and truncated :86: texts at 390 characters.) An MT942 entry reads
// field for field like the same booking in the day's MT940, so both get the same key.
//
// Balances: a statement without closing (or opening) balance is imported with a note, as
// some banks leave them out; one that stops without closing balance and without end mark
// is a file cut off and refused. Messages name statement, entry and line, and quote
// neither names, IBANs nor remittance texts.

type Signed = { amount: string; negative: boolean; currency: string };

/** :60F:/:62F:: mark, date YYMMDD, currency, amount (nothing after it). */
const BALANCE = /^([DC])(\d{2})(\d{2})(\d{2})([A-Z]{3})(\d{1,15}(?:,\d{0,5})?)\s*$/;

/** :61:: value date, entry date MMDD (or four blanks), mark (C, D, RC, RD), funds code, amount. */
const STATEMENT_LINE = /^(\d{2})(\d{2})(\d{2})(?:(\d{2})(\d{2})| {4})?(R?[DC])([A-Z])?(\d{1,15}(?:,\d{0,5})?)?/;

/** Debit lowers the balance; a reversal (RC, RD) turns the sign round. */
const lowersBalance = (mark: string) => mark === 'D' || mark === 'RC';

const signedValue = ({ amount, negative }: Signed) => (negative ? decimal(amount).negated() : decimal(amount));

const tagOf = (field: MtField) => `:${field.tag}:`;

function balanceOf(field: MtField, what: string, where: string): Signed {
  const text = field.lines[0]!;
  const match = BALANCE.exec(text);
  if (match && Number(match[3]) >= 1 && Number(match[3]) <= 12) return { amount: mt940Amount(match[6]!)!, negative: match[1] === 'D', currency: match[5]! };
  const reason = !/^[DC]/.test(text)
    ? 'it does not start with C or D'
    : !/^[DC]\d{6}/.test(text)
      ? 'no date (YYMMDD) follows C or D'
      : !/^[DC]\d{6}[A-Z]{3}/.test(text)
        ? 'no currency follows the date'
        : !match
          ? 'no amount (digits with a decimal comma) follows the currency'
          : 'its date has no month 01–12';
  throw new StatementError(`${where}: the ${what} (${tagOf(field)}, line ${field.line}) cannot be read: ${reason}`);
}

type Line = { mark: string; amount: string; valueDate: string; entryMonthDay: string | null; bankReference: string | null };

/** A return (return-mark.ts): RC, or a return GVC; the original amount when the bank added its fees. */
function returnMark(line: Line, details: EntryDetails): ReturnMark | null {
  const marker = line.mark === 'RC' || line.mark === 'RD' ? line.mark : details.gvc && RETURN_GVC.has(details.gvc) ? `GVC ${details.gvc}` : null;
  if (!marker) return null;
  const original = details.originalAmount;
  const smaller = original !== null && decimal(original).greaterThan(0) && decimal(original).lessThan(decimal(line.amount));
  return { marker, reason: details.returnReason, originalAmount: smaller ? original : null };
}

function statementLine(field: MtField, where: string): Line {
  // Commerzbank and Deutsche Bank put a space between amount and transaction type.
  const text = field.lines[0]!.replace(/^(\d{6}(?:\d{4}| {4})?R?[DC][A-Z]?\d[\d,]*) +(?=[A-Z])/, '$1');
  const match = STATEMENT_LINE.exec(text);
  if (!match?.[8]) {
    const reason = !/^\d{6}/.test(text)
      ? 'it does not start with a value date (YYMMDD)'
      : !match
        ? 'the dates are not followed by C, D, RC or RD'
        : 'no amount (digits with a decimal comma) follows C, D, RC or RD';
    throw new StatementError(`${where}: its :61: line (line ${field.line}) cannot be read: ${reason}`);
  }
  const rest = text.slice(match[0].length);
  const bankReference = rest.includes('//') ? rest.slice(rest.indexOf('//') + 2).trim() : '';
  return {
    mark: match[6]!,
    amount: mt940Amount(match[8])!,
    valueDate: `20${match[1]}-${match[2]}-${match[3]}`,
    entryMonthDay: match[4] ? `${match[4]}-${match[5]}` : null,
    bankReference: bankReference || null,
  };
}

/**
 * A date the bank wrote as it is, or, for a day the month does not have (Sparkassen and
 * Volksbanken date the quarterly fee closing, the Entgeltabschluss, on 30 February), the
 * month's last day, with a note. A month outside 1–12 is no date at all: the file is refused.
 */
function realDate(date: string, where: string, notes: StatementNote[]): string {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  if (month < 1 || month > 12 || day < 1) throw new StatementError(`${where}: ${formatDate(date)} is not a date`);
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day <= last) return date;
  const real = `${date.slice(0, 8)}${String(last).padStart(2, '0')}`;
  notes.push({ where, cause: `the bank's date ${formatDate(date)} does not exist; taken as ${formatDate(real)}, the last day of that month` });
  return real;
}

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

const MT942_TAGS = /^(13D?|34F|90[DC])$/;
const isReport = (message: MtMessage) => message.fields.some((field) => MT942_TAGS.test(field.tag));

type Context = { label: string; number: number; report: boolean; statements: StatementInfo[]; entries: UnkeyedEntry[]; notes: StatementNote[] };

/** The statement's id: :20: and the number of :28C:. */
function statementId(fields: readonly MtField[]): string {
  const reference = fields[0]!.lines[0]!.slice(0, 16).trim();
  const numberText = fields.find((f) => f.tag.startsWith('28'))?.lines[0] ?? '';
  const number = /^\s*(\d{1,5})(?:\/(\d{1,5}))?/.exec(numberText);
  return [reference, number ? [number[1], number[2]].filter(Boolean).join('/') : numberText.trim()].filter(Boolean).join(' ');
}

/** Refuses a message the bank cannot have meant: a tag twice, a balance on the wrong side of the entries. */
function checkLayout(fields: readonly MtField[], where: string) {
  for (const tag of ['25', '28', '60', '62']) {
    const twice = fields.filter((f) => f.tag.startsWith(tag));
    if (twice.length > 1)
      throw new StatementError(
        `${where}: ${tagOf(twice[0]!)} stands twice (lines ${twice[0]!.line} and ${twice[1]!.line}); is the :20: of the next statement missing?`,
      );
  }
  const lines = fields.filter((f) => f.tag === '61');
  const opening = fields.find((f) => f.tag.startsWith('60'));
  const closing = fields.find((f) => f.tag.startsWith('62'));
  if (opening && lines[0] && lines[0].line < opening.line)
    throw new StatementError(`${where}: the opening balance (${tagOf(opening)}, line ${opening.line}) stands after entry 1 (line ${lines[0].line})`);
  const late = closing ? lines.findIndex((f) => f.line > closing.line) : -1;
  if (closing && late >= 0)
    throw new StatementError(
      `${where}, entry ${late + 1} (line ${lines[late]!.line}) stands after the closing balance (${tagOf(closing)}, line ${closing.line})`,
    );
}

function currencyOf(fields: readonly MtField[], balances: (Signed | null)[], where: string): string {
  const [opening, closing] = balances;
  if (opening && closing && opening.currency !== closing.currency)
    throw new StatementError(`${where}: the opening balance is in ${opening.currency}, the closing balance in ${closing.currency}`);
  // MT942: the floor limit (:34F:) or the totals (:90D:/:90C:) name the currency.
  const reported = fields.map((f) => (f.tag === '34F' ? /^([A-Z]{3})/ : /^90/.test(f.tag) ? /^\d{1,5}([A-Z]{3})/ : null)?.exec(f.lines[0]!)?.[1]).find(Boolean);
  const currency = opening?.currency ?? closing?.currency ?? reported;
  if (!currency) throw new StatementError(`${where} has no balance (:60F:, :62F:) and names no currency`);
  return currency;
}

function readMessage(message: MtMessage, last: boolean, ctx: Context) {
  const { fields } = message;
  const id = statementId(fields);
  const where = `${ctx.label} ${ctx.number}`;
  const named = `${where} (${id})`;
  const lines = fields.filter((f) => f.tag === '61');
  const closingField = fields.find((f) => f.tag.startsWith('62'));
  const closed = closingField || fields.some((f) => /^(64|65|90)/.test(f.tag));
  if (last && !message.ended && !closed) {
    const after = lines.length ? `after entry ${lines.length}` : `after line ${fields.at(-1)!.line}`;
    const missing = ctx.report ? 'no totals (:90D:, :90C:)' : 'no closing balance (:62F:)';
    throw new StatementError(`the file ends inside ${named}, ${after}, with ${missing} and no end mark (-): it looks cut off; download it again`);
  }
  const accountField = fields.find((f) => f.tag === '25');
  if (!accountField) throw new StatementError(`${where} (line ${fields[0]!.line}) has no account (:25:)`);
  checkLayout(fields, where);

  const openingField = fields.find((f) => f.tag.startsWith('60'));
  const opening = openingField ? balanceOf(openingField, 'opening balance', where) : null;
  const closing = closingField ? balanceOf(closingField, 'closing balance', where) : null;
  const currency = currencyOf(fields, [opening, closing], where);
  const account = accountField.lines[0]!.slice(0, 35).trim();
  const iban = accountIban(account);
  const statementIndex = ctx.statements.length;
  ctx.statements.push({
    id,
    iban,
    account,
    currency,
    opening: opening && signedValue(opening).toFixed(),
    closing: closing && signedValue(closing).toFixed(),
  });

  let moved = decimal('0');
  let entry: { line: MtField; details: string[][] } | null = null;
  const own: { line: MtField; details: string[][] }[] = [];
  for (const field of fields) {
    if (field.tag === '61') {
      entry = { line: field, details: [] };
      own.push(entry);
    } else if (field.tag === '86' && entry) entry.details.push(field.lines);
    else if (field.tag !== 'NS') entry = null;
  }
  own.forEach(({ line: field, details }, i) => {
    const at = `${where}, entry ${i + 1}`;
    const line = statementLine(field, at);
    moved = lowersBalance(line.mark) ? moved.minus(decimal(line.amount)) : moved.plus(decimal(line.amount));
    const text = readDetails(details);
    const transaction: ParsedTransaction = {
      amount: line.amount,
      currency,
      remittanceText: text.remittanceText,
      endToEndId: text.endToEndId,
      creditorReference: null,
      counterpartyName: text.counterpartyName,
      counterpartyIban: text.counterpartyIban,
    };
    const returned = returnMark(line, text);
    if (returned) transaction.returned = returned;
    const valueDate = realDate(line.valueDate, `${at}, value date`, ctx.notes);
    ctx.entries.push({
      position: ctx.entries.length + 1,
      statementIndex,
      account: iban ?? account,
      bookingDate: realDate(bookingDate(line.valueDate, line.entryMonthDay), `${at}, booking date`, ctx.notes),
      valueDate,
      direction: lowersBalance(line.mark) ? 'debit' : 'credit',
      reversal: line.mark.startsWith('R'),
      status: 'BOOK',
      amount: line.amount,
      currency,
      bankReference: line.bankReference,
      bookingText: text.bookingText,
      transactions: [transaction],
    });
  });

  if (opening && closing) {
    const open = signedValue(opening);
    const close = signedValue(closing);
    if (!open.plus(moved).equals(close))
      throw new StatementError(
        `${where}: opening balance ${formatAmount(open, true)} + entries ${formatAmount(moved, true)} ≠ closing balance ${formatAmount(close, true)}; the file does not add up: download it again from online banking`,
      );
  } else if (!ctx.report) {
    const missing = [!opening && 'opening balance (:60F:)', !closing && 'closing balance (:62F:)'].filter(Boolean).join(' and ');
    ctx.notes.push({ where: named, cause: `no ${missing}: the entries are imported without the balance check` });
  }
}

function readMt(content: string): UnkeyedStatement {
  const messages = readMtMessages(content);
  if (messages.length === 0) throw new StatementError('the MT940 file holds no statement');
  const report = isReport(messages[0]!);
  if (messages.some((message) => isReport(message) !== report))
    throw new StatementError('the file mixes MT940 statements and MT942 intraday reports; import each kind as a file of its own');
  const ctx: Context = { label: report ? 'MT942 report' : 'MT940 statement', number: 0, report, statements: [], entries: [], notes: [] };
  messages.forEach((message, i) => {
    readMessage(message, i === messages.length - 1, { ...ctx, number: i + 1 });
  });
  return {
    format: report ? 'mt942' : 'mt940',
    kind: report ? 'report' : 'statement',
    statements: ctx.statements,
    entries: ctx.entries,
    notes: ctx.notes,
  };
}

/** Parses an MT940 (statements) or MT942 (intraday reports) file; refuses what it cannot read in full. */
export function parseMt940(content: string): UnkeyedStatement {
  try {
    return readMt(content);
  } catch (error) {
    if (error instanceof StatementError) throw error;
    // A safety net: no input may end in a raw TypeError (the tests make sure none gets here).
    throw new StatementError('the MT940 file cannot be read: its structure is not what SWIFT MT940 defines');
  }
}
