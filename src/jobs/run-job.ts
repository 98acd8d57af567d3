import type { QueryCreator } from 'kysely';
import type { Database } from '../db/connection.ts';
import type { DB } from '../db/schema.ts';
import type { Trx } from '../db/transaction.ts';
import type { Mailer } from '../modules/mail/index.ts';
import type { Clock } from '../shared/clock.ts';
import { messageForLog } from '../shared/error-for-log.ts';
import { backoffDelayMs } from './backoff.ts';
import { leaseUntil } from './claim.ts';
import { type DoneWrite, type JobDone, type JobLog, type JobRegistry, type JobRow, type JobServices, jobRegistry, PermanentJobError } from './registry.ts';

// Runs one claimed job and records its outcome. Every write back is fenced on the claim
// (same worker, same attempt, still running): if the lease ran out and another worker
// took the job over, this worker's late result is dropped instead of overwriting theirs.

export type JobOutcome = 'done' | 'retried' | 'failed' | 'lost';

export type RunJobDeps = {
  db: Database;
  clock: Clock;
  registry?: JobRegistry;
  log?: JobLog;
  /** While the handler runs the lease is extended every third of this (real time). */
  leaseMs?: number;
  /** Passed on to the handler (JobContext.mailer). */
  mailer?: Mailer;
  /** Passed on to the handler (JobContext.services). */
  services?: JobServices;
};

const MAX_ERROR_LENGTH = 2000;

/** The message for the log and last_error; a database error's quoted values are left out (shared/error-for-log.ts). */
function errorMessage(error: unknown): string {
  const message = error instanceof Error ? messageForLog(error) || error.name : String(error);
  return message.length > MAX_ERROR_LENGTH ? message.slice(0, MAX_ERROR_LENGTH) : message;
}

function claimed(db: QueryCreator<DB>, job: JobRow) {
  return db
    .updateTable('jobs')
    .where('id', '=', job.id)
    .where('status', '=', 'running')
    .where('locked_by', '=', job.locked_by ?? '')
    .where('attempts', '=', job.attempts);
}

type Finished = Exclude<JobOutcome, 'lost'>;
type FinishFields = { at: Date; error?: string; runAt?: Date };

/** The claimed row's end: done, failed, or pending again (retried). */
function finishWrite(db: QueryCreator<DB>, job: JobRow, outcome: Finished, fields: FinishFields) {
  return claimed(db, job).set({
    status: outcome === 'done' ? 'done' : outcome === 'failed' ? 'failed' : 'pending',
    locked_by: null,
    locked_until: null,
    locked_owner: null,
    finished_at: outcome === 'retried' ? null : fields.at,
    ...(fields.error !== undefined ? { last_error: fields.error } : {}),
    ...(fields.runAt ? { run_at: fields.runAt } : {}),
  });
}

async function finish(db: QueryCreator<DB>, job: JobRow, outcome: Finished, fields: FinishFields) {
  const result = await finishWrite(db, job, outcome, fields).executeTakeFirst();
  return result.numUpdatedRows > 0n ? outcome : 'lost';
}

/**
 * JobContext.done and doneWrite for one run of a job: the runner's `done` write, in the
 * handler's transaction or statement. `given` holds what they gave, so that the runner
 * accepts only a JobDone of this run as the handler's result.
 */
function doneInHandler(job: JobRow, clock: Clock, given: WeakSet<JobDone>, onMarked: () => void) {
  const give = (marked: boolean): JobDone => {
    const done: JobDone = { jobId: job.id, marked };
    given.add(done);
    return done;
  };
  return {
    done: async (trx: Trx): Promise<JobDone> => {
      onMarked();
      return give((await finish(trx, job, 'done', { at: clock.now() })) === 'done');
    },
    doneWrite: {
      write: (q: QueryCreator<DB>): DoneWrite => {
        onMarked();
        return finishWrite(q, job, 'done', { at: clock.now() }).returning('id');
      },
      given: give,
    },
  };
}

/** Whether the handler's result is a JobDone of this run (handlers that end in their own commit return it). */
function isGiven(result: unknown, given: WeakSet<JobDone>): result is JobDone {
  return typeof result === 'object' && result !== null && given.has(result as JobDone);
}

function keepLease(db: Database, job: JobRow, leaseMs: number | undefined, log: JobLog, marked: () => boolean): () => void {
  if (!leaseMs) return () => {};
  const timer = setInterval(
    () => {
      claimed(db, job)
        .set({ locked_until: leaseUntil(leaseMs) })
        .executeTakeFirst()
        .then((result) => {
          // Not lost when the handler has marked the job done in its transaction (JobContext.done).
          if (result.numUpdatedRows === 0n && !marked()) log(`job ${job.name} #${job.id}: lease lost while running`);
        })
        .catch((error: unknown) => log(`job ${job.name} #${job.id}: could not extend the lease: ${errorMessage(error)}`));
    },
    Math.max(10, Math.floor(leaseMs / 3)),
  );
  timer.unref();
  return () => clearInterval(timer);
}

/** Runs a claimed job's handler and marks the job done, pending again (with backoff) or failed. */
export async function runJob(deps: RunJobDeps, job: JobRow): Promise<JobOutcome> {
  const { db, clock } = deps;
  const log = deps.log ?? (() => {});
  const label = `job ${job.name} #${job.id} attempt ${job.attempts}/${job.max_attempts}`;
  const kind = (deps.registry ?? jobRegistry).get(job.name);
  if (!kind) {
    const error = `unknown job "${job.name}": no handler is defined for it in this process (defineJob)`;
    log(`${label} failed: ${error}`);
    return finish(db, job, 'failed', { at: clock.now(), error });
  }
  const problem = kind.payloadProblem(job.payload);
  if (problem) {
    log(`${label} failed: the payload does not fit: ${problem}`);
    return finish(db, job, 'failed', { at: clock.now(), error: errorMessage(`the payload does not fit: ${problem}`) });
  }

  let markedByHandler = false;
  const stopLease = keepLease(db, job, deps.leaseMs, log, () => markedByHandler);
  const given = new WeakSet<JobDone>();
  let failure: unknown;
  let succeeded = false;
  let result: unknown;
  try {
    result = await kind.handler({
      db,
      clock,
      job,
      log: (message) => log(`${label}: ${message}`),
      ...(deps.mailer ? { mailer: deps.mailer } : {}),
      services: deps.services ?? {},
      ...doneInHandler(job, clock, given, () => {
        markedByHandler = true;
      }),
    });
    succeeded = true;
  } catch (error) {
    failure = error;
  } finally {
    stopLease();
  }
  const now = clock.now();
  // The handler marked the job done in its last transaction, which committed.
  if (succeeded && isGiven(result, given)) return result.marked ? 'done' : 'lost';
  if (succeeded) return finish(db, job, 'done', { at: now });

  const error = errorMessage(failure);
  const forGood = failure instanceof PermanentJobError || job.attempts >= job.max_attempts;
  const runAt = new Date(now.getTime() + backoffDelayMs(job.attempts, kind.backoff));
  const outcome = forGood ? await finish(db, job, 'failed', { at: now, error }) : await finish(db, job, 'retried', { at: now, error, runAt });
  // A handler that threw after the transaction with its JobContext.done had committed: the
  // job is done (its change committed with the mark), not lost and not to be retried.
  if (outcome === 'lost' && markedByHandler && (await doneInThisAttempt(db, job))) {
    log(`${label} threw after its end had committed; the job is done: ${error}`);
    return 'done';
  }
  log(forGood ? `${label} failed for good: ${error}` : `${label} failed, retry at ${runAt.toISOString()}: ${error}`);
  return outcome;
}

/** Whether the job ended as done in the attempt this run claimed (by its handler's commit). */
async function doneInThisAttempt(db: Database, job: JobRow): Promise<boolean> {
  const row = await db.selectFrom('jobs').select(['status', 'attempts']).where('id', '=', job.id).executeTakeFirst();
  return row?.status === 'done' && row.attempts === job.attempts;
}
