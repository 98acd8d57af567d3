import type { Database } from '../db/connection.ts';
import type { Clock } from '../shared/clock.ts';

// Background work (placeholder until the jobs module lands).
export type JobDeps = { db: Database; clock: Clock };
export type DueWorkSummary = { as_of: string; tasks: Record<string, unknown>; jobs: { done: number; failed: number; retried: number } };

export async function runDueWork(_deps: JobDeps, options: { asOf?: string; companyId?: string }): Promise<DueWorkSummary> {
  return { as_of: options.asOf ?? '', tasks: {}, jobs: { done: 0, failed: 0, retried: 0 } };
}

export function startWorker(_deps: JobDeps, _options: { log?: (msg: string) => void } = {}) {
  return { stop: async () => {} };
}
