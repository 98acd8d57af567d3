import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Database } from '../../db/connection.ts';
import type { Liveness } from '../../db/liveness.ts';
import type { Trx } from '../../db/transaction.ts';
import { AppError } from '../../shared/errors.ts';

// Idempotency of POST /invoices (interface §8): the key is claimed by inserting its row
// in the transaction that creates the invoice. A refused request rolls the claim back
// (the key is not used up); a concurrent request with the same key blocks on the row
// until the first commits, then answers with the stored first answer.

export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7E]{1,255}$/;
const WAIT_LIMIT_MS = 30_000;

/** Canonical form: object keys sorted, arrays and values as sent ("1" and "1.0" differ). */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

export function requestHash(body: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(canonical(body)))
    .digest('hex');
}

export type StoredAnswer = { status: number; body: string };

export class KeyClaimedElsewhere extends Error {}

/** Claims the key in `trx`; throws KeyClaimedElsewhere when another request holds or used it. */
export async function claimKey(trx: Trx, companyId: string, key: string, hash: string): Promise<void> {
  const claimed = await trx
    .insertInto('idempotency_keys')
    .values({ company_id: companyId, key, request_hash: hash, state: 'pending' })
    .onConflict((oc) => oc.columns(['company_id', 'key']).doNothing())
    .returning('key')
    .executeTakeFirst();
  if (!claimed) throw new KeyClaimedElsewhere();
}

/**
 * Stores the key's answer. Not final (`owner` given): the answer waits for the mail of
 * the process with that liveness token; final: replays get it byte for byte.
 */
export async function storeAnswer(
  trx: Trx | Database,
  companyId: string,
  key: string,
  answer: StoredAnswer & { invoiceId: string; final: boolean; owner?: string },
) {
  await trx
    .updateTable('idempotency_keys')
    .set({
      state: answer.final ? 'done' : 'pending',
      response_status: answer.status,
      response_body: answer.body,
      invoice_id: answer.invoiceId,
      owner: answer.final ? null : (answer.owner ?? null),
      updated_at: new Date(),
    })
    .where('company_id', '=', companyId)
    .where('key', '=', key)
    .execute();
}

/** Makes a pending answer final unless another request did first; returns the final answer. */
export async function finalizeAnswer(db: Database, companyId: string, key: string, answer: StoredAnswer): Promise<StoredAnswer> {
  const done = await db
    .updateTable('idempotency_keys')
    .set({ state: 'done', response_status: answer.status, response_body: answer.body, owner: null, updated_at: new Date() })
    .where('company_id', '=', companyId)
    .where('key', '=', key)
    .where('state', '=', 'pending')
    .returning('key')
    .executeTakeFirst();
  if (done) return answer;
  const row = await db
    .selectFrom('idempotency_keys')
    .select(['response_status', 'response_body'])
    .where('company_id', '=', companyId)
    .where('key', '=', key)
    .executeTakeFirstOrThrow();
  return { status: row.response_status!, body: row.response_body! };
}

/** The answer of a key whose mail's process died: settles the mail and makes the answer final (undefined: another live process mails it; wait). */
export type AnswerAfterCrash = (invoiceId: string) => Promise<StoredAnswer | undefined>;

/**
 * The stored answer of a key used before: 409 idempotency_key_reused for another body;
 * waits while the first request's mail is under way in a live process, and answers at
 * once for a process that died (`afterCrash`). Undefined when the key is free (the first
 * request failed and rolled its claim back; a claim inside a running transaction is not
 * visible here and blocks the claim insert instead).
 */
export async function storedAnswer(
  db: Database,
  liveness: Liveness,
  companyId: string,
  key: string,
  hash: string,
  afterCrash: AnswerAfterCrash,
): Promise<StoredAnswer | undefined> {
  const started = Date.now();
  for (;;) {
    const row = await db.selectFrom('idempotency_keys').selectAll().where('company_id', '=', companyId).where('key', '=', key).executeTakeFirst();
    if (!row) return undefined;
    if (row.request_hash !== hash) throw new AppError('idempotency_key_reused');
    if (row.response_status !== null && row.response_body !== null) {
      if (row.state === 'done') return { status: row.response_status, body: row.response_body };
      // A key stored before owners were recorded has none: its process is gone.
      if (row.invoice_id && !(row.owner && (await liveness.isAlive(row.owner)))) {
        const settled = await afterCrash(row.invoice_id);
        if (settled) return settled;
      }
    }
    if (Date.now() - started > WAIT_LIMIT_MS) throw new AppError('conflict_retry');
    await sleep(20);
  }
}
