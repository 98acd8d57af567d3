import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../db/connection.ts';
import type { Actor } from '../modules/audit/audit-log.ts';
import type { InvoicingDeps } from '../modules/invoicing/invoicing-deps.ts';
import type { Mailer } from '../modules/mail/index.ts';
import type { Clock } from '../shared/clock.ts';
import type { Sealer } from '../shared/secrets.ts';
import { type Lang, langOf, type Messages, messages } from './i18n.ts';
import type { ShellContext } from './layout.ts';
import type { Session } from './session/sessions.ts';

// What a page handler knows about the person: set by the app's hooks (index.ts).

export type Member = {
  session: Session;
  role: 'admin' | 'member';
  /** The company the person works in; its time zone turns instants into the dates shown. */
  company: { id: string; name: string; organizationId: string; timezone: string };
  companies: { id: string; name: string }[];
};

declare module 'fastify' {
  interface FastifyRequest {
    lang: Lang;
    t: Messages;
    session: Session | null;
    member: Member | null;
  }
  interface FastifyContextConfig {
    /** The page needs the admin role. */
    adminOnly?: boolean;
    /** The page is open without a session (sign-in, assets). */
    public?: boolean;
  }
}

/** Who acts, for the audit trail. */
export function actorOf(member: Member): Actor {
  return { userId: member.session.userId, organizationId: member.company.organizationId, companyId: member.company.id };
}

/** What the app's pages get from the server. */
export type WebDeps = {
  db: Database;
  clock: Clock;
  sealer: Sealer;
  invoicing: InvoicingDeps;
  mailer: Mailer;
  /** Drops the API's cached key look-ups after a revocation in the app. */
  onKeyRevoked?: () => void;
};

export const SESSION_COOKIE = 'kontor_session';
export const LANG_COOKIE = 'kontor_lang';

export function setLang(request: FastifyRequest): void {
  request.lang = langOf(request.cookies[LANG_COOKIE]);
  request.t = messages[request.lang];
}

/** The shell context of a signed-in page. */
export function shell(request: FastifyRequest, section: ShellContext['section']): ShellContext {
  const member = request.member as Member;
  return {
    lang: request.lang,
    t: request.t,
    csrfToken: member.session.csrfToken,
    email: member.session.email,
    role: member.role,
    company: member.company,
    companies: member.companies,
    section,
  };
}

export function sendPage(reply: FastifyReply, markup: string, status = 200): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(markup);
}

/** After a POST: see the result with GET (the back button does not send the form again). */
export function redirect(reply: FastifyReply, to: string): FastifyReply {
  return reply.code(303).header('location', to).send();
}
