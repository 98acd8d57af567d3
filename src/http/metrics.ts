import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Database } from '../db/connection.ts';

// Metrics in Prometheus' text format (issue 29 §1), served on a port of their own and off
// unless KONTOR_METRICS_PORT is set, so they are never reachable where the API is. Nothing
// in them names a person, a company or a document: labels are methods, route patterns,
// statuses and job kinds; figures are counts, ages and durations.
//
// Counted by this process: requests (by method, route pattern and status) and their
// latency, invoice renderings and their time. Read from the database at every scrape (the
// same for every process on one PostgreSQL): jobs by status and the age of the oldest due
// job, webhook deliveries by status and the oldest pending, invoices issued, contract
// cycles billed or failed, bank statements imported, statement runs. Plus the database
// pool (PostgreSQL) and Node's own (memory, CPU, event-loop delay).

export type Metrics = {
  registry: Registry;
  observeRequest(method: string, route: string | null, status: number, seconds: number): void;
  observeRender(seconds: number): void;
};

type PoolStats = () => { total: number; idle: number; waiting: number };

const count = (value: unknown) => Number(value ?? 0);

export function createMetrics(db: Database, pool?: PoolStats): Metrics {
  const registry = new Registry();
  let reading: Promise<void> | null = null;
  collectDefaultMetrics({ register: registry, prefix: 'kontor_' });
  const requests = new Counter({
    name: 'kontor_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'kontor_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by method and route pattern',
    labelNames: ['method', 'route'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const renders = new Histogram({
    name: 'kontor_invoice_render_seconds',
    help: 'Time to render an invoice (PDF and e-invoice) in this process',
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  // Gauges read from the database: each one's collect awaits the scrape's one read.
  const fromDatabase = (name: string, help: string, labelNames: string[] = []) =>
    new Gauge({ name, help, labelNames, registers: [registry], collect: () => read() });
  const jobs = fromDatabase('kontor_jobs', 'Jobs by status', ['status']);
  const jobAge = fromDatabase('kontor_jobs_oldest_due_seconds', 'Age of the oldest pending job that is due (0: none)');
  const deliveries = fromDatabase('kontor_webhook_deliveries', 'Webhook deliveries by status', ['status']);
  const deliveryAge = fromDatabase('kontor_webhook_oldest_pending_seconds', 'Age of the oldest pending webhook delivery that is due (0: none)');
  const totals = fromDatabase(
    'kontor_records_total',
    'Records in the database: invoices issued, contract cycles billed or failed, bank statements imported, statement runs',
    ['kind'],
  );
  const connections = fromDatabase('kontor_db_pool_connections', 'Connections of the PostgreSQL pool: total, idle, and requests waiting for one', ['state']);

  // One read per scrape, shared by the gauges it feeds.
  function read(): Promise<void> {
    reading ??= (async () => {
      const row = (
        await sql<Record<string, unknown>>`select
          (select count(*) from jobs where status = 'pending') as jobs_pending,
          (select count(*) from jobs where status = 'running') as jobs_running,
          (select count(*) from jobs where status = 'failed') as jobs_failed,
          (select coalesce(extract(epoch from now() - min(run_at)), 0) from jobs where status = 'pending' and run_at <= now()) as job_age,
          (select count(*) from webhook_deliveries where status = 'pending') as deliveries_pending,
          (select count(*) from webhook_deliveries where status = 'failed') as deliveries_failed,
          (select coalesce(extract(epoch from now() - min(next_attempt_at)), 0) from webhook_deliveries where status = 'pending' and next_attempt_at <= now()) as delivery_age,
          (select count(*) from invoices where number is not null) as invoices_issued,
          (select count(*) from contract_cycles where status = 'billed') as cycles_billed,
          (select count(*) from contract_cycles where status = 'failed') as cycles_failed,
          (select count(*) from bank_statements) as bank_statements,
          (select count(*) from commission_statement_runs) as statement_runs`.execute(db)
      ).rows[0] as Record<string, unknown>;
      for (const status of ['pending', 'running', 'failed']) jobs.set({ status }, count(row[`jobs_${status}`]));
      jobAge.set(count(row.job_age));
      for (const status of ['pending', 'failed']) deliveries.set({ status }, count(row[`deliveries_${status}`]));
      deliveryAge.set(count(row.delivery_age));
      totals.set({ kind: 'invoices_issued' }, count(row.invoices_issued));
      totals.set({ kind: 'contract_cycles_billed' }, count(row.cycles_billed));
      totals.set({ kind: 'contract_cycles_failed' }, count(row.cycles_failed));
      totals.set({ kind: 'bank_statements_imported' }, count(row.bank_statements));
      totals.set({ kind: 'statement_runs' }, count(row.statement_runs));
      if (pool) {
        const stats = pool();
        connections.set({ state: 'total' }, stats.total);
        connections.set({ state: 'idle' }, stats.idle);
        connections.set({ state: 'waiting' }, stats.waiting);
      }
    })().finally(() => {
      reading = null;
    });
    return reading;
  }

  return {
    registry,
    observeRequest(method, route, status, seconds) {
      const labels = { method, route: route ?? 'unmatched' };
      requests.inc({ ...labels, status: String(status) });
      latency.observe(labels, seconds);
    },
    observeRender(seconds) {
      renders.observe(seconds);
    },
  };
}

/** Serves GET /metrics on its own port; resolves with the address once it listens. */
export async function serveMetrics(metrics: Metrics, host: string, port: number): Promise<{ address: string; close(): Promise<void> }> {
  const server = http.createServer((request, response) => {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found: the metrics are at /metrics\n');
      return;
    }
    metrics.registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
      () => response.writeHead(503, { 'content-type': 'text/plain; charset=utf-8' }).end('the metrics could not be read\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const { address, port: bound } = server.address() as AddressInfo;
  return {
    address: `http://${address.includes(':') ? `[${address}]` : address}:${bound}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
