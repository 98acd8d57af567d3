// The figures of a run: the targets of the foundation issue, a table for the terminal and
// bench/RESULTS.md (newest run on top, earlier runs kept under "History").
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import type { AuthOutput } from './auth-overhead.ts';
import { ROOT } from './processes.ts';
import type { Measurement } from './stats.ts';
import { SCENARIOS } from './workload.ts';

export type DatabaseResult = {
  database: 'pglite' | 'postgres';
  /** `kontor serve` on an empty data folder (PGlite only: a new cluster, from the npm-install template or initdb, plus migrations), spawn → /health. */
  firstStartMs?: number;
  /** `kontor serve` on the bootstrapped database, spawn → /health. */
  startupMs: number;
  idleRssMiB: number;
  afterLoadRssMiB: number;
  /** In the order of SCENARIOS. */
  api: Measurement[];
  ceiling: Measurement[];
  auth: AuthOutput;
};

export type Run = { date: Date; postgresVersion?: string; durationS: number; warmupS: number; databases: DatabaseResult[] };

type Target = { what: string; figure: string; goal: string; met: boolean };

const ms = (v: number) => (Number.isFinite(v) ? (v < 10 ? v.toFixed(2) : v.toFixed(1)) : '–');
const num = (v: number) => (Number.isFinite(v) ? Math.round(v).toLocaleString('en-US') : '–');
const pct = (v: number) => (Number.isFinite(v) ? `${(v * 100).toFixed(0)} %` : '–');

function packageVersion(name: string): string {
  try {
    return (JSON.parse(readFileSync(`${ROOT}node_modules/${name}/package.json`, 'utf8')) as { version: string }).version;
  } catch {
    return '?';
  }
}

function machine(run: Run): string {
  const cpu = os.cpus()[0]?.model.trim() ?? '?';
  const gib = (os.totalmem() / 1024 ** 3).toFixed(1);
  const parts = [
    `${os.availableParallelism()} cores (${cpu})`,
    `${gib} GiB memory`,
    `Linux ${os.release()}`,
    `Node ${process.version}`,
    `PGlite ${packageVersion('@electric-sql/pglite')}`,
    ...(run.postgresVersion ? [`PostgreSQL ${run.postgresVersion}`] : []),
    `autocannon ${packageVersion('autocannon')}`,
  ];
  return parts.join(', ');
}

const find = (db: DatabaseResult, mode: 'upsert' | 'get', connections: number) => {
  const i = SCENARIOS.findIndex((s) => s.mode === mode && s.connections === connections);
  return { api: db.api[i] as Measurement, ceiling: db.ceiling[i] as Measurement };
};

export function targets(run: Run): Target[] {
  const list: Target[] = [];
  for (const db of run.databases) {
    if (db.database === 'postgres') {
      const upsert = find(db, 'upsert', 16);
      const get = find(db, 'get', 16);
      const ratio = (m: { api: Measurement; ceiling: Measurement }) => m.api.rps / m.ceiling.rps;
      list.push(
        { what: 'PostgreSQL, 16 conn.: upsertCustomer API / direct SQL', figure: pct(ratio(upsert)), goal: '≥ 50 %', met: ratio(upsert) >= 0.5 },
        { what: 'PostgreSQL, 16 conn.: retrieveCustomer API / direct SQL', figure: pct(ratio(get)), goal: '≥ 60 %', met: ratio(get) >= 0.6 },
        { what: 'PostgreSQL, 16 conn.: upsertCustomer p99', figure: `${ms(upsert.api.p99)} ms`, goal: '< 25 ms', met: upsert.api.p99 < 25 },
        { what: 'PostgreSQL, 16 conn.: retrieveCustomer p99', figure: `${ms(get.api.p99)} ms`, goal: '< 25 ms', met: get.api.p99 < 25 },
      );
    }
    const name = db.database === 'pglite' ? 'PGlite' : 'PostgreSQL';
    list.push({
      what: `${name}: auth per request (cached key: SHA-256, look-up, scope check)`,
      figure: `${db.auth.warmMedianUs.toFixed(2)} µs`,
      goal: '< 200 µs',
      met: db.auth.warmMedianUs < 200,
    });
    if (db.database === 'pglite') {
      list.push({ what: 'PGlite: `kontor serve` answers /health after start', figure: `${num(db.startupMs)} ms`, goal: '< 3 s', met: db.startupMs < 3000 });
      if (db.firstStartMs !== undefined) {
        list.push({
          what: 'PGlite: first `kontor serve` on an empty data folder',
          figure: `${num(db.firstStartMs)} ms`,
          goal: '< 3 s',
          met: db.firstStartMs < 3000,
        });
      }
      const rss = Math.max(db.idleRssMiB, db.afterLoadRssMiB);
      list.push({
        what: 'PGlite: idle resident memory (after start / after load)',
        figure: `${num(db.idleRssMiB)} / ${num(db.afterLoadRssMiB)} MiB`,
        goal: '< 1024 MiB',
        met: rss < 1024,
      });
    }
  }
  return list;
}

/** A markdown table whose columns line up in a terminal too. */
function table(head: string[], rows: string[][]): string {
  const width = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(width[i] as number)).join(' | ')} |`;
  return [line(head), line(width.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** A warning when other processes kept the machine busy around the measurements. */
function busyNote(run: Run): string[] {
  const all = run.databases.flatMap((db) => [...db.api, ...db.ceiling]);
  const busy = all.filter((m) => (m.busyBefore ?? 0) > 0.3).length;
  if (busy === 0) return [];
  return [
    `Note: ${busy} of ${all.length} measurements started while other processes kept the machine more than 30 % busy; ` +
      'their throughput and latency are depressed and their ratios unreliable. CPU time per operation depends less on it. ' +
      'Run again on a quiet machine for the figures.',
    '',
  ];
}

export function render(run: Run): string {
  const title = `### ${run.date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  const intro = `${machine(run)}. ${run.durationS} s per measurement after ${run.warmupS} s of warm-up.`;

  const goals = table(
    ['target', 'figure', 'goal', 'met'],
    targets(run).map((t) => [t.what, t.figure, t.goal, t.met ? 'yes' : '**no**']),
  );

  const rows: string[][] = [];
  for (const db of run.databases) {
    SCENARIOS.forEach((s, i) => {
      const api = db.api[i] as Measurement;
      const sql = db.ceiling[i] as Measurement;
      rows.push([
        db.database === 'pglite' ? 'PGlite' : 'PostgreSQL',
        s.mode === 'upsert' ? 'upsertCustomer (PUT)' : 'retrieveCustomer (GET)',
        String(s.connections),
        num(api.rps),
        ms(api.p50),
        ms(api.p99),
        num(sql.rps),
        ms(sql.p50),
        ms(sql.p99),
        pct(api.rps / sql.rps),
        s.mode === 'upsert' ? `${pct(api.createShare ?? 0)} / ${pct(sql.createShare ?? 0)}` : '',
        `${api.errors} / ${sql.errors}`,
        `${pct(api.busyBefore ?? Number.NaN)} / ${pct(sql.busyBefore ?? Number.NaN)}`,
      ]);
    });
  }
  const load = table(
    [
      'database',
      'operation',
      'conn.',
      'API req/s',
      'API p50 ms',
      'API p99 ms',
      'SQL ops/s',
      'SQL p50 ms',
      'SQL p99 ms',
      'API/SQL',
      'creates API / SQL',
      'errors API / SQL',
      'other CPU load before API / SQL',
    ],
    rows,
  );

  const cpuRows: string[][] = [];
  const us = (v: number | undefined) => (v === undefined ? '–' : v.toFixed(0));
  const total = (c: Measurement['cpu']) => (c ? c.client + (c.server ?? 0) + (c.database ?? 0) : Number.NaN);
  for (const db of run.databases) {
    SCENARIOS.forEach((s, i) => {
      const api = (db.api[i] as Measurement).cpu;
      const sql = (db.ceiling[i] as Measurement).cpu;
      const postgres = db.database === 'postgres';
      cpuRows.push([
        postgres ? 'PostgreSQL' : 'PGlite',
        s.mode === 'upsert' ? 'upsertCustomer (PUT)' : 'retrieveCustomer (GET)',
        String(s.connections),
        `${us(api?.client)} + ${us(api?.server)}${postgres ? ` + ${us(api?.database)}` : ''} = ${us(total(api))}`,
        `${us(sql?.client)}${postgres ? ` + ${us(sql?.database)}` : ''} = ${us(total(sql))}`,
        `${num(2e6 / total(api))} / ${num(2e6 / total(sql))}`,
      ]);
    });
  }
  const cpu = table(
    [
      'database',
      'operation',
      'conn.',
      `API: load generator + kontor serve${run.databases.some((d) => d.database === 'postgres') ? ' (+ PostgreSQL)' : ''} = µs`,
      'SQL: client (+ PostgreSQL) = µs',
      'CPU bound on 2 cores, API / SQL per s',
    ],
    cpuRows,
  );

  const servers = table(
    [
      'database',
      'start → /health',
      'first start, empty folder',
      'RSS idle after start',
      'RSS idle after load',
      'auth, cached key (median / p99 of 100 × 1000 calls)',
      'auth, key loaded from the database (median / p99)',
    ],
    run.databases.map((db) => [
      db.database === 'pglite' ? 'PGlite' : 'PostgreSQL',
      `${num(db.startupMs)} ms`,
      db.firstStartMs === undefined ? '–' : `${num(db.firstStartMs)} ms`,
      `${num(db.idleRssMiB)} MiB`,
      `${num(db.afterLoadRssMiB)} MiB`,
      `${db.auth.warmMedianUs.toFixed(2)} / ${db.auth.warmP99Us.toFixed(2)} µs`,
      `${ms(db.auth.coldMedianMs)} / ${ms(db.auth.coldP99Ms)} ms`,
    ]),
  );

  return [
    title,
    '',
    intro,
    '',
    '#### Targets',
    '',
    goals,
    '',
    '#### Throughput and latency',
    '',
    load,
    '',
    ...busyNote(run),
    '#### CPU time per operation',
    '',
    cpu,
    '',
    '#### Server and authentication',
    '',
    servers,
  ].join('\n');
}

const HEAD = '# Bench results\n\nNewest run first. How to run the bench and what each number means: [README.md](README.md).\n';
const LATEST = '## Latest run';
const HISTORY = '## History';

/** Writes the run on top of `file`; what was there before moves under "History". */
export function writeResults(file: string, block: string) {
  let earlier = '';
  if (existsSync(file)) {
    const text = readFileSync(file, 'utf8');
    const latestAt = text.indexOf(LATEST);
    const historyAt = text.indexOf(HISTORY);
    if (latestAt >= 0) {
      const latest = text.slice(latestAt + LATEST.length, historyAt > latestAt ? historyAt : undefined).trim();
      const history = historyAt >= 0 ? text.slice(historyAt + HISTORY.length).trim() : '';
      earlier = [latest, history].filter(Boolean).join('\n\n');
    } else {
      // Written by hand: keep all of it but its title.
      earlier = text.replace(/^# .*\n/, '').trim();
    }
  }
  const parts = [HEAD, `${LATEST}\n\n${block.trim()}\n`];
  if (earlier) parts.push(`${HISTORY}\n\n${earlier}\n`);
  writeFileSync(file, parts.join('\n'));
}
