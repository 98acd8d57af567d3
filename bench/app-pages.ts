// The back-office app with 100,000 invoices (issue 15 figures): the invoice list's first
// page, a search by customer name and the dashboard must each answer in under 100 ms on
// the server (p95); the app's first load must stay under 300 KB of JavaScript gzipped.
//
//   node bench/app-pages.ts [--only pglite|postgres] [--invoices 100000] [--customers 5000] [--requests 300]
//
// Per database: `kontor admin bootstrap`; by SQL `--customers` customers (every 50th named
// "Müller …", the rest "Kunde n GmbH") and `--invoices` invoices over the last twelve months
// (issued, sent, partly paid, paid, a few drafts and overdue ones), then ANALYZE. Then
// `kontor serve` (KONTOR_WORKER=off), a sign-in over HTTP with the bootstrap's password
// (the forced change switched off by SQL), and per page `--requests` GETs one after the
// other on one keep-alive connection after 30 not counted: p50, p95, p99. Every answer must
// be 200 and show what the page promises (50 rows, the searched name, the tiles). The
// JavaScript of a first load is every script the pages reference, gzipped.

import { mkdirSync } from 'node:fs';
import { Agent, request } from 'node:http';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { sql } from 'kysely';
import { openDatabase } from '../src/db/connection.ts';
import { bootstrap, killChildren, startServer } from './processes.ts';
import { round, serverEnv } from './revenue-share-data.ts';
import { machineBusy, percentile } from './stats.ts';
import { onEachTarget, onlyFlag, type Target } from './targets.ts';

const NOW = '2026-11-21T10:00:00Z';
const WARMUP = 30;
/** The admin `bootstrap` (processes.ts) creates. */
const BENCH_ADMIN = 'bench@example.com';

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    invoices: { type: 'string', default: '100000' },
    customers: { type: 'string', default: '5000' },
    requests: { type: 'string', default: '300' },
  },
});
const INVOICES = Number(values.invoices);
const CUSTOMERS = Number(values.customers);
const REQUESTS = Number(values.requests);
if (!Number.isInteger(INVOICES) || INVOICES < 100 || INVOICES > 2_000_000) throw new Error('--invoices must be 100 … 2000000');
if (!Number.isInteger(CUSTOMERS) || CUSTOMERS < 10 || CUSTOMERS > 200_000) throw new Error('--customers must be 10 … 200000');
if (!Number.isInteger(REQUESTS) || REQUESTS < 50 || REQUESTS > 100_000) throw new Error('--requests must be 50 … 100000');
const log = (text: string) => process.stderr.write(`${text}\n`);

async function fill(target: Target, dataDir: string, companyId: string, userId: string): Promise<void> {
  const handle =
    target.kind === 'postgres'
      ? await openDatabase({ kind: 'postgres', url: target.url, poolSize: 2 })
      : await openDatabase({ kind: 'pglite', dataDir: path.join(dataDir, 'pg') });
  try {
    const db = handle.db;
    await sql`update users set password_change_required = false where id = ${userId}`.execute(db);
    await sql`
      insert into customers (company_id, id, kundennummer, external_source, external_ref, name, customer_type)
      select ${companyId}, 'cus_bench_' || g, 10000 + g, 'bench', 'c-' || g,
             case when g % 50 = 0 then 'Müller Handel ' || g || ' KG' else 'Kunde ' || g || ' GmbH' end, 'business'
      from generate_series(0, ${CUSTOMERS - 1}::int) g`.execute(db);
    // Twelve months back from November 2026; number by issue order; every 40th a draft.
    await sql`
      insert into invoices (company_id, id, number, status, type, customer_id, issue_date, due_date, service_period_start, service_period_end,
                            payment_terms_days, total_net_cents, total_tax_cents, total_gross_cents, amount_paid_cents, vat_verdict, e_invoice,
                            overdue, change_seq, changed_at, created_at, paid_at)
      select ${companyId}, 'inv_bench_' || lpad(g::text, 10, '0'),
             case when g % 40 = 0 then null else 'RE-' || to_char(d, 'YYYY') || '-' || lpad(g::text, 6, '0') end,
             case when g % 40 = 0 then 'draft' when g % 7 = 0 then 'sent' when g % 11 = 0 then 'partially_paid' when g % 3 = 0 then 'issued' else 'paid' end,
             'invoice', 'cus_bench_' || (g % ${CUSTOMERS}::int),
             case when g % 40 = 0 then null else d end, case when g % 40 = 0 then null else d + 14 end, d, d,
             14, net, net * 19 / 100, net + net * 19 / 100,
             case when g % 40 <> 0 and g % 7 <> 0 and g % 11 <> 0 and g % 3 <> 0 then net + net * 19 / 100 when g % 11 = 0 and g % 7 <> 0 then (net + net * 19 / 100) / 2 else 0 end,
             case when g % 40 = 0 then null else 'domestic' end, case when g % 40 = 0 then null else 'zugferd' end,
             g % 13 = 0 and g % 40 <> 0 and d < '2026-11-01', g, now(), now(),
             case when g % 40 <> 0 and g % 7 <> 0 and g % 11 <> 0 and g % 3 <> 0 then d + 10 else null end
      from (select g, '2025-12-01'::date + (g * 355 / ${INVOICES}::int) as d, 1000 + (g * 7919) % 500000 as net from generate_series(1, ${INVOICES}::int) g) x`.execute(
      db,
    );
    await sql`analyze`.execute(db);
  } finally {
    await handle.close();
  }
}

type Page = { name: string; path: string; check: (body: string) => boolean };

export type AppPagesFigures = {
  database: 'pglite' | 'postgres';
  invoices: number;
  customers: number;
  setupSeconds: number;
  pages: { page: string; path: string; p50Ms: number; p95Ms: number; p99Ms: number; busyBefore: number }[];
  jsGzipBytes: number;
};

function get(agent: Agent, url: URL, cookie: string): Promise<{ status: number; body: string; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, headers: { cookie } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function signIn(base: string, email: string, password: string): Promise<string> {
  const res = await fetch(`${base}/app/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ email, password }).toString(),
  });
  const cookie = res.headers.get('set-cookie')?.split(';')[0];
  if (res.status !== 303 || !cookie) throw new Error(`sign-in failed: ${res.status}`);
  return cookie;
}

async function measure(target: Target, work: string): Promise<AppPagesFigures> {
  const dataDir = path.join(work, target.kind);
  mkdirSync(dataDir, { recursive: true });
  const env = serverEnv(target, NOW);
  const boot = await bootstrap(env, dataDir);
  const t0 = performance.now();
  await fill(target, dataDir, boot.company_id, boot.user_id);
  const setupSeconds = round((performance.now() - t0) / 1000, 1);
  log(`${target.kind}: ${INVOICES} invoices, ${CUSTOMERS} customers in ${setupSeconds} s`);
  const server = await startServer(env, dataDir);
  try {
    const cookie = await signIn(server.url, BENCH_ADMIN, boot.user_password);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const pages: Page[] = [
      { name: 'invoice list, first page', path: '/app/invoices', check: (b) => (b.match(/<tr>/g) ?? []).length === 51 },
      { name: 'search by customer name', path: '/app/invoices?q=M%C3%BCller+Handel+250', check: (b) => b.includes('Müller Handel 250 KG') },
      { name: 'dashboard', path: '/app/dashboard', check: (b) => b.includes('tile-amount') && b.includes('<svg') },
    ];
    const results = [];
    for (const p of pages) {
      const busyBefore = await machineBusy();
      const latencies: number[] = [];
      for (let i = 0; i < WARMUP + REQUESTS; i++) {
        const t1 = performance.now();
        const res = await get(agent, new URL(p.path, server.url), cookie);
        const ms = performance.now() - t1;
        if (res.status !== 200 || !p.check(res.body)) throw new Error(`${p.name}: ${res.status} or the page does not show what it must`);
        if (i >= WARMUP) latencies.push(ms);
      }
      const sorted = Float64Array.from(latencies).sort();
      const r = {
        page: p.name,
        path: p.path,
        p50Ms: round(percentile(sorted, 50)),
        p95Ms: round(percentile(sorted, 95)),
        p99Ms: round(percentile(sorted, 99)),
        busyBefore: round(busyBefore),
      };
      log(`  ${target.kind}: ${p.name}: p50 ${r.p50Ms} ms, p95 ${r.p95Ms} ms, p99 ${r.p99Ms} ms (other CPU load before ${Math.round(busyBefore * 100)} %)`);
      results.push(r);
    }
    // The JavaScript a first load fetches: every script the dashboard references.
    const dashboard = await get(agent, new URL('/app/dashboard', server.url), cookie);
    let jsGzipBytes = 0;
    for (const m of dashboard.body.matchAll(/<script[^>]*src="([^"]+)"/g))
      jsGzipBytes += gzipSync((await get(agent, new URL(m[1] as string, server.url), cookie)).body).length;
    log(`  ${target.kind}: JavaScript of a first load: ${jsGzipBytes} bytes gzipped`);
    agent.destroy();
    return { database: target.kind, invoices: INVOICES, customers: CUSTOMERS, setupSeconds, pages: results, jsGzipBytes };
  } finally {
    await server.stop();
  }
}

if (import.meta.main) {
  process.on('exit', killChildren);
  const results = await onEachTarget('app-pages', onlyFlag(values.only), measure);
  console.log(JSON.stringify({ bench: 'app-pages', results }));
}
