// Child process: the ratio of an issuing request to the rendering alone, measured in turn.
// For one second, `POST /v1/invoices` (issue=true, 10 lines) one after the other on one
// keep-alive connection to the running `kontor serve`, as the 1-connection load does; then,
// the server idle, for one second `renderInvoiceDocuments` of the 10-line ZUGFeRD fixture
// one after the other in this process (warmed up as `kontor serve` warms up), as
// render-alone.ts does; and so on. Both medians thus come from the same minutes: this
// machine's speed drifts by 30–70 % within minutes (other guests on its host), and a
// request measured at one time with the rendering alone measured at another gave ratios
// from 1.1 to 1.9 for the same code.
// Input: one JSON argument (PairedInput); output: one JSON line on stdout (PairedOutput).
import http from 'node:http';
import { renderInvoiceDocuments, warmUpRenderers } from '../src/modules/invoicing/render/index.ts';
import { BUSINESS_CUSTOMER, tenLines } from '../test/invoicing/helpers.ts';
import { domesticInvoice } from '../test/invoicing/render/fixtures.ts';
import { percentile } from './stats.ts';

export type PairedInput = { url: string; apiKey: string; duration: number; warmup: number; tag: string };
export type PairedOutput = {
  /** Median and p99 of the issuing request (client-side, send to full answer), ms. */
  requestP50: number;
  requestP99: number;
  /** Median and p99 of one renderInvoiceDocuments call, ms. */
  renderP50: number;
  renderP99: number;
  /** Turns of each; requests and renders measured. */
  turns: number;
  requests: number;
  renders: number;
  errors: number;
};

/** Requests and renders per measurement at most, whatever the duration. */
const MAX_EACH = 20_000;
/** Each turn's length, and the pause before each (the other side settles: render threads, collectors). */
const TURN_MS = 1000;
const PAUSE_MS = 50;

const input = JSON.parse(process.argv[2] ?? '{}') as PairedInput;
const customerRef = `${input.tag}-paired-customer`;
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const headers = { authorization: `Bearer ${input.apiKey}`, 'content-type': 'application/json' };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function send(method: string, path: string, body: string, extra: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      `${input.url}${path}`,
      { method, agent, headers: { ...headers, ...extra, 'content-length': Buffer.byteLength(body) }, timeout: 10_000 },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
        response.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(new Error('timeout')));
    request.on('error', reject);
    request.end(body);
  });
}

const customer = await send('PUT', `/v1/customers/by-ref/bench/${customerRef}`, JSON.stringify(BUSINESS_CUSTOMER));
if (customer.status !== 201 && customer.status !== 200) throw new Error(`customer: HTTP ${customer.status} ${customer.text}`);
await warmUpRenderers();

let sequence = 0;
let errors = 0;
let firstError: string | undefined;

/** One issuing request; its latency in ms, or null when it failed. */
async function issue(): Promise<number | null> {
  const n = ++sequence;
  const body = JSON.stringify({
    customer: { source: 'bench', external_ref: customerRef },
    external_ref: `${input.tag}-paired-${n}`,
    lines: tenLines(),
    service_period: { start: '2026-11-01', end: '2026-11-30' },
    issue: true,
    send: false,
  });
  const t0 = performance.now();
  try {
    const answer = await send('POST', '/v1/invoices', body, { 'idempotency-key': `${input.tag}-paired-${n}` });
    const elapsed = performance.now() - t0;
    if (answer.status === 201) return elapsed;
    firstError ??= `HTTP ${answer.status} ${answer.text.slice(0, 300)}`;
  } catch (error) {
    firstError ??= (error as Error).message;
  }
  errors++;
  return null;
}

async function render(): Promise<number> {
  const t0 = performance.now();
  await renderInvoiceDocuments(domesticInvoice);
  return performance.now() - t0;
}

async function turns(seconds: number, requests?: number[], renders?: number[]): Promise<number> {
  const end = performance.now() + seconds * 1000;
  let count = 0;
  for (; performance.now() < end && (requests?.length ?? 0) < MAX_EACH; count++) {
    await sleep(PAUSE_MS);
    for (const turnEnd = performance.now() + TURN_MS; performance.now() < turnEnd; ) {
      const latency = await issue();
      if (latency !== null) requests?.push(latency);
    }
    await sleep(PAUSE_MS);
    for (const turnEnd = performance.now() + TURN_MS; performance.now() < turnEnd; ) {
      const latency = await render();
      renders?.push(latency);
    }
  }
  return count;
}

await turns(input.warmup);
errors = 0;
firstError = undefined;
const requests: number[] = [];
const renders: number[] = [];
// Twice the duration: each side runs half of the time.
const count = await turns(input.duration * 2, requests, renders);
if (firstError) process.stderr.write(`  requests in turn: ${errors} errors, the first: ${firstError}\n`);
const sortedRequests = Float64Array.from(requests).sort();
const sortedRenders = Float64Array.from(renders).sort();
const output: PairedOutput = {
  requestP50: percentile(sortedRequests, 50),
  requestP99: percentile(sortedRequests, 99),
  renderP50: percentile(sortedRenders, 50),
  renderP99: percentile(sortedRenders, 99),
  turns: count,
  requests: requests.length,
  renders: renders.length,
  errors,
};
process.stderr.write(
  `  in turn: request p50 ${output.requestP50.toFixed(2)} ms, rendering alone p50 ${output.renderP50.toFixed(2)} ms, ratio ${(output.requestP50 / output.renderP50).toFixed(2)} (${count} turns)\n`,
);
process.stdout.write(`${JSON.stringify(output)}\n`);
agent.destroy();
