// The statement run at scale (issue 14 figure): 2,000 partners, each with open entries of
// October making 20 statement lines, one `jobs run` as of 1 November (runDueWork, as
// `kontor jobs run --as-of 2026-11-01` does) until every statement is issued and its PDF
// stored and mailed (jobs statements.make, then statements.deliver). Target: under 30 s on
// PostgreSQL (issue 26; issue 14 had 60 s).
// Measured on PostgreSQL and PGlite.
//
//   node bench/statement-run.ts [--only pglite|postgres] [--partners 2000] [--concurrency 4] [--render-threads N]
//
// The statements render on render threads as in `kontor jobs run` (default: as many as it
// starts, defaultRenderThreads(false)); --render-threads 0 renders them on the main thread.
//
// Half the partners are businesses with an agreement on self-billing (a Gutschrift, GS-, with
// ZUGFeRD: e_invoice_format auto), half private persons (a settlement, AB-, PDF only); every
// one has an e-mail address, so its statement is also mailed (to the outbox: the company has
// no SMTP). Partners and their agreements (10 % for attributed customers) are made with the
// module operations; 20 customers per partner, two revenue events per customer paid in
// October and their entries (one per event) by SQL, the partners' kept balances set to
// their sums. The job handlers are timed (make / deliver) to show where the run's time
// goes; after the run, 20 of the stored documents are rendered alone. A second run of the
// same day must make nothing. Prints the figures and one JSON line.
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { type Database, openDatabase } from '../src/db/connection.ts';
import { localLiveness } from '../src/db/liveness.ts';
import { migrate } from '../src/db/migrate.ts';
import { type JobRegistry, jobRegistry, runDueWork } from '../src/jobs/index.ts';
import { bootstrapOrganization } from '../src/modules/access/index.ts';
import { upsertCommissionAgreement, upsertCommissionPartner } from '../src/modules/commissions/index.ts';
import { defaultRenderThreads, invoicingOutside } from '../src/modules/invoicing/outside.ts';
import { createMailer } from '../src/modules/mail/index.ts';
import '../src/modules/statements/index.ts';
import { renderStatementDocuments } from '../src/modules/statements/render/index.ts';
import type { StatementDocument } from '../src/modules/statements/statement-document.ts';
import { fixedClock } from '../src/shared/clock.ts';
import { createSealer } from '../src/shared/secrets.ts';
import { COMPANY_FILE } from '../test/helpers/company.ts';
import { runAsCommand } from './node-flags.ts';
import { type BalanceCheck, checkBalances, inPool, partnerBody, round } from './revenue-share-data.ts';
import { machineBusy, percentile } from './stats.ts';
import { onEachTarget, onlyFlag, type Target } from './targets.ts';

const RUN_DATE = '2026-11-01';
const LINES = 20;
const PAYMENTS_PER_LINE = 2;

// The run is `kontor jobs run`'s work: measured with that command's V8 flags.
runAsCommand('jobs run');

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    partners: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '4' },
    'render-threads': { type: 'string', default: String(defaultRenderThreads(false)) },
  },
});
const PARTNERS = Number(values.partners);
const CONCURRENCY = Number(values.concurrency);
const RENDER_THREADS = Number(values['render-threads']);
if (!Number.isInteger(PARTNERS) || PARTNERS < 2 || PARTNERS > 4000) throw new Error('--partners must be 2 … 4000');
if (!Number.isInteger(CONCURRENCY) || CONCURRENCY < 1 || CONCURRENCY > 32) throw new Error('--concurrency must be 1 … 32');
if (!Number.isInteger(RENDER_THREADS) || RENDER_THREADS < 0 || RENDER_THREADS > 16) throw new Error('--render-threads must be 0 … 16');
const log = (text: string) => process.stderr.write(`${text}\n`);
const since = (t0: number) => round((performance.now() - t0) / 1000, 2);

async function setUp(db: Database, setupConcurrency: number): Promise<string> {
  await migrate(db);
  const { company_id: companyId } = await bootstrapOrganization(db, createSealer('bench-secret'), {
    organizationName: 'Bench org',
    companyFile: JSON.stringify({ ...COMPANY_FILE, name: 'Provision GmbH', email: 'provision@example.com' }),
    adminEmail: `bench-${randomBytes(4).toString('hex')}@example.com`,
  });
  const clock = fixedClock('2026-10-01T08:00:00Z');
  const ref = (externalRef: string) => ({ source: 'bench', externalRef });
  const numbers = Array.from({ length: PARTNERS }, (_, i) => i + 1);
  const t0 = performance.now();
  await inPool(numbers, setupConcurrency, async (p) => {
    const kind = p % 2 === 1 ? 'gutschrift' : 'private';
    const name = kind === 'gutschrift' ? `Vertrieb ${p} GmbH` : `Erika Empfehlung ${p}`;
    await upsertCommissionPartner(db, clock, companyId, ref(`p-${p}`), partnerBody(name, kind, `partner-${p}@example.com`));
  });
  const t1 = performance.now();
  await inPool(numbers, setupConcurrency, (p) =>
    upsertCommissionAgreement(db, clock, companyId, ref(`ag-${p}`), {
      partner_ref: `p-${p}`,
      name: `Empfehlungen ${p}`,
      start_date: '2026-01-01',
      tiers: [{ from_month: 1, to_month: null, percent: 10 }],
    }),
  );
  log(`  ${PARTNERS} partners in ${since(t0)} s, their agreements in ${since(t1)} s`);
  // Statistics first: the joins below are planned against 2,000 partners and agreements, not empty tables.
  await sql`analyze`.execute(db);
  const t2 = performance.now();
  const now = new Date('2026-10-31T20:00:00Z');
  await sql`
    insert into customers (company_id, id, kundennummer, external_source, external_ref, name, customer_type)
    select ${companyId}, 'cus_bench_' || lpad(g::text, 6, '0'), 9999 + g, 'bench', 'c-' || g, 'Kunde ' || g || ' GmbH', 'business'
    from generate_series(1, ${PARTNERS * LINES}::int) g`.execute(db);
  // Partner p's customers are (p-1)·20+1 … p·20; each paid twice in October.
  await sql`
    insert into revenue_events (company_id, id, kind, external_source, external_ref, occurred_at, paid_on, net_cents, customer_id, created_at)
    select ${companyId}, 'rev_bench_' || p || '_' || k || '_' || j, 'api', 'bench', 'e-' || p || '-' || k || '-' || j,
           ('2026-10-01T09:00:00Z'::timestamptz + ((k + 7 * j) % 30 || ' days')::interval), '2026-10-01'::date + (k + 7 * j) % 30,
           10000 + (p * 7919 + k * 104729 + j * 31) % 90000, 'cus_bench_' || lpad(((p - 1) * ${LINES}::int + k)::text, 6, '0'), ${now}
    from generate_series(1, ${PARTNERS}::int) p, generate_series(1, ${LINES}::int) k, generate_series(1, ${PAYMENTS_PER_LINE}::int) j`.execute(db);
  await sql`
    insert into commission_entries (company_id, id, partner_id, agreement_id, customer_id, revenue_event_id, source_type, source_id,
                                    service_period_start, paid_at, paid_on, contract_month, percent, basis_cents, amount_cents, status,
                                    created_at, updated_at)
    select r.company_id, 'cen_' || substr(r.id, 5), a.partner_id, a.id, r.customer_id, r.id, 'revenue_event', r.external_ref,
           r.paid_on, r.occurred_at, r.paid_on, 10, '10', r.net_cents, (r.net_cents + 5) / 10, 'open', ${now}, ${now}
    from revenue_events r
    join commission_agreements a on a.company_id = r.company_id and a.external_source = 'bench' and a.external_ref = 'ag-' || split_part(r.external_ref, '-', 2)
    where r.company_id = ${companyId}`.execute(db);
  await sql`
    update commission_partners p set balance_open_cents = s.total
    from (select partner_id, sum(amount_cents) as total from commission_entries where company_id = ${companyId} group by partner_id) s
    where p.company_id = ${companyId} and p.id = s.partner_id`.execute(db);
  await sql`analyze`.execute(db);
  log(`  customers, events, entries and balances by SQL in ${since(t2)} s`);
  return companyId;
}

type JobTimes = { name: string; start: number; end: number }[];

/** The process-wide job registry with every handler timed. */
function timedRegistry(times: JobTimes): JobRegistry {
  return {
    define: (definition) => jobRegistry.define(definition),
    names: () => jobRegistry.names(),
    get(name) {
      const job = jobRegistry.get(name);
      if (!job) return job;
      return {
        ...job,
        async handler(ctx) {
          const start = performance.now();
          try {
            await job.handler(ctx);
          } finally {
            times.push({ name, start, end: performance.now() });
          }
        },
      };
    },
  };
}

export type StatementRunFigures = {
  database: 'pglite' | 'postgres';
  partners: number;
  linesPerStatement: number;
  entries: number;
  setupSeconds: number;
  busyBefore: number;
  runSeconds: number;
  /** From the start of the run until the last statement was issued (the last statements.make job ended). */
  issuedAfterSeconds: number;
  statements: number;
  byStatus: Record<string, number>;
  files: { pdf: number; xml: number };
  mails: number;
  jobsFailed: number;
  /** Σ handler time of the jobs (they overlap: CONCURRENCY at a time), and per statement. */
  makeJobSeconds: number;
  deliverJobSeconds: number;
  deliverMsPerStatement: number;
  /** Rendering alone afterwards, one after the other: ms per document. */
  renderMs: { gutschrift: number; settlement: number };
  processCpuShare: number;
  /** Peak resident memory of this process during the run (sampled every 50 ms; on PGlite the database included). */
  peakRssMiB: number;
  /** Resident memory when the run started (after the set-up; on PostgreSQL after PGlite's run when both are measured). */
  rssBeforeMiB: number;
  balances: BalanceCheck;
  rerunSeconds: number;
  rerunStatements: number;
};

async function measure(target: Target, work: string): Promise<StatementRunFigures> {
  const t0 = performance.now();
  const handle = await (target.kind === 'postgres'
    ? openDatabase({ kind: 'postgres', url: target.url, poolSize: 8 })
    : openDatabase({ kind: 'pglite', dataDir: target.dataDir }));
  const dataDir = path.join(work, `data-${target.kind}`);
  const sealer = createSealer('bench-secret');
  const mailer = createMailer({ dataDir, sealer });
  // The renderers, booking and mailboxes `kontor jobs run` hands its jobs (the statements render on its threads).
  const outside = invoicingOutside({ dataDir, sealer, mailer, renderThreads: RENDER_THREADS });
  const services = { invoicing: { ...outside, liveness: localLiveness() } };
  try {
    const db = handle.db;
    const companyId = await setUp(db, target.kind === 'postgres' ? 8 : 1);
    const setupSeconds = since(t0);
    const entries = PARTNERS * LINES * PAYMENTS_PER_LINE;
    log(`${target.kind}: ${PARTNERS} partners, ${entries} entries set up in ${setupSeconds} s`);
    const clock = fixedClock(`${RUN_DATE}T12:00:00Z`);
    const times: JobTimes = [];
    const deps = { db, clock, mailer, services, jobs: timedRegistry(times) };
    const busyBefore = await machineBusy();
    const cpuBefore = process.cpuUsage();
    // Resident memory sampled during the run: resourceUsage().maxRSS would be the process's
    // peak over everything before, PGlite's run and the set-up included.
    const rssBefore = process.memoryUsage.rss();
    let peakRss = rssBefore;
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, process.memoryUsage.rss());
    }, 50);
    const t1 = performance.now();
    const summary = await runDueWork(deps, { asOf: RUN_DATE, concurrency: CONCURRENCY }).finally(() => clearInterval(sampler));
    const runSeconds = since(t1);
    const cpu = process.cpuUsage(cpuBefore);
    const count = async (query: ReturnType<typeof sql<{ key: string; n: string }>>) =>
      Object.fromEntries((await query.execute(db)).rows.map((row) => [row.key, Number(row.n)]));
    const byStatus = await count(sql`select status as key, count(*)::text as n from commission_statements where company_id = ${companyId} group by status`);
    const files = await count(sql`select kind as key, count(*)::text as n from commission_statement_files where company_id = ${companyId} group by kind`);
    const statements = Object.values(byStatus).reduce((a, b) => a + b, 0);
    const balances = await checkBalances(db, companyId);
    let mails = 0;
    try {
      mails = readdirSync(path.join(dataDir, 'outbox', companyId)).length;
    } catch {}
    const of = (name: string) => times.filter((t) => t.name === name);
    const sum = (list: JobTimes) => list.reduce((s, t) => s + t.end - t.start, 0) / 1000;
    const deliveries = of('statements.deliver');
    // Rendering alone: 10 stored documents of each kind, one after the other.
    const docs = await sql<{ kind: string; document: StatementDocument }>`
      (select kind, document from commission_statements where company_id = ${companyId} and kind = 'self_billing' limit 10)
      union all (select kind, document from commission_statements where company_id = ${companyId} and kind = 'settlement' limit 10)`.execute(db);
    const renderMs = { gutschrift: 0, settlement: 0 };
    for (const kind of ['self_billing', 'settlement'] as const) {
      const list = docs.rows.filter((row) => row.kind === kind).map((row) => row.document);
      const ms: number[] = [];
      for (const doc of [...list, ...list]) {
        const t = performance.now();
        await renderStatementDocuments(doc);
        ms.push(performance.now() - t);
      }
      renderMs[kind === 'self_billing' ? 'gutschrift' : 'settlement'] = round(percentile(Float64Array.from(ms.slice(list.length)).sort(), 50), 1);
    }
    const t2 = performance.now();
    await runDueWork({ db, clock, mailer, services }, { asOf: RUN_DATE, concurrency: CONCURRENCY });
    const rerunSeconds = since(t2);
    const after = await count(sql`select 'all' as key, count(*)::text as n from commission_statements where company_id = ${companyId}`);
    return {
      database: target.kind,
      partners: PARTNERS,
      linesPerStatement: LINES,
      entries,
      setupSeconds,
      busyBefore: round(busyBefore),
      runSeconds,
      issuedAfterSeconds: round((Math.max(...of('statements.make').map((t) => t.end)) - t1) / 1000),
      statements,
      byStatus,
      files: { pdf: files.pdf ?? 0, xml: files.xml ?? 0 },
      mails,
      jobsFailed: summary.jobs.failed,
      makeJobSeconds: round(sum(of('statements.make'))),
      deliverJobSeconds: round(sum(deliveries)),
      deliverMsPerStatement: round((sum(deliveries) * 1000) / Math.max(1, deliveries.length), 1),
      renderMs,
      processCpuShare: round((cpu.user + cpu.system) / 1e6 / runSeconds),
      peakRssMiB: Math.round(peakRss / 1024 / 1024),
      rssBeforeMiB: Math.round(rssBefore / 1024 / 1024),
      balances,
      rerunSeconds,
      rerunStatements: (after.all ?? 0) - statements,
    };
  } finally {
    await outside.close();
    mailer.close();
    await handle.close();
  }
}

const results = await onEachTarget('statement-run', onlyFlag(values.only), measure);

console.log('');
for (const r of results) {
  const complete =
    r.statements === r.partners &&
    r.files.pdf === r.partners &&
    r.files.xml === Math.ceil(r.partners / 2) &&
    r.jobsFailed === 0 &&
    r.balances.mismatched.length === 0 &&
    r.rerunStatements === 0;
  console.log(
    `${r.database.padEnd(8)} statement run of ${r.partners} partners × ${r.linesPerStatement} lines: ${r.runSeconds} s (all issued after ${r.issuedAfterSeconds} s), ` +
      `${r.statements} statements ${JSON.stringify(r.byStatus)}, ${r.files.pdf} PDF + ${r.files.xml} XML stored, ${r.mails} mails, ${r.jobsFailed} jobs failed; ` +
      `${RENDER_THREADS} render threads; job time make ${r.makeJobSeconds} s / deliver ${r.deliverJobSeconds} s (${r.deliverMsPerStatement} ms per statement); rendering alone ${r.renderMs.gutschrift} ms (Gutschrift + ZUGFeRD) / ` +
      `${r.renderMs.settlement} ms (settlement); process ${r.processCpuShare} cores, peak RSS ${r.peakRssMiB} MiB (${r.rssBeforeMiB} MiB at the start); other CPU load before ${Math.round(r.busyBefore * 100)} %; ` +
      `same day again ${r.rerunSeconds} s, ${r.rerunStatements} statements — target 30 s: ${r.runSeconds < 30 && complete ? 'met' : 'MISSED'}`,
  );
}
console.log(JSON.stringify({ bench: 'statement-run', concurrency: CONCURRENCY, renderThreads: RENDER_THREADS, results }));
