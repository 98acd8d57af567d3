import { readFileSync } from 'node:fs';
import path from 'node:path';
import iconv from 'iconv-lite';
import type { DB } from '../../src/db/schema.ts';
import { importBankStatement } from '../../src/modules/payments/index.ts';
import { countRows, type TestApp } from '../helpers/app.ts';
import { invoiceBody, postInvoice } from '../invoicing/helpers.ts';

// Statement files for the payment tests: the fixtures in fixtures/, and a small camt.053
// builder for entries a test needs.

const FIXTURES = path.join(import.meta.dirname, 'fixtures');

export const fixture = (name: string) => readFileSync(path.join(FIXTURES, name));
export const fixtureText = (name: string, encoding: 'utf8' | 'win1252' = 'utf8') => iconv.decode(fixture(name), encoding);

/** The company's account in test/helpers/company.ts. */
export const COMPANY_IBAN = 'DE89370400440532013000';

export type CamtTx = {
  amount: string;
  text?: string;
  name?: string;
  iban?: string;
  e2e?: string;
  ref?: string;
  /** A return (issue 24): RtrInf with this reason code (MD06, AM04, …). */
  returnReason?: string;
  /** AmtDtls/InstdAmt: a return's original amount when the bank added its fees. */
  instructed?: string;
};
export type CamtEntry = {
  amount: string;
  /** Default CRDT. */
  indicator?: 'CRDT' | 'DBIT';
  currency?: string;
  status?: 'BOOK' | 'PDNG';
  date?: string;
  /** AcctSvcrRef; omitted → none (the entry is keyed by its content). */
  ref?: string | null;
  reversal?: boolean;
  /** Default: one transaction of the entry's amount with `text`. */
  text?: string;
  name?: string;
  /** Of the default transaction: its end-to-end reference, a return's reason code. */
  e2e?: string;
  returnReason?: string;
  /** BkTxCd/Domn (PMNT/IDDT/UPDD) or the DK Prtry code (NRTI+109). */
  bankCode?: string;
  txs?: CamtTx[];
};

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

function txXml(tx: CamtTx, withAmount: boolean, currency: string, debit: boolean): string {
  // The other party: the payer of a credit, the payee of a debit.
  const [party, account] = debit ? ['Cdtr', 'CdtrAcct'] : ['Dbtr', 'DbtrAcct'];
  return [
    '<TxDtls>',
    tx.e2e ? `<Refs><EndToEndId>${esc(tx.e2e)}</EndToEndId></Refs>` : '',
    withAmount ? `<Amt Ccy="${currency}">${tx.amount}</Amt>` : '',
    tx.instructed ? `<AmtDtls><InstdAmt><Amt Ccy="${currency}">${tx.instructed}</Amt></InstdAmt></AmtDtls>` : '',
    `<RltdPties><${party}><Pty><Nm>${esc(tx.name ?? 'Zahler GmbH')}</Nm></Pty></${party}>${tx.iban ? `<${account}><Id><IBAN>${tx.iban}</IBAN></Id></${account}>` : ''}</RltdPties>`,
    tx.text || tx.ref
      ? `<RmtInf>${tx.text ? `<Ustrd>${esc(tx.text)}</Ustrd>` : ''}${tx.ref ? `<Strd><CdtrRefInf><Ref>${esc(tx.ref)}</Ref></CdtrRefInf></Strd>` : ''}</RmtInf>`
      : '',
    tx.returnReason ? `<RtrInf><Rsn><Cd>${tx.returnReason}</Cd></Rsn></RtrInf>` : '',
    '</TxDtls>',
  ].join('');
}

/** BkTxCd of an entry: "PMNT/IDDT/UPDD" as Domn/Fmly/SubFmlyCd, anything else as the DK Prtry code. */
function bankCodeXml(code: string): string {
  const [domain, family, sub] = code.split('/');
  return sub
    ? `<BkTxCd><Domn><Cd>${domain}</Cd><Fmly><Cd>${family}</Cd><SubFmlyCd>${sub}</SubFmlyCd></Fmly></Domn></BkTxCd>`
    : `<BkTxCd><Prtry><Cd>${esc(code)}</Cd><Issr>DK</Issr></Prtry></BkTxCd>`;
}

/** A camt.053.001.08 document with one statement of the company's account (no balances). */
export function camt(entries: CamtEntry[], options: { id?: string; iban?: string; msgId?: string } = {}): string {
  const ntry = entries.map((e, i) => {
    const currency = e.currency ?? 'EUR';
    const txs = e.txs ?? [
      {
        amount: e.amount,
        ...(e.text !== undefined ? { text: e.text } : {}),
        ...(e.name ? { name: e.name } : {}),
        ...(e.e2e ? { e2e: e.e2e } : {}),
        ...(e.returnReason ? { returnReason: e.returnReason } : {}),
      },
    ];
    return [
      '<Ntry>',
      `<Amt Ccy="${currency}">${e.amount}</Amt>`,
      `<CdtDbtInd>${e.indicator ?? 'CRDT'}</CdtDbtInd>`,
      e.reversal ? '<RvslInd>true</RvslInd>' : '',
      `<Sts><Cd>${e.status ?? 'BOOK'}</Cd></Sts>`,
      `<BookgDt><Dt>${e.date ?? '2026-11-21'}</Dt></BookgDt>`,
      `<ValDt><Dt>${e.date ?? '2026-11-21'}</Dt></ValDt>`,
      e.ref === null ? '' : `<AcctSvcrRef>${e.ref ?? `REF-${options.id ?? 'S'}-${i + 1}`}</AcctSvcrRef>`,
      e.bankCode ? bankCodeXml(e.bankCode) : '',
      `<NtryDtls>${txs.length > 1 ? `<Btch><NbOfTxs>${txs.length}</NbOfTxs></Btch>` : ''}${txs.map((tx) => txXml(tx, txs.length > 1, currency, e.indicator === 'DBIT')).join('')}</NtryDtls>`,
      '</Ntry>',
    ].join('');
  });
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt>
<GrpHdr><MsgId>${options.msgId ?? 'MSG-1'}</MsgId><CreDtTm>2026-11-21T06:00:00+01:00</CreDtTm></GrpHdr>
<Stmt><Id>${options.id ?? 'S'}</Id><Acct><Id><IBAN>${options.iban ?? COMPANY_IBAN}</IBAN></Id><Ccy>EUR</Ccy></Acct>
${ntry.join('\n')}
</Stmt></BkToCstmrStmt></Document>
`;
}

/** Issues an invoice through the API (default lines: 85.06 EUR gross). */
export async function issueInvoice(t: TestApp, ref: string, overrides: Record<string, unknown> = {}) {
  const res = await postInvoice(t, invoiceBody(ref, { issue: true, ...overrides }));
  if (res.statusCode !== 201) throw new Error(`invoice ${ref}: ${res.body}`);
  return res.json() as { id: string; number: string; total_gross: string; status: string };
}

export function importFile(t: TestApp, content: string | Buffer, fileName = 'statement.xml') {
  return importBankStatement(t.handle.db, t.clock, t.company.companyId, typeof content === 'string' ? Buffer.from(content) : content, { fileName });
}

/** Counts of every table an import writes (for "nothing was written" assertions). */
export async function importCounts(t: TestApp) {
  const db = t.handle.db;
  const n = (table: keyof DB) => countRows(t.handle, table);
  const invoices = await db.selectFrom('invoices').select(['id', 'status', 'amount_paid_cents', 'change_seq']).orderBy('id').execute();
  return {
    statements: await n('bank_statements'),
    entries: await n('bank_entries'),
    transactions: await n('bank_transactions'),
    allocations: await n('payment_allocations'),
    credits: await n('customer_credits'),
    journalEntries: await n('journal_entries'),
    journalLines: await n('journal_lines'),
    events: await n('events'),
    invoices: JSON.stringify(invoices),
  };
}
