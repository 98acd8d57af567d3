import type { Database } from '../../db/connection.ts';
import { inTransaction } from '../../db/transaction.ts';
import { startPortalSession, verifyPartnerPassword } from '../../modules/portal/index.ts';
import type { Clock } from '../../shared/clock.ts';
import { clearAccount, lockedUntil, recordFailure, throttleKeys } from '../session/throttle.ts';

// A partner signs in at /portal/sign-in: the app's rules (one answer for a wrong password
// and an unknown address, with the same work; throttled per account and per client
// address), counted under the portal's own keys (throttle.ts).

export type PortalSignIn = { ok: true; token: string } | { ok: false; reason: 'wrong' | 'locked'; until?: Date };

export async function portalSignIn(db: Database, clock: Clock, input: { email: string; password: string; address: string }): Promise<PortalSignIn> {
  const keys = throttleKeys(input.email, input.address, 'portal');
  const until = await inTransaction(db, (trx) => lockedUntil(trx, keys, clock.now()));
  if (until) return { ok: false, reason: 'locked', until };
  const account = await verifyPartnerPassword(db, input.email, input.password);
  if (!account) {
    await inTransaction(db, (trx) => recordFailure(trx, keys, clock.now()));
    return { ok: false, reason: 'wrong' };
  }
  await inTransaction(db, (trx) => clearAccount(trx, keys));
  return { ok: true, token: await startPortalSession(db, clock, account) };
}
