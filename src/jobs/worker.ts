import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Database } from '../db/connection.ts';
import type { Liveness } from '../db/liveness.ts';
import type { Mailer } from '../modules/mail/index.ts';
import type { WebhookDelivery } from '../modules/webhooks/index.ts';
import type { Clock } from '../shared/clock.ts';
import { messageForLog } from '../shared/error-for-log.ts';
import { claimJobs, handBackUnstarted, releaseJobsOfEndedProcesses } from './claim.ts';
import type { JobLog, JobRegistry, JobRow, JobServices } from './registry.ts';
import { type JobOutcome, type RunJobDeps, runJob } from './run-job.ts';
import { type DailyTaskRegistry, runDailyTasks } from './scheduler.ts';

// The worker loop of `kontor serve` and `kontor worker`, and the bounded drain of
// `kontor jobs run`. Several workers in several processes may run against one database:
// claiming (claim.ts) keeps them from taking the same job.

// `webhooks`: webhook delivery, its own loop beside the jobs; `jobs run` drains it after them.
// `mailer`: the company mailboxes, handed to job handlers that mail (dunning notices).
// `services`: what else handlers may use (the invoice renderers for contract billing).
// `liveness`: which processes live (db/liveness.ts): claims carry this process's token, and
// the jobs of processes that have ended are taken back at once (claim.ts); without it a
// crashed process's jobs wait for their leases.
export type JobDeps = {
  db: Database;
  clock: Clock;
  jobs?: JobRegistry;
  tasks?: DailyTaskRegistry;
  webhooks?: WebhookDelivery;
  mailer?: Mailer;
  services?: JobServices;
  liveness?: Liveness;
};
export type JobTally = { done: number; failed: number; retried: number; lost: number };

export const DEFAULT_LEASE_MS = 5 * 60 * 1000;
/** How often a running worker looks for jobs of processes that have ended (real time). */
export const DEFAULT_OWNER_CHECK_MS = 5_000;
/**
 * How often a claiming worker first hands back jobs whose lease has expired (real time).
 * A lease lasts minutes; looking before every claim was one more statement per job (issue 26).
 */
export const LEASE_CHECK_MS = 1_000;

/** Whether the claim about to be made should first release expired leases: the first, then one per LEASE_CHECK_MS. */
function leaseCheckPacer(): () => boolean {
  let last = Number.NEGATIVE_INFINITY;
  return () => {
    const now = performance.now();
    if (now - last < LEASE_CHECK_MS) return false;
    last = now;
    return true;
  };
}

export function newWorkerId(role = 'worker'): string {
  return `${role}:${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
}

function count(tally: JobTally, outcome: JobOutcome) {
  tally[outcome] += 1;
}

/**
 * This process's liveness token for its claims; none when there is no liveness or its token
 * cannot be had now (PostgreSQL: the lock connection cannot be opened). A claim without a
 * token is released by its lease alone; the database trouble shows in the claim's own error.
 */
async function ownerToken(deps: JobDeps): Promise<string | undefined> {
  return deps.liveness?.token().catch(() => undefined);
}

/** Takes back the jobs of processes that have ended; logs how many. Never throws. */
async function takeBackJobsOfEndedProcesses(deps: JobDeps, log: JobLog): Promise<void> {
  if (!deps.liveness) return;
  try {
    const count = await releaseJobsOfEndedProcesses(deps.db, deps.liveness, deps.clock.now());
    if (count > 0) log(`took back ${count} job(s) of a process that has ended`);
  } catch (error) {
    log(`looking for jobs of ended processes failed: ${messageForLog(error)}`);
  }
}

/** What runJob needs from the worker's deps. */
function runJobDeps(deps: JobDeps, log: JobLog, leaseMs: number): RunJobDeps {
  return {
    db: deps.db,
    clock: deps.clock,
    log,
    leaseMs,
    ...(deps.jobs ? { registry: deps.jobs } : {}),
    ...(deps.mailer ? { mailer: deps.mailer } : {}),
    ...(deps.services ? { services: deps.services } : {}),
  };
}

export type DrainOptions = { workerId?: string; companyId?: string; maxJobs?: number; concurrency?: number; leaseMs?: number; log?: JobLog };

/**
 * Runs due jobs (run_at at or before clock.now()) until none is due or `maxJobs` (default
 * 100,000) were claimed, in a pool of `concurrency` slots. A retried job is due again only after its backoff, so one call
 * does not spin on a failing job.
 */
export async function drainDueJobs(deps: JobDeps, options: DrainOptions = {}): Promise<JobTally> {
  const workerId = options.workerId ?? newWorkerId('jobs-run');
  const maxJobs = options.maxJobs ?? 100_000;
  const concurrency = options.concurrency ?? 4;
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const log = options.log ?? (() => {});
  const tally: JobTally = { done: 0, failed: 0, retried: 0, lost: 0 };
  const runDeps = runJobDeps(deps, log, leaseMs);
  const releaseExpired = leaseCheckPacer();
  // A process that died with jobs claimed (kill -9 of an earlier run) left them running:
  // they are due again now, not after their leases.
  await takeBackJobsOfEndedProcesses(deps, log);
  // A pool of `concurrency` slots: a slot that frees starts the next claimed job at once.
  // Claims are made for a whole pool's worth (`concurrency` jobs) when none is left
  // claimed, not one per freed slot: a claim is a statement, and most jobs of a billing run
  // are short (issue 26). Claimed jobs wait here at most until `concurrency` others ended.
  const running = new Set<Promise<void>>();
  const claimedWaiting: JobRow[] = [];
  let claimed = 0;
  let exhausted = false;
  let failure: unknown;
  const start = (job: JobRow) => {
    const run: Promise<void> = runJob(runDeps, job)
      .then(
        (outcome) => count(tally, outcome),
        (error: unknown) => {
          failure ??= error;
        },
      )
      .finally(() => running.delete(run));
    running.add(run);
  };
  while (!failure) {
    while (claimedWaiting.length > 0 && running.size < concurrency) start(claimedWaiting.shift()!);
    const limit = Math.min(concurrency, maxJobs - claimed);
    if (running.size < concurrency && claimedWaiting.length === 0 && limit > 0 && !exhausted) {
      const owner = await ownerToken(deps);
      const batch = await claimJobs(deps.db, {
        workerId,
        now: deps.clock.now(),
        limit,
        leaseMs,
        releaseExpired: releaseExpired(),
        ...(options.companyId !== undefined ? { companyId: options.companyId } : {}),
        ...(owner !== undefined ? { owner } : {}),
      });
      claimed += batch.length;
      claimedWaiting.push(...batch);
      // Nothing due while others run: they may enqueue more; look again when one ends.
      if (batch.length === 0 && running.size === 0) break;
      exhausted = batch.length === 0;
      continue;
    }
    // (Claimed jobs never wait while a slot is free: the loop's start fills the slots first.)
    if (running.size === 0) {
      if (claimed >= maxJobs) break;
      continue;
    }
    await Promise.race(running);
    exhausted = false;
  }
  // A failure to record an outcome stops the drain: the jobs claimed and not started go
  // back to the queue (their attempt not spent), the running ones end first.
  await Promise.allSettled([...running]);
  if (claimedWaiting.length > 0)
    await handBackUnstarted(
      deps.db,
      workerId,
      claimedWaiting.map((job) => job.id),
    ).catch(() => {}); // the database may be what failed: then their leases or the liveness check hand them back
  if (failure) throw failure;
  return tally;
}

export type WorkerOptions = {
  log?: JobLog;
  workerId?: string;
  /** Jobs run at the same time (default 4). */
  concurrency?: number;
  /** Pause between polls when no job is due (default 500 ms). */
  pollMs?: number;
  leaseMs?: number;
  /** How often the daily tasks are checked (default 60 s; 0 turns the scheduler off). */
  schedulerIntervalMs?: number;
  /** How often jobs of processes that have ended are looked for (default 5 s; also at start). Needs JobDeps.liveness. */
  ownerCheckMs?: number;
};

export type Worker = {
  workerId: string;
  /** Outcomes so far (for tests and the app's status page). */
  tally: JobTally;
  /** Stops claiming and waits for the jobs and the scheduler tick that are running. */
  stop(): Promise<void>;
};

function stderrLog(message: string) {
  process.stderr.write(`${new Date().toISOString()} kontor worker: ${message}\n`);
}

/** Starts polling for due jobs and ticking the scheduler until stop(). */
export function startWorker(deps: JobDeps, options: WorkerOptions = {}): Worker {
  const workerId = options.workerId ?? newWorkerId();
  const log = options.log ?? stderrLog;
  const concurrency = options.concurrency ?? 4;
  const pollMs = options.pollMs ?? 500;
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const schedulerIntervalMs = options.schedulerIntervalMs ?? 60_000;
  const ownerCheckMs = options.ownerCheckMs ?? DEFAULT_OWNER_CHECK_MS;
  const tally: JobTally = { done: 0, failed: 0, retried: 0, lost: 0 };
  const releaseExpired = leaseCheckPacer();
  const running = new Set<Promise<void>>();
  let stopping = false;
  let wake: (() => void) | undefined;
  let tick: Promise<void> | undefined;
  let lastTickAt = Number.NEGATIVE_INFINITY;
  let lastOwnerCheckAt = Number.NEGATIVE_INFINITY;

  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      wake = done;
    });

  const startTick = () => {
    // Real time paces the tick; the tasks themselves read the business clock.
    if (schedulerIntervalMs <= 0 || tick || performance.now() - lastTickAt < schedulerIntervalMs) return;
    lastTickAt = performance.now();
    tick = runDailyTasks(deps.db, deps.clock, { log, ...(deps.tasks ? { registry: deps.tasks } : {}) })
      .then(
        () => {},
        (error: unknown) => log(`scheduler tick failed: ${messageForLog(error)}`),
      )
      .finally(() => {
        tick = undefined;
      });
  };

  const start = (job: Awaited<ReturnType<typeof claimJobs>>[number]) => {
    const run: Promise<void> = runJob(runJobDeps(deps, log, leaseMs), job)
      .then(
        (outcome) => count(tally, outcome),
        (error: unknown) => log(`job ${job.name} #${job.id}: could not record the outcome (the lease will expire and it runs again): ${messageForLog(error)}`),
      )
      .finally(() => {
        running.delete(run);
        wake?.();
      });
    running.add(run);
  };

  const loop = async () => {
    while (!stopping) {
      startTick();
      const free = concurrency - running.size;
      if (free <= 0) {
        await pause(pollMs); // a finishing job wakes the loop early
        continue;
      }
      // At start (a predecessor killed with jobs claimed) and every few seconds (on
      // PostgreSQL another worker process may die at any time): their jobs are due again.
      if (deps.liveness && performance.now() - lastOwnerCheckAt >= ownerCheckMs) {
        lastOwnerCheckAt = performance.now();
        await takeBackJobsOfEndedProcesses(deps, log);
      }
      let claimed: Awaited<ReturnType<typeof claimJobs>>;
      try {
        const owner = await ownerToken(deps);
        claimed = await claimJobs(deps.db, {
          workerId,
          now: deps.clock.now(),
          limit: free,
          leaseMs,
          releaseExpired: releaseExpired(),
          ...(owner !== undefined ? { owner } : {}),
        });
      } catch (error) {
        log(`claiming jobs failed: ${messageForLog(error)}`);
        await pause(pollMs * 4);
        continue;
      }
      for (const job of claimed) start(job);
      // A full claim means more may be due: claim again at once (or when a slot frees).
      if (claimed.length < free && !stopping) await pause(pollMs);
    }
  };
  const looping = loop();
  const webhooks = deps.webhooks?.start({ log });

  return {
    workerId,
    tally,
    async stop() {
      stopping = true;
      wake?.();
      await looping;
      await Promise.allSettled([...running]);
      await tick;
      await webhooks?.stop();
    },
  };
}
