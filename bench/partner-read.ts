// retrieveCommissionPartner with a long ledger (issue 14 figure): GET
// /v1/commission-partners/by-ref/{source}/{ref} of a partner with 1,000,000 entries. The
// balance is kept on the partner, so reading it must not depend on the ledger's length.
// Target on PostgreSQL: median < 5 ms. PGlite is measured too, for information.
//
//   node bench/partner-read.ts [--only pglite|postgres] [--entries 1000000] [--requests 2000]
//
// Per database: `kontor admin bootstrap`; in this process two partners and an agreement
// for all customers by the module operations, then by SQL one revenue event and
// `--entries` entries of the first partner (generate_series: paid over 2024–2026, 10 %
// of 100.00–999.99 EUR, all open), the partner's kept balance set to their sum, ANALYZE.
// Then `kontor serve` (KONTOR_WORKER=off) and `--requests` GETs one after the other on
// one keep-alive connection (after 200 not counted), for the partner with the entries and
// for the one without, in turn: median and p99 of each. Every answer must be 200 with the
// balance equal to the entries' sum. Prints the figures and one JSON line.
import { mkdirSync } from 'node:fs';
import { Agent, request } from 'node:http';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { openDatabase } from '../src/db/connection.ts';
import { upsertCommissionAgreement, upsertCommissionPartner } from '../src/modules/commissions/index.ts';
import { fixedClock } from '../src/shared/clock.ts';
import { bootstrap, killChildren, startServer } from './processes.ts';
import { partnerBody, round, serverEnv } from './revenue-share-data.ts';
import { machineBusy, percentile } from './stats.ts';
import { onEachTarget, onlyFlag, type Target } from './targets.ts';

const NOW = '2026-11-21T10:00:00Z';
const WARMUP = 200;

const { values } = parseArgs({
  options: { only: { type: 'string' }, entries: { type: 'string', default: '1000000' }, requests: { type: 'string', default: '2000' } },
});
const ENTRIES = Number(values.entries);
const REQUESTS = Number(values.requests);
if (!Number.isInteger(ENTRIES) || ENTRIES < 1 || ENTRIES > 5_000_000) throw new Error('--entries must be 1 … 5000000');
if (!Number.isInteger(REQUESTS) || REQUESTS < 100 || REQUESTS > 100_000) throw new Error('--requests must be 100 … 100000');
const log = (text: string) => process.stderr.write(`${text}\n`);
const since = (t0: number) => round((performance.now() - t0) / 1000, 1);

function get(agent: Agent, url: URL, apiKey: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, headers: { authorization: `Bearer ${apiKey}` } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** The partners, the agreement, one revenue event and ENTRIES entries of partner p-big; returns the entries' sum. */
async function setUp(target: Target, dataDir: string, companyId: string): Promise<number> {
  const handle =
    target.kind === 'postgres'
      ? await openDatabase({ kind: 'postgres', url: target.url, poolSize: 2 })
      : await openDatabase({ kind: 'pglite', dataDir: path.join(dataDir, 'pg') });
  try {
    const db = handle.db;
    const clock = fixedClock(NOW);
    const ref = (externalRef: string) => ({ source: 'bench', externalRef });
    const big = await upsertCommissionPartner(db, clock, companyId, ref('p-big'), partnerBody('Großpartner GmbH', 'gutschrift', null));
    await upsertCommissionPartner(db, clock, companyId, ref('p-new'), partnerBody('Neupartner GmbH', 'gutschrift', null));
    const { agreement } = await upsertCommissionAgreement(db, clock, companyId, ref('ag-big'), {
      partner_ref: 'p-big',
      start_date: '2024-01-01',
      applies_to: 'all_customers',
      tiers: [{ from_month: 1, to_month: null, percent: 10 }],
    });
    const now = new Date(NOW);
    await sql`
      insert into revenue_events (company_id, id, kind, external_source, external_ref, occurred_at, paid_on, net_cents, created_at)
      values (${companyId}, 'rev_bench', 'api', 'bench', 'e-1', '2024-01-01T10:00:00Z', '2024-01-01', 10000, ${now})`.execute(db);
    // One statement in a transaction with the foreign-key triggers off (replica role): the rows
    // reference the partner, agreement and event made above, and 3,000,000 checks would
    // make most of the set-up's time.
    await db.transaction().execute(async (trx) => {
      await sql`set local session_replication_role = replica`.execute(trx);
      await sql`
      insert into commission_entries (company_id, id, partner_id, agreement_id, revenue_event_id, source_type, source_id, service_period_start,
                                      paid_at, paid_on, contract_month, percent, basis_cents, amount_cents, status, created_at, updated_at)
      select ${companyId}, 'cen_bench' || lpad(g::text, 17, '0'), ${big.id}, ${agreement.id}, 'rev_bench', 'revenue_event', 'e-1', d, d, d,
             1 + (d - '2024-01-01'::date) / 31, '10', b, (b + 5) / 10, 'open', ${now}, ${now}
      from (select g, '2024-01-01'::date + (g % 1050) as d, 10000 + (g::bigint * 7919) % 90000 as b from generate_series(1, ${ENTRIES}::int) g) s`.execute(trx);
    });
    const sum = Number(
      (
        await sql<{
          n: string;
        }>`select sum(amount_cents)::text as n from commission_entries where company_id = ${companyId} and partner_id = ${big.id}`.execute(db)
      ).rows[0]?.n,
    );
    await sql`update commission_partners set balance_open_cents = ${sum} where company_id = ${companyId} and id = ${big.id}`.execute(db);
    await sql`analyze`.execute(db);
    return sum;
  } finally {
    await handle.close();
  }
}

type Reads = { p50Ms: number; p99Ms: number; count: number };

export type PartnerReadFigures = {
  database: 'pglite' | 'postgres';
  entries: number;
  setupSeconds: number;
  busyBefore: number;
  /** The partner with the entries, and one without any. */
  withEntries: Reads;
  withoutEntries: Reads;
};

async function measure(target: Target, work: string): Promise<PartnerReadFigures> {
  const t0 = performance.now();
  const dataDir = target.kind === 'pglite' ? target.dataDir : path.join(work, 'secret');
  mkdirSync(dataDir, { recursive: true });
  const env = serverEnv(target, NOW);
  const boot = await bootstrap(env, dataDir);
  const sum = await setUp(target, dataDir, boot.company_id);
  const setupSeconds = since(t0);
  log(`${target.kind}: ${ENTRIES} entries set up in ${setupSeconds} s`);
  const server = await startServer(env, dataDir);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const urls = {
      big: new URL(`${server.url}/v1/commission-partners/by-ref/bench/p-big`),
      none: new URL(`${server.url}/v1/commission-partners/by-ref/bench/p-new`),
    };
    const expected = { big: sum, none: 0 };
    const times = { big: [] as number[], none: [] as number[] };
    const busyBefore = await machineBusy();
    for (let i = 0; i < 2 * (WARMUP + REQUESTS); i++) {
      const which = i % 2 === 0 ? 'big' : 'none';
      const t = performance.now();
      const answer = await get(agent, urls[which], boot.api_key);
      const ms = performance.now() - t;
      const open = answer.status === 200 ? (JSON.parse(answer.body) as { balance: { open: number } }).balance.open : undefined;
      if (open !== expected[which]) throw new Error(`GET ${urls[which]}: HTTP ${answer.status}, balance ${open} (expected ${expected[which]})`);
      if (i >= 2 * WARMUP) times[which].push(ms);
    }
    const reads = (list: number[]): Reads => {
      const sorted = Float64Array.from(list).sort();
      return { p50Ms: round(percentile(sorted, 50)), p99Ms: round(percentile(sorted, 99)), count: list.length };
    };
    return {
      database: target.kind,
      entries: ENTRIES,
      setupSeconds,
      busyBefore: round(busyBefore),
      withEntries: reads(times.big),
      withoutEntries: reads(times.none),
    };
  } finally {
    agent.destroy();
    await server.stop();
  }
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    killChildren();
    process.exit(130);
  });
}
const results = await onEachTarget('partner-read', onlyFlag(values.only), measure);

console.log('');
for (const r of results) {
  const verdict = r.database === 'postgres' ? ` — target median 5 ms: ${r.withEntries.p50Ms < 5 ? 'met' : 'MISSED'}` : ' (for information)';
  console.log(
    `${r.database.padEnd(8)} retrieveCommissionPartner, ${r.withEntries.count} sequential GETs: with ${r.entries} entries p50 ${r.withEntries.p50Ms} ms, p99 ${r.withEntries.p99Ms} ms; ` +
      `without entries p50 ${r.withoutEntries.p50Ms} ms, p99 ${r.withoutEntries.p99Ms} ms; other CPU load before ${Math.round(r.busyBefore * 100)} %${verdict}`,
  );
}
console.log(JSON.stringify({ bench: 'partner-read', results }));
