import type { FastifyRequest } from 'fastify';
import type { Database } from '../../db/connection.ts';
import type { InvoicingDeps } from '../../modules/invoicing/invoicing-deps.ts';
import type { Mailer } from '../../modules/mail/index.ts';
import type { PortalSession } from '../../modules/portal/index.ts';
import type { Clock } from '../../shared/clock.ts';
import type { Sealer } from '../../shared/secrets.ts';
import type { Lang } from '../i18n.ts';
import { type PortalMessages, portalMessages } from './texts.ts';

// What a portal page knows about its request: the language and, once signed in, the
// session with its partner and company (portal/index.ts sets it). Every look-up of a page
// takes the partner and company from here, never from the address: another partner's or
// company's id in a URL finds nothing (404).

export type PortalRequest = { lang: Lang; t: PortalMessages; session: PortalSession | null };

declare module 'fastify' {
  interface FastifyRequest {
    portal: PortalRequest;
  }
}

/** What the portal's pages get from the server. */
export type PortalDeps = { db: Database; clock: Clock; sealer: Sealer; invoicing: InvoicingDeps; mailer: Mailer };

export const PORTAL_COOKIE = 'kontor_portal';
export const PORTAL_LANG_COOKIE = 'kontor_portal_lang';

export function portalRequest(request: FastifyRequest): PortalRequest {
  const lang: Lang = request.cookies[PORTAL_LANG_COOKIE] === 'en' ? 'en' : 'de';
  return { lang, t: portalMessages[lang], session: null };
}

/** The signed-in session (pages behind the sign-in only). */
export function sessionOf(request: FastifyRequest): PortalSession {
  const session = request.portal.session;
  if (!session) throw new Error('a portal page without a session');
  return session;
}

export { redirect, sendPage } from '../web-request.ts';
