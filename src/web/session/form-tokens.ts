import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../../db/connection.ts';
import type { Clock } from '../../shared/clock.ts';
import { html } from '../html.ts';
import { barePage } from '../layout.ts';
import { sendPage } from '../web-request.ts';
import { ONCE_FIELD } from './once.ts';
import { ABSOLUTE_MS } from './sessions.ts';

// Steps that happen once (issue 25 §3): every form of the app carries, beside the session's
// CSRF token, a one-time token `_once` made when the form is rendered (csrfField). The first
// POST with it claims it (insert into app_form_tokens; the primary key makes two claims at
// the same instant impossible) before the step runs; the step's answer is recorded on the
// claim: a redirect's location is kept, a refusal or failure (4xx, 5xx) releases the claim,
// so the corrected form can be sent again. A second POST with the same token — a double
// click, the browser's "send again" on reload, a second tab with the same page — waits for
// the first to finish and is sent where the first one led, with nothing done twice.
// Two pages loaded separately carry two tokens: those are two intentions, and the step's
// own state check answers the second (a sent statement offers no "Versenden").

const TOKEN = /^[A-Za-z0-9_-]{22,64}$/;
/** How long a repeated POST waits for the first one to finish. */
const WAIT_MS = 15_000;
const POLL_MS = 50;

declare module 'fastify' {
  interface FastifyRequest {
    /** The form token this POST claimed (settled when the answer goes out). */
    claimedFormToken: string | null;
  }
}

type Deps = { db: Database; clock: Clock };

/** Claims the POST's form token; false when another POST claimed it first. */
export async function claimFormToken(deps: Deps, sessionId: string, token: string): Promise<boolean> {
  const now = deps.clock.now();
  const claimed = await deps.db
    .insertInto('app_form_tokens')
    .values({ session_id: sessionId, token, claimed_at: now, finished_at: null, location: null })
    .onConflict((oc) => oc.columns(['session_id', 'token']).doNothing())
    .returning('token')
    .executeTakeFirst();
  if (claimed) {
    // Tokens outlive no session (a session ends at the latest ABSOLUTE_MS after sign-in).
    await deps.db
      .deleteFrom('app_form_tokens')
      .where('claimed_at', '<', new Date(now.getTime() - ABSOLUTE_MS))
      .execute();
  }
  return Boolean(claimed);
}

/** Records the step's answer on its claim: kept with its redirect, released after a refusal or failure. */
export async function settleFormToken(deps: Deps, sessionId: string, token: string, status: number, location: string | null): Promise<void> {
  if (status >= 400) {
    await deps.db.deleteFrom('app_form_tokens').where('session_id', '=', sessionId).where('token', '=', token).execute();
    return;
  }
  await deps.db
    .updateTable('app_form_tokens')
    .set({ finished_at: deps.clock.now(), location: location && location.startsWith('/app') ? location.slice(0, 1000) : null })
    .where('session_id', '=', sessionId)
    .where('token', '=', token)
    .execute();
}

/** The first POST's answer: where it led, 'released' when it failed, or 'running' when it did not finish in time. */
async function firstOutcome(deps: Deps, sessionId: string, token: string): Promise<{ location: string | null } | 'released' | 'running'> {
  const until = Date.now() + WAIT_MS;
  for (;;) {
    const row = await deps.db
      .selectFrom('app_form_tokens')
      .select(['finished_at', 'location'])
      .where('session_id', '=', sessionId)
      .where('token', '=', token)
      .executeTakeFirst();
    if (!row) return 'released';
    if (row.finished_at) return { location: row.location };
    if (Date.now() >= until) return 'running';
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/**
 * Hooks of the app (index.ts): after the CSRF check, a POST's `_once` is claimed; a POST
 * whose token was claimed before is answered here and never reaches its step.
 */
export function registerFormTokens(web: FastifyInstance, deps: Deps): void {
  web.decorateRequest('claimedFormToken', null);
  web.addHook('preHandler', async (request, reply) => {
    if (request.method !== 'POST' || !request.session || reply.sent) return;
    const body = request.body as Record<string, unknown> | undefined;
    const token = body?.[ONCE_FIELD];
    if (typeof token !== 'string' || !TOKEN.test(token)) return;
    const sessionId = request.session.id;
    // A released claim (the first POST was refused) may be claimed again.
    for (let attempt = 0; attempt < 3; attempt++) {
      if (await claimFormToken(deps, sessionId, token)) {
        request.claimedFormToken = token;
        return;
      }
      const first = await firstOutcome(deps, sessionId, token);
      if (first === 'released') continue;
      return answerRepeat(request, reply, first);
    }
    return answerRepeat(request, reply, 'running');
  });
  web.addHook('onSend', async (request, reply, payload) => {
    const token = request.claimedFormToken;
    if (token && request.session) {
      request.claimedFormToken = null;
      const location = reply.getHeader('location');
      await settleFormToken(deps, request.session.id, token, reply.statusCode, typeof location === 'string' ? location : null);
    }
    return payload;
  });
}

function answerRepeat(request: FastifyRequest, reply: FastifyReply, first: { location: string | null } | 'running'): FastifyReply {
  const t = request.t;
  if (first !== 'running' && first.location) return reply.code(303).header('location', first.location).send();
  // The first answer was a page or a file (not a redirect), or it is still running: say so, and lead back.
  const back = refererPath(request) ?? '/app/dashboard';
  return sendPage(
    reply,
    barePage(
      request.lang,
      t,
      first === 'running' ? t.steps.stillRunning : t.steps.alreadyDone,
      html`<p>${first === 'running' ? t.steps.stillRunningHint : t.steps.alreadyDoneHint}</p><p><a href="${back}">${t.steps.back}</a></p>`,
    ),
    409,
  );
}

function refererPath(request: FastifyRequest): string | null {
  const referer = request.headers.referer;
  if (!referer) return null;
  try {
    const url = new URL(referer);
    if (url.host !== request.headers.host || !url.pathname.startsWith('/app')) return null;
    return `${url.pathname}${url.search}`;
  } catch {
    return null;
  }
}
