// Child process: createInvoice load on a running `kontor serve` with autocannon (separate
// from the server's event loop). Creates one business customer by PUT, then measures:
// issue=true 10-line invoices at 1 and 8 connections, drafts at 1 connection, and
// idempotent replays of REPLAYED earlier requests at 1 connection. Input: one JSON argument
// (InvoiceLoadInput); output: one JSON line on stdout (InvoiceLoadOutput).
import autocannon, { type Request, type Result } from 'autocannon';
import { BUSINESS_CUSTOMER, tenLines } from '../test/invoicing/helpers.ts';
import { type CpuWatch, cpuMeter } from './cpu.ts';
import { type Measurement, machineBusy, summarize } from './stats.ts';

export type InvoiceLoadInput = { url: string; apiKey: string; duration: number; warmup: number; tag: string; watch: CpuWatch };
export type InvoiceScenario = 'issue-c1' | 'issue-c8' | 'draft-c1' | 'replay-c1';
export type InvoiceLoadOutput = { results: Record<InvoiceScenario, Measurement> };

const SOURCE = 'bench';
/** Invoices created first and then replayed, round robin. */
export const REPLAYED = 50;
/** Requests per autocannon run at most, whatever the duration. */
const MAX_REQUESTS = 50_000;

const input = JSON.parse(process.argv[2] ?? '{}') as InvoiceLoadInput;
const customerRef = `${input.tag}-customer`;
const auth = { authorization: `Bearer ${input.apiKey}` };

type Body = ReturnType<typeof invoiceBody>;
function invoiceBody(ref: string, issue: boolean) {
  return {
    customer: { source: SOURCE, external_ref: customerRef },
    external_ref: ref,
    lines: tenLines(),
    service_period: { start: '2026-11-01', end: '2026-11-30' },
    issue,
    send: false,
  };
}

async function putCustomer() {
  const response = await fetch(`${input.url}/v1/customers/by-ref/${SOURCE}/${customerRef}`, {
    method: 'PUT',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify(BUSINESS_CUSTOMER),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  if (response.status !== 201 && response.status !== 200) throw new Error(`customer: HTTP ${response.status} ${text}`);
}

async function post(key: string, body: Body): Promise<{ status: number; replayed: string | null; text: string }> {
  const response = await fetch(`${input.url}/v1/invoices`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: response.status, replayed: response.headers.get('idempotent-replayed'), text: await response.text() };
}

type Load = {
  connections: number;
  /** The next request's idempotency key and body. */
  next: () => { key: string; body: string };
  expected: number;
  /** Checks one answer beyond its status (replays); false counts as an error. */
  check?: (key: string, body: string, headers: Record<string, string>) => boolean;
};

async function run(load: Load, seconds: number): Promise<Measurement> {
  const latencies: number[] = [];
  let failed = 0;
  let firstFailure: string | undefined;
  // autocannon calls onResponse and then, synchronously, emits 'response' for the same answer.
  let rejectNext = false;
  // context: per connection; holds the key of the request in flight (no pipelining).
  const request: Request = {
    setupRequest: (req, context) => {
      const { key, body } = load.next();
      context.key = key;
      return { ...req, method: 'POST', path: '/v1/invoices', headers: { ...req.headers, 'content-type': 'application/json', 'idempotency-key': key }, body };
    },
  };
  if (load.check) {
    const check = load.check;
    request.onResponse = (status, body, context, headers) => {
      const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), String(v)]));
      if (status === load.expected && !check(String(context.key), body, lower)) {
        rejectNext = true;
        firstFailure ??= `answer to ${String(context.key)} differs: ${JSON.stringify(lower)} ${body.slice(0, 200)}`;
      }
    };
  }
  const result = await new Promise<Result>((resolve, reject) => {
    const instance = autocannon(
      { url: input.url, connections: load.connections, duration: seconds, maxOverallRequests: MAX_REQUESTS, timeout: 10, headers: auth, requests: [request] },
      (error, done) => (error ? reject(error) : resolve(done)),
    );
    instance.on('response', (_client, status, _bytes, ms) => {
      if (status !== load.expected || rejectNext) {
        rejectNext = false;
        failed++;
        firstFailure ??= `HTTP ${status} (expected ${load.expected})`;
        return;
      }
      latencies.push(ms);
    });
  });
  if (firstFailure) process.stderr.write(`  first failure: ${firstFailure}\n`);
  return summarize(latencies, result.duration, failed + result.errors + result.timeouts);
}

async function measure(name: InvoiceScenario, load: Load): Promise<Measurement> {
  if (input.warmup > 0) await run(load, input.warmup);
  const busyBefore = await machineBusy();
  const meter = cpuMeter(input.watch);
  const measured = await run(load, input.duration);
  Object.assign(measured, { busyBefore, cpu: meter(measured.count) });
  process.stderr.write(
    `  createInvoice ${name}: ${measured.rps.toFixed(1)} req/s, p50 ${measured.p50.toFixed(2)} ms, p99 ${measured.p99.toFixed(2)} ms, ${measured.errors} errors\n`,
  );
  return measured;
}

/** New invoices: a unique external_ref and idempotency key per request. */
function fresh(prefix: string, issue: boolean): Load['next'] {
  let n = 0;
  return () => {
    const ref = `${input.tag}-${prefix}-${++n}`;
    return { key: ref, body: JSON.stringify(invoiceBody(ref, issue)) };
  };
}

await putCustomer();
const results = {} as Record<InvoiceScenario, Measurement>;
results['issue-c1'] = await measure('issue-c1', { connections: 1, next: fresh('i1', true), expected: 201 });
results['issue-c8'] = await measure('issue-c8', { connections: 8, next: fresh('i8', true), expected: 201 });
results['draft-c1'] = await measure('draft-c1', { connections: 1, next: fresh('d1', false), expected: 201 });

// Replays: REPLAYED issued invoices first, then the same (key, body) pairs again; each
// answer must be 200, carry Idempotent-Replayed: true and equal the first answer.
const originals: { key: string; body: string; answer: string }[] = [];
for (let i = 1; i <= REPLAYED; i++) {
  const ref = `${input.tag}-r-${i}`;
  const body = invoiceBody(ref, true);
  const first = await post(ref, body);
  if (first.status !== 201) throw new Error(`replay set ${ref}: HTTP ${first.status} ${first.text}`);
  const parsed = JSON.parse(first.text) as { status: string; number: string | null };
  if (parsed.status !== 'issued' || !parsed.number) throw new Error(`replay set ${ref}: not issued: ${first.text}`);
  originals.push({ key: ref, body: JSON.stringify(body), answer: first.text });
}
const again = await post(originals[0]!.key, JSON.parse(originals[0]!.body) as Body);
if (again.status !== 200 || again.replayed !== 'true' || again.text !== originals[0]!.answer) {
  throw new Error(`a replay is not the first answer: HTTP ${again.status}, Idempotent-Replayed ${again.replayed}`);
}
const answers = new Map(originals.map((o) => [o.key, o.answer]));
let r = 0;
results['replay-c1'] = await measure('replay-c1', {
  connections: 1,
  next: () => {
    const o = originals[r++ % originals.length]!;
    return { key: o.key, body: o.body };
  },
  expected: 200,
  check: (key, body, headers) => headers['idempotent-replayed'] === 'true' && body === answers.get(key),
});

process.stdout.write(`${JSON.stringify({ results } satisfies InvoiceLoadOutput)}\n`);
