import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { QueryCreator, Selectable, UpdateQueryBuilder } from 'kysely';
import type { Database } from '../db/connection.ts';
import type { DB, JobsTable } from '../db/schema.ts';
import type { Trx } from '../db/transaction.ts';
import type { Mailer } from '../modules/mail/index.ts';
import type { Clock } from '../shared/clock.ts';
import type { Backoff } from './backoff.ts';

// Job kinds: a name, how its payload is checked, what runs it, how often it may fail.
// Modules define their kinds at import time (defineJob) into the process-wide registry;
// tests may build their own registry to run a closed set of kinds.

export type JobRow = Selectable<JobsTable>;
export type Job<P = unknown> = Omit<JobRow, 'payload'> & { payload: P };
export type JobLog = (message: string) => void;

/**
 * What a handler gets. `db` is the database, not a transaction: a handler opens its own
 * transactions and must be idempotent, because a job runs at least once (a worker that
 * dies after the handler committed but before the job was marked done runs it again).
 */
export type JobContext<P> = {
  db: Database;
  clock: Clock;
  job: Job<P>;
  log: JobLog;
  /** The company mailboxes, when the process that runs the job has them (JobDeps.mailer). */
  mailer?: Mailer;
  /** What else the process hands its handlers (JobDeps.services); each field may be absent. */
  services: JobServices;
  /**
   * Marks the job done in the handler's own transaction `trx`, fenced on the claim like the
   * runner's write: the change that completes the job and the job's end are one commit, not
   * two (issue 26). Call it in the handler's last transaction and return what it gives once
   * that transaction has committed (say, as inTransaction's result); the runner then writes
   * nothing more. A handler that returns nothing is marked done by the runner, as before.
   */
  done(trx: Trx): Promise<JobDone>;
  /**
   * `done` as a part of the handler's last statement (a data-modifying WITH) instead of a
   * statement of its own: `write` is the same fenced update of the job's row, returning its
   * id when it marked it; once that statement has committed, the handler returns
   * `given(marked)`, marked being whether the part returned a row.
   */
  doneWrite: { write(q: QueryCreator<DB>): DoneWrite; given(marked: boolean): JobDone };
};

/** JobContext.doneWrite's update of the job's row (a handler may add a condition). */
export type DoneWrite = UpdateQueryBuilder<DB, 'jobs', 'jobs', { id: number }>;

/** What JobContext.done gives; `marked` is false when the claim was lost meanwhile (runJob answers `lost`). */
export type JobDone = { readonly jobId: number; readonly marked: boolean };

/**
 * Services a process may hand to job handlers beyond the database and the mailboxes (the
 * invoice renderers, say). Empty here: a module that needs one declares its field, optional,
 * by interface merging (`declare module '…/jobs/registry.ts'`), so jobs imports no module.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by interface merging in the modules
export interface JobServices {}

export type JobDefinition<P> = {
  name: string;
  /** JSON Schema of the payload, checked strictly (no coercion, no defaults). */
  schema?: object;
  /** Or a predicate; a payload it refuses is not enqueued, and fails the job if found in the table. */
  validate?: (payload: unknown) => payload is P;
  /** Resolves to nothing, or to the JobDone that `ctx.done` / `ctx.doneWrite` gave (the job ended in the handler's commit). */
  handler: (ctx: JobContext<P>) => Promise<unknown>;
  /** Attempts before the job ends `failed` (default 10); written to the row at enqueue. */
  maxAttempts?: number;
  backoff?: Backoff;
};

export type RegisteredJob = {
  name: string;
  handler: (ctx: JobContext<unknown>) => Promise<unknown>;
  maxAttempts: number | undefined;
  backoff: Backoff | undefined;
  /** Why the payload does not fit, or null when it does. */
  payloadProblem(payload: unknown): string | null;
};

export type JobRegistry = {
  define<P>(definition: JobDefinition<P>): JobDefinition<P>;
  get(name: string): RegisteredJob | undefined;
  names(): string[];
};

/**
 * A handler throws this when repeating cannot help (the target is gone, the input is
 * wrong): the job ends `failed` at once instead of being retried.
 */
export class PermanentJobError extends Error {
  override name = 'PermanentJobError';
}

const JOB_NAME = /^[a-z][a-z0-9_.:-]{0,99}$/;

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const ajv = addFormats(new Ajv({ allErrors: true, coerceTypes: false, removeAdditional: false, useDefaults: false, strict: false }));

function payloadChecker<P>(definition: JobDefinition<P>): (payload: unknown) => string | null {
  const checks: ((payload: unknown) => string | null)[] = [];
  if (definition.schema) {
    const validate = ajv.compile(definition.schema);
    checks.push((payload) => (validate(payload) ? null : ajv.errorsText(validate.errors, { dataVar: 'payload' })));
  }
  if (definition.validate) {
    const predicate = definition.validate;
    checks.push((payload) => (predicate(payload) ? null : 'payload refused by the validator'));
  }
  return (payload) => {
    for (const check of checks) {
      const problem = check(payload);
      if (problem) return problem;
    }
    return null;
  };
}

export function createJobRegistry(): JobRegistry {
  const kinds = new Map<string, RegisteredJob>();
  return {
    define(definition) {
      if (!JOB_NAME.test(definition.name)) throw new Error(`job name ${JSON.stringify(definition.name)} must match ${JOB_NAME}`);
      if (kinds.has(definition.name)) throw new Error(`job ${definition.name} is defined twice`);
      if (definition.maxAttempts !== undefined && !(Number.isInteger(definition.maxAttempts) && definition.maxAttempts >= 1))
        throw new Error(`job ${definition.name}: maxAttempts must be a positive integer`);
      kinds.set(definition.name, {
        name: definition.name,
        handler: definition.handler as (ctx: JobContext<unknown>) => Promise<unknown>,
        maxAttempts: definition.maxAttempts,
        backoff: definition.backoff,
        payloadProblem: payloadChecker(definition),
      });
      return definition;
    },
    get: (name) => kinds.get(name),
    names: () => [...kinds.keys()].sort(),
  };
}

/** The process-wide registry that defineJob writes to and the worker reads from. */
export const jobRegistry: JobRegistry = createJobRegistry();

export function defineJob<P>(definition: JobDefinition<P>): JobDefinition<P> {
  return jobRegistry.define(definition);
}
