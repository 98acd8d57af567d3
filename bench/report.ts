// The figures of a run: the targets of the foundation and invoices issues, a table for the terminal and
// bench/RESULTS.md (newest run on top, earlier runs kept under "History").
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import type { AuthOutput } from './auth-overhead.ts';
import type { InvoiceScenario } from './invoices-load.ts';
import type { PairedOutput } from './issue-paired.ts';
import { ROOT } from './processes.ts';
import type { RenderOutput } from './render-alone.ts';
import type { Measurement } from './stats.ts';
import { SCENARIOS } from './workload.ts';

export type DatabaseResult = {
  database: 'pglite' | 'postgres';
  /** `kontor serve` on an empty data folder (PGlite only: a new cluster, from the npm-install template or initdb, plus migrations), spawn → /health. */
  firstStartMs?: number;
  /** `kontor serve` on the bootstrapped database, spawn → /health. */
  startupMs: number;
  idleRssMiB: number;
  /** After the customer load (or, with --only-invoices, after the invoice load). */
  afterLoadRssMiB: number;
  /** In the order of SCENARIOS; empty with --only-invoices. */
  api: Measurement[];
  ceiling: Measurement[];
  /** Absent with --only-invoices. */
  auth?: AuthOutput;
  /** The createInvoice phase; absent with --skip-invoices. */
  invoices?: InvoiceResult;
};

/** createInvoice (invoices-load.ts), the rendering alone (render-alone.ts), both in turn (issue-paired.ts). */
export type InvoiceResult = Record<InvoiceScenario, Measurement> & { rendering: RenderOutput; paired: PairedOutput };

/** full request (issue=true, 1 connection) / rendering alone, both medians, measured in turn. */
export const renderRatio = (inv: InvoiceResult) => inv.paired.requestP50 / inv.paired.renderP50;

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

export function machine(run: Run): string {
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
    if (db.database === 'postgres' && db.api.length > 0) {
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
    if (db.auth) {
      list.push({
        what: `${name}: auth per request (cached key: SHA-256, look-up, scope check)`,
        figure: `${db.auth.warmMedianUs.toFixed(2)} µs`,
        goal: '< 200 µs',
        met: db.auth.warmMedianUs < 200,
      });
    }
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
    if (db.invoices) list.push(...invoiceTargets(name, db.invoices));
  }
  return list;
}

/** The invoices issue's figures; a run with errors (non-2xx, failed replay checks) misses its target. */
function invoiceTargets(name: string, inv: InvoiceResult): Target[] {
  type Counted = Pick<Measurement, 'errors' | 'count'>;
  const errors = (m: Counted) => (m.errors > 0 ? ` (${m.errors} errors)` : '');
  const item = (what: string, m: Counted, figure: string, goal: string, ok: boolean): Target => ({
    what: `${name}: ${what}`,
    figure: figure + errors(m),
    goal,
    met: ok && m.errors === 0 && m.count > 0,
  });
  const issue1 = inv['issue-c1'];
  const issue8 = inv['issue-c8'];
  const draft = inv['draft-c1'];
  const replay = inv['replay-c1'];
  const ratio = renderRatio(inv);
  return [
    item('createInvoice issue=true, 10 lines, PDF + ZUGFeRD, 1 conn.: median', issue1, `${ms(issue1.p50)} ms`, '< 40 ms', issue1.p50 < 40),
    item('createInvoice issue=true, 10 lines, 8 conn.: issued invoices/s', issue8, `${issue8.rps.toFixed(1)} /s`, '≥ 40 /s', issue8.rps >= 40),
    item('createInvoice draft (issue=false), 1 conn.: median', draft, `${ms(draft.p50)} ms`, '< 8 ms', draft.p50 < 8),
    item('createInvoice idempotent replay, 1 conn.: median', replay, `${ms(replay.p50)} ms`, '< 3 ms', replay.p50 < 3),
    item(
      'createInvoice issue=true (1 conn.) / rendering alone, medians, measured in turn',
      { errors: inv.paired.errors, count: inv.paired.requests },
      `${ms(inv.paired.requestP50)} / ${ms(inv.paired.renderP50)} ms = ${ratio.toFixed(2)}`,
      '< 1.5',
      ratio < 1.5,
    ),
  ];
}

/** A markdown table whose columns line up in a terminal too. */
function table(head: string[], rows: string[][]): string {
  const width = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(width[i] as number)).join(' | ')} |`;
  return [line(head), line(width.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

const INVOICE_ROWS: { key: InvoiceScenario; what: string; connections: number }[] = [
  { key: 'issue-c1', what: 'issue=true, 10 lines (PDF + ZUGFeRD)', connections: 1 },
  { key: 'issue-c8', what: 'issue=true, 10 lines (PDF + ZUGFeRD)', connections: 8 },
  { key: 'draft-c1', what: 'draft (issue=false), 10 lines', connections: 1 },
  { key: 'replay-c1', what: 'idempotent replay (200, Idempotent-Replayed)', connections: 1 },
];

function invoiceTables(run: Run): string[] {
  const dbs = run.databases.filter((db) => db.invoices);
  if (dbs.length === 0) return [];
  const us = (v: number | undefined) => (v === undefined ? '–' : v.toFixed(0));
  const rows: string[][] = [];
  for (const db of dbs) {
    const inv = db.invoices as InvoiceResult;
    const postgres = db.database === 'postgres';
    for (const r of INVOICE_ROWS) {
      const m = inv[r.key];
      const c = m.cpu;
      const total = c ? c.client + (c.server ?? 0) + (c.database ?? 0) : Number.NaN;
      rows.push([
        postgres ? 'PostgreSQL' : 'PGlite',
        r.what,
        String(r.connections),
        m.rps.toFixed(1),
        ms(m.p50),
        ms(m.p99),
        num(m.count),
        String(m.errors),
        `${us(c?.client)} + ${us(c?.server)}${postgres ? ` + ${us(c?.database)}` : ''} = ${us(total)}`,
        pct(m.busyBefore ?? Number.NaN),
      ]);
    }
    const g = inv.rendering;
    rows.push([
      postgres ? 'PostgreSQL' : 'PGlite',
      `rendering alone (in-process, ${g.lines} lines, PDF ${num(g.pdfBytes / 1024)} KiB + XML ${num(g.xmlBytes / 1024)} KiB)`,
      '1 thread',
      g.docsPerS.toFixed(1),
      ms(g.p50),
      ms(g.p99),
      num(g.count),
      '0',
      `${us(g.cpuUs)}`,
      '',
    ]);
    const p = inv.paired;
    rows.push([
      postgres ? 'PostgreSQL' : 'PGlite',
      `in turn, 1 s each: issue=true / rendering alone (the ratio; ${p.turns} turns)`,
      '1',
      '',
      `${ms(p.requestP50)} / ${ms(p.renderP50)}`,
      `${ms(p.requestP99)} / ${ms(p.renderP99)}`,
      `${num(p.requests)} / ${num(p.renders)}`,
      String(p.errors),
      '',
      '',
    ]);
  }
  const table1 = table(
    [
      'database',
      'createInvoice',
      'conn.',
      'per s',
      'p50 ms',
      'p99 ms',
      'count',
      'errors',
      `CPU µs per request: load generator + kontor serve${dbs.some((d) => d.database === 'postgres') ? ' (+ PostgreSQL)' : ''}`,
      'other CPU load before',
    ],
    rows,
  );
  return [
    '#### Invoices',
    '',
    'createInvoice for a 10-line business customer (`POST /v1/invoices`, unique Idempotency-Key and external_ref per request, `send: false`), ' +
      'and `renderInvoiceDocuments` alone for the 10-line ZUGFeRD fixture of the renderer tests. ' +
      'The ratio comes from the row "in turn": requests for a second, then renderings alone for a second, and so on (issue-paired.ts), ' +
      'so that both medians meet the same machine speed. ' +
      `Ratio full request / rendering alone (medians, in turn): ${dbs.map((db) => `${db.database === 'pglite' ? 'PGlite' : 'PostgreSQL'} ${renderRatio(db.invoices as InvoiceResult).toFixed(2)}`).join(', ')}.`,
    '',
    table1,
    '',
  ];
}

/** A warning when other processes kept the machine busy around the measurements. */
function busyNote(run: Run): string[] {
  const all = run.databases.flatMap((db) => [...db.api, ...db.ceiling, ...(db.invoices ? INVOICE_ROWS.map((r) => db.invoices![r.key]) : [])]);
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
  const phases = run.databases.every((db) => db.api.length === 0)
    ? ' Invoice phase only (`--only-invoices`).'
    : run.databases.every((db) => !db.invoices)
      ? ' Without the invoice phase (`--skip-invoices`).'
      : '';
  const intro = `${machine(run)}. ${run.durationS} s per measurement after ${run.warmupS} s of warm-up.${phases}`;

  const goals = table(
    ['target', 'figure', 'goal', 'met'],
    targets(run).map((t) => [t.what, t.figure, t.goal, t.met ? 'yes' : '**no**']),
  );

  const customerDbs = run.databases.filter((db) => db.api.length > 0);
  const rows: string[][] = [];
  for (const db of customerDbs) {
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
  for (const db of customerDbs) {
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
      db.auth ? `${db.auth.warmMedianUs.toFixed(2)} / ${db.auth.warmP99Us.toFixed(2)} µs` : '–',
      db.auth ? `${ms(db.auth.coldMedianMs)} / ${ms(db.auth.coldP99Ms)} ms` : '–',
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
    ...(customerDbs.length > 0 ? ['#### Throughput and latency', '', load, ''] : []),
    ...busyNote(run),
    ...invoiceTables(run),
    ...(customerDbs.length > 0 ? ['#### CPU time per operation', '', cpu, ''] : []),
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
