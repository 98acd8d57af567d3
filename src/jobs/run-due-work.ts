import type { WebhookTally } from '../modules/webhooks/index.ts';
import type { JobLog } from './registry.ts';
import { type DailyTaskTally, runDailyTasks } from './scheduler.ts';
import { drainDueJobs, type JobDeps } from './worker.ts';

export type DueWorkOptions = {
  /** Run the daily tasks for this local date (YYYY-MM-DD) instead of each company's today. */
  asOf?: string;
  companyId?: string;
  /** Upper bound of jobs claimed in one call (default 100,000). */
  maxJobs?: number;
  /** Jobs run at the same time (default 4). */
  concurrency?: number;
  log?: JobLog;
};

export type DueWorkSummary = {
  /** The date given, or the clock's instant (ISO) when each company ran for its own today. */
  as_of: string;
  tasks: Record<string, DailyTaskTally>;
  jobs: { done: number; failed: number; retried: number };
  /** Webhook attempts made (when the deps carry webhook delivery). */
  webhooks?: WebhookTally;
};

/**
 * `kontor jobs run`: the daily tasks as of the date, then every job due by the clock
 * (those the tasks just enqueued included) until none is due. Returns a JSON-able summary.
 */
export async function runDueWork(deps: JobDeps, options: DueWorkOptions = {}): Promise<DueWorkSummary> {
  const startedAt = deps.clock.now();
  const scope = {
    ...(options.companyId !== undefined ? { companyId: options.companyId } : {}),
    ...(options.log ? { log: options.log } : {}),
  };
  const tasks = await runDailyTasks(deps.db, deps.clock, {
    ...scope,
    ...(options.asOf !== undefined ? { asOf: options.asOf } : {}),
    ...(deps.tasks ? { registry: deps.tasks } : {}),
  });
  const jobs = await drainDueJobs(deps, {
    ...scope,
    ...(options.maxJobs !== undefined ? { maxJobs: options.maxJobs } : {}),
    ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
  });
  // After the jobs: the events they and the tasks recorded go out in this run too.
  const webhooks = await deps.webhooks?.drain(scope);
  return {
    as_of: options.asOf ?? startedAt.toISOString(),
    tasks,
    jobs: { done: jobs.done, failed: jobs.failed, retried: jobs.retried },
    ...(webhooks ? { webhooks } : {}),
  };
}
