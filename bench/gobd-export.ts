// The GoBD audit export at scale (issue 28 figure): a year of 100,000 issued invoices, each
// with its lines, its stored PDF and XML and its journal entry, exported by `kontor export
// gobd` into a folder. Target: under 60 s on PostgreSQL with the export's peak memory under
// 500 MiB (streamed: tables and documents page by page).
//
//   node bench/gobd-export.ts [--only postgres|pglite] [--invoices 100000]
//
// Twenty invoices are made for real (createInvoice: rendered, stored, booked); the rest are
// copies of them made by SQL (new ids, numbers and dates spread over 2026), so every row
// and document is what Kontor writes. The export runs as the command a person runs (a child
// process `kontor export gobd`), timed from spawn to exit; its peak resident memory is the
// kernel's VmHWM of that process, read until it exits. The folder's size and file count are
// checked against the summary. Prints the figures and one JSON line.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { type Database, openDatabase } from '../src/db/connection.ts';
import { localLiveness } from '../src/db/liveness.ts';
import { migrate } from '../src/db/migrate.ts';
import { bootstrapOrganization } from '../src/modules/access/index.ts';
import { createInvoice } from '../src/modules/invoicing/index.ts';
import { invoicingOutside } from '../src/modules/invoicing/outside.ts';
import { createMailer } from '../src/modules/mail/index.ts';
import { fixedClock } from '../src/shared/clock.ts';
import { createSealer } from '../src/shared/secrets.ts';
import { COMPANY_FILE } from '../test/helpers/company.ts';
import { tenLines } from '../test/invoicing/helpers.ts';
import { flagsOf } from './node-flags.ts';
import { KONTOR } from './processes.ts';
import { onEachTarget, onlyFlag, type Target } from './targets.ts';

const { values } = parseArgs({ options: { only: { type: 'string', default: 'postgres' }, invoices: { type: 'string', default: '100000' } } });
const only = onlyFlag(values.only);
const INVOICES = Number(values.invoices);
const ORIGINALS = 20;
if (!(INVOICES >= ORIGINALS && INVOICES % ORIGINALS === 0)) throw new Error(`--invoices must be a multiple of ${ORIGINALS}`);
const log = (text: string) => process.stderr.write(`${text}\n`);
const seconds = (since: number) => Math.round((performance.now() - since) / 10) / 100;

/** Copies every row of `table` of the company `copies` times, the columns in `replace` computed from `src` and `g` (1…copies). */
async function cloneRows(db: Database, table: string, companyId: string, copies: number, replace: Record<string, string>, where = 'true') {
  const columns = (
    await sql<{
      column_name: string;
    }>`select column_name from information_schema.columns where table_schema = current_schema() and table_name = ${table} and is_generated = 'NEVER' and (column_default is null or column_default not like 'nextval%') order by ordinal_position`.execute(
      db,
    )
  ).rows.map((r) => r.column_name);
  const list = columns.join(', ');
  const exprs = columns.map((c) => replace[c] ?? `src.${c}`).join(', ');
  await sql`${sql.raw(`insert into ${table} (${list}) select ${exprs} from ${table} src cross join generate_series(1, `)}${copies}${sql.raw(`::int) g where src.company_id = `)}${companyId}${sql.raw(` and ${where}`)}`.execute(
    db,
  );
}

/** A date of 2026 for copy g: spread over the year. */
const DAY = `(date '2026-01-02' + ((g - 1) % 360))`;

async function setUp(target: Target, work: string): Promise<{ companyId: string; adminEmail: string; documents: number }> {
  const handle = await (target.kind === 'postgres'
    ? openDatabase({ kind: 'postgres', url: target.url, poolSize: 4 })
    : openDatabase({ kind: 'pglite', dataDir: path.join(target.dataDir, 'pg') }));
  const sealer = createSealer('bench-secret');
  const dataDir = path.join(work, `data-${target.kind}`);
  const outside = invoicingOutside({ dataDir, sealer, mailer: createMailer({ dataDir, sealer }), renderThreads: 2 });
  try {
    await migrate(handle.db);
    const adminEmail = `bench-${randomBytes(4).toString('hex')}@example.com`;
    const company = await bootstrapOrganization(handle.db, sealer, {
      organizationName: 'Bench org',
      companyFile: JSON.stringify({ ...COMPANY_FILE, name: 'Prüfung GmbH', email: 'rechnung@pruefung.example' }),
      adminEmail,
    });
    const companyId = company.company_id;
    const db = handle.db;
    await sql`
      insert into customers (company_id, id, kundennummer, external_source, external_ref, name, email, street, house_number, zip, city, country_code, vat_id, customer_type)
      select ${companyId}, 'cus_bench' || lpad(g::text, 6, '0'), 10000 + g, 'bench', 'c' || g, 'Kunde ' || g || ' GmbH', 'kunde' || g || '@example.com',
             'Ringstraße', g::text, '80331', 'München', 'DE', 'DE136695976', 'business'
      from generate_series(1, 1000) g`.execute(db);
    const clock = fixedClock('2026-01-02T09:00:00Z');
    const deps = { ...outside, db, clock, liveness: localLiveness() };
    for (let i = 0; i < ORIGINALS; i++) {
      const body = {
        customer: { source: 'bench', external_ref: `c${i + 1}` },
        external_ref: `gobd-${i}`,
        issue: true,
        lines: tenLines().slice(0, 3 + (i % 5)),
        service_period: { start: '2026-01-02', end: '2026-01-02' },
      };
      await createInvoice(deps, companyId, `gobd-${i}`, body as Parameters<typeof createInvoice>[3]);
    }
    const copies = INVOICES / ORIGINALS - 1;
    const suffix = (column: string) => `src.${column} || 'x' || g`;
    const t0 = performance.now();
    await cloneRows(db, 'invoices', companyId, copies, {
      id: suffix('id'),
      number: `src.number || '-' || g`,
      external_ref: suffix('external_ref'),
      issue_date: DAY,
      due_date: `${DAY} + 14`,
      service_period_start: DAY,
      service_period_end: DAY,
      customer_id: `'cus_bench' || lpad((1 + g % 1000)::text, 6, '0')`,
      change_seq: 'src.change_seq + g::bigint * 1000',
    });
    await cloneRows(db, 'invoice_lines', companyId, copies, { invoice_id: suffix('invoice_id') });
    await cloneRows(db, 'invoice_files', companyId, copies, { invoice_id: suffix('invoice_id') });
    await cloneRows(db, 'journal_entries', companyId, copies, {
      id: suffix('id'),
      document_id: suffix('document_id'),
      document_number: `src.document_number || '-' || g`,
      entry_date: DAY,
      service_date: DAY,
    });
    await cloneRows(db, 'journal_lines', companyId, copies, { entry_id: suffix('entry_id') });
    // A settled database, as one that has run for a while: vacuumed (else autovacuum reads
    // the 4.8 GiB of fresh documents while the export runs) and checkpointed, written out.
    if (target.kind === 'postgres') {
      await sql`vacuum (analyze)`.execute(db);
      await sql`checkpoint`.execute(db);
    }
    const counted = await db
      .selectFrom('invoice_files')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('company_id', '=', companyId)
      .executeTakeFirstOrThrow();
    log(`${target.kind}: ${INVOICES} invoices with ${counted.n} stored documents set up (copies in ${seconds(t0)} s)`);
    spawnSync('sync');
    return { companyId, adminEmail, documents: Number(counted.n) };
  } finally {
    await outside.close();
    await handle.close();
  }
}

/** Runs the command; its wall time and the highest VmHWM seen of its process. */
async function measured(args: string[], env: NodeJS.ProcessEnv): Promise<{ seconds: number; peakMiB: number; stdout: string; code: number | null }> {
  const t0 = performance.now();
  // With the flags bin/kontor.js gives the command (node-flags.json): the process measured is the export itself.
  const child = spawn(process.execPath, [...flagsOf('export gobd'), KONTOR, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  let peakKb = 0;
  const poll = setInterval(() => {
    try {
      const hwm = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      if (hwm) peakKb = Math.max(peakKb, Number(hwm[1]));
    } catch {}
  }, 50);
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  clearInterval(poll);
  if (code !== 0) log(stderr);
  return { seconds: seconds(t0), peakMiB: Math.round(peakKb / 1024), stdout, code };
}

function folderSize(dir: string): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    files += 1;
    bytes += statSync(path.join(entry.parentPath, entry.name)).size;
  }
  return { files, bytes };
}

type Result = { database: Target['kind']; invoices: number; documents: number; seconds: number; peak_mib: number; files: number; gib: number };

const results = await onEachTarget('gobd', only, async (target, work): Promise<Result> => {
  const { companyId, adminEmail, documents } = await setUp(target, work);
  const out = path.join(work, 'export');
  const env = {
    ...process.env,
    ...(target.kind === 'postgres'
      ? { DATABASE_URL: target.url, KONTOR_DATA: path.join(work, 'cli-data') }
      : { DATABASE_URL: '', KONTOR_DATA: target.dataDir }),
    KONTOR_NOW: '2027-01-15T09:00:00+01:00',
    LOG_LEVEL: 'warn',
  };
  const args = ['export', 'gobd', '--company', companyId, '--from', '2026-01-01', '--to', '2026-12-31', '--out', out, '--by', adminEmail, '--json'];
  if (process.env.KONTOR_BENCH_KEEP === '1') log(`again: DATABASE_URL=${env.DATABASE_URL} KONTOR_NOW=${env.KONTOR_NOW} node ${KONTOR} ${args.join(' ')}`);
  const run = await measured(args, env);
  if (run.code !== 0) throw new Error(`kontor export gobd exited ${run.code}`);
  const summary = JSON.parse(run.stdout) as { documents: number; tables: { name: string; rows: number }[] };
  const invoices = summary.tables.find((table) => table.name === 'Rechnungen')?.rows ?? 0;
  if (invoices !== INVOICES || summary.documents !== documents)
    throw new Error(`exported ${invoices} invoices and ${summary.documents} documents, expected ${INVOICES} and ${documents}`);
  const size = folderSize(out);
  const result = {
    database: target.kind,
    invoices,
    documents,
    seconds: run.seconds,
    peak_mib: run.peakMiB,
    files: size.files,
    gib: Math.round((size.bytes / 1024 ** 3) * 100) / 100,
  };
  log(
    `${target.kind}: kontor export gobd of ${invoices} invoices and ${documents} documents (${size.files} files, ${result.gib} GiB) in ${run.seconds} s, peak ${run.peakMiB} MiB`,
  );
  return result;
});
process.stdout.write(`${JSON.stringify({ bench: 'gobd-export', results })}\n`);
