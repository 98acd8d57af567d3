// Usage ingest (issue 13, point 2): how many usage records per second `kontor serve`
// stores through POST /v1/contracts/by-ref/{source}/{ref}/usage, and how many repeats it
// answers as duplicates. Targets: ≥ 20,000 new records/s on PostgreSQL, ≥ 10,000 on PGlite.
//
//   node bench/usage-ingest.ts [--only pglite|postgres] [--duration 10] [--warmup 1]
//                              [--connections 4] [--cpu-prof DIR]
//
// Per database: a real `kontor serve` (PGlite in a scratch data folder, or a fresh
// PostgreSQL database `kontor_bench_<random>`, dropped after), bootstrapped by `kontor
// admin bootstrap`; a customer, a graduated usage product and an active contract from
// 2026-11-01 are created through the API. Then:
//   1. new: batches of 1000 records (unique refs, quantities with up to 3 decimals,
//      occurred_at within November 2026) over `--connections` keep-alive connections for
//      `--duration` seconds (after `--warmup` seconds of the same, not counted); every
//      answer must be 201 {recorded: 1000, duplicates: 0};
//   2. duplicates: the batches sent in phase 1 again, round robin, for `--duration`
//      seconds; every answer must be 200 {recorded: 0, duplicates: 1000}.
// At the end the server stops and the stored rows are counted: they must equal the refs
// sent. Prints records/s (and CPU µs per record of this process, the server and the
// PostgreSQL backends) per database and phase, then one JSON line.
// `measureUsageIngest` is what bench/run.ts can call.

import { mkdirSync } from 'node:fs';
import { Agent, request } from 'node:http';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { openDatabase } from '../src/db/connection.ts';
import { type CpuPerOp, cpuMeter } from './cpu.ts';
import { bootstrap, killChildren, startServer } from './processes.ts';
import { percentile } from './stats.ts';
import { onEachTarget, onlyFlag, type Target } from './targets.ts';

const NOW = '2026-11-21T10:00:00Z';
const BATCH = 1000;
const MONTH_START = Date.parse('2026-11-01T00:00:00Z');
const MONTH_SPAN = Date.parse('2026-11-30T22:00:00Z') - MONTH_START;

export type UsagePhase = {
  /** Records per second over the measured period. */
  recordsPerS: number;
  batches: number;
  records: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  /** CPU µs per record: this process (the client), the server, the PostgreSQL backends. */
  cpu: CpuPerOp;
};

export type UsageIngestResult = {
  database: 'pglite' | 'postgres';
  connections: number;
  batch: number;
  durationS: number;
  fresh: UsagePhase;
  duplicates: UsagePhase;
  refsSent: number;
  rowsStored: number;
  /** Targets: 20,000 new records/s on PostgreSQL, 10,000 on PGlite. */
  target: number;
  met: boolean;
};

export type UsageIngestOptions = {
  only?: 'pglite' | 'postgres';
  durationS?: number;
  warmupS?: number;
  connections?: number;
  cpuProfDir?: string;
  log?: (line: string) => void;
};

type Answer = { status: number; body: string };

function post(agent: Agent, url: URL, apiKey: string, body: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function put(url: string, apiKey: string, body: unknown): Promise<void> {
  const res = await fetch(url, {
    method: 'PUT',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 201 && res.status !== 200) throw new Error(`PUT ${url}: ${res.status} ${text}`);
}

/** One batch of BATCH new records, refs `{tag}-{batch}-{i}`. */
function freshBatch(tag: string, n: number): string {
  const records = new Array(BATCH);
  for (let i = 0; i < BATCH; i++) {
    records[i] = {
      external_ref: `${tag}-${n}-${i}`,
      item_ref: 'api',
      quantity: String(Math.floor(Math.random() * 100_000) / 1000),
      occurred_at: new Date(MONTH_START + Math.floor(Math.random() * MONTH_SPAN)).toISOString(),
    };
  }
  return JSON.stringify({ records });
}

/**
 * Runs `connections` loops sending what `next()` gives until `seconds` are over; each
 * answer must be `status` with the given counts. Returns the figures of what was sent.
 */
async function phase(
  send: (body: string) => Promise<Answer>,
  next: () => string,
  expect: { status: number; recorded: number; duplicates: number },
  connections: number,
  seconds: number,
  cpu: () => (operations: number) => CpuPerOp,
  onSent: (body: string) => void = () => {},
): Promise<UsagePhase> {
  const latencies: number[] = [];
  let errors = 0;
  let firstError = '';
  const meter = cpu();
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < until) {
        const body = next();
        const t0 = performance.now();
        const answer = await send(body);
        const ms = performance.now() - t0;
        const parsed = answer.status < 300 ? (JSON.parse(answer.body) as { recorded: number; duplicates: number }) : undefined;
        if (answer.status === expect.status && parsed?.recorded === expect.recorded && parsed.duplicates === expect.duplicates) {
          latencies.push(ms);
          onSent(body);
        } else {
          errors += 1;
          firstError ||= `${answer.status} ${answer.body.slice(0, 300)}`;
        }
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const records = latencies.length * BATCH;
  if (errors) throw new Error(`${errors} batches answered otherwise than ${JSON.stringify(expect)}, the first: ${firstError}`);
  const sorted = Float64Array.from(latencies).sort();
  return {
    recordsPerS: Math.round(records / elapsed),
    batches: latencies.length,
    records,
    p50Ms: Math.round(percentile(sorted, 50) * 10) / 10,
    p99Ms: Math.round(percentile(sorted, 99) * 10) / 10,
    errors,
    cpu: meter(records),
  };
}

function serverEnv(target: Target): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn', KONTOR_WORKER: 'off', KONTOR_NOW: NOW };
  delete env.DATABASE_URL;
  delete env.KONTOR_DATA;
  if (target.kind === 'postgres') env.DATABASE_URL = target.url;
  return env;
}

async function countStored(target: Target, dataDir: string): Promise<number> {
  const handle =
    target.kind === 'postgres'
      ? await openDatabase({ kind: 'postgres', url: target.url, poolSize: 1 })
      : await openDatabase({ kind: 'pglite', dataDir: path.join(dataDir, 'pg') });
  try {
    const row = await sql<{ n: number }>`select count(*)::int as n from usage_records`.execute(handle.db);
    return Number(row.rows[0]?.n ?? 0);
  } finally {
    await handle.close();
  }
}

async function measureOne(
  target: Target,
  work: string,
  options: Required<Omit<UsageIngestOptions, 'only' | 'cpuProfDir'>> & Pick<UsageIngestOptions, 'cpuProfDir'>,
) {
  const { durationS, warmupS, connections, log } = options;
  // PGlite keeps its cluster in the data folder; on PostgreSQL it holds only the sealing secret.
  const dataDir = target.kind === 'pglite' ? target.dataDir : path.join(work, 'secret');
  mkdirSync(dataDir, { recursive: true });
  let env = serverEnv(target);
  const boot = await bootstrap(env, dataDir);
  if (options.cpuProfDir) env = { ...env, NODE_OPTIONS: `${env.NODE_OPTIONS ?? ''} --cpu-prof --cpu-prof-dir=${options.cpuProfDir}/${target.kind}`.trim() };
  const server = await startServer(env, dataDir);
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  let fresh: UsagePhase;
  let duplicates: UsagePhase;
  let refsSent = 0;
  try {
    const base = `${server.url}/v1`;
    await put(`${base}/customers/by-ref/bench/kunde-1`, boot.api_key, { name: 'Nutzung GmbH' });
    await put(`${base}/products/by-ref/bench/api-calls`, boot.api_key, {
      product_number: 'API-CALLS',
      name: 'API-Aufrufe',
      unit: 'Aufrufe',
      unit_price_net: '0',
      billing_interval: 'month',
      pricing_model: 'graduated',
      tiers: [
        { from: '0', to: '10000', unit_price: '0' },
        { from: '10000', to: null, unit_price: '0.002' },
      ],
    });
    await put(`${base}/contracts/by-ref/bench/vertrag-1`, boot.api_key, {
      customer: { source: 'bench', external_ref: 'kunde-1' },
      name: 'API-Vertrag',
      billing_interval: 'month',
      start_date: '2026-11-01',
      status: 'active',
      items: [{ ref: 'api', product_ref: 'api-calls' }],
    });
    const url = new URL(`${base}/contracts/by-ref/bench/vertrag-1/usage`);
    const send = (body: string) => post(agent, url, boot.api_key, body);
    const watch = () => cpuMeter({ serverPid: server.pid, ...(target.kind === 'postgres' ? { database: new URL(target.url).pathname.slice(1) } : {}) });
    const sent: string[] = [];
    const keep = (body: string) => {
      sent.push(body);
      refsSent += BATCH;
    };
    let n = 0;
    const created = { status: 201, recorded: BATCH, duplicates: 0 };
    if (warmupS > 0) await phase(send, () => freshBatch('w', n++), created, connections, warmupS, watch, keep);
    fresh = await phase(send, () => freshBatch('u', n++), created, connections, durationS, watch, keep);
    log(`  ${target.kind}: new records ${fresh.recordsPerS}/s (${fresh.batches} batches, p50 ${fresh.p50Ms} ms, p99 ${fresh.p99Ms} ms)`);
    let i = 0;
    duplicates = await phase(send, () => sent[i++ % sent.length]!, { status: 200, recorded: 0, duplicates: BATCH }, connections, durationS, watch);
    log(`  ${target.kind}: duplicates ${duplicates.recordsPerS}/s (${duplicates.batches} batches, p50 ${duplicates.p50Ms} ms, p99 ${duplicates.p99Ms} ms)`);
  } finally {
    agent.destroy();
    await server.stop();
  }
  const rowsStored = await countStored(target, dataDir);
  if (rowsStored !== refsSent) throw new Error(`${target.kind}: ${rowsStored} usage records stored, ${refsSent} distinct refs sent`);
  const goal = target.kind === 'postgres' ? 20_000 : 10_000;
  return {
    database: target.kind,
    connections,
    batch: BATCH,
    durationS,
    fresh,
    duplicates,
    refsSent,
    rowsStored,
    target: goal,
    met: fresh.recordsPerS >= goal,
  } satisfies UsageIngestResult;
}

/** Measures usage ingest on PGlite and PostgreSQL (or the one `only` names). */
export async function measureUsageIngest(options: UsageIngestOptions = {}): Promise<UsageIngestResult[]> {
  const settings = {
    durationS: options.durationS ?? 10,
    warmupS: options.warmupS ?? 1,
    connections: options.connections ?? 4,
    log: options.log ?? ((line: string) => process.stderr.write(`${line}\n`)),
    ...(options.cpuProfDir ? { cpuProfDir: options.cpuProfDir } : {}),
  };
  return onEachTarget('usage', options.only, (target, work) => measureOne(target, work, settings));
}

const cpuText = (cpu: CpuPerOp) =>
  `CPU µs/record: client ${cpu.client.toFixed(1)}, server ${cpu.server?.toFixed(1) ?? '?'}${cpu.database !== undefined ? `, postgres ${cpu.database.toFixed(1)}` : ''}`;

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      only: { type: 'string' },
      duration: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '1' },
      connections: { type: 'string', default: '4' },
      'cpu-prof': { type: 'string' },
    },
  });
  const durationS = Number(values.duration);
  const warmupS = Number(values.warmup);
  const connections = Number(values.connections);
  if (!(durationS > 0 && durationS <= 120) || !(warmupS >= 0 && warmupS <= 30)) throw new Error('--duration must be 0–120 s and --warmup 0–30 s');
  if (!Number.isInteger(connections) || connections < 1 || connections > 64) throw new Error('--connections must be 1 … 64');
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      killChildren();
      process.exit(130);
    });
  }
  const results = await measureUsageIngest({
    only: onlyFlag(values.only),
    durationS,
    warmupS,
    connections,
    ...(values['cpu-prof'] ? { cpuProfDir: path.resolve(values['cpu-prof']) } : {}),
  });
  for (const r of results) {
    console.log(
      `${r.database.padEnd(8)} ${r.connections} connections, batches of ${r.batch}: new ${r.fresh.recordsPerS} records/s (p50 ${r.fresh.p50Ms} ms, p99 ${r.fresh.p99Ms} ms per batch; ${cpuText(r.fresh.cpu)}), ` +
        `duplicates ${r.duplicates.recordsPerS} records/s (p50 ${r.duplicates.p50Ms} ms, p99 ${r.duplicates.p99Ms} ms; ${cpuText(r.duplicates.cpu)}); ` +
        `${r.rowsStored} rows stored = ${r.refsSent} refs sent; target ${r.target}/s ${r.met ? 'met' : 'MISSED'}`,
    );
  }
  console.log(JSON.stringify({ bench: 'usage-ingest', results }));
}
