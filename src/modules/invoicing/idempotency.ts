import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Database } from '../../db/connection.ts';
import type { Trx } from '../../db/transaction.ts';
import { AppError } from '../../shared/errors.ts';

// Idempotency of POST /invoices (interface §8): the key is claimed by inserting its row
// in the transaction that creates the invoice. A refused request rolls the claim back
// (the key is not used up); a concurrent request with the same key blocks on the row
// until the first commits, then answers with the stored first answer.

export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7E]{1,255}$/;
const WAIT_LIMIT_MS = 30_000;
/** A mail attempt that never finished (process died) leaves its tentative answer final after this. */
const ABANDONED_AFTER_MS = 120_000;

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

export async function storeAnswer(trx: Trx | Database, companyId: string, key: string, answer: StoredAnswer & { invoiceId: string; final: boolean }) {
  await trx
    .updateTable('idempotency_keys')
    .set({
      state: answer.final ? 'done' : 'pending',
      response_status: answer.status,
      response_body: answer.body,
      invoice_id: answer.invoiceId,
      updated_at: new Date(),
    })
    .where('company_id', '=', companyId)
    .where('key', '=', key)
    .execute();
}

/**
 * The stored answer of a key used before: 409 idempotency_key_reused for another body;
 * waits while the first request is still running. Undefined when the key is free (the
 * first request failed and rolled its claim back).
 */
export async function storedAnswer(db: Database, companyId: string, key: string, hash: string): Promise<StoredAnswer | undefined> {
  const started = Date.now();
  for (;;) {
    const row = await db.selectFrom('idempotency_keys').selectAll().where('company_id', '=', companyId).where('key', '=', key).executeTakeFirst();
    if (!row) return undefined;
    if (row.request_hash !== hash) throw new AppError('idempotency_key_reused');
    const abandoned = row.response_body !== null && Date.now() - row.updated_at.getTime() > ABANDONED_AFTER_MS;
    if ((row.state === 'done' || abandoned) && row.response_status !== null && row.response_body !== null) {
      if (abandoned && row.state !== 'done')
        await db.updateTable('idempotency_keys').set({ state: 'done' }).where('company_id', '=', companyId).where('key', '=', key).execute();
      return { status: row.response_status, body: row.response_body };
    }
    if (Date.now() - started > WAIT_LIMIT_MS) throw new AppError('conflict_retry');
    await sleep(20);
  }
}
