// The billing run of the 1st of a month at scale (issue 13 figure): 10,000 active monthly
// contracts, each with a flat item billed in advance and a graduated usage item with 50
// usage records in the month that ended, billed by one `jobs run` (runDueWork, as `kontor
// jobs run --as-of` does) into 10,000 issued invoices with PDF and ZUGFeRD. Targets (issue
// 26; issue 13 had 100 s and 150 s): ≥ 200 invoices/s on PostgreSQL, ≥ 150/s on PGlite, peak
// memory under 1 GiB; a second run of the same day under 2 s, billing nothing.
//
//   node bench/billing-run.ts [--only pglite|postgres] [--contracts N] [--render-threads N] [--concurrency N]
//
// The contracts, items and usage are inserted by SQL as they stand after November was
// billed (creating 10,000 contracts and 500,000 usage records through the API is what
// bench/usage-ingest.ts measures). Prints invoices/s, the share of the run's time the
// render threads were busy, the run's peak memory (this process: Node, the render threads
// and, on PGlite, the database; the set-up's peak apart, bench/memory.ts), and one final
// JSON line.
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { type DatabaseHandle, openDatabase } from '../src/db/connection.ts';
import { localLiveness } from '../src/db/liveness.ts';
import { migrate } from '../src/db/migrate.ts';
import { runDueWork } from '../src/jobs/index.ts';
import { bootstrapOrganization } from '../src/modules/access/index.ts';
import '../src/modules/contracts/index.ts';
import { invoicingOutside } from '../src/modules/invoicing/outside.ts';
import { createMailer } from '../src/modules/mail/index.ts';
import { fixedClock } from '../src/shared/clock.ts';
import { createSealer } from '../src/shared/secrets.ts';
import { COMPANY_FILE } from '../test/helpers/company.ts';
import { cpuMeter, threadMeter } from './cpu.ts';
import { peakRssMiB, resetPeakRss } from './memory.ts';
import { runAsCommand } from './node-flags.ts';
import { onEachTarget, onlyFlag, type Target } from './targets.ts';

const RUN_DATE = '2026-12-01';
const CUSTOMERS = 1_000;
const USAGE_PER_CONTRACT = 50;
// The run is `kontor jobs run`'s work: measured with that command's V8 flags.
runAsCommand('jobs run');

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    contracts: { type: 'string', default: '10000' },
    'render-threads': { type: 'string', default: String(Math.max(2, availableParallelism())) },
    concurrency: { type: 'string', default: '6' },
  },
});
const only = onlyFlag(values.only);
const CONTRACTS = Number(values.contracts);
const RENDER_THREADS = Number(values['render-threads']);
const CONCURRENCY = Number(values.concurrency);
const log = (text: string) => process.stderr.write(`${text}\n`);
const seconds = (since: number) => Math.round((performance.now() - since) / 10) / 100;

const TIERS = JSON.stringify([
  { from: '0', to: '1000', unit_price: '0', flat_price: null },
  { from: '1000', to: '10000', unit_price: '0.01', flat_price: null },
  { from: '10000', to: null, unit_price: '0.005', flat_price: null },
]);

async function setUp(handle: DatabaseHandle, sealer: ReturnType<typeof createSealer>): Promise<string> {
  await migrate(handle.db);
  const company = await bootstrapOrganization(handle.db, sealer, {
    organizationName: 'Bench org',
    companyFile: JSON.stringify({ ...COMPANY_FILE, name: 'Abo GmbH', email: 'rechnung@abo.example' }),
    adminEmail: `bench-${randomBytes(4).toString('hex')}@example.com`,
  });
  const companyId = company.company_id;
  const db = handle.db;
  await sql`
    insert into customers (company_id, id, kundennummer, external_source, external_ref, name, email, street, house_number,
                           zip, city, country_code, vat_id, customer_type)
    select ${companyId}, 'cus_bench' || lpad(g::text, 6, '0'), 10000 + g, 'bench', 'c' || g, 'Kunde ' || g || ' GmbH', 'kunde' || g || '@example.com',
           'Ringstraße', g::text, '80331', 'München', 'DE', 'DE136695976', 'business'
    from generate_series(1, ${CUSTOMERS}::int) g`.execute(db);
  await sql`
    insert into products (company_id, id, external_source, external_ref, product_number, name, unit, unit_price_net, vat_rate,
                          billing_interval, pricing_model, tiers, created_at, updated_at)
    values (${companyId}, 'prd_bench_hosting', 'bench', 'host', 'HOST-S', 'Hosting S', 'Monat', 29.00, 19, 'month', 'flat', null, now(), now()),
           (${companyId}, 'prd_bench_api', 'bench', 'api', 'API-CALLS', 'API-Aufrufe', 'Aufrufe', 0, 19, 'month', 'graduated', ${TIERS}::jsonb, now(), now())`.execute(
    db,
  );
  // As they stand after November was billed: next billing date 1 December, usage open from 1 November.
  await sql`
    insert into contracts (company_id, id, number, external_source, external_ref, customer_id, name, status, billing_interval,
                           start_date, invoice_mode, next_billing_date, usage_open_from, billed_until, last_billing_date,
                           activated_at, created_at, updated_at)
    select ${companyId}, 'ctr_bench' || lpad(g::text, 21, '0'), 'V-' || lpad(g::text, 5, '0'), 'bench', 'v' || g,
           'cus_bench' || lpad((1 + g % ${CUSTOMERS}::int)::text, 6, '0'), 'Abo ' || g, 'active', 'month',
           '2026-11-01', 'issue', ${RUN_DATE}::date, '2026-11-01', '2026-11-30', '2026-11-01', now(), now(), now()
    from generate_series(1, ${CONTRACTS}::int) g`.execute(db);
  await sql`
    insert into contract_items (company_id, contract_id, ref, position, product_id, description, quantity, unit, billing_timing,
                                unit_price_net, vat_rate, pricing_model, tiers, starts_on, billed_until)
    select ${companyId}, 'ctr_bench' || lpad(g::text, 21, '0'), 'hosting', 1, 'prd_bench_hosting', 'Hosting S', 1 + g % 3, 'Monat',
           'advance', 29.00, 19, 'flat', null, '2026-11-01'::date, '2026-11-30'::date
    from generate_series(1, ${CONTRACTS}::int) g
    union all
    select ${companyId}, 'ctr_bench' || lpad(g::text, 21, '0'), 'api', 2, 'prd_bench_api', 'API-Aufrufe', 1, 'Aufrufe',
           'arrears', 0, 19, 'graduated', ${TIERS}::jsonb, '2026-11-01'::date, null
    from generate_series(1, ${CONTRACTS}::int) g`.execute(db);
  await sql`
    insert into usage_records (company_id, contract_id, external_ref, item_ref, quantity, occurred_at, occurred_on, recorded_at)
    select ${companyId}, 'ctr_bench' || lpad(g::text, 21, '0'), 'u' || r, 'api', (g * 7 + r * 13) % 500 + 0.5,
           ('2026-11-01T08:00:00Z'::timestamptz + (r * 13 || ' hours')::interval), ('2026-11-01'::date + (r * 13 / 24)), now()
    from generate_series(1, ${CONTRACTS}::int) g, generate_series(1, ${USAGE_PER_CONTRACT}::int) r`.execute(db);
  return companyId;
}

type Figures = {
  database: string;
  contracts: number;
  setupSeconds: number;
  runSeconds: number;
  invoices: number;
  invoicesPerSecond: number;
  files: number;
  renderBusyShare: number;
  renderMsPerInvoice: number;
  /** CPU seconds of this process (main thread and render threads) per second of the run. */
  processCpuShare: number;
  /** CPU µs per invoice: this process (Kontor: main thread and render threads; on PGlite also the database) and the PostgreSQL backends. */
  cpuUsPerInvoice: { kontor: number; database?: number };
  /** The Kontor part per thread kind: main thread, render threads, V8's garbage collection and compiler threads, the rest. */
  kontorThreadsUsPerInvoice: { main: number; render: number; v8: number; other: number };
  /** The run's peak resident size (this process: Node, the render threads and, on PGlite, the database), without the set-up's. */
  peakRssMiB: number;
  /** The set-up's peak: on PGlite, creating the new data folder (initdb) and loading the usage. */
  setupPeakRssMiB: number;
  jobsFailed: number;
  rerunSeconds: number;
  rerunInvoices: number;
};

async function measure(target: Target, work: string): Promise<Figures> {
  const t0 = performance.now();
  const handle = await (target.kind === 'postgres'
    ? openDatabase({ kind: 'postgres', url: target.url, poolSize: 8 })
    : openDatabase({ kind: 'pglite', dataDir: target.dataDir }));
  const sealer = createSealer('bench-secret');
  const dataDir = path.join(work, `data-${target.kind}`);
  const mailer = createMailer({ dataDir, sealer });
  const outside = invoicingOutside({ dataDir, sealer, mailer, renderThreads: RENDER_THREADS });
  // Render threads busy: renderings in flight beyond the threads wait in the pool's queue,
  // so the busy time is ∫ min(in flight, threads) dt.
  let renderMs = 0;
  let renders = 0;
  let inFlight = 0;
  let changedAt = performance.now();
  const step = (delta: number) => {
    const now = performance.now();
    renderMs += (now - changedAt) * Math.min(inFlight, RENDER_THREADS);
    changedAt = now;
    inFlight += delta;
  };
  const invoicing = {
    ...outside,
    liveness: localLiveness(),
    async render(doc: Parameters<typeof outside.render>[0]) {
      step(1);
      try {
        return await outside.render(doc);
      } finally {
        step(-1);
        renders += 1;
      }
    },
  };
  try {
    const companyId = await setUp(handle, sealer);
    const setupSeconds = seconds(t0);
    log(`${target.kind}: ${CONTRACTS} contracts with ${CONTRACTS * USAGE_PER_CONTRACT} usage records set up in ${setupSeconds} s`);
    // Warm the render threads (fonts parsed once), as a running server has them.
    const clock = fixedClock(`${RUN_DATE}T12:00:00Z`);
    const database = target.kind === 'postgres' ? new URL(target.url).pathname.slice(1) : undefined;
    const meter = cpuMeter(database ? { database } : {});
    const threads = threadMeter();
    const setupPeakRssMiB = peakRssMiB();
    if (!resetPeakRss()) log('the peak memory cannot be reset here: it includes the set-up');
    const t1 = performance.now();
    const summary = await runDueWork({ db: handle.db, clock, mailer, services: { invoicing } }, { asOf: RUN_DATE, concurrency: CONCURRENCY });
    const runSeconds = seconds(t1);
    const runPeakRssMiB = peakRssMiB();
    const perInvoice = meter(CONTRACTS);
    const byThread = threads();
    const us = (secondsUsed: number) => Math.round((secondsUsed * 1e6) / CONTRACTS);
    // The run's CPU only (the meter starts after the set-up).
    const processCpuShare = Math.round(((perInvoice.client * CONTRACTS) / 1e6 / runSeconds) * 100) / 100;
    const count = async (table: 'invoices' | 'invoice_files') =>
      Number(
        (
          await handle.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('company_id', '=', companyId)
            .executeTakeFirstOrThrow()
        ).n,
      );
    const invoices = await count('invoices');
    const files = await count('invoice_files');
    const t2 = performance.now();
    await runDueWork({ db: handle.db, clock, mailer, services: { invoicing } }, { asOf: RUN_DATE, concurrency: CONCURRENCY });
    const rerunSeconds = seconds(t2);
    const rerunInvoices = (await count('invoices')) - invoices;
    return {
      database: target.kind,
      contracts: CONTRACTS,
      setupSeconds,
      runSeconds,
      invoices,
      invoicesPerSecond: Math.round((invoices / runSeconds) * 10) / 10,
      files,
      renderBusyShare: Math.round((renderMs / 1000 / (runSeconds * RENDER_THREADS)) * 100) / 100,
      renderMsPerInvoice: Math.round((renderMs / Math.max(1, renders)) * 10) / 10,
      processCpuShare,
      kontorThreadsUsPerInvoice: { main: us(byThread.main), render: us(byThread.workers), v8: us(byThread.v8), other: us(byThread.other) },
      cpuUsPerInvoice: { kontor: Math.round(perInvoice.client), ...(perInvoice.database !== undefined ? { database: Math.round(perInvoice.database) } : {}) },
      peakRssMiB: runPeakRssMiB,
      setupPeakRssMiB,
      jobsFailed: summary.jobs.failed,
      rerunSeconds,
      rerunInvoices,
    };
  } finally {
    await outside.close();
    mailer.close();
    await handle.close();
  }
}

const results = await onEachTarget('billing', only, measure);

console.log('');
for (const r of results) {
  // Issue 26: ≥ 200 invoices/s on PostgreSQL, ≥ 150/s on PGlite (issue 13's were 100 s and 150 s).
  const limit = r.contracts / (r.database === 'postgres' ? 200 : 150);
  const met =
    r.runSeconds < limit && r.invoices === r.contracts && r.files === 2 * r.contracts && r.peakRssMiB < 1024 && r.rerunSeconds < 2 && r.rerunInvoices === 0;
  console.log(
    `${r.database.padEnd(8)} billing run of ${r.contracts} contracts: ${r.runSeconds} s, ${r.invoices} invoices (${r.invoicesPerSecond}/s), ${r.files} files, ` +
      `render threads busy ${Math.round(r.renderBusyShare * 100)} % of the run (${RENDER_THREADS} threads, ${r.renderMsPerInvoice} ms per invoice), this process ${r.processCpuShare} cores, CPU per invoice ${r.cpuUsPerInvoice.kontor} µs Kontor (main ${r.kontorThreadsUsPerInvoice.main}, render threads ${r.kontorThreadsUsPerInvoice.render}, V8 GC/compiler ${r.kontorThreadsUsPerInvoice.v8}, other ${r.kontorThreadsUsPerInvoice.other})${r.cpuUsPerInvoice.database !== undefined ? ` + ${r.cpuUsPerInvoice.database} µs PostgreSQL` : ' (database included)'}, peak RSS ${r.peakRssMiB} MiB (set-up ${r.setupPeakRssMiB} MiB), ` +
      `${r.jobsFailed} jobs failed; same day again ${r.rerunSeconds} s, ${r.rerunInvoices} invoices — target ${Math.round(limit)} s / 1 GiB / 2 s: ${met ? 'met' : 'MISSED'}`,
  );
}
console.log(JSON.stringify({ renderThreads: RENDER_THREADS, concurrency: CONCURRENCY, results }));
