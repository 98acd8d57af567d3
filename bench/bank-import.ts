// Bank statement import at scale (issue 4 figure, debits since issue 24): a camt.053.001.08
// with 10,000 credits against 10,000 open invoices plus 1,000 debits must import in under
// 10 s on PostgreSQL with a peak memory under 300 MB. PGlite is measured too, for information.
//
//   node bench/bank-import.ts [--only pglite|postgres] [--invoices 10000] [--debits 1000]
//
// For each database the parent process creates a company with 100 customers, 10,000
// issued invoices and (for the debits) paid ones (inserted by SQL here — issuing 10,000
// through the API takes minutes), writes the statement file (every credit names one
// invoice: most as printed, some in lower case with spaces, some split by a dash-less form;
// a few partial and over-payments; then the debits: half refund a paid invoice, in full or
// half; a quarter are returned direct debits whose collection Kontor never booked, a quarter
// name invoice numbers that do not exist — both left for a person), then closes the
// database. A child process (bank-import-child.ts) opens it, reads the file and runs
// importBankStatement alone, so its peak RSS (resourceUsage().maxRSS) is the import's plus
// Node, the driver and, on PGlite, the embedded database. Prints a summary and one JSON line.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { DatabaseHandle } from '../src/db/connection.ts';
import { migrate } from '../src/db/migrate.ts';
import { bootstrapOrganization } from '../src/modules/access/index.ts';
import { nextChangeSeqs } from '../src/modules/invoicing/invoice-changes.ts';
import { newId } from '../src/shared/ids.ts';
import { createSealer } from '../src/shared/secrets.ts';
import { COMPANY_FILE } from '../test/helpers/company.ts';
import { type ChildInput, type ChildOutput, open } from './bank-import-child.ts';
import { flagsOf } from './node-flags.ts';
import { onEachTarget, onlyFlag, type Target } from './targets.ts';

const NOW = '2026-11-21T10:00:00Z';
const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

const CHILD = path.join(import.meta.dirname, 'bank-import-child.ts');

const { values } = parseArgs({
  options: { only: { type: 'string' }, invoices: { type: 'string', default: '10000' }, debits: { type: 'string', default: '1000' } },
});
const only = onlyFlag(values.only);
const COUNT = Number(values.invoices);
if (!Number.isInteger(COUNT) || COUNT < 1 || COUNT > 99_999) throw new Error('--invoices must be 1 … 99999');
const DEBITS = Number(values.debits);
if (!Number.isInteger(DEBITS) || DEBITS < 0 || DEBITS % 4 !== 0 || COUNT + DEBITS / 2 > 99_999)
  throw new Error('--debits must be a multiple of 4, 0 … (99999 − invoices) × 2');
/** Paid invoices the refunds name (half of the debits). */
const REFUNDS = DEBITS / 2;
const CUSTOMERS = 100;

async function setUp(handle: DatabaseHandle): Promise<{ companyId: string }> {
  await migrate(handle.db);
  const company = await bootstrapOrganization(handle.db, createSealer('bench-secret'), {
    organizationName: 'Bench org',
    companyFile: JSON.stringify({ ...COMPANY_FILE, name: 'Bench GmbH', email: 'bench@example.com' }),
    adminEmail: `bench-${randomBytes(4).toString('hex')}@example.com`,
  });
  const companyId = company.company_id;
  const now = new Date(NOW);
  const customers = Array.from({ length: CUSTOMERS }, (_, i) => ({
    company_id: companyId,
    id: newId('cus'),
    kundennummer: 10000 + i,
    external_source: 'bench',
    external_ref: `c-${i}`,
    name: `Kunde ${i} GmbH`,
    customer_type: 'business' as const,
  }));
  await handle.db.insertInto('customers').values(customers).execute();
  await handle.db
    .insertInto('number_ranges')
    .values([
      { company_id: companyId, range_key: 'customer', next_value: 10000 + CUSTOMERS, last_value: 69999 },
      { company_id: companyId, range_key: 'invoice:2026', next_value: COUNT + REFUNDS + 1, last_value: 999_999_999 },
    ])
    .execute();
  // The first COUNT invoices are open (the credits pay them), the REFUNDS after them paid (the refunds name them).
  const total = COUNT + REFUNDS;
  await handle.db.transaction().execute(async (trx) => {
    const firstSeq = await nextChangeSeqs(trx, companyId, total);
    for (let start = 0; start < total; start += 1000) {
      const rows = [];
      for (let i = start; i < Math.min(total, start + 1000); i++) {
        const net = 10_000 + ((i * 7919) % 90_000);
        const tax = Math.floor((net * 19 + 50) / 100);
        const paid = i >= COUNT;
        rows.push({
          company_id: companyId,
          id: `inv_bench_${String(i + 1).padStart(6, '0')}`,
          number: `RE-2026-${String(i + 1).padStart(5, '0')}`,
          status: paid ? ('paid' as const) : ('issued' as const),
          amount_paid_cents: paid ? net + tax : 0,
          type: 'invoice' as const,
          external_source: 'bench',
          external_ref: `i-${i}`,
          customer_id: customers[i % CUSTOMERS]!.id,
          contract_external_ref: null,
          issue_date: '2026-11-01',
          due_date: '2026-11-15',
          service_period_start: '2026-10-01',
          service_period_end: '2026-10-31',
          payment_terms_days: 14,
          total_net_cents: net,
          total_tax_cents: tax,
          total_gross_cents: net + tax,
          vat_verdict: 'domestic' as const,
          e_invoice: 'none' as const,
          document: null,
          sent_at: null,
          paid_at: paid ? now : null,
          dunning_level: null,
          cancels_invoice_id: null,
          cancelled_by_invoice_id: null,
          change_seq: firstSeq + i,
          changed_at: now,
          created_at: now,
        });
      }
      await trx.insertInto('invoices').values(rows).execute();
    }
  });
  return { companyId };
}

/** The statement: one credit per open invoice, then the debits, read back from the invoices just inserted. */
async function writeStatement(handle: DatabaseHandle, companyId: string, file: string): Promise<{ partial: number; over: number; reversedCents: number }> {
  const all = await handle.db
    .selectFrom('invoices')
    .select(['number', 'status', 'total_gross_cents'])
    .where('company_id', '=', companyId)
    .orderBy('number')
    .execute();
  const invoices = all.filter((invoice) => invoice.status === 'issued');
  const paid = all.filter((invoice) => invoice.status === 'paid');
  let partial = 0;
  let over = 0;
  const amount = (cents: number) => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
  let total = 0;
  let reversedCents = 0;
  const debits = Array.from({ length: DEBITS }, (_, i) => {
    let cents: number;
    let details: string;
    let reversal = '';
    if (i < REFUNDS) {
      // A refund of a paid invoice: in full, every fourth one half of it.
      const invoice = paid[i]!;
      cents = i % 4 === 1 ? Math.floor(invoice.total_gross_cents / 2) : invoice.total_gross_cents;
      reversedCents += cents;
      details = `<Refs><EndToEndId>ERST-${i + 1}</EndToEndId></Refs><Amt Ccy="EUR">${amount(cents)}</Amt><RltdPties><Cdtr><Pty><Nm>Kunde ${i % CUSTOMERS} GmbH</Nm></Pty></Cdtr></RltdPties><RmtInf><Ustrd>Erstattung ${invoice.number}</Ustrd></RmtInf>`;
    } else if (i < REFUNDS + DEBITS / 4) {
      // A returned direct debit whose collection Kontor never booked: waits for a person.
      cents = 5_000 + i;
      reversal = '<RvslInd>true</RvslInd>';
      details = `<Refs><EndToEndId>LS-FREMD-${i + 1}</EndToEndId></Refs><Amt Ccy="EUR">${amount(cents)}</Amt><RltdPties><Cdtr><Pty><Nm>Kunde ${i % CUSTOMERS} GmbH</Nm></Pty></Cdtr></RltdPties><RmtInf><Ustrd>Ruecklastschrift</Ustrd></RmtInf><RtrInf><Rsn><Cd>AM04</Cd></Rsn></RtrInf>`;
    } else {
      // A refund naming an invoice number that does not exist: waits for a person.
      cents = 2_000 + i;
      details = `<Amt Ccy="EUR">${amount(cents)}</Amt><RltdPties><Cdtr><Pty><Nm>Kunde ${i % CUSTOMERS} GmbH</Nm></Pty></Cdtr></RltdPties><RmtInf><Ustrd>Erstattung RE-2025-${String(90_000 + i).padStart(5, '0')}</Ustrd></RmtInf>`;
    }
    total -= cents;
    return `<Ntry><Amt Ccy="EUR">${amount(cents)}</Amt><CdtDbtInd>DBIT</CdtDbtInd>${reversal}<Sts><Cd>BOOK</Cd></Sts><BookgDt><Dt>2026-11-20</Dt></BookgDt><ValDt><Dt>2026-11-20</Dt></ValDt><AcctSvcrRef>BENCH-D-${i + 1}</AcctSvcrRef><NtryDtls><TxDtls>${details}</TxDtls></NtryDtls><AddtlNtryInf>SEPA-UEBERWEISUNG</AddtlNtryInf></Ntry>`;
  });
  const entries = invoices.map((invoice, i) => {
    let cents = invoice.total_gross_cents;
    if (i % 50 === 7) {
      cents = Math.floor(cents / 2);
      partial += 1;
    } else if (i % 50 === 13) {
      cents += 500;
      over += 1;
    }
    total += cents;
    const number = invoice.number!;
    const text =
      i % 10 === 3 ? `rechnung ${number.toLowerCase().replace(/-/g, ' ')}` : i % 10 === 6 ? `${number.replace(/-/g, '')} Kd ${i}` : `Rechnung ${number}`;
    return `<Ntry><Amt Ccy="EUR">${amount(cents)}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts><BookgDt><Dt>2026-11-20</Dt></BookgDt><ValDt><Dt>2026-11-20</Dt></ValDt><AcctSvcrRef>BENCH-${i + 1}</AcctSvcrRef><BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn></BkTxCd><NtryDtls><TxDtls><Refs><EndToEndId>E2E-${i + 1}</EndToEndId></Refs><Amt Ccy="EUR">${amount(cents)}</Amt><RltdPties><Dbtr><Pty><Nm>Kunde ${i % CUSTOMERS} GmbH</Nm></Pty></Dbtr><DbtrAcct><Id><IBAN>DE02120300000000202051</IBAN></Id></DbtrAcct></RltdPties><RmtInf><Ustrd>${text}</Ustrd></RmtInf></TxDtls></NtryDtls><AddtlNtryInf>SEPA-GUTSCHRIFT</AddtlNtryInf></Ntry>`;
  });
  const xml = `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt><GrpHdr><MsgId>BENCH</MsgId><CreDtTm>2026-11-21T06:00:00+01:00</CreDtTm></GrpHdr>
<Stmt><Id>BENCH-1</Id><Acct><Id><IBAN>DE89370400440532013000</IBAN></Id><Ccy>EUR</Ccy></Acct>
<Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">0.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-11-20</Dt></Dt></Bal>
<Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">${amount(Math.abs(total))}</Amt><CdtDbtInd>${total < 0 ? 'DBIT' : 'CRDT'}</CdtDbtInd><Dt><Dt>2026-11-20</Dt></Dt></Bal>
${entries.join('\n')}
${debits.join('\n')}
</Stmt></BkToCstmrStmt></Document>
`;
  writeFileSync(file, xml);
  return { partial, over, reversedCents };
}

/** What bin/kontor.js starts `kontor bank import` with (bin/node-flags.json). */
const CLI_FLAGS = flagsOf('bank import');

function runChild(input: ChildInput): Promise<ChildOutput> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      // The child runs with the flags `kontor bank import` gets from bin/kontor.js (node-flags.json);
      // BANK_BENCH_NODE_FLAGS (e.g. --trace-gc) are added to the measured child only.
      [...CLI_FLAGS, ...(process.env.BANK_BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? []), CHILD, JSON.stringify(input)],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => {
      // BANK_BENCH_CHILD_LOG=FILE keeps the child's whole stdout (e.g. the --trace-gc lines).
      if (process.env.BANK_BENCH_CHILD_LOG) writeFileSync(process.env.BANK_BENCH_CHILD_LOG, out);
      if (code === 0) resolve(JSON.parse(out.trim().split('\n').at(-1)!) as ChildOutput);
      else reject(new Error(`import child exited ${code}`));
    });
  });
}

type Figures = ChildOutput & { database: 'pglite' | 'postgres'; invoices: number; debits: number; fileMb: number; setupSeconds: number };

async function measure(target: Target, work: string): Promise<Figures> {
  const t0 = performance.now();
  const handle = await open(target);
  let companyId: string;
  const file = path.join(work, `camt-${target.kind}.xml`);
  let shape: { partial: number; over: number; reversedCents: number };
  try {
    ({ companyId } = await setUp(handle));
    shape = await writeStatement(handle, companyId, file);
  } finally {
    await handle.close();
  }
  const setupSeconds = Math.round((performance.now() - t0) / 100) / 10;
  const figures = await runChild({ target, companyId, file, now: NOW });
  // Every credit and every refund matched; the other debits left for a person.
  if (figures.matched !== COUNT + REFUNDS) throw new Error(`${target.kind}: ${figures.matched} of ${COUNT} credits and ${REFUNDS} refunds matched`);
  if (figures.unmatched !== DEBITS - REFUNDS) throw new Error(`${target.kind}: ${figures.unmatched} debits unmatched, expected ${DEBITS - REFUNDS}`);
  if (figures.partiallyPaid !== shape.partial + Math.ceil((REFUNDS - 1) / 4) || figures.paid !== COUNT - shape.partial)
    throw new Error(`${target.kind}: ${figures.paid} paid / ${figures.partiallyPaid} partially paid`);
  if (figures.invoicesReversed !== REFUNDS || figures.reversed !== (shape.reversedCents / 100).toFixed(2))
    throw new Error(
      `${target.kind}: ${figures.reversed} EUR taken back from ${figures.invoicesReversed} invoices, expected ${(shape.reversedCents / 100).toFixed(2)} from ${REFUNDS}`,
    );
  return { database: target.kind, invoices: COUNT, debits: DEBITS, fileMb: mb(readFileSync(file).length), setupSeconds, ...figures };
}

const results = await onEachTarget('bank', only, measure);

for (const r of results) {
  const verdict = r.database === 'postgres' ? ` (ceiling 10 s / 300 MB: ${r.seconds < 10 && r.maxRssMb < 300 ? 'met' : 'MISSED'})` : ' (for information)';
  console.log(
    `${r.database.padEnd(8)} ${r.invoices} credits against ${r.invoices} open invoices and ${r.debits} debits, file ${r.fileMb} MB: import ${r.seconds} s, peak RSS ${r.maxRssMb} MB (before import ${r.rssBeforeMb} MB); ${r.paid} paid, ${r.partiallyPaid} partially paid, credit ${r.credited} EUR; ${r.reversed} EUR taken back from ${r.invoicesReversed} invoices, ${r.debitsUnassigned} EUR of debits left${verdict}`,
  );
}
console.log(JSON.stringify({ bench: 'bank-import', results }));
