// Bank statement import at scale (issue 4 figure): a camt.053.001.08 with 10,000 credits
// against 10,000 open invoices must import in under 10 s on PostgreSQL with a peak memory
// under 300 MB. PGlite is measured too, for information.
//
//   node bench/bank-import.ts [--only pglite|postgres] [--invoices 10000]
//
// For each database the parent process creates a company with 100 customers and 10,000
// issued invoices (inserted by SQL here — issuing 10,000 through the API takes minutes),
// writes the statement file (every credit names one invoice: most as printed, some in lower
// case with spaces, some split by a dash-less form; a few partial and over-payments), then
// closes the database. A child process (bank-import-child.ts) opens it, reads the file
// and runs importBankStatement alone, so its peak RSS (resourceUsage().maxRSS) is the
// import's plus Node, the driver and, on PGlite, the embedded database. Prints a summary
// and one JSON line.
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
import { onEachTarget, onlyFlag, type Target } from './targets.ts';

const NOW = '2026-11-21T10:00:00Z';
const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

const CHILD = path.join(import.meta.dirname, 'bank-import-child.ts');

const { values } = parseArgs({ options: { only: { type: 'string' }, invoices: { type: 'string', default: '10000' } } });
const only = onlyFlag(values.only);
const COUNT = Number(values.invoices);
if (!Number.isInteger(COUNT) || COUNT < 1 || COUNT > 99_999) throw new Error('--invoices must be 1 … 99999');
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
      { company_id: companyId, range_key: 'invoice:2026', next_value: COUNT + 1, last_value: 999_999_999 },
    ])
    .execute();
  await handle.db.transaction().execute(async (trx) => {
    const firstSeq = await nextChangeSeqs(trx, companyId, COUNT);
    for (let start = 0; start < COUNT; start += 1000) {
      const rows = [];
      for (let i = start; i < Math.min(COUNT, start + 1000); i++) {
        const net = 10_000 + ((i * 7919) % 90_000);
        const tax = Math.floor((net * 19 + 50) / 100);
        rows.push({
          company_id: companyId,
          id: `inv_bench_${String(i + 1).padStart(6, '0')}`,
          number: `RE-2026-${String(i + 1).padStart(5, '0')}`,
          status: 'issued' as const,
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
          paid_at: null,
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

/** The statement: one credit per invoice, read back from the invoices just inserted. */
async function writeStatement(handle: DatabaseHandle, companyId: string, file: string): Promise<{ partial: number; over: number }> {
  const invoices = await handle.db
    .selectFrom('invoices')
    .select(['number', 'total_gross_cents'])
    .where('company_id', '=', companyId)
    .orderBy('number')
    .execute();
  let partial = 0;
  let over = 0;
  const amount = (cents: number) => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
  let total = 0;
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
<Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">${amount(total)}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-11-20</Dt></Dt></Bal>
${entries.join('\n')}
</Stmt></BkToCstmrStmt></Document>
`;
  writeFileSync(file, xml);
  return { partial, over };
}

/** What bin/kontor.js starts `kontor bank import` with (keep the two alike). */
const CLI_FLAGS = ['--max-semi-space-size=4'];

function runChild(input: ChildInput): Promise<ChildOutput> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      // The child runs with the flags `kontor bank import` gets from bin/kontor.js (LEAN_FLAGS);
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

type Figures = ChildOutput & { database: 'pglite' | 'postgres'; invoices: number; fileMb: number; setupSeconds: number };

async function measure(target: Target, work: string): Promise<Figures> {
  const t0 = performance.now();
  const handle = await open(target);
  let companyId: string;
  const file = path.join(work, `camt-${target.kind}.xml`);
  let shape: { partial: number; over: number };
  try {
    ({ companyId } = await setUp(handle));
    shape = await writeStatement(handle, companyId, file);
  } finally {
    await handle.close();
  }
  const setupSeconds = Math.round((performance.now() - t0) / 100) / 10;
  const figures = await runChild({ target, companyId, file, now: NOW });
  if (figures.matched !== COUNT) throw new Error(`${target.kind}: ${figures.matched} of ${COUNT} credits matched`);
  if (figures.partiallyPaid !== shape.partial || figures.paid !== COUNT - shape.partial)
    throw new Error(`${target.kind}: ${figures.paid} paid / ${figures.partiallyPaid} partially paid, expected ${COUNT - shape.partial} / ${shape.partial}`);
  return { database: target.kind, invoices: COUNT, fileMb: mb(readFileSync(file).length), setupSeconds, ...figures };
}

const results = await onEachTarget('bank', only, measure);

for (const r of results) {
  const verdict = r.database === 'postgres' ? ` (ceiling 10 s / 300 MB: ${r.seconds < 10 && r.maxRssMb < 300 ? 'met' : 'MISSED'})` : ' (for information)';
  console.log(
    `${r.database.padEnd(8)} ${r.invoices} credits against ${r.invoices} open invoices, file ${r.fileMb} MB: import ${r.seconds} s, peak RSS ${r.maxRssMb} MB (before import ${r.rssBeforeMb} MB); ${r.paid} paid, ${r.partiallyPaid} partially paid, credit ${r.credited} EUR${verdict}`,
  );
}
console.log(JSON.stringify({ bench: 'bank-import', results }));
