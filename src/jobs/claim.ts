import { type RawBuilder, sql } from 'kysely';
import type { Database } from '../db/connection.ts';
import type { Liveness } from '../db/liveness.ts';
import type { JobRow } from './registry.ts';

// Claiming is one UPDATE over a FOR UPDATE SKIP LOCKED sub-select: any number of
// workers in any number of processes can claim at once, none waits for another and no
// job is handed out twice. Due-ness compares run_at with the business clock's `now`;
// leases are real time from the database server (clock_timestamp()), the one clock all
// processes share, so a process with KONTOR_NOW or a fixed test clock can neither keep
// a crashed worker's job locked forever nor steal a live worker's job.
//
// A claim also records the claiming process's liveness token (`locked_owner`, db/liveness.ts).
// The lease is for a process that hangs; a process that has ended (kill -9, a crash, a lost
// host) is known as such at once — on the embedded database every process but this one has
// ended, on PostgreSQL its session advisory lock is gone — and releaseJobsOfEndedProcesses
// hands its jobs back without waiting for the lease (issue 24).

export type ClaimOptions = {
  workerId: string;
  /** Business time: jobs with run_at at or before it are due. */
  now: Date;
  limit: number;
  /** How long the claim holds before another worker may take the job over (real time). */
  leaseMs: number;
  /** Only this company's jobs (`kontor jobs run --company`). */
  companyId?: string;
  /** The claiming process's liveness token (db/liveness.ts); without one a claim is released only when its lease runs out. */
  owner?: string;
  /**
   * Release expired leases first (default true). A worker that claims often passes false
   * between its paced look-ups (worker.ts): a lease lasts minutes, and the look-up was a
   * statement per claimed job.
   */
  releaseExpired?: boolean;
};

/** Real-time interval arithmetic on the server: `clock_timestamp() + ms`. */
export function leaseUntil(leaseMs: number) {
  return sql<Date>`clock_timestamp() + make_interval(secs => ${leaseMs / 1000}::float8)`;
}

/** A released job goes back to the queue, or ends `failed` when that was its last attempt; `why` becomes last_error. */
function released(now: Date, why: RawBuilder<string>) {
  const lastAttempt = sql<boolean>`attempts >= max_attempts`;
  return {
    status: sql<'pending' | 'failed'>`case when ${lastAttempt} then 'failed' else 'pending' end`,
    locked_by: null,
    locked_until: null,
    locked_owner: null,
    last_error: why,
    finished_at: sql<Date | null>`case when ${lastAttempt} then ${now}::timestamptz else null end`,
  };
}

/**
 * Hands jobs whose worker stopped (lease expired while `running`) back to the queue, or
 * ends them `failed` when that was their last attempt. Returns how many it released.
 */
export async function releaseExpiredLeases(db: Database, now: Date, limit = 100): Promise<number> {
  const rows = await db
    .updateTable('jobs')
    .set(released(now, sql<string>`'lease expired during attempt ' || attempts || ': the worker stopped or ran past its lease'`))
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('jobs')
        .select('id')
        .where('status', '=', 'running')
        .where('locked_until', '<', sql<Date>`clock_timestamp()`)
        .orderBy('locked_until')
        .limit(limit)
        .forUpdate()
        .skipLocked(),
    )
    .returning('id')
    .execute();
  return rows.length;
}

/**
 * Hands the running jobs of processes that have provably ended back to the queue at once
 * (or ends them `failed` on their last attempt), whatever their lease says: the owners
 * `liveness` declares dead. This process's own jobs and jobs without an owner are left to
 * their leases. Returns how many it released.
 */
export async function releaseJobsOfEndedProcesses(db: Database, liveness: Liveness, now: Date, limit = 100): Promise<number> {
  const own = await liveness.token();
  const owners = await db
    .selectFrom('jobs')
    .select('locked_owner')
    .distinct()
    .where('status', '=', 'running')
    .where('locked_owner', 'is not', null)
    .where('locked_owner', '<>', own)
    .execute();
  const ended: string[] = [];
  for (const { locked_owner: owner } of owners) if (owner && !(await liveness.isAlive(owner))) ended.push(owner);
  if (ended.length === 0) return 0;
  const rows = await db
    .updateTable('jobs')
    .set(released(now, sql<string>`'the process that ran attempt ' || attempts || ' has ended (crashed or was killed)'`))
    .where('id', 'in', (eb) =>
      eb.selectFrom('jobs').select('id').where('status', '=', 'running').where('locked_owner', 'in', ended).orderBy('id').limit(limit).forUpdate().skipLocked(),
    )
    .returning('id')
    .execute();
  return rows.length;
}

/**
 * Claims up to `limit` due jobs, highest priority first, then oldest run_at (migration
 * 0043): they become `running`, locked by `workerId` until the lease ends, with one more
 * attempt counted. Expired leases are released first (unless `releaseExpired: false`), so a
 * crashed worker's jobs are claimed again here.
 */
export async function claimJobs(db: Database, options: ClaimOptions): Promise<JobRow[]> {
  if (options.limit <= 0) return [];
  if (options.releaseExpired !== false) await releaseExpiredLeases(db, options.now);
  const rows = await db
    .updateTable('jobs')
    .set((eb) => ({
      status: 'running',
      locked_by: options.workerId,
      locked_until: leaseUntil(options.leaseMs),
      locked_owner: options.owner ?? null,
      attempts: eb('attempts', '+', 1),
    }))
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('jobs')
        .select('id')
        .where('status', '=', 'pending')
        .where('run_at', '<=', options.now)
        .$if(options.companyId !== undefined, (qb) => qb.where('company_id', '=', options.companyId!))
        .orderBy('priority', 'desc')
        .orderBy('run_at')
        .orderBy('id')
        .limit(options.limit)
        .forUpdate()
        .skipLocked(),
    )
    .returningAll()
    .execute();
  return rows.sort(inClaimOrder);
}

/** The order jobs are claimed and started in: priority (highest first), run_at, id. */
function inClaimOrder(a: JobRow, b: JobRow): number {
  return b.priority - a.priority || a.run_at.getTime() - b.run_at.getTime() || a.id - b.id;
}

/**
 * Hands jobs this worker claimed but never started back to the queue, their attempt not
 * counted (a drain that stops early, worker.ts). Only jobs still `running` under `workerId`.
 */
export async function handBackUnstarted(db: Database, workerId: string, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('jobs')
    .set((eb) => ({ status: 'pending', locked_by: null, locked_until: null, locked_owner: null, attempts: eb('attempts', '-', 1) }))
    .where('id', 'in', ids)
    .where('status', '=', 'running')
    .where('locked_by', '=', workerId)
    .execute();
}
