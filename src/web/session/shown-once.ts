import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Sealer } from '../../shared/secrets.ts';

// A one-time password shown once after Post/Redirect/Get (issue 25): the POST that made it
// puts it, sealed with the instance secret (AES-256-GCM) and bound to the session, into a
// short-lived cookie for the people page only, and redirects; the GET there opens it, shows
// it and clears the cookie in the same answer. A reload, the back button or a second tab
// find no cookie and show the password no more; the password is in no URL, no log and no
// database row in clear. A cookie of another session, too old, or altered opens to nothing.

export const SHOWN_COOKIE = 'kontor_shown';
const PATH = '/app/users';
const MAX_AGE_S = 10 * 60;

export type Shown = { kind: 'invited' | 'reset'; email: string; password: string };

export function keepForOneDisplay(request: FastifyRequest, reply: FastifyReply, sealer: Sealer, sessionId: string, now: Date, shown: Shown): void {
  const sealed = sealer.seal(JSON.stringify({ ...shown, session: sessionId, at: now.getTime() }));
  reply.setCookie(SHOWN_COOKIE, sealed, { path: PATH, httpOnly: true, sameSite: 'strict', secure: request.protocol === 'https', maxAge: MAX_AGE_S });
}

/** What the POST kept for this session (then gone), or null. */
export function takeForDisplay(request: FastifyRequest, reply: FastifyReply, sealer: Sealer, sessionId: string, now: Date): Shown | null {
  const sealed = request.cookies[SHOWN_COOKIE];
  if (!sealed) return null;
  reply.clearCookie(SHOWN_COOKIE, { path: PATH });
  try {
    const value = JSON.parse(sealer.open(sealed)) as Shown & { session: string; at: number };
    if (value.session !== sessionId || now.getTime() - value.at > MAX_AGE_S * 1000 || now.getTime() < value.at) return null;
    if ((value.kind !== 'invited' && value.kind !== 'reset') || typeof value.email !== 'string' || typeof value.password !== 'string') return null;
    return { kind: value.kind, email: value.email, password: value.password };
  } catch {
    return null;
  }
}
