import { createHash } from 'node:crypto';
import type { Database } from '../../db/connection.ts';
import { inTransaction, type Trx } from '../../db/transaction.ts';
import type { Clock } from '../../shared/clock.ts';

// Sign-in throttling per account (the e-mail as typed, known or not, so that throttling
// tells nothing about which accounts exist) and per client address. Keys are SHA-256
// hashes: the table holds no e-mail address and no IP address. A key with LIMIT failures
// inside WINDOW_MS is locked for LOCK_MS from the last failure; a success clears the
// account's key (not the address's: one good password does not lift an address's lock).

export const ACCOUNT_LIMIT = 5;
export const ADDRESS_LIMIT = 20;
export const WINDOW_MS = 15 * 60 * 1000;
export const LOCK_MS = 15 * 60 * 1000;

export type ThrottleKeys = { account: string; address: string };

/**
 * The keys of a sign-in. The partner portal (issue 27) counts under keys of its own
 * (`portal-account:`, `portal-address:`): a flood on the portal locks no person out of the
 * app, and the app's failures lock no partner out.
 */
export function throttleKeys(email: string, address: string, door: 'app' | 'portal' = 'app'): ThrottleKeys {
  const hash = (text: string) => createHash('sha256').update(text).digest('hex');
  const prefix = door === 'portal' ? 'portal-' : '';
  return { account: `${prefix}account:${hash(email.trim().toLowerCase())}`, address: `${prefix}address:${hash(address)}` };
}

/** Until when sign-in is locked for these keys, or null. */
export async function lockedUntil(trx: Trx, keys: ThrottleKeys, now: Date): Promise<Date | null> {
  const rows = await trx
    .selectFrom('sign_in_throttle')
    .select('locked_until')
    .where('key', 'in', [keys.account, keys.address])
    .where('locked_until', '>', now)
    .execute();
  const until = rows.map((r) => (r.locked_until as Date).getTime());
  return until.length > 0 ? new Date(Math.max(...until)) : null;
}

export async function recordFailure(trx: Trx, keys: ThrottleKeys, now: Date): Promise<void> {
  for (const [key, limit] of [
    [keys.account, ACCOUNT_LIMIT],
    [keys.address, ADDRESS_LIMIT],
  ] as const) {
    const row = await trx.selectFrom('sign_in_throttle').selectAll().where('key', '=', key).forUpdate().executeTakeFirst();
    const fresh = !row || row.window_started_at.getTime() + WINDOW_MS <= now.getTime();
    const failures = fresh ? 1 : row.failures + 1;
    const locked = failures >= limit ? new Date(now.getTime() + LOCK_MS) : null;
    await trx
      .insertInto('sign_in_throttle')
      .values({ key, failures, window_started_at: fresh ? now : row.window_started_at, locked_until: locked })
      .onConflict((oc) => oc.column('key').doUpdateSet({ failures, window_started_at: fresh ? now : row.window_started_at, locked_until: locked }))
      .execute();
  }
}

export async function clearAccount(trx: Trx, keys: ThrottleKeys): Promise<void> {
  await trx.deleteFrom('sign_in_throttle').where('key', '=', keys.account).execute();
}

export type Throttled<T> = { ok: true; value: T } | { ok: false; reason: 'wrong' | 'locked'; until?: Date };

/**
 * A sign-in under the keys' throttle (the app's and the portal's): refused while a key is
 * locked, without looking at the password; otherwise `verify` decides — null counts as a
 * failure for both keys, a value clears the account's key.
 */
export async function throttledSignIn<T>(db: Database, clock: Clock, keys: ThrottleKeys, verify: () => Promise<T | null>): Promise<Throttled<T>> {
  const until = await inTransaction(db, (trx) => lockedUntil(trx, keys, clock.now()));
  if (until) return { ok: false, reason: 'locked', until };
  const value = await verify();
  if (value === null) {
    await inTransaction(db, (trx) => recordFailure(trx, keys, clock.now()));
    return { ok: false, reason: 'wrong' };
  }
  await inTransaction(db, (trx) => clearAccount(trx, keys));
  return { ok: true, value };
}
