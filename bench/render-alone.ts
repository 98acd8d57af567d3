// Child process: the PDF + ZUGFeRD rendering of an issued invoice alone, in-process and
// single-threaded: `warmUpRenderers()` (as `kontor serve` does at start), then
// `renderInvoiceDocuments(doc)` one after the other for the 10-line domestic ZUGFeRD
// fixture of the renderer tests. This is the ceiling of createInvoice issue=true: the
// part of the request that no database work is added to. Input: one JSON argument
// (RenderInput); output: one JSON line on stdout (RenderOutput).
import { renderInvoiceDocuments, warmUpRenderers } from '../src/modules/invoicing/render/index.ts';
import { domesticInvoice } from '../test/invoicing/render/fixtures.ts';
import { percentile } from './stats.ts';

export type RenderInput = { duration: number; warmup: number };
export type RenderOutput = {
  /** Median and p99 of one renderInvoiceDocuments call, ms. */
  p50: number;
  p99: number;
  /** Documents per second, one after the other on one thread. */
  docsPerS: number;
  count: number;
  lines: number;
  pdfBytes: number;
  xmlBytes: number;
  /** CPU µs per document of this process (all threads: includes GC). */
  cpuUs: number;
};

/** Renders per measurement at most, whatever the duration. */
const MAX_RENDERS = 20_000;

const input = JSON.parse(process.argv[2] ?? '{}') as RenderInput;
const doc = domesticInvoice;
if (doc.eInvoice !== 'zugferd' || doc.lines.length !== 10) throw new Error('the fixture is no longer the 10-line ZUGFeRD invoice');

await warmUpRenderers();
async function loop(seconds: number, record?: number[]) {
  const end = performance.now() + seconds * 1000;
  let n = 0;
  let last = await renderInvoiceDocuments(doc);
  while (performance.now() < end && n < MAX_RENDERS) {
    const t0 = performance.now();
    last = await renderInvoiceDocuments(doc);
    record?.push(performance.now() - t0);
    n++;
  }
  return last;
}
await loop(input.warmup);
const latencies: number[] = [];
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const last = await loop(input.duration, latencies);
const elapsed = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
const sorted = Float64Array.from(latencies).sort();
const output: RenderOutput = {
  p50: percentile(sorted, 50),
  p99: percentile(sorted, 99),
  docsPerS: latencies.length / elapsed,
  count: latencies.length,
  lines: doc.lines.length,
  pdfBytes: last.pdf.length,
  xmlBytes: last.xml?.length ?? 0,
  cpuUs: (cpu.user + cpu.system) / Math.max(1, latencies.length),
};
process.stderr.write(`  rendering alone: p50 ${output.p50.toFixed(2)} ms, p99 ${output.p99.toFixed(2)} ms, ${output.docsPerS.toFixed(1)} docs/s\n`);
process.stdout.write(`${JSON.stringify(output)}\n`);
