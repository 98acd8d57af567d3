import { bulkInsert, type ColumnTypes } from '../db/bulk-insert.ts';
import type { Trx } from '../db/transaction.ts';
import { newId } from '../shared/ids.ts';
import { type JobRegistry, jobRegistry } from './registry.ts';

// Jobs and events are rows written in the caller's transaction, so they exist exactly
// when the state change that causes them commits (the outbox pattern). Both functions
// take a Transaction on purpose: outside one there is no change for them to belong to.

export type EnqueueJobInput = {
  name: string;
  companyId?: string | null;
  payload: unknown;
  /**
   * When the job becomes due, in the business clock's time: pass `clock.now()` for "at
   * once". Required because the database's own now() is real time, which differs from
   * the clock under KONTOR_NOW, `jobs run --as-of` and fixed test clocks.
   */
  runAt: Date;
  /** A job with this key is enqueued once, ever: a second enqueue (even after it ran) is a no-op. */
  dedupeKey?: string;
  /** Overrides the kind's maxAttempts for this job. */
  maxAttempts?: number;
  /**
   * Among due jobs, a higher priority is claimed first (default 0). For follow-up work that
   * should not wait behind a long queue of jobs like the one that caused it: the documents
   * of an invoice a bill job issued (priority 1) come before the next bill job.
   */
  priority?: number;
};

/**
 * Adds a job in the caller's transaction. Returns its id, or null when a job with the
 * same dedupe key already exists. A payload that does not fit the kind's schema throws
 * (a programming error, better found at the cause than in the worker); an unknown kind
 * is accepted here and fails in the worker with a clear last_error.
 */
export async function enqueueJob(trx: Trx, input: EnqueueJobInput, registry: JobRegistry = jobRegistry): Promise<number | null> {
  const row = await jobWrite(trx, input, registry).executeTakeFirst();
  return row?.id ?? null;
}

/**
 * enqueueJob's insert, not yet run (returning the id, none for a duplicate key): for a
 * caller that makes it part of a larger statement (a data-modifying WITH, issue 26). The
 * payload is checked here, as enqueueJob does.
 */
export function jobWrite(trx: Trx, input: EnqueueJobInput, registry: JobRegistry = jobRegistry) {
  const kind = registry.get(input.name);
  const payload = input.payload === undefined ? {} : input.payload;
  const problem = kind?.payloadProblem(payload);
  if (problem) throw new Error(`job ${input.name}: the payload does not fit: ${problem}`);
  const maxAttempts = input.maxAttempts ?? kind?.maxAttempts;

  const insert = trx
    .insertInto('jobs')
    .values({
      name: input.name,
      company_id: input.companyId ?? null,
      payload: JSON.stringify(payload),
      dedupe_key: input.dedupeKey ?? null,
      run_at: input.runAt,
      ...(maxAttempts !== undefined ? { max_attempts: maxAttempts } : {}),
      ...(input.priority ? { priority: input.priority } : {}),
    })
    .returning('id');
  return input.dedupeKey === undefined ? insert : insert.onConflict((oc) => oc.column('dedupe_key').doNothing());
}

export type RecordEventInput = {
  companyId: string;
  /** Dotted resource.action, e.g. `invoice.overdue`. */
  type: string;
  subjectId?: string | null;
  /** The resource as the API returns it (the webhook envelope's `data`). */
  data: unknown;
  /** When it happened in business time; default the database's transaction time. */
  createdAt?: Date;
};

const EVENT_TYPE = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;

function checkType(type: string) {
  if (!EVENT_TYPE.test(type)) throw new Error(`event type ${JSON.stringify(type)} is not resource.action`);
}

/** Writes an outgoing event (the outbox row) in the caller's transaction; returns its `evt_…` id. */
export async function recordEvent(trx: Trx, input: RecordEventInput): Promise<string> {
  const { id, write } = eventWrite(trx, input);
  await write.execute();
  return id;
}

/**
 * recordEvent's insert, not yet run: for a caller that makes it part of a larger statement
 * (a data-modifying WITH; the invoice's, which runs under the number's row lock, issue 26).
 */
export function eventWrite(trx: Trx, input: RecordEventInput) {
  const row = eventRow(input);
  return { id: row.id, write: trx.insertInto('events').values(row) };
}

/** The outbox row recordEvent writes, for a caller that writes it in its own SQL. */
export function eventRow(input: RecordEventInput) {
  checkType(input.type);
  return {
    company_id: input.companyId,
    id: newId('evt'),
    type: input.type,
    subject_id: input.subjectId ?? null,
    data: JSON.stringify(input.data ?? null),
    ...(input.createdAt ? { created_at: input.createdAt } : {}),
  };
}

const EVENT_COLUMNS: ColumnTypes<'events'> = { company_id: 'text', id: 'text', type: 'text', subject_id: 'text', data: 'jsonb', created_at: 'timestamptz' };

/**
 * recordEvent for many events of one company at once (bank imports, daily runs): the
 * same rows, written in multi-row statements, in the order given (their `seq` order).
 */
export async function recordEvents(
  trx: Trx,
  companyId: string,
  events: readonly { type: string; subjectId: string | null; data: unknown }[],
  createdAt: Date,
): Promise<void> {
  for (const event of events) checkType(event.type);
  const rows = events.map((event) => ({
    company_id: companyId,
    id: newId('evt'),
    type: event.type,
    subject_id: event.subjectId,
    data: JSON.stringify(event.data ?? null),
    created_at: createdAt,
  }));
  await bulkInsert(trx, 'events', EVENT_COLUMNS, rows);
}
