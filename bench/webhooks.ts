// Webhook delivery throughput and lag: one company, one endpoint at a local receiver in a
// child process, ONE worker (the real delivery loop of `kontor serve`/`kontor worker`).
//
//   node bench/webhooks.ts [--only pglite|postgres] [--events 20000] [--rate 500] [--seconds 20]
//
// Per database:
//   1. backlog: `--events` events recorded through recordEvent in transactions of 500
//      while no worker runs; then the worker starts and the time until the receiver has
//      them all gives the sustained delivery rate (events/s);
//   2. steady: the worker runs while events are recorded at `--rate` per second (a
//      transaction of rate/10 every 100 ms) for `--seconds`; lag = arrival at the receiver
//      − commit of the event's transaction (p50/p99/max).
// The receiver answers 204 at once, verifies the first request's signature, and counts
// arrivals per webhook-id (a duplicate would show). Prints a summary and, last, one JSON line.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { type DatabaseHandle, openDatabase } from '../src/db/connection.ts';
import { migrate } from '../src/db/migrate.ts';
import { inTransaction } from '../src/db/transaction.ts';
import { writeTemplate } from '../src/db/write-template.ts';
import { recordEvent } from '../src/jobs/index.ts';
import { addWebhookEndpoint, webhookDelivery } from '../src/modules/webhooks/index.ts';
import { fixedClock } from '../src/shared/clock.ts';
import { newId } from '../src/shared/ids.ts';
import { createSealer } from '../src/shared/secrets.ts';
import { freshServerDatabase } from '../test/helpers/database.ts';

type Arrival = [id: string, at: number];

// ---- the receiver (child process) -------------------------------------------------------
if (process.argv[2] === '--receiver') {
  let verifier: Webhook | undefined;
  let verified: boolean | null = null;
  let arrivals: Arrival[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const at = Date.now();
      const id = String(request.headers['webhook-id']);
      arrivals.push([id, at]);
      if (verified === null && verifier) {
        try {
          verifier.verify(Buffer.concat(chunks).toString('utf8'), request.headers as Record<string, string>);
          verified = true;
        } catch {
          verified = false;
        }
      }
      response.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 30_000;
  process.on('message', (message: { secret?: string; dump?: boolean; count?: boolean }) => {
    if (message.secret) {
      verifier = new Webhook(message.secret);
      verified = null;
    }
    if (message.count) process.send!({ count: arrivals.length });
    if (message.dump) {
      process.send!({ arrivals, verified });
      arrivals = [];
    }
  });
  process.on('disconnect', () => process.exit(0));
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
}

// ---- the bench ----------------------------------------------------------------------------
type Figures = {
  events: number;
  backlog_events_per_s: number;
  backlog_seconds: number;
  steady_rate_target: number;
  steady_rate_recorded: number;
  steady_events: number;
  lag_p50_ms: number;
  lag_p99_ms: number;
  lag_max_ms: number;
  duplicates: number;
  signature_ok: boolean;
};

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function ask<T>(child: ChildProcess, message: object, key: string): Promise<T> {
  return new Promise((resolve) => {
    const listener = (reply: Record<string, unknown>) => {
      if (key in reply) {
        child.off('message', listener);
        resolve(reply as T);
      }
    };
    child.on('message', listener);
    child.send(message);
  });
}

async function database(kind: 'pglite' | 'postgres'): Promise<DatabaseHandle> {
  if (kind === 'pglite') {
    return openDatabase({ kind: 'pglite', loadDataDir: new Blob([readFileSync(await writeTemplate())]) });
  }
  const server = await freshServerDatabase('kontor_bench_webhooks');
  const handle = await openDatabase({ kind: 'postgres', url: server.url });
  await migrate(handle.db);
  return {
    ...handle,
    close: async () => {
      await handle.close();
      await server.drop();
    },
  };
}

async function waitForCount(receiver: ChildProcess, n: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const { count } = await ask<{ count: number }>(receiver, { count: true }, 'count');
    if (count >= n) return true;
    await sleep(20);
  }
  return false;
}

async function run(kind: 'pglite' | 'postgres', receiver: ChildProcess, port: number): Promise<Figures> {
  const events = Number(flag('events', '20000'));
  const rate = Number(flag('rate', '500'));
  const seconds = Number(flag('seconds', '20'));
  const handle = await database(kind);
  const db = handle.db;
  const sealer = createSealer('bench-secret');
  const clock = fixedClock(new Date());
  try {
    const organizationId = newId('org');
    const companyId = newId('com');
    await db.insertInto('organizations').values({ id: organizationId, name: 'Webhook bench' }).execute();
    await db.insertInto('companies').values({ id: companyId, organization_id: organizationId, name: 'Webhook Bench GmbH' }).execute();
    const { secret } = await addWebhookEndpoint(db, clock, sealer, { companyId, url: `http://127.0.0.1:${port}/hook` });
    await ask(receiver, { secret, dump: true }, 'arrivals'); // resets the receiver
    const data = { id: 'inv_bench', number: 'RE-2026-00001', status: 'paid', total_gross: '119.00', external_ref: 'bench' };

    // 1. Backlog.
    for (let done = 0; done < events; done += 500) {
      await inTransaction(db, async (trx) => {
        for (let i = done; i < Math.min(events, done + 500); i++) await recordEvent(trx, { companyId, type: 'invoice.paid', data: { ...data, i } });
      });
    }
    const log = (message: string) => process.stderr.write(`  worker: ${message}\n`);
    const worker = webhookDelivery({ db, sealer }, { log }).start();
    const started = performance.now();
    const complete = await waitForCount(receiver, events, 600_000);
    const backlogSeconds = (performance.now() - started) / 1000;
    const backlog = await ask<{ arrivals: Arrival[]; verified: boolean | null }>(receiver, { dump: true }, 'arrivals');
    if (!complete) log(`backlog incomplete: ${backlog.arrivals.length} of ${events}`);

    // 2. Steady rate with the worker running.
    const committedAt = new Map<string, number>();
    const perTick = Math.max(1, Math.round(rate / 10));
    const steadyStart = performance.now();
    let tick = 0;
    while (performance.now() - steadyStart < seconds * 1000) {
      const ids = await inTransaction(db, async (trx) => {
        const batch: string[] = [];
        for (let i = 0; i < perTick; i++) batch.push(await recordEvent(trx, { companyId, type: 'invoice.paid', data: { ...data, tick, i } }));
        return batch;
      });
      const at = Date.now();
      for (const id of ids) committedAt.set(id, at);
      tick += 1;
      const nextAt = steadyStart + tick * 100;
      const wait = nextAt - performance.now();
      if (wait > 0) await sleep(wait);
    }
    const steadySeconds = (performance.now() - steadyStart) / 1000;
    await waitForCount(receiver, committedAt.size, 120_000);
    await worker.stop();
    const steady = await ask<{ arrivals: Arrival[]; verified: boolean | null }>(receiver, { dump: true }, 'arrivals');

    const seen = new Map<string, number>();
    for (const [id] of [...backlog.arrivals, ...steady.arrivals]) seen.set(id, (seen.get(id) ?? 0) + 1);
    const lags = steady.arrivals
      .filter(([id]) => committedAt.has(id))
      .map(([id, at]) => at - committedAt.get(id)!)
      .sort((a, b) => a - b);
    return {
      events,
      backlog_events_per_s: Math.round(backlog.arrivals.length / backlogSeconds),
      backlog_seconds: Number(backlogSeconds.toFixed(2)),
      steady_rate_target: rate,
      steady_rate_recorded: Math.round(committedAt.size / steadySeconds),
      steady_events: committedAt.size,
      lag_p50_ms: percentile(lags, 50),
      lag_p99_ms: percentile(lags, 99),
      lag_max_ms: lags[lags.length - 1] ?? Number.NaN,
      duplicates: [...seen.values()].filter((n) => n > 1).length,
      signature_ok: backlog.verified === true,
    };
  } finally {
    await handle.close();
  }
}

async function main() {
  const only = flag('only', '');
  const kinds = (['pglite', 'postgres'] as const).filter((kind) => only === '' || only === kind);
  const receiver = spawn(process.execPath, [import.meta.filename, '--receiver'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const results: Partial<Record<'pglite' | 'postgres', Figures>> = {};
  try {
    const [{ port }] = (await once(receiver, 'message')) as [{ port: number }];
    for (const kind of kinds) {
      process.stderr.write(`webhooks bench on ${kind}…\n`);
      const figures = await run(kind, receiver, port);
      results[kind] = figures;
      const okRate = figures.backlog_events_per_s >= 500 ? '✔' : '✘';
      const okLag = figures.lag_p99_ms < 1000 ? '✔' : '✘';
      process.stdout.write(
        [
          `${kind}:`,
          `  backlog of ${figures.events} events delivered in ${figures.backlog_seconds} s: ${figures.backlog_events_per_s} events/s ${okRate} (target ≥ 500)`,
          `  steady ${figures.steady_rate_recorded}/s recorded (target ${figures.steady_rate_target}/s) for ${figures.steady_events} events: lag p50 ${figures.lag_p50_ms} ms, p99 ${figures.lag_p99_ms} ms ${okLag} (target < 1000), max ${figures.lag_max_ms} ms`,
          `  duplicates ${figures.duplicates}, signature verified ${figures.signature_ok}`,
          '',
        ].join('\n'),
      );
    }
  } finally {
    receiver.disconnect();
    if (receiver.exitCode === null) await once(receiver, 'exit');
  }
  process.stdout.write(`${JSON.stringify({ webhooks: results })}\n`);
}

if (process.argv[2] !== '--receiver') await main();
