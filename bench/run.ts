// `npm run bench`: measures Kontor's API against the ceiling of the same SQL sent directly
// through the driver, on PGlite and on PostgreSQL; see bench/README.md.
// Flags: --only pglite|postgres, --duration S (per measurement, default 8), --warmup S
// (default 1), --no-write (print only, leave RESULTS.md as it is), --only-invoices /
// --skip-invoices (the createInvoice phase alone / left out), --only-background /
// --skip-background (bank import, webhooks and dunning run alone / left out; see
// background-work.ts), --cpu-prof DIR (CPU profiles of the measured `kontor serve`
// processes into DIR).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import type { AuthInput, AuthOutput } from './auth-overhead.ts';
import { type BackgroundResult, backgroundTargets, measureBackgroundWork, renderBackground } from './background-work.ts';
import type { CeilingInput, Target } from './ceiling.ts';
import type { InvoiceLoadInput, InvoiceLoadOutput } from './invoices-load.ts';
import type { PairedInput, PairedOutput } from './issue-paired.ts';
import type { LoadInput, PrefillInput } from './load.ts';
import { type BootstrapResult, bootstrap, killChildren, ROOT, residentMiB, runNode, startServer } from './processes.ts';
import type { RenderInput, RenderOutput } from './render-alone.ts';
import { type DatabaseResult, type InvoiceResult, machine, type Run, render, targets, writeResults } from './report.ts';
import { lastJsonLine, type Measurement } from './stats.ts';
import { SCENARIOS, type Scenario } from './workload.ts';

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    duration: { type: 'string', default: '8' },
    warmup: { type: 'string', default: '1' },
    'no-write': { type: 'boolean', default: false },
    'only-invoices': { type: 'boolean', default: false },
    'skip-invoices': { type: 'boolean', default: false },
    'only-background': { type: 'boolean', default: false },
    'skip-background': { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
  },
});
if (values['only-invoices'] && values['skip-invoices']) throw new Error('--only-invoices and --skip-invoices exclude each other');
if (values['only-background'] && (values['skip-background'] || values['only-invoices']))
  throw new Error('--only-background excludes --skip-background and --only-invoices');
/** The API phases (customers, invoices) and the issue-4 background work. */
const withApi = !values['only-background'];
const withBackground = !values['skip-background'] && !values['only-invoices'];
/** The customer measurements (API load, ceiling, authentication). */
const withCustomers = !values['only-invoices'];
const withInvoices = !values['skip-invoices'];
const cpuProfDir = values['cpu-prof'] ? path.resolve(values['cpu-prof']) : undefined;
const only = values.only;
if (only !== undefined && only !== 'pglite' && only !== 'postgres') throw new Error('--only must be pglite or postgres');
const durationS = Number(values.duration);
const warmupS = Number(values.warmup);
if (!(durationS > 0 && durationS <= 120) || !(warmupS >= 0 && warmupS <= 30)) throw new Error('--duration must be 0–120 s and --warmup 0–30 s');
if (Number(process.versions.node.split('.')[0]) < 24) throw new Error(`run the bench with Node 24 (npm run bench), not ${process.version}`);

const SERVER_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/** How long the server idles before its resident memory is read. */
const IDLE_MS = 2000;
const script = (name: string) => path.join(ROOT, 'bench', name);
const log = (text: string) => process.stderr.write(`${text}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// Undone in reverse order at the end, also when the run fails or is interrupted.
const cleanups: (() => Promise<unknown> | unknown)[] = [];
async function cleanUp() {
  for (let undo = cleanups.pop(); undo; undo = cleanups.pop()) {
    try {
      await undo();
    } catch (error) {
      log(`cleanup: ${(error as Error).message}`);
    }
  }
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    killChildren();
    void cleanUp().finally(() => process.exit(130));
  });
}

function serverEnv(databaseUrl?: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn', KONTOR_WORKER: 'off' };
  delete env.DATABASE_URL;
  delete env.KONTOR_DATA;
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  return env;
}

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'kontor-bench-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const runScenarios = <T>(name: string, input: object) =>
  runNode([script(name), JSON.stringify(input)], process.env, SCENARIOS.length * (durationS + warmupS) * 1000 + 90_000, 'inherit').then(lastJsonLine<T>);

/**
 * The createInvoice phase on the running server (load.ts's customer runs are over): the
 * invoice load in its own process, then, the server idle, the rendering alone in another,
 * then issuing requests and the rendering alone in turn (issue-paired.ts, the ratio).
 */
async function measureInvoices(server: { url: string; pid: number }, boot: BootstrapResult, watch: { database?: string }): Promise<InvoiceResult> {
  const input: InvoiceLoadInput = {
    url: server.url,
    apiKey: boot.api_key,
    duration: durationS,
    warmup: warmupS,
    tag: `inv${randomBytes(3).toString('hex')}`,
    watch: { ...watch, serverPid: server.pid },
  };
  const load = lastJsonLine<InvoiceLoadOutput>(
    await runNode([script('invoices-load.ts'), JSON.stringify(input)], process.env, 4 * (durationS + warmupS) * 1000 + 120_000, 'inherit'),
  );
  const renderInput: RenderInput = { duration: durationS, warmup: warmupS };
  const rendering = lastJsonLine<RenderOutput>(
    await runNode([script('render-alone.ts'), JSON.stringify(renderInput)], process.env, (durationS + warmupS) * 1000 + 60_000, 'inherit'),
  );
  const pairedInput: PairedInput = { url: server.url, apiKey: boot.api_key, duration: durationS, warmup: warmupS, tag: input.tag };
  const paired = lastJsonLine<PairedOutput>(
    await runNode([script('issue-paired.ts'), JSON.stringify(pairedInput)], process.env, (2 * durationS + warmupS) * 1000 + 60_000, 'inherit'),
  );
  return { ...load.results, rendering, paired };
}

/** Server start, memory, the API load, the invoice phase, then (server stopped) the ceiling and the auth cost. */
async function measure(database: DatabaseResult['database'], env: NodeJS.ProcessEnv, dataDir: string, boot: BootstrapResult, target: Target) {
  const serveEnv = cpuProfDir ? { ...env, NODE_OPTIONS: `${env.NODE_OPTIONS ?? ''} --cpu-prof --cpu-prof-dir=${cpuProfDir}`.trim() } : env;
  const server = await startServer(serveEnv, dataDir);
  cleanups.push(() => server.stop()); // a second stop does nothing
  log(`  kontor serve answered /health after ${server.startupMs.toFixed(0)} ms`);
  await sleep(IDLE_MS);
  const idleRssMiB = residentMiB(server.pid);
  const tag = randomBytes(3).toString('hex');
  const dbName = target.kind === 'postgres' ? new URL(target.url).pathname.slice(1) : undefined;
  const watch = dbName ? { database: dbName } : {};
  if (!withCustomers) {
    const invoices = await measureInvoices(server, boot, watch);
    await sleep(IDLE_MS);
    const afterLoadRssMiB = residentMiB(server.pid);
    await server.stop();
    return { database, startupMs: server.startupMs, idleRssMiB, afterLoadRssMiB, api: [], ceiling: [], invoices } satisfies DatabaseResult;
  }

  const prefill: PrefillInput = { prefill: true, url: server.url, apiKey: boot.api_key };
  await runNode([script('load.ts'), JSON.stringify(prefill)], process.env, 120_000);
  const common = { duration: durationS, warmup: warmupS, scenarios: SCENARIOS };
  const load: LoadInput = { ...common, url: server.url, apiKey: boot.api_key, tag: `api${tag}`, watch: { ...watch, serverPid: server.pid } };
  const sql: CeilingInput = { ...common, target, companyId: boot.company_id, tag: `sql${tag}`, watch };
  const apiRuns = (scenarios: Scenario[]) => runScenarios<{ results: Measurement[] }>('load.ts', { ...load, scenarios }).then((r) => r.results);
  const sqlRuns = (scenarios: Scenario[]) => runScenarios<{ results: Measurement[] }>('ceiling.ts', { ...sql, scenarios }).then((r) => r.results);
  const api: Measurement[] = [];
  const ceiling: Measurement[] = [];
  let afterLoadRssMiB: number;
  let invoices: InvoiceResult | undefined;
  if (database === 'postgres') {
    // Each API run right next to its ceiling run, so that both meet the same background
    // load on a shared machine; the idle server stays up meanwhile.
    for (const scenario of SCENARIOS) {
      api.push(...(await apiRuns([scenario])));
      ceiling.push(...(await sqlRuns([scenario])));
    }
    afterLoadRssMiB = residentMiB(server.pid);
    if (withInvoices) invoices = await measureInvoices(server, boot, watch);
    await server.stop();
  } else {
    api.push(...(await apiRuns(SCENARIOS)));
    await sleep(IDLE_MS);
    afterLoadRssMiB = residentMiB(server.pid);
    if (withInvoices) invoices = await measureInvoices(server, boot, watch);
    await server.stop(); // PGlite's data folder belongs to one process
    ceiling.push(...(await sqlRuns(SCENARIOS)));
  }
  const authInput: AuthInput = { target, apiKey: boot.api_key };
  const auth = lastJsonLine<AuthOutput>(await runNode([script('auth-overhead.ts'), JSON.stringify(authInput)], process.env, 120_000));
  log(`  auth: ${auth.warmMedianUs.toFixed(2)} µs cached, ${auth.coldMedianMs.toFixed(2)} ms loaded`);
  return { database, startupMs: server.startupMs, idleRssMiB, afterLoadRssMiB, api, ceiling, auth, ...(invoices ? { invoices } : {}) } satisfies DatabaseResult;
}

async function benchPglite(): Promise<DatabaseResult> {
  log('PGlite (embedded database in a temporary data folder)');
  const dataDir = path.join(tempDir(), 'data');
  const env = serverEnv();
  const first = await startServer(env, dataDir);
  await first.stop();
  log(`  first start on an empty data folder answered /health after ${first.startupMs.toFixed(0)} ms`);
  const boot = await bootstrap(env, dataDir);
  const result = await measure('pglite', env, dataDir, boot, { kind: 'pglite', dataDir: path.join(dataDir, 'pg') });
  return { ...result, firstStartMs: first.startupMs };
}

async function benchPostgres(): Promise<{ result: DatabaseResult; version: string }> {
  const name = `kontor_bench_${randomBytes(6).toString('hex')}`;
  log(`PostgreSQL (database ${name}, dropped afterwards)`);
  const admin = new pg.Client({ connectionString: SERVER_URL });
  await admin.connect();
  const version = String((await admin.query('show server_version')).rows[0]?.server_version);
  await admin.query(`create database ${name}`);
  await admin.end();
  cleanups.push(async () => {
    const dropper = new pg.Client({ connectionString: SERVER_URL });
    await dropper.connect();
    await dropper.query(`drop database if exists ${name} with (force)`);
    await dropper.end();
  });
  const url = new URL(SERVER_URL);
  url.pathname = `/${name}`;
  const env = serverEnv(url.toString());
  // --data only holds the sealing secret here.
  const dataDir = path.join(tempDir(), 'data');
  const boot = await bootstrap(env, dataDir);
  return { result: await measure('postgres', env, dataDir, boot, { kind: 'postgres', url: url.toString() }), version };
}

const started = Date.now();
const run: Run = { date: new Date(), durationS, warmupS, databases: [] };
if (cpuProfDir) log(`CPU profiles of kontor serve go to ${cpuProfDir}`);
let background: BackgroundResult | undefined;
try {
  if (withApi && only !== 'postgres') run.databases.push(await benchPglite());
  if (withApi && only !== 'pglite') {
    const { result, version } = await benchPostgres();
    run.databases.push(result);
    run.postgresVersion = version;
  }
  if (withBackground) background = await measureBackgroundWork(only, log);
} finally {
  await cleanUp();
}

const block = [
  withApi ? render(run) : `### ${run.date.toISOString().slice(0, 16).replace('T', ' ')} UTC\n\n${machine(run)}. Issue 4 figures only (\`--only-background\`).`,
  ...(background ? [renderBackground(background)] : []),
].join('\n\n');
process.stdout.write(`\n${block}\n\n`);
const missed = (withApi ? targets(run) : []).filter((t) => !t.met).length + (background ? backgroundTargets(background) : []).filter((t) => !t.met).length;
log(`bench took ${((Date.now() - started) / 1000).toFixed(0)} s; ${missed === 0 ? 'every target met' : `${missed} target(s) missed`}`);
if (!values['no-write']) {
  writeResults(path.join(ROOT, 'bench', 'RESULTS.md'), block);
  log('written to bench/RESULTS.md');
}
