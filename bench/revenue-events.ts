// Revenue events through the API (issue 14 figure): POST /v1/revenue-events on a real
// `kontor serve`, many requests in flight, each event earning under three agreements for
// all customers. Target on PostgreSQL: ≥ 3,500 events/s (10,500 entries/s; issue 14 had 5,000). PGlite is
// measured too, for information.
//
//   node bench/revenue-events.ts [--only pglite|postgres] [--duration 10] [--warmup 2]
//                                [--connections 64] [--customers 1000] [--history 50000]
//
// Per database: `kontor admin bootstrap`; in this process three partners with one agreement
// each for all customers (10 %, 5 %, 2.5 %, anchored at the first paid revenue) by the module
// operations, `--customers` customers and `--history` earlier events of October with their
// lines, entries and anchors by SQL, then ANALYZE (see setUp). Then `kontor serve`
// (KONTOR_WORKER=off) and autocannon (in this process, the server is its own) keeps
// `--connections` requests in flight: each an event with its own external_ref, one of the
// customers, paid in November, 10.00–999.99 EUR; every answer must be 201. A warm-up first
// (its events count in the checks, not in the figures). After the load, the refs autocannon
// built but got no answer for (cut off at the end) are sent again (200 or 201); then the
// server stops and the tables must show: events stored = distinct refs sent, three entries
// per event, every partner's kept balance = the sum of its entries. Prints events/s,
// entries/s, p50/p99 and CPU per event, and one JSON line.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon, { type Request, type Result } from 'autocannon';
import { sql } from 'kysely';
import { openDatabase } from '../src/db/connection.ts';
import { upsertCommissionAgreement, upsertCommissionPartner } from '../src/modules/commissions/index.ts';
import { fixedClock } from '../src/shared/clock.ts';
import { type CpuPerOp, cpuMeter } from './cpu.ts';
import { bootstrap, killChildren, startServer } from './processes.ts';
import { type BalanceCheck, checkBalances, partnerBody, round, serverEnv } from './revenue-share-data.ts';
import { machineBusy, percentile } from './stats.ts';
import { onEachTarget, onlyFlag, type Target } from './targets.ts';

const NOW = '2026-11-21T10:00:00Z';
const AGREEMENTS = [10, 5, 2.5];
const MAX_REQUESTS = 400_000;

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '64' },
    customers: { type: 'string', default: '1000' },
    history: { type: 'string', default: '50000' },
  },
});
const DURATION = Number(values.duration);
const WARMUP = Number(values.warmup);
const CONNECTIONS = Number(values.connections);
const CUSTOMERS = Number(values.customers);
const HISTORY = Number(values.history);
if (!(DURATION > 0 && DURATION <= 120) || !(WARMUP >= 0 && WARMUP <= 30)) throw new Error('--duration must be 0–120 s and --warmup 0–30 s');
if (!Number.isInteger(CONNECTIONS) || CONNECTIONS < 1 || CONNECTIONS > 256) throw new Error('--connections must be 1 … 256');
if (!Number.isInteger(CUSTOMERS) || CUSTOMERS < 1 || CUSTOMERS > 50_000) throw new Error('--customers must be 1 … 50000');
if (!Number.isInteger(HISTORY) || HISTORY < 0 || HISTORY > 1_000_000) throw new Error('--history must be 0 … 1000000');
const log = (text: string) => process.stderr.write(`${text}\n`);

type Phase = { eventsPerS: number; entriesPerS: number; events: number; p50Ms: number; p99Ms: number; errors: number; busyBefore: number; cpu: CpuPerOp };

/** The event of number n: its own ref, a customer round robin, paid on one of 1–20 November. */
function eventBody(tag: string, n: number): string {
  return JSON.stringify({
    source: 'bench',
    external_ref: `${tag}-${n}`,
    occurred_at: new Date(Date.UTC(2026, 10, 1 + (n % 20), 8 + (n % 10), n % 60)).toISOString(),
    net_amount: `${10 + (n % 990)}.${String(n % 100).padStart(2, '0')}`,
    customer: { source: 'bench', external_ref: `c-${n % CUSTOMERS}` },
  });
}

function open(target: Target, dataDir: string) {
  return target.kind === 'postgres'
    ? openDatabase({ kind: 'postgres', url: target.url, poolSize: 2 })
    : openDatabase({ kind: 'pglite', dataDir: path.join(dataDir, 'pg') });
}

/**
 * Partners, agreements (module operations), customers and HISTORY earlier events of
 * October with their lines, entries and anchors (SQL), kept balances, ANALYZE: the tables
 * as a running system has them. (On empty tables never analyzed, the look-ups of the events
 * and the foreign-key checks of the entries are planned for empty tables and the same load
 * runs several times slower, until autovacuum analyzes them; `--history 0` shows that.)
 */
async function setUp(target: Target, dataDir: string, companyId: string): Promise<number> {
  const handle = await open(target, dataDir);
  try {
    const db = handle.db;
    const clock = fixedClock('2026-09-30T10:00:00Z');
    const ref = (externalRef: string) => ({ source: 'bench', externalRef });
    for (const [i, percent] of AGREEMENTS.entries()) {
      await upsertCommissionPartner(db, clock, companyId, ref(`p-${i}`), partnerBody(`Partner ${i} GmbH`, 'gutschrift', null));
      await upsertCommissionAgreement(db, clock, companyId, ref(`ag-${i}`), {
        partner_ref: `p-${i}`,
        start_date: '2026-01-01',
        applies_to: 'all_customers',
        tiers: [{ from_month: 1, to_month: null, percent }],
      });
    }
    const now = new Date('2026-10-31T20:00:00Z');
    await sql`
      insert into customers (company_id, id, kundennummer, external_source, external_ref, name, customer_type)
      select ${companyId}, 'cus_bench_' || g, 10000 + g, 'bench', 'c-' || g, 'Kunde ' || g || ' GmbH', 'business'
      from generate_series(0, ${CUSTOMERS - 1}::int) g`.execute(db);
    await sql`insert into number_ranges (company_id, range_key, next_value, last_value) values (${companyId}, 'customer', ${10000 + CUSTOMERS}, 69999)`.execute(
      db,
    );
    if (HISTORY > 0) {
      await sql`
        insert into revenue_events (company_id, id, kind, external_source, external_ref, occurred_at, paid_on, net_cents, customer_id, created_at)
        select ${companyId}, 'rev_hist_' || lpad(g::text, 9, '0'), 'api', 'bench', 'h-' || g, '2026-10-01T10:00:00Z'::timestamptz + (g % 30 || ' days')::interval,
               '2026-10-01'::date + g % 30, 1000 + (g * 7919) % 99000, 'cus_bench_' || (g % ${CUSTOMERS}::int), ${now}
        from generate_series(1, ${HISTORY}::int) g`.execute(db);
      await sql`
        insert into revenue_event_lines (company_id, event_id, position, net_cents)
        select company_id, id, 1, net_cents from revenue_events where company_id = ${companyId}`.execute(db);
      await sql`
        insert into commission_anchors (company_id, agreement_id, customer_key, anchor_date)
        select ${companyId}, a.id, c.id, '2026-10-01' from commission_agreements a cross join customers c
        where a.company_id = ${companyId} and c.company_id = ${companyId}`.execute(db);
      await sql`
        insert into commission_entries (company_id, id, partner_id, agreement_id, customer_id, revenue_event_id, source_type, source_id,
                                        service_period_start, paid_at, paid_on, contract_month, percent, basis_cents, amount_cents, status,
                                        created_at, updated_at)
        select r.company_id, 'cen_hist_' || a.external_ref || substr(r.id, 9), a.partner_id, a.id, r.customer_id, r.id, 'revenue_event', r.external_ref,
               r.paid_on, r.occurred_at, r.paid_on, 1, a.tiers -> 0 ->> 'percent', r.net_cents,
               round(r.net_cents * (a.tiers -> 0 ->> 'percent')::numeric / 100), 'open', ${now}, ${now}
        from revenue_events r cross join commission_agreements a
        where r.company_id = ${companyId} and a.company_id = ${companyId}
        order by r.id, a.id`.execute(db);
      await sql`
        update commission_partners p set balance_open_cents = s.total
        from (select partner_id, sum(amount_cents) as total from commission_entries where company_id = ${companyId} group by partner_id) s
        where p.company_id = ${companyId} and p.id = s.partner_id`.execute(db);
      await sql`analyze`.execute(db);
    }
    return HISTORY;
  } finally {
    await handle.close();
  }
}

type Refs = { built: number; unanswered: Map<string, string> };

/** One autocannon run of `seconds`; every answer must be 201. */
async function load(url: string, apiKey: string, tag: string, seconds: number, refs: Refs): Promise<{ latencies: number[]; errors: number; seconds: number }> {
  let n = 0;
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  const request: Request = {
    setupRequest: (req, context) => {
      const ref = `${tag}-${n}`;
      const body = eventBody(tag, n++);
      context.ref = ref;
      refs.built += 1;
      refs.unanswered.set(ref, body);
      return { ...req, method: 'POST', path: '/v1/revenue-events', headers: { ...req.headers, 'content-type': 'application/json' }, body };
    },
    onResponse: (status, body, context) => {
      refs.unanswered.delete(String(context.ref));
      if (status !== 201) firstError ??= `HTTP ${status}: ${body.slice(0, 300)}`;
    },
  };
  const result = await new Promise<Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url,
        connections: CONNECTIONS,
        duration: seconds,
        maxOverallRequests: MAX_REQUESTS,
        timeout: 10,
        headers: { authorization: `Bearer ${apiKey}` },
        requests: [request],
      },
      (error, done) => (error ? reject(error) : resolve(done)),
    );
    instance.on('response', (_client, status, _bytes, ms) => {
      if (status === 201) latencies.push(ms);
      else errors += 1;
    });
  });
  if (firstError) log(`  first failure: ${firstError}`);
  return { latencies, errors: errors + result.errors + result.timeouts, seconds: result.duration };
}

export type RevenueEventsFigures = {
  database: 'pglite' | 'postgres';
  connections: number;
  customers: number;
  agreements: number;
  /** Earlier events (and 3 × as many entries) in the tables before the load. */
  history: number;
  durationS: number;
  measured: Phase;
  refsSent: number;
  eventsStored: number;
  entriesStored: number;
  eventsWithout3Entries: number;
  balances: BalanceCheck;
};

async function measure(target: Target, work: string): Promise<RevenueEventsFigures> {
  const dataDir = target.kind === 'pglite' ? target.dataDir : path.join(work, 'secret');
  mkdirSync(dataDir, { recursive: true });
  const env = serverEnv(target, NOW);
  const boot = await bootstrap(env, dataDir);
  const history = await setUp(target, dataDir, boot.company_id);
  const server = await startServer(env, dataDir);
  const refs: Refs = { built: 0, unanswered: new Map() };
  let measured: Phase;
  try {
    const base = `${server.url}/v1`;
    if (WARMUP > 0) await load(server.url, boot.api_key, 'w', WARMUP, refs);
    // Let the server work off what the warm-up left queued (on PGlite up to ~1 s), so that
    // the busy reading and the measured period see only the measured load.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const busyBefore = await machineBusy();
    const meter = cpuMeter({ serverPid: server.pid, ...(target.kind === 'postgres' ? { database: new URL(target.url).pathname.slice(1) } : {}) });
    const run = await load(server.url, boot.api_key, 'm', DURATION, refs);
    const sorted = Float64Array.from(run.latencies).sort();
    const events = run.latencies.length;
    measured = {
      eventsPerS: Math.round(events / run.seconds),
      entriesPerS: Math.round((events * AGREEMENTS.length) / run.seconds),
      events,
      p50Ms: round(percentile(sorted, 50)),
      p99Ms: round(percentile(sorted, 99)),
      errors: run.errors,
      busyBefore: round(busyBefore),
      cpu: meter(events),
    };
    log(`  ${target.kind}: ${measured.eventsPerS} events/s (p50 ${measured.p50Ms} ms, p99 ${measured.p99Ms} ms, ${measured.errors} errors)`);
    // Requests cut off when autocannon stopped may or may not have been written: send them again.
    for (const body of refs.unanswered.values()) {
      const res = await fetch(`${base}/revenue-events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${boot.api_key}`, 'content-type': 'application/json' },
        body,
      });
      await res.arrayBuffer();
      if (res.status !== 200 && res.status !== 201) throw new Error(`resending a cut-off event: HTTP ${res.status}`);
    }
  } finally {
    await server.stop();
  }
  const handle = await open(target, dataDir);
  try {
    const number = async (query: ReturnType<typeof sql<{ n: string }>>) => Number((await query.execute(handle.db)).rows[0]?.n ?? 0);
    const eventsStored = (await number(sql<{ n: string }>`select count(*)::text as n from revenue_events where company_id = ${boot.company_id}`)) - history;
    const entriesStored =
      (await number(sql<{ n: string }>`select count(*)::text as n from commission_entries where company_id = ${boot.company_id}`)) -
      AGREEMENTS.length * history;
    const eventsWithout3Entries = await number(sql<{ n: string }>`
      select count(*)::text as n from revenue_events r
      where r.company_id = ${boot.company_id}
        and (select count(*) from commission_entries e where e.company_id = r.company_id and e.revenue_event_id = r.id) <> ${AGREEMENTS.length}::int`);
    const balances = await checkBalances(handle.db, boot.company_id);
    const problems = [
      ...(measured.errors > 0 ? [`${measured.errors} requests not answered 201`] : []),
      ...(eventsStored !== refs.built ? [`${eventsStored} events stored, ${refs.built} distinct refs sent`] : []),
      ...(entriesStored !== AGREEMENTS.length * eventsStored || eventsWithout3Entries > 0
        ? [`${entriesStored} entries for ${eventsStored} events (${eventsWithout3Entries} events without ${AGREEMENTS.length})`]
        : []),
      ...balances.mismatched,
    ];
    if (problems.length > 0) throw new Error(`${target.kind}: ${problems.join('; ')}`);
    return {
      database: target.kind,
      connections: CONNECTIONS,
      customers: CUSTOMERS,
      agreements: AGREEMENTS.length,
      history,
      durationS: DURATION,
      measured,
      refsSent: refs.built,
      eventsStored,
      entriesStored,
      eventsWithout3Entries,
      balances,
    };
  } finally {
    await handle.close();
  }
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    killChildren();
    process.exit(130);
  });
}
const results = await onEachTarget('revenue-events', onlyFlag(values.only), measure);

console.log('');
for (const r of results) {
  const m = r.measured;
  const verdict = r.database === 'postgres' ? ` — target 3,500 events/s: ${m.eventsPerS >= 3500 ? 'met' : 'MISSED'}` : ' (for information)';
  console.log(
    `${r.database.padEnd(8)} createRevenueEvent, ${r.connections} in flight, ${r.agreements} agreements for all customers: ${m.eventsPerS} events/s = ${m.entriesPerS} entries/s, ` +
      `p50 ${m.p50Ms} ms, p99 ${m.p99Ms} ms; CPU µs/event: client ${m.cpu.client.toFixed(0)}, server ${m.cpu.server?.toFixed(0) ?? '?'}` +
      `${m.cpu.database !== undefined ? `, postgres ${m.cpu.database.toFixed(0)}` : ''}; other CPU load before ${Math.round(m.busyBefore * 100)} %; ` +
      `${r.eventsStored} events stored = refs sent, ${r.entriesStored} entries, balances = Σ entries${verdict}`,
  );
}
console.log(JSON.stringify({ bench: 'revenue-events', results }));
