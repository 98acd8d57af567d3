// Child process: HTTP load on a running `kontor serve` with autocannon, so that the load
// generator does not share the server's event loop. Input: one JSON argument (LoadInput
// or PrefillInput); output: one JSON line on stdout. Progress goes to stderr.
import autocannon, { type Request, type Result } from 'autocannon';
import { type CpuWatch, cpuMeter } from './cpu.ts';
import { type Measurement, machineBusy, summarize } from './stats.ts';
import { customerBody, MAX_OPERATIONS, PREFILLED, prefilledRef, type Scenario, SOURCE, type Steps, steps } from './workload.ts';

export type LoadInput = { url: string; apiKey: string; duration: number; warmup: number; tag: string; scenarios: Scenario[]; watch: CpuWatch };
export type PrefillInput = { prefill: true; url: string; apiKey: string };

const byRef = (ref: string) => `/v1/customers/by-ref/${SOURCE}/${ref}`;

/** Creates the PREFILLED customers the runs update and read (8 requests at a time). */
async function prefill(input: PrefillInput): Promise<{ created: number }> {
  let next = 0;
  let created = 0;
  const worker = async () => {
    while (next < PREFILLED) {
      const ref = prefilledRef(next++);
      const response = await fetch(`${input.url}${byRef(ref)}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${input.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(customerBody(ref, 'prefill')),
        signal: AbortSignal.timeout(10_000),
      });
      await response.arrayBuffer();
      if (response.status !== 201 && response.status !== 200) throw new Error(`prefill ${ref}: HTTP ${response.status}`);
      created++;
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return { created };
}

function requestFor(scenario: Scenario, sequence: Steps): Request {
  if (scenario.mode === 'get') {
    return { setupRequest: (request) => ({ ...request, method: 'GET', path: byRef(sequence.nextRef()) }) };
  }
  return {
    setupRequest: (request) => {
      const step = sequence.nextUpsert();
      return {
        ...request,
        method: 'PUT',
        path: byRef(step.ref),
        headers: { ...request.headers, 'content-type': 'application/json' },
        body: JSON.stringify(step.body),
      };
    },
  };
}

async function run(input: LoadInput, scenario: Scenario, seconds: number, sequence: Steps): Promise<Measurement> {
  const latencies: number[] = [];
  let created = 0;
  let failed = 0;
  const result = await new Promise<Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: input.url,
        connections: scenario.connections,
        duration: seconds,
        maxOverallRequests: MAX_OPERATIONS,
        timeout: 10,
        headers: { authorization: `Bearer ${input.apiKey}` },
        requests: [requestFor(scenario, sequence)],
      },
      (error, done) => (error ? reject(error) : resolve(done)),
    );
    instance.on('response', (_client, status, _bytes, ms) => {
      if (status >= 300) {
        failed++;
        return;
      }
      if (status === 201) created++;
      latencies.push(ms);
    });
  });
  const errors = failed + result.errors + result.timeouts;
  return summarize(latencies, result.duration, errors, scenario.mode === 'upsert' ? created / Math.max(1, latencies.length) : undefined);
}

async function main(input: LoadInput | PrefillInput) {
  if ('prefill' in input) return prefill(input);
  const results: Measurement[] = [];
  for (const scenario of input.scenarios) {
    const name = `${scenario.mode}-c${scenario.connections}`;
    const sequence = steps(`${input.tag}-${name}`);
    if (input.warmup > 0) await run(input, scenario, input.warmup, sequence);
    const busyBefore = await machineBusy();
    const meter = cpuMeter(input.watch);
    const measured = await run(input, scenario, input.duration, sequence);
    Object.assign(measured, { busyBefore, cpu: meter(measured.count) });
    process.stderr.write(`  api ${name}: ${measured.rps.toFixed(0)} req/s, p50 ${measured.p50.toFixed(2)} ms, p99 ${measured.p99.toFixed(2)} ms\n`);
    results.push(measured);
  }
  return { results };
}

const output = await main(JSON.parse(process.argv[2] ?? '{}') as LoadInput | PrefillInput);
process.stdout.write(`${JSON.stringify(output)}\n`);
