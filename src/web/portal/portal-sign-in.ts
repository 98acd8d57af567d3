import type { Database } from '../../db/connection.ts';
import { startPortalSession, verifyPartnerPassword } from '../../modules/portal/index.ts';
import type { Clock } from '../../shared/clock.ts';
import { throttledSignIn, throttleKeys } from '../session/throttle.ts';

// A partner signs in at /portal/sign-in: the app's rules (one answer for a wrong password
// and an unknown address, with the same work; throttled per account and per client
// address), counted under the portal's own keys (throttle.ts).

export type PortalSignIn = { ok: true; token: string } | { ok: false; reason: 'wrong' | 'locked'; until?: Date };

export async function portalSignIn(db: Database, clock: Clock, input: { email: string; password: string; address: string }): Promise<PortalSignIn> {
  const result = await throttledSignIn(db, clock, throttleKeys(input.email, input.address, 'portal'), () =>
    verifyPartnerPassword(db, input.email, input.password),
  );
  if (!result.ok) return result;
  return { ok: true, token: await startPortalSession(db, clock, result.value) };
}
