import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';

// CSRF protection of every change (POST) of the app: the session's own token must come
// with the form (`_csrf`) or the header `x-csrf-token`, and a browser's Origin, when it
// sends one, must be this server. SameSite=Lax cookies already keep other sites' forms
// from carrying the session; the token also covers same-site subdomains and old browsers.

export function tokenMatches(expected: string, given: unknown): boolean {
  if (typeof given !== 'string' || given.length !== expected.length) return false;
  return timingSafeEqual(Buffer.from(given), Buffer.from(expected));
}

/** False when the request names another origin than the host it was sent to. */
export function sameOrigin(origin: string | undefined, host: string | undefined): boolean {
  if (origin === undefined) return true;
  if (!host) return false;
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}

/**
 * A browser's POST from another site (its Origin names another host than this server; the
 * host as a trusted proxy forwards it, see KONTOR_TRUST_PROXY). Sign-in, file uploads and
 * every other POST are refused then — before the session is looked at, so that a forged
 * form neither signs anyone in (login CSRF) nor out.
 */
export function foreignOrigin(request: FastifyRequest): boolean {
  return !sameOrigin(request.headers.origin, request.host);
}
