// Bank import with the revenue-share ledger (issue 14 figure): 10,000 issued invoices of
// 10,000 customers, each customer attributed to two agreements, one camt.053 paying all of
// them: the import writes 20,000 commission entries in its own transaction. Target: under
// 10 s on PostgreSQL. PGlite is measured too, for information.
//
//   node bench/bank-import-ledger.ts [--only pglite|postgres] [--invoices 10000]
//
// Per database two companies with the same invoices and the same statement file: one
// without agreements (the import as bench/bank-import.ts measures it, but with one customer
// per invoice) and one with two partners, each with two agreements for attributed customers
// (10 % then 5 % from month 13, and 2.5 %); customers 1–5,000 are attributed to both
// agreements of the first partner, the rest to both of the second. Partners, agreements and
// the 20,000 attributions are made with the module operations (upsertCommissionPartner,
// …Agreement, …Attribution); customers, invoices (one line each) by SQL. The statement file
// is the one bench/bank-import.ts writes (some numbers in lower case or without dashes, a few
// partial and over-payments). Each import runs alone in a child process
// (bank-import-child.ts), the plain one first. Afterwards: 20,000 entries and 10,000
// revenue events in the ledger company, none in the other, and every partner's kept balance
// equal to the sum of its entries. Prints a summary and one JSON line.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { type Database, type DatabaseHandle, openDatabase } from '../src/db/connection.ts';
import { migrate } from '../src/db/migrate.ts';
import { inTransaction } from '../src/db/transaction.ts';
import { bootstrapOrganization } from '../src/modules/access/index.ts';
import { upsertCommissionAgreement, upsertCommissionAttribution, upsertCommissionPartner } from '../src/modules/commissions/index.ts';
import { nextChangeSeqs } from '../src/modules/invoicing/invoice-changes.ts';
import { fixedClock } from '../src/shared/clock.ts';
import { createSealer } from '../src/shared/secrets.ts';
import { COMPANY_FILE } from '../test/helpers/company.ts';
import { type ChildInput, type ChildOutput, open } from './bank-import-child.ts';
import { flagsOf } from './node-flags.ts';
import { type BalanceCheck, checkBalances, inPool, partnerBody, round } from './revenue-share-data.ts';
import { machineBusy } from './stats.ts';
import { onEachTarget, onlyFlag, type Target } from './targets.ts';

const NOW = '2026-11-21T10:00:00Z';
const CHILD = path.join(import.meta.dirname, 'bank-import-child.ts');
/** What bin/kontor.js starts `kontor bank import` with (bin/node-flags.json). */
const CLI_FLAGS = flagsOf('bank import');
/** Attributions made at a time on PostgreSQL (PGlite runs one transaction at a time). */
const SETUP_CONCURRENCY = 8;

const { values } = parseArgs({ options: { only: { type: 'string' }, invoices: { type: 'string', default: '10000' }, attributions: { type: 'string' } } });
if (values.attributions !== undefined && values.attributions !== 'module' && values.attributions !== 'sql')
  throw new Error('--attributions must be module or sql');
const only = onlyFlag(values.only);
const COUNT = Number(values.invoices);
if (!Number.isInteger(COUNT) || COUNT < 2 || COUNT > 50_000) throw new Error('--invoices must be 2 … 50000');
/**
 * How the 20,000 attributions are made: by upsertCommissionAttribution on PostgreSQL, by SQL
 * on PGlite, where 20,000 transactions one at a time would take minutes of set-up.
 */
const attributionsMadeBy = (target: Target): 'module' | 'sql' =>
  (values.attributions as 'module' | 'sql' | undefined) ?? (target.kind === 'postgres' ? 'module' : 'sql');
const log = (text: string) => process.stderr.write(`${text}\n`);
const since = (t0: number) => round((performance.now() - t0) / 1000, 1);

/** A company with COUNT customers and one issued invoice each (one line), by SQL. */
async function company(db: Database, name: string): Promise<string> {
  const { company_id: companyId } = await bootstrapOrganization(db, createSealer('bench-secret'), {
    organizationName: `${name} org`,
    companyFile: JSON.stringify({ ...COMPANY_FILE, name, email: 'bench@example.com' }),
    adminEmail: `bench-${randomBytes(4).toString('hex')}@example.com`,
  });
  await inTransaction(db, async (trx) => {
    await sql`
      insert into customers (company_id, id, kundennummer, external_source, external_ref, name, customer_type)
      select ${companyId}, 'cus_bench_' || lpad(g::text, 6, '0'), 9999 + g, 'bench', 'c-' || g, 'Kunde ' || g || ' GmbH', 'business'
      from generate_series(1, ${COUNT}::int) g`.execute(trx);
    await trx
      .insertInto('number_ranges')
      .values([
        { company_id: companyId, range_key: 'customer', next_value: 10000 + COUNT, last_value: 69999 },
        { company_id: companyId, range_key: 'invoice:2026', next_value: COUNT + 1, last_value: 999_999_999 },
      ])
      .execute();
    const firstSeq = await nextChangeSeqs(trx, companyId, COUNT);
    const now = new Date(NOW);
    // Net 100.00–999.99 EUR, 19 % VAT, as bench/bank-import.ts.
    await sql`
      insert into invoices (company_id, id, number, status, type, external_source, external_ref, customer_id, issue_date, due_date,
                            service_period_start, service_period_end, payment_terms_days, total_net_cents, total_tax_cents,
                            total_gross_cents, vat_verdict, e_invoice, change_seq, changed_at, created_at)
      select ${companyId}, 'inv_bench_' || lpad(g::text, 6, '0'), 'RE-2026-' || lpad(g::text, 5, '0'), 'issued', 'invoice', 'bench', 'i-' || g,
             'cus_bench_' || lpad(g::text, 6, '0'), '2026-11-01', '2026-11-15', '2026-10-01', '2026-10-31', 14,
             net, (net * 19 + 50) / 100, net + (net * 19 + 50) / 100, 'domestic', 'none', ${firstSeq}::bigint + g - 1, ${now}, ${now}
      from (select g, 10000 + ((g - 1) * 7919) % 90000 as net from generate_series(1, ${COUNT}::int) g) s`.execute(trx);
    await sql`
      insert into invoice_lines (company_id, invoice_id, position, description, quantity, unit, unit_price_net, vat_rate, net_cents)
      select company_id, id, 1, 'Lizenz Oktober', '1', 'Monat', (total_net_cents / 100)::text || '.' || lpad((total_net_cents % 100)::text, 2, '0'), 19, total_net_cents
      from invoices where company_id = ${companyId}`.execute(trx);
  });
  return companyId;
}

/** Two partners with two agreements each; every customer attributed to both agreements of one partner. */
async function agreements(db: Database, companyId: string, concurrency: number, how: 'module' | 'sql'): Promise<void> {
  const clock = fixedClock(NOW);
  const ref = (externalRef: string) => ({ source: 'bench', externalRef });
  for (const p of [1, 2]) {
    await upsertCommissionPartner(db, clock, companyId, ref(`p-${p}`), partnerBody(`Vertrieb ${p} GmbH`, 'gutschrift', null));
    await upsertCommissionAgreement(db, clock, companyId, ref(`ag-${p}a`), {
      partner_ref: `p-${p}`,
      start_date: '2026-01-01',
      tiers: [
        { from_month: 1, to_month: 12, percent: 10 },
        { from_month: 13, to_month: null, percent: 5 },
      ],
    });
    await upsertCommissionAgreement(db, clock, companyId, ref(`ag-${p}b`), {
      partner_ref: `p-${p}`,
      start_date: '2026-01-01',
      tiers: [{ from_month: 1, to_month: null, percent: 2.5 }],
    });
  }
  if (how === 'sql') return attributionsBySql(db, companyId);
  const half = Math.ceil(COUNT / 2);
  const attributions = Array.from({ length: COUNT * 2 }, (_, i) => ({ customer: (i >> 1) + 1, agreement: i % 2 === 0 ? 'a' : 'b' }));
  await inPool(attributions, concurrency, async ({ customer, agreement }) => {
    const partner = customer <= half ? 1 : 2;
    await upsertCommissionAttribution(db, clock, companyId, ref(`at-${customer}-${agreement}`), {
      agreement_ref: `ag-${partner}${agreement}`,
      customer: { source: 'bench', external_ref: `c-${customer}` },
      start_date: '2026-01-01',
    });
  });
}

/**
 * The same attributions as `agreements` makes, inserted by SQL as upsertCommissionAttribution
 * writes them (active, source api). The import reads only agreement, customer, dates and status.
 */
async function attributionsBySql(db: Database, companyId: string): Promise<void> {
  const half = Math.ceil(COUNT / 2);
  await sql`
    insert into commission_attributions (company_id, id, agreement_id, partner_id, customer_id, start_date, status, source, confirmed_at,
                                         external_source, external_ref, created_at, updated_at)
    select ${companyId}, 'cat_bench_' || g || x, a.id, a.partner_id, 'cus_bench_' || lpad(g::text, 6, '0'), '2026-01-01', 'active', 'api', ${new Date(NOW)}::timestamptz,
           'bench', 'at-' || g || '-' || x, ${new Date(NOW)}::timestamptz, ${new Date(NOW)}::timestamptz
    from generate_series(1, ${COUNT}::int) g
    cross join (values ('a'), ('b')) v(x)
    join commission_agreements a on a.company_id = ${companyId} and a.external_source = 'bench'
         and a.external_ref = 'ag-' || (case when g <= ${half}::int then 1 else 2 end) || x`.execute(db);
}

/** The statement file of bench/bank-import.ts: one credit per invoice. */
async function writeStatement(db: Database, companyId: string, file: string): Promise<{ partial: number }> {
  const invoices = await db.selectFrom('invoices').select(['number', 'total_gross_cents']).where('company_id', '=', companyId).orderBy('number').execute();
  const amount = (cents: number) => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
  let partial = 0;
  let total = 0;
  const entries = invoices.map((invoice, i) => {
    let cents = Number(invoice.total_gross_cents);
    if (i % 50 === 7) {
      cents = Math.floor(cents / 2);
      partial += 1;
    } else if (i % 50 === 13) cents += 500;
    total += cents;
    const number = invoice.number as string;
    const text =
      i % 10 === 3 ? `rechnung ${number.toLowerCase().replace(/-/g, ' ')}` : i % 10 === 6 ? `${number.replace(/-/g, '')} Kd ${i}` : `Rechnung ${number}`;
    return `<Ntry><Amt Ccy="EUR">${amount(cents)}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts><BookgDt><Dt>2026-11-20</Dt></BookgDt><ValDt><Dt>2026-11-20</Dt></ValDt><AcctSvcrRef>BENCH-${i + 1}</AcctSvcrRef><BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn></BkTxCd><NtryDtls><TxDtls><Refs><EndToEndId>E2E-${i + 1}</EndToEndId></Refs><Amt Ccy="EUR">${amount(cents)}</Amt><RltdPties><Dbtr><Pty><Nm>Kunde ${i + 1} GmbH</Nm></Pty></Dbtr><DbtrAcct><Id><IBAN>DE02120300000000202051</IBAN></Id></DbtrAcct></RltdPties><RmtInf><Ustrd>${text}</Ustrd></RmtInf></TxDtls></NtryDtls><AddtlNtryInf>SEPA-GUTSCHRIFT</AddtlNtryInf></Ntry>`;
  });
  writeFileSync(
    file,
    `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt><GrpHdr><MsgId>BENCH</MsgId><CreDtTm>2026-11-21T06:00:00+01:00</CreDtTm></GrpHdr>
<Stmt><Id>BENCH-1</Id><Acct><Id><IBAN>DE89370400440532013000</IBAN></Id><Ccy>EUR</Ccy></Acct>
<Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">0.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-11-20</Dt></Dt></Bal>
<Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">${amount(total)}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-11-20</Dt></Dt></Bal>
${entries.join('\n')}
</Stmt></BkToCstmrStmt></Document>
`,
  );
  return { partial };
}

function runChild(input: ChildInput): Promise<ChildOutput> {
  return new Promise((resolve, reject) => {
    // BANK_BENCH_NODE_FLAGS (e.g. --cpu-prof) go to the import child only, as in bench/bank-import.ts.
    const flags = process.env.BANK_BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? [];
    const child = spawn(process.execPath, [...CLI_FLAGS, ...flags, CHILD, JSON.stringify(input)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(JSON.parse(out.trim().split('\n').at(-1) as string) as ChildOutput) : reject(new Error(`import child exited ${code}`)),
    );
  });
}

async function ledgerCounts(handle: DatabaseHandle, companyId: string) {
  const count = async (table: 'commission_entries' | 'revenue_events') =>
    Number(
      (
        await handle.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('company_id', '=', companyId)
          .executeTakeFirstOrThrow()
      ).n,
    );
  return { entries: await count('commission_entries'), events: await count('revenue_events') };
}

export type LedgerImportFigures = {
  database: 'pglite' | 'postgres';
  invoices: number;
  setupSeconds: number;
  attributionSeconds: number;
  attributionsMadeBy: 'module' | 'sql';
  /** Share of the machine busy with other work just before each import (0–1). */
  busyBefore: { plain: number; ledger: number };
  /** The import without agreements (same invoices, same file). */
  plain: ChildOutput;
  /** The import writing the ledger. */
  ledger: ChildOutput;
  entries: number;
  revenueEvents: number;
  /** Seconds the ledger adds, and per 1,000 entries. */
  ledgerSeconds: number;
  balances: BalanceCheck;
};

async function measure(target: Target, work: string): Promise<LedgerImportFigures> {
  const t0 = performance.now();
  // Set-up may use more connections than the import child's 2 on PostgreSQL.
  let handle = target.kind === 'postgres' ? await openDatabase({ kind: 'postgres', url: target.url, poolSize: SETUP_CONCURRENCY }) : await open(target);
  const files = { plain: path.join(work, `plain-${target.kind}.xml`), ledger: path.join(work, `ledger-${target.kind}.xml`) };
  let ids: { plain: string; ledger: string };
  let partial: number;
  let attributionSeconds: number;
  try {
    await migrate(handle.db);
    ids = { plain: await company(handle.db, 'Ohne Provision GmbH'), ledger: await company(handle.db, 'Mit Provision GmbH') };
    const t1 = performance.now();
    await agreements(handle.db, ids.ledger, target.kind === 'postgres' ? SETUP_CONCURRENCY : 1, attributionsMadeBy(target));
    attributionSeconds = since(t1);
    ({ partial } = await writeStatement(handle.db, ids.plain, files.plain));
    await writeStatement(handle.db, ids.ledger, files.ledger);
    await sql`analyze`.execute(handle.db);
  } finally {
    await handle.close();
  }
  const setupSeconds = since(t0);
  log(`${target.kind}: set up in ${setupSeconds} s (${2 * COUNT} attributions by ${attributionsMadeBy(target)} in ${attributionSeconds} s)`);
  const busyBefore = { plain: round(await machineBusy(), 2), ledger: 0 };
  const plain = await runChild({ target, companyId: ids.plain, file: files.plain, now: NOW });
  log(`${target.kind}: import without agreements ${plain.seconds} s`);
  busyBefore.ledger = round(await machineBusy(), 2);
  const ledger = await runChild({ target, companyId: ids.ledger, file: files.ledger, now: NOW });
  log(`${target.kind}: import with the ledger ${ledger.seconds} s`);
  for (const [name, r] of [
    ['plain', plain],
    ['ledger', ledger],
  ] as const) {
    if (r.matched !== COUNT || r.partiallyPaid !== partial || r.paid !== COUNT - partial)
      throw new Error(
        `${target.kind} ${name}: ${r.matched} matched, ${r.paid} paid, ${r.partiallyPaid} partially paid of ${COUNT} (${partial} partial expected)`,
      );
  }
  handle = await open(target);
  try {
    const counts = await ledgerCounts(handle, ids.ledger);
    const none = await ledgerCounts(handle, ids.plain);
    if (counts.entries !== 2 * COUNT || counts.events !== COUNT || none.entries !== 0)
      throw new Error(
        `${target.kind}: ${counts.entries} entries / ${counts.events} revenue events written, ${2 * COUNT} / ${COUNT} expected (${none.entries} without agreements)`,
      );
    const balances = await checkBalances(handle.db, ids.ledger);
    if (balances.mismatched.length > 0 || balances.partners !== 2 || balances.entries !== 2 * COUNT)
      throw new Error(`${target.kind}: kept balances differ from the entries: ${balances.mismatched.join('; ')}`);
    return {
      database: target.kind,
      invoices: COUNT,
      setupSeconds,
      attributionSeconds,
      attributionsMadeBy: attributionsMadeBy(target),
      busyBefore,
      plain,
      ledger,
      entries: counts.entries,
      revenueEvents: counts.events,
      ledgerSeconds: round(ledger.seconds - plain.seconds),
      balances,
    };
  } finally {
    await handle.close();
  }
}

const results = await onEachTarget('ledger-import', only, measure);

console.log('');
for (const r of results) {
  const verdict = r.database === 'postgres' ? ` — target 10 s: ${r.ledger.seconds < 10 ? 'met' : 'MISSED'}` : ' (for information)';
  console.log(
    `${r.database.padEnd(8)} camt.053 of ${r.invoices} credits, ${r.entries} commission entries: import ${r.ledger.seconds} s (peak RSS ${r.ledger.maxRssMb} MB); ` +
      `without agreements ${r.plain.seconds} s (${r.plain.maxRssMb} MB); the ledger adds ${r.ledgerSeconds} s; ` +
      `${r.balances.partners} partners' balances = Σ entries; other CPU load before ${Math.round(r.busyBefore.plain * 100)} / ${Math.round(r.busyBefore.ledger * 100)} %${verdict}`,
  );
}
console.log(JSON.stringify({ bench: 'bank-import-ledger', results }));
