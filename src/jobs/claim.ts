import { sql } from 'kysely';
import type { Database } from '../db/connection.ts';
import type { JobRow } from './registry.ts';

// Claiming is one UPDATE over a FOR UPDATE SKIP LOCKED sub-select: any number of
// workers in any number of processes can claim at once, none waits for another and no
// job is handed out twice. Due-ness compares run_at with the business clock's `now`;
// leases are real time from the database server (clock_timestamp()), the one clock all
// processes share, so a process with KONTOR_NOW or a fixed test clock can neither keep
// a crashed worker's job locked forever nor steal a live worker's job.

export type ClaimOptions = {
  workerId: string;
  /** Business time: jobs with run_at at or before it are due. */
  now: Date;
  limit: number;
  /** How long the claim holds before another worker may take the job over (real time). */
  leaseMs: number;
  /** Only this company's jobs (`kontor jobs run --company`). */
  companyId?: string;
};

/** Real-time interval arithmetic on the server: `clock_timestamp() + ms`. */
export function leaseUntil(leaseMs: number) {
  return sql<Date>`clock_timestamp() + make_interval(secs => ${leaseMs / 1000}::float8)`;
}

/**
 * Hands jobs whose worker stopped (lease expired while `running`) back to the queue, or
 * ends them `failed` when that was their last attempt. Returns how many it released.
 */
export async function releaseExpiredLeases(db: Database, now: Date, limit = 100): Promise<number> {
  const lastAttempt = sql<boolean>`attempts >= max_attempts`;
  const rows = await db
    .updateTable('jobs')
    .set({
      status: sql<'pending' | 'failed'>`case when ${lastAttempt} then 'failed' else 'pending' end`,
      locked_by: null,
      locked_until: null,
      last_error: sql<string>`'lease expired during attempt ' || attempts || ': the worker stopped or ran past its lease'`,
      finished_at: sql<Date | null>`case when ${lastAttempt} then ${now}::timestamptz else null end`,
    })
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
 * Claims up to `limit` due jobs, oldest run_at first: they become `running`, locked by
 * `workerId` until the lease ends, with one more attempt counted. Expired leases are
 * released first, so a crashed worker's jobs are claimed again here.
 */
export async function claimJobs(db: Database, options: ClaimOptions): Promise<JobRow[]> {
  if (options.limit <= 0) return [];
  await releaseExpiredLeases(db, options.now);
  const rows = await db
    .updateTable('jobs')
    .set((eb) => ({
      status: 'running',
      locked_by: options.workerId,
      locked_until: leaseUntil(options.leaseMs),
      attempts: eb('attempts', '+', 1),
    }))
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('jobs')
        .select('id')
        .where('status', '=', 'pending')
        .where('run_at', '<=', options.now)
        .$if(options.companyId !== undefined, (qb) => qb.where('company_id', '=', options.companyId!))
        .orderBy('run_at')
        .orderBy('id')
        .limit(options.limit)
        .forUpdate()
        .skipLocked(),
    )
    .returningAll()
    .execute();
  return rows.sort((a, b) => a.run_at.getTime() - b.run_at.getTime() || a.id - b.id);
}
