import { readFileSync } from 'node:fs';
import type { CpuPerOp } from './cpu.ts';

// One measurement's summary: throughput and latency percentiles (milliseconds).

export type Measurement = {
  /** Successful requests (or SQL operations) per second over the measured period. */
  rps: number;
  p50: number;
  p99: number;
  /** Successful requests or operations counted. */
  count: number;
  /** Failed ones (non-2xx answers, connection errors, timeouts, SQL errors). */
  errors: number;
  /** Share of upserts that created a customer (upsert runs only), 0–1. */
  createShare?: number;
  /** Share of the machine's CPU busy just before the run (other processes; 0–1). */
  busyBefore?: number;
  /** CPU µs per operation by process (cpu.ts). */
  cpu?: CpuPerOp;
};

function cpuTimes(): { busy: number; total: number } {
  const fields = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  return { busy: total - idle, total };
}

/** How busy the whole machine is over `ms` (0–1): taken while the bench idles, it shows what else runs. */
export async function machineBusy(ms = 400): Promise<number> {
  const a = cpuTimes();
  await new Promise((resolve) => setTimeout(resolve, ms));
  const b = cpuTimes();
  return b.total > a.total ? (b.busy - a.busy) / (b.total - a.total) : 0;
}

/** The p-th percentile (0–100) of `values`, nearest-rank. */
export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))] as number;
}

export function summarize(latenciesMs: number[], seconds: number, errors: number, createShare?: number): Measurement {
  const sorted = Float64Array.from(latenciesMs).sort();
  return {
    rps: latenciesMs.length / seconds,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    count: latenciesMs.length,
    errors,
    ...(createShare === undefined ? {} : { createShare }),
  };
}

/** Reads the one JSON document a bench child process prints as its last stdout line. */
export function lastJsonLine<T>(stdout: string): T {
  const line = stdout.trim().split('\n').pop();
  if (!line) throw new Error('the child process printed nothing');
  return JSON.parse(line) as T;
}
