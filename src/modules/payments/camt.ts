import type { DecimalValue } from '../../shared/decimal.ts';
import { decimal, displayAmount, isCamtAmount } from './amounts.ts';
import { type CamtMessage, identifyCamt } from './camt-message.ts';
import { dateOf, decodeXml, entryTree, list, type Node, one, parseXmlTree, text } from './camt-xml.ts';
import { gvcOfProprietary, RETURN_GVC, RETURN_SUB_FAMILIES, type ReturnMark } from './return-mark.ts';
import { type ParsedTransaction, StatementError, type StatementInfo, type StatementNote, type UnkeyedEntry, type UnkeyedStatement } from './statement.ts';

// camt.052 (intraday report), camt.053 (statement) and camt.054 (notification), versions
// .02 to .13 (german-rules §5.2). They share the entry (Ntry) and what Kontor reads of it;
// the versions differ in shapes both of which are read in every version, as banks mix them:
// Sts plain (to .06) or Sts/Cd, Dbtr/Nm (to .06) or Dbtr/Pty/Nm (a bank: Dbtr/Agt),
// TxDtls/Amt (from .03) or AmtDtls/TxAmt/Amt, BookgDt/ValDt as Dt or DtTm. Values stay
// strings (amounts are never parsed into numbers). The same booking reads the same in all
// three messages, so the entry key recognises it in the day's statement.

/** Reads a camt.052/053/054 file; refuses anything else with a StatementError. */
export function parseCamt(bytes: Buffer): UnkeyedStatement {
  try {
    return readCamt(bytes);
  } catch (error) {
    if (error instanceof StatementError) throw error;
    // No input may end in a TypeError or RangeError (e.g. nesting too deep to parse).
    throw new StatementError('the XML cannot be read as a camt file: its structure is not what ISO 20022 defines');
  }
}

function readCamt(bytes: Buffer): UnkeyedStatement {
  const xml = decodeXml(bytes);
  const tree = parseXmlTree(xml);
  const message = identifyCamt(xml);
  const container = message.path.reduce((node: Node, name) => one(node, name), tree);
  const items = list(container?.[message.item]);
  if (items.length === 0) throw new StatementError(`the ${message.format.slice(0, 8)} file holds no ${message.label} (<${message.item}>)`);

  const statements: StatementInfo[] = [];
  const entries: UnkeyedEntry[] = [];
  const notes: StatementNote[] = [];
  items.forEach((item, statementIndex) => {
    const where = `camt ${message.label} ${text(item?.Id) ?? `no. ${statementIndex + 1}`}`;
    const info = statementInfo(item, statementIndex, message, where);
    const day = coveredDay(item, message, container?.GrpHdr);
    let undated = 0;
    const own = list(item?.Ntry).map((raw, i) => {
      const position = entries.length + i + 1;
      try {
        const ntry = entryTree(raw);
        if (day && dateOf(ntry?.BookgDt) === null && dateOf(ntry?.ValDt) === null) undated++;
        return parseEntry(ntry, { info, statementIndex, position, day, notes, where: `${where}, entry ${position}` });
      } catch (error) {
        if (error instanceof StatementError) throw error;
        throw new StatementError(`${where}, entry ${position}: the entry's structure is not what ISO 20022 defines`);
      }
    });
    if (undated)
      notes.push({
        where,
        cause: `${undated === 1 ? 'an entry without booking date is' : `${undated} entries without booking date are`} booked on ${day}, the day the ${message.label} covers`,
      });
    statements.push({ ...info, ...checkBalances(item, own, where, message) });
    entries.push(...own);
  });
  return {
    format: message.format,
    kind: message.kind,
    statements,
    entries,
    ...(notes.length ? { notes } : {}),
  };
}

/**
 * The one day a Stmt/Rpt/Ntfctn covers, for entries the bank left without BookgDt and ValDt
 * (some central-bank exports): its FrToDt when that is one day, else the date all its
 * balances carry; a notification's creation date. Null when it covers several days.
 */
function coveredDay(item: Node, message: CamtMessage, groupHeader: Node): string | null {
  const dayOf = (node: Node) => {
    const value = dateOf(node);
    return value && 'date' in value ? value.date : null;
  };
  if (item?.FrToDt !== undefined) {
    const from = dayOf({ DtTm: item.FrToDt?.FrDtTm });
    return from !== null && from === dayOf({ DtTm: item.FrToDt?.ToDtTm }) ? from : null;
  }
  const balanceDays = new Set(list(item?.Bal).map((bal) => dayOf(bal?.Dt)));
  if (balanceDays.size === 1 && !balanceDays.has(null)) return [...balanceDays][0]!;
  if (message.kind === 'notification') return dayOf({ DtTm: item?.CreDtTm }) ?? dayOf({ DtTm: groupHeader?.CreDtTm });
  return null;
}

const shown = (value: DecimalValue) => displayAmount(value.toFixed());

const cleanIban = (iban: string) => iban.replace(/\s+/g, '').toUpperCase();

function statementInfo(item: Node, index: number, message: CamtMessage, where: string): Omit<StatementInfo, 'opening' | 'closing'> {
  const id = text(item?.Id) ?? `${message.label} ${index + 1}`;
  if (id.length > 140) throw new StatementError(`camt ${message.label} no. ${index + 1}: its Id is longer than 140 characters`);
  const iban = text(item?.Acct?.Id?.IBAN);
  const account = iban ?? text(item?.Acct?.Id?.Othr?.Id);
  if (!account) throw new StatementError(`${where} names no account (Acct/Id/IBAN or Othr/Id)`);
  const currency = text(item?.Acct?.Ccy);
  return {
    id,
    iban: iban ? cleanIban(iban) : null,
    account: iban ? cleanIban(iban) : account,
    currency: currency && /^[A-Za-z]{3}$/.test(currency) ? currency.toUpperCase() : null,
  };
}

function amountOf(node: Node, where: string): { amount: string; currency: string | null } {
  const value = text(node);
  if (value === null) throw new StatementError(`${where} has no amount`);
  if (!isCamtAmount(value)) throw new StatementError(`${where}: amount "${value.slice(0, 40)}" is not a number`);
  const code = typeof node?.['@_Ccy'] === 'string' ? node['@_Ccy'].trim().toUpperCase() : null;
  if (code !== null && !/^[A-Z]{3}$/.test(code)) throw new StatementError(`${where}: currency "${code.slice(0, 10)}" is not a currency code`);
  return { amount: value, currency: code };
}

const STATUS = /^[A-Z0-9]{1,35}$/;

function statusOf(ntry: Node, where: string): string {
  const sts = ntry?.Sts;
  const value = (text(sts) ?? text(sts?.Cd) ?? text(sts?.Prtry))?.toUpperCase() ?? 'BOOK';
  if (!STATUS.test(value)) throw new StatementError(`${where}: status "${value.slice(0, 40)}" is not an entry status (BOOK, PDNG, INFO)`);
  return value;
}

function dateIn(node: Node, name: string, where: string): string | null {
  const value = dateOf(node);
  if (value && 'invalid' in value) throw new StatementError(`${where}: ${name} "${value.invalid}" is not a date`);
  return value?.date ?? null;
}

type EntryContext = {
  info: Omit<StatementInfo, 'opening' | 'closing'>;
  statementIndex: number;
  position: number;
  where: string;
  day: string | null;
  notes: StatementNote[];
};

function parseEntry(ntry: Node, { info, statementIndex, position, where, day, notes }: EntryContext): UnkeyedEntry {
  const { amount, currency: amountCurrency } = amountOf(ntry?.Amt, where);
  const currency = amountCurrency ?? info.currency;
  if (!currency) throw new StatementError(`${where}: the amount has no currency`);
  const indicator = text(ntry?.CdtDbtInd);
  if (indicator === null) throw new StatementError(`${where} has no CdtDbtInd (CRDT or DBIT)`);
  if (indicator !== 'CRDT' && indicator !== 'DBIT') throw new StatementError(`${where}: CdtDbtInd is "${indicator.slice(0, 40)}", not CRDT or DBIT`);
  const valueDate = dateIn(ntry?.ValDt, 'value date (ValDt)', where);
  // Pending entries (PDNG) may carry only the value date.
  const bookingDate = dateIn(ntry?.BookgDt, 'booking date (BookgDt)', where) ?? valueDate ?? day;
  if (!bookingDate) throw new StatementError(`${where} has no booking date (BookgDt or ValDt), and the file names no single day to book it on`);
  const direction = indicator === 'CRDT' ? 'credit' : 'debit';
  const txs = list(ntry?.NtryDtls).flatMap((details) => list(details?.TxDtls));
  const bookingText = text(ntry?.AddtlNtryInf);
  const reversal = text(ntry?.RvslInd)?.toLowerCase() === 'true';
  const transactions = transactionsOf(txs, { amount, currency, direction, bookingText, where, notes });
  transactions.forEach((transaction, i) => {
    const returned = returnMark(ntry, transactions.length === txs.length ? txs[i] : null, reversal, transaction.amount);
    if (returned) transaction.returned = returned;
  });
  return {
    position,
    statementIndex,
    account: info.account,
    bookingDate,
    valueDate,
    direction,
    reversal,
    status: statusOf(ntry, where),
    amount,
    currency,
    bankReference: text(ntry?.AcctSvcrRef),
    bookingText,
    transactions,
  };
}

/** A return code of BkTxCd (return-mark.ts): `PMNT/IDDT/UPDD`, `GVC 109`; null when none. */
function returnCode(code: Node): string | null {
  const family = code?.Domn?.Fmly;
  const sub = text(family?.SubFmlyCd)?.toUpperCase();
  if (sub && RETURN_SUB_FAMILIES.has(sub)) return [text(code?.Domn?.Cd), text(family?.Cd), sub].filter(Boolean).join('/');
  const gvc = gvcOfProprietary(text(code?.Prtry?.Cd));
  return gvc && RETURN_GVC.has(gvc) ? `GVC ${gvc}` : null;
}

/**
 * The return a transaction (or, without details, its entry) is, from RtrInf, RvslInd or a
 * return code of the transaction or the entry; the original amount from AmtDtls/InstdAmt
 * when the bank booked more (its fees).
 */
function returnMark(ntry: Node, tx: Node | null, reversal: boolean, amount: string): ReturnMark | null {
  const info = tx?.RtrInf;
  const marker = info !== undefined ? 'RtrInf' : reversal ? 'RvslInd' : (returnCode(tx?.BkTxCd) ?? returnCode(ntry?.BkTxCd));
  if (!marker) return null;
  const instructed = text(tx?.AmtDtls?.InstdAmt?.Amt);
  const smaller = instructed !== null && isCamtAmount(instructed) && decimal(instructed).greaterThan(0) && decimal(instructed).lessThan(decimal(amount));
  const reason = text(info?.Rsn?.Cd) ?? text(info?.Rsn?.Prtry);
  return { marker, reason: reason ? reason.slice(0, 40) : null, originalAmount: smaller ? instructed : null };
}

/** For a credit the payer, for a debit the payee: a person or company (Nm, from .08 Pty/Nm) or a bank (Agt). */
function partyName(party: Node): string | null {
  return text(party?.Nm) ?? text(party?.Pty?.Nm) ?? text(party?.Agt?.FinInstnId?.Nm);
}

function transactionsOf(
  txs: Node[],
  entry: { amount: string; currency: string; direction: 'credit' | 'debit'; bookingText: string | null; where: string; notes: StatementNote[] },
): ParsedTransaction[] {
  // An entry without details: one transaction of the entry's amount, its booking text as remittance.
  const whole: ParsedTransaction[] = [
    {
      amount: entry.amount,
      currency: entry.currency,
      remittanceText: entry.bookingText,
      endToEndId: null,
      creditorReference: null,
      counterpartyName: null,
      counterpartyIban: null,
    },
  ];
  if (txs.length === 0) return whole;
  // A transaction may run against its entry (TxDtls/CdtDbtInd, from .03): a netted batch.
  const against = txs.map((tx) => text(tx?.CdtDbtInd) === (entry.direction === 'credit' ? 'DBIT' : 'CRDT'));
  const parsed = txs.map((tx, i) => {
    const amountNode = tx?.Amt ?? tx?.AmtDtls?.TxAmt?.Amt;
    // A single transaction is worth what the entry booked; a batch needs each amount.
    const own = amountNode === undefined || txs.length === 1 ? null : amountOf(amountNode, `${entry.where}, transaction ${i + 1}`);
    if (!own && txs.length > 1) throw new StatementError(`${entry.where} is a batch of ${txs.length} transactions; transaction ${i + 1} has no amount`);
    const party = entry.direction === 'credit' ? tx?.RltdPties?.Dbtr : tx?.RltdPties?.Cdtr;
    const partyAccount = entry.direction === 'credit' ? tx?.RltdPties?.DbtrAcct : tx?.RltdPties?.CdtrAcct;
    const endToEndId = text(tx?.Refs?.EndToEndId);
    const ustrd = list(tx?.RmtInf?.Ustrd)
      .map((line) => text(line))
      .filter((line): line is string => line !== null);
    const creditorReference =
      list(tx?.RmtInf?.Strd)
        .map((strd) => text(strd?.CdtrRefInf?.Ref))
        .find((ref) => ref !== null) ?? null;
    const iban = text(partyAccount?.Id?.IBAN);
    return {
      amount: own ? own.amount : entry.amount,
      currency: own ? (own.currency ?? entry.currency) : entry.currency,
      remittanceText: ustrd.length ? ustrd.join(' ') : null,
      endToEndId: endToEndId && endToEndId.toUpperCase() !== 'NOTPROVIDED' ? endToEndId : null,
      creditorReference,
      counterpartyName: partyName(party),
      counterpartyIban: iban ? cleanIban(iban) : null,
    };
  });
  if (parsed.length === 1) return parsed;
  const sum = (which: boolean) => parsed.reduce((total, tx, i) => (against[i] === which ? total.plus(decimal(tx.amount)) : total), decimal('0'));
  const [along, opposite] = [sum(false), sum(true)];
  const netted = !opposite.isZero();
  if (!along.minus(opposite).equals(decimal(entry.amount)))
    throw new StatementError(
      `${entry.where}: its ${parsed.length} transactions ${netted ? `net to ${shown(along.minus(opposite))} (${shown(along)} less ${shown(opposite)} the other way)` : `sum to ${shown(along)}`}, the entry books ${shown(decimal(entry.amount))}`,
    );
  // Kontor's transactions all run the entry's way: a netted batch stays one booking for a person to look at.
  if (netted) {
    entry.notes.push({ where: entry.where, cause: 'a batch whose transactions net credits and debits is kept as one booking without their details' });
    return whole;
  }
  return parsed;
}

/**
 * Opening (OPBD, PRCD) + booked entries = closing (CLBD; in a report also the intraday
 * ITBD), checked when the Stmt/Rpt carries both; a notification has no balances. Returns
 * the two (signed decimal strings, null when absent).
 */
function checkBalances(item: Node, entries: UnkeyedEntry[], where: string, message: CamtMessage): { opening: string | null; closing: string | null } {
  const balances = list(item?.Bal).map((bal) => ({ code: text(bal?.Tp?.CdOrPrtry?.Cd)?.toUpperCase() ?? null, bal }));
  const find = (code: string) => balances.find((b) => b.code === code);
  const opening = find('OPBD') ?? find('PRCD');
  const closing = find('CLBD') ?? (message.kind === 'report' ? find('ITBD') : undefined);
  const signed = (balance: { code: string | null; bal: Node }) => {
    const { amount } = amountOf(balance.bal?.Amt, `${where}: balance ${balance.code}`);
    return text(balance.bal?.CdtDbtInd) === 'DBIT' ? decimal(amount).negated() : decimal(amount);
  };
  if (!opening || !closing) return { opening: opening ? signed(opening).toFixed() : null, closing: closing ? signed(closing).toFixed() : null };
  const open = signed(opening);
  const close = signed(closing);
  const moved = entries
    .filter((entry) => entry.status === 'BOOK')
    .reduce((sum, entry) => (entry.direction === 'credit' ? sum.plus(decimal(entry.amount)) : sum.minus(decimal(entry.amount))), decimal('0'));
  if (!open.plus(moved).equals(close))
    throw new StatementError(
      `${where}: opening balance ${shown(open)} + entries ${shown(moved)} ≠ ${closing.code === 'ITBD' ? 'intraday' : 'closing'} balance ${shown(close)}; the file does not add up: download it again from online banking`,
    );
  return { opening: open.toFixed(), closing: close.toFixed() };
}
