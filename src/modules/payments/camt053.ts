import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { decimal, formatAmount, isCamtAmount } from './amounts.ts';
import { entryKeys, type UnkeyedEntry } from './entry-key.ts';
import { type ParsedStatement, type ParsedTransaction, StatementError, type StatementFormat, type StatementInfo } from './statement.ts';

// camt.053 (BkToCstmrStmt) in the shapes of .001.02 and .001.08 (german-rules §5.2):
// Sts plain (v02) or Sts/Cd (v08), Dbtr/Nm (v02) or Dbtr/Pty/Nm (v08), BIC or BICFI; both
// shapes are accepted in both versions, as banks mix them. Values stay strings (amounts
// are never parsed into numbers); namespace prefixes are dropped after the root's
// namespace is checked.

const NAMESPACES: Record<string, StatementFormat> = {
  'urn:iso:std:iso:20022:tech:xsd:camt.053.001.02': 'camt.053.001.02',
  'urn:iso:std:iso:20022:tech:xsd:camt.053.001.08': 'camt.053.001.08',
};

const REPEATED = new Set(['Stmt', 'Bal', 'Ntry', 'NtryDtls', 'TxDtls', 'Ustrd', 'Strd']);

// biome-ignore lint/suspicious/noExplicitAny: the parsed XML tree is untyped; every read goes through the helpers below.
type Node = any;

/** The text of an element: plain string, or the #text of an element with attributes. */
function text(node: Node): string | null {
  if (node === undefined || node === null) return null;
  if (typeof node === 'string') return node.trim() === '' ? null : node.trim();
  if (typeof node === 'object' && typeof node['#text'] === 'string') return node['#text'].trim() || null;
  return null;
}

const list = (node: Node): Node[] => (Array.isArray(node) ? node : node === undefined || node === null || node === '' ? [] : [node]);

/** Dt or DtTm of a date choice, as YYYY-MM-DD. */
function dateOf(node: Node): string | null {
  const value = text(node?.Dt) ?? text(node?.DtTm);
  if (!value) return null;
  const date = value.slice(0, 10);
  return /^\d{4}-\d{2}-\d{2}$/.test(date) ? date : null;
}

const localName = (name: string) => name.replace(/^[^:]+:/, '');

const TREE_OPTIONS = {
  ignoreAttributes: false,
  parseTagValue: false,
  parseAttributeValue: false,
  processEntities: true,
  isArray: (name: string) => REPEATED.has(name),
} as const;

const entryParser = new XMLParser({ ...TREE_OPTIONS, transformTagName: localName });

/** The tree of one Ntry from its raw inner text (kept raw by the document parse). */
function entryTree(raw: Node): Node {
  const inner = typeof raw === 'string' ? raw : typeof raw?.['#text'] === 'string' ? raw['#text'] : '';
  return entryParser.parse(`<Entry>${inner}</Entry>`).Entry;
}

function xmlStructure(xml: string): { root: string; document: Node } {
  const validation = XMLValidator.validate(xml);
  if (validation !== true) {
    const { msg, line } = validation.err;
    // The validator reports elements left open at the end as a list: the file was cut off.
    const open = msg.startsWith("Invalid '[") ? [...msg.matchAll(/"([^"]+)"/g)].map((m) => m[1]!.replace(/^[^:]+:/, '')) : [];
    if (open.length)
      throw new StatementError(`the XML is cut off or malformed: it ends inside <${open.at(-1)}> (${open.join('/')}) before its elements are closed`);
    throw new StatementError(`the XML is cut off or malformed: ${msg.replace(/\s+/g, ' ')} (line ${line})`);
  }
  let root: string | undefined;
  // Entries are kept as raw text here and parsed one by one (entryTree): one tree of a
  // 10,000-entry file at once costs hundreds of megabytes, one entry at a time a few kB.
  const parser = new XMLParser({
    ...TREE_OPTIONS,
    stopNodes: ['*.Ntry'],
    transformTagName: (name) => {
      if (root === undefined && !name.startsWith('?') && !name.startsWith('!')) root = name;
      return localName(name);
    },
  });
  let tree: Node;
  try {
    tree = parser.parse(xml);
  } catch (error) {
    throw new StatementError(`the XML is cut off or malformed: ${(error as Error).message}`);
  }
  if (root === undefined) throw new StatementError('the file is not a camt.053 or MT940 statement: the XML has no root element');
  return { root, document: tree[localName(root)] };
}

/** Parses a camt.053.001.02 or .001.08 document; refuses anything else with a StatementError. */
export function parseCamt053(xml: string): ParsedStatement {
  const { root, document } = xmlStructure(xml);
  const prefix = root.includes(':') ? root.split(':', 1)[0] : null;
  if (localName(root) !== 'Document')
    throw new StatementError(`the file is not a camt.053 or MT940 statement: the XML's root element is <${localName(root)}>, not <Document>`);
  const namespace = typeof document === 'object' ? document[prefix ? `@_xmlns:${prefix}` : '@_xmlns'] : undefined;
  if (typeof namespace !== 'string' || namespace === '') throw new StatementError('the XML <Document> has no namespace; camt.053.001.02 or .001.08 expected');
  const format = NAMESPACES[namespace];
  if (!format) throw new StatementError(`namespace ${namespace} is not camt.053.001.02 or .001.08`);
  const statementsXml = list(document?.BkToCstmrStmt?.Stmt);
  if (statementsXml.length === 0) throw new StatementError('the camt.053 document holds no statement (BkToCstmrStmt/Stmt)');

  const statements: StatementInfo[] = [];
  const entries: UnkeyedEntry[] = [];
  statementsXml.forEach((stmt, statementIndex) => {
    const info = statementInfo(stmt, statementIndex);
    statements.push(info);
    const own: UnkeyedEntry[] = list(stmt.Ntry).map((ntry, i) => parseEntry(entryTree(ntry), info, statementIndex, entries.length + i + 1));
    checkBalances(stmt, info, own);
    entries.push(...own);
  });
  // AcctSvcrRef is the bank's unique reference of the booking (german-rules §5.2).
  const keys = entryKeys(entries, (entry) => entry.bankReference);
  return { format, statements, entries: entries.map((entry, i) => ({ ...entry, key: keys[i]! })) };
}

function statementInfo(stmt: Node, index: number): StatementInfo {
  const id = text(stmt?.Id) ?? `statement ${index + 1}`;
  const iban = text(stmt?.Acct?.Id?.IBAN);
  const account = iban ?? text(stmt?.Acct?.Id?.Othr?.Id);
  if (!account) throw new StatementError(`camt statement ${id} names no account (Acct/Id/IBAN or Othr/Id)`);
  return {
    id,
    iban: iban ? iban.replace(/\s+/g, '').toUpperCase() : null,
    account: iban ? iban.replace(/\s+/g, '').toUpperCase() : account,
    currency: text(stmt?.Acct?.Ccy),
  };
}

function amountOf(node: Node, where: string): { amount: string; currency: string | null } {
  const value = text(node);
  if (value === null) throw new StatementError(`${where} has no amount`);
  if (!isCamtAmount(value)) throw new StatementError(`${where}: amount "${value.slice(0, 40)}" is not a number`);
  const currency = typeof node === 'object' && typeof node['@_Ccy'] === 'string' ? node['@_Ccy'].trim().toUpperCase() : null;
  return { amount: value, currency };
}

function statusOf(ntry: Node): string {
  const sts = ntry?.Sts;
  const value = text(sts) ?? text(sts?.Cd) ?? text(sts?.Prtry);
  return value ? value.toUpperCase() : 'BOOK';
}

function parseEntry(ntry: Node, info: StatementInfo, statementIndex: number, position: number): UnkeyedEntry {
  const where = `entry ${position}`;
  const { amount, currency: amountCurrency } = amountOf(ntry?.Amt, where);
  const currency = amountCurrency ?? info.currency;
  if (!currency) throw new StatementError(`${where}: the amount has no currency`);
  const indicator = text(ntry?.CdtDbtInd);
  if (indicator !== 'CRDT' && indicator !== 'DBIT') throw new StatementError(`${where}: CdtDbtInd is "${indicator ?? ''}", not CRDT or DBIT`);
  const bookingDate = dateOf(ntry?.BookgDt) ?? dateOf(ntry?.ValDt);
  if (!bookingDate) throw new StatementError(`${where} has no booking date (BookgDt)`);
  const direction = indicator === 'CRDT' ? 'credit' : 'debit';
  const txs = list(ntry?.NtryDtls).flatMap((details) => list(details?.TxDtls));
  const bookingText = text(ntry?.AddtlNtryInf);
  return {
    position,
    statementIndex,
    account: info.account,
    bookingDate,
    valueDate: dateOf(ntry?.ValDt),
    direction,
    reversal: text(ntry?.RvslInd)?.toLowerCase() === 'true',
    status: statusOf(ntry),
    amount,
    currency,
    bankReference: text(ntry?.AcctSvcrRef),
    bookingText,
    transactions: transactionsOf(txs, { amount, currency, direction, bookingText, where }),
  };
}

function transactionsOf(
  txs: Node[],
  entry: { amount: string; currency: string; direction: 'credit' | 'debit'; bookingText: string | null; where: string },
): ParsedTransaction[] {
  // An entry without details: one transaction of the entry's amount, its booking text as remittance.
  if (txs.length === 0)
    return [
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
  const parsed = txs.map((tx, i) => {
    const amountNode = tx?.Amt ?? tx?.AmtDtls?.TxAmt?.Amt;
    // A single transaction is worth what the entry booked; a batch needs each amount.
    const own = amountNode === undefined ? null : amountOf(amountNode, `${entry.where}, transaction ${i + 1}`);
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
      amount: txs.length === 1 ? entry.amount : own!.amount,
      currency: txs.length === 1 ? entry.currency : (own!.currency ?? entry.currency),
      remittanceText: ustrd.length ? ustrd.join(' ') : null,
      endToEndId: endToEndId && endToEndId.toUpperCase() !== 'NOTPROVIDED' ? endToEndId : null,
      creditorReference,
      counterpartyName: text(party?.Nm) ?? text(party?.Pty?.Nm),
      counterpartyIban: iban ? iban.replace(/\s+/g, '').toUpperCase() : null,
    };
  });
  if (parsed.length > 1) {
    const sum = parsed.reduce((total, tx) => total.plus(decimal(tx.amount)), decimal('0'));
    if (!sum.equals(decimal(entry.amount)))
      throw new StatementError(`${entry.where}: its ${parsed.length} transactions sum to ${formatAmount(sum, false)}, the entry books ${entry.amount}`);
  }
  return parsed;
}

/** OPBD/PRCD + booked entries = CLBD, when the statement carries both balances. */
function checkBalances(stmt: Node, info: StatementInfo, entries: UnkeyedEntry[]): void {
  const balances = list(stmt?.Bal).map((bal) => ({ code: text(bal?.Tp?.CdOrPrtry?.Cd)?.toUpperCase() ?? null, bal }));
  const opening = balances.find((b) => b.code === 'OPBD') ?? balances.find((b) => b.code === 'PRCD');
  const closing = balances.find((b) => b.code === 'CLBD');
  if (!opening || !closing) return;
  const signed = (bal: Node, code: string) => {
    const { amount } = amountOf(bal?.Amt, `camt statement ${info.id}: balance ${code}`);
    const indicator = text(bal?.CdtDbtInd);
    return indicator === 'DBIT' ? decimal(amount).negated() : decimal(amount);
  };
  const open = signed(opening.bal, opening.code!);
  const close = signed(closing.bal, 'CLBD');
  const moved = entries
    .filter((entry) => entry.status === 'BOOK')
    .reduce((sum, entry) => (entry.direction === 'credit' ? sum.plus(decimal(entry.amount)) : sum.minus(decimal(entry.amount))), decimal('0'));
  if (!open.plus(moved).equals(close))
    throw new StatementError(
      `camt statement ${info.id}: opening balance ${formatAmount(open, false)} + entries ${formatAmount(moved, false)} ≠ closing balance ${formatAmount(close, false)}`,
    );
}
