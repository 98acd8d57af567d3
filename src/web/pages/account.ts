import type { FastifyInstance, FastifyRequest } from 'fastify';
import { recordAudit } from '../../modules/audit/audit-log.ts';
import { html } from '../html.ts';
import type { Messages } from '../i18n.ts';
import { barePage, csrfField, type Flash, page } from '../layout.ts';
import { foreignOrigin } from '../session/csrf.ts';
import { passwordChangeForm } from '../session/password-form.ts';
import { endAllSessions, endSession, switchCompany } from '../session/sessions.ts';
import { changePassword, reachableCompanies, signIn } from '../session/sign-in.ts';
import { actorOf, redirect, SESSION_COOKIE, sendPage, shell, type WebDeps } from '../web-request.ts';

// Sign-in, sign-out (here and everywhere), the password change (forced after the one-time
// password), and switching the company.

type Form = Record<string, string | undefined>;

const safeNext = (next: string | undefined) => (next && /^\/app\/[A-Za-z0-9/_?=&%.-]*$/.test(next) && !next.startsWith('/app/sign-') ? next : '/app/dashboard');

export function registerAccountPages(web: FastifyInstance, deps: WebDeps): void {
  const signInForm = (request: { t: Messages }, next: string, email = '') => html`
<form method="post" action="/app/sign-in" class="form">
<input type="hidden" name="next" value="${next}">
<label for="email">${request.t.email}</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${email}" autofocus>
<label for="password">${request.t.password}</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit" class="primary">${request.t.signIn}</button>
</form>`;

  web.get('/sign-in', { config: { public: true } }, async (request, reply) => {
    const query = request.query as Form;
    const flash: Flash = query.ended ? { kind: 'error', text: request.t.sessionEnded } : query.out ? { kind: 'ok', text: request.t.signedOut } : null;
    return sendPage(reply, barePage(request.lang, request.t, request.t.signInTitle, signInForm(request, safeNext(query.next)), flash));
  });

  web.post('/sign-in', { config: { public: true } }, async (request, reply) => {
    // Login CSRF: a form on another site must not sign this browser in (as the attacker).
    if (foreignOrigin(request))
      return sendPage(
        reply,
        barePage(request.lang, request.t, request.t.signInTitle, signInForm(request, '/app/dashboard'), {
          kind: 'error',
          text: request.t.people.foreignSignIn,
        }),
        403,
      );
    const form = (request.body ?? {}) as Form;
    const email = String(form.email ?? '').slice(0, 320);
    const next = safeNext(form.next);
    const result = await signIn(deps.db, deps.clock, { email, password: String(form.password ?? ''), address: request.ip });
    if (!result.ok) {
      const text =
        result.reason === 'locked'
          ? request.t.locked(Math.max(1, Math.ceil(((result.until as Date).getTime() - deps.clock.now().getTime()) / 60000)))
          : request.t.wrongCredentials;
      return sendPage(
        reply,
        barePage(request.lang, request.t, request.t.signInTitle, signInForm(request, next, email), { kind: 'error', text }),
        result.reason === 'locked' ? 429 : 401,
      );
    }
    reply.setCookie(SESSION_COOKIE, result.token, { path: '/app', httpOnly: true, sameSite: 'lax', secure: request.protocol === 'https' });
    return redirect(reply, result.passwordChangeRequired ? '/app/password' : next);
  });

  web.post('/sign-out', async (request, reply) => {
    await endSession(deps.db, deps.clock, (request.session as { id: string }).id);
    reply.clearCookie(SESSION_COOKIE, { path: '/app' });
    return redirect(reply, '/app/sign-in?out=1');
  });

  web.post('/sign-out-everywhere', async (request, reply) => {
    const session = request.session as { id: string; userId: string };
    const member = request.member;
    await deps.db.transaction().execute(async (trx) => {
      const ended = await endAllSessions(trx, deps.clock, session.userId);
      if (member)
        await recordAudit(trx, actorOf(member), deps.clock.now(), {
          action: 'user.signed_out_everywhere',
          subjectType: 'user',
          subjectId: session.userId,
          after: { sessions_ended: ended },
        });
    });
    reply.clearCookie(SESSION_COOKIE, { path: '/app' });
    return redirect(reply, '/app/sign-in?out=1');
  });

  const passwordForm = (request: FastifyRequest, flash: Flash) => {
    const t = request.t;
    const session = request.session as NonNullable<typeof request.session>;
    const form = passwordChangeForm(t, '/app/password', csrfField(session.csrfToken), session.email);
    if (session.passwordChangeRequired || !request.member) {
      const first: Flash = flash ?? (session.passwordChangeRequired ? { kind: 'ok', text: t.changePasswordFirst } : null);
      return barePage(request.lang, t, t.changePassword, form, first);
    }
    return page(shell(request, 'password'), t.changePassword, form, flash);
  };

  web.get('/password', async (request, reply) => {
    const done = (request.query as Form).done === '1';
    return sendPage(reply, passwordForm(request, done ? { kind: 'ok', text: request.t.passwordChanged } : null));
  });

  web.post('/password', async (request, reply) => {
    const form = (request.body ?? {}) as Form;
    const session = request.session as NonNullable<typeof request.session>;
    const result = await changePassword(deps.db, deps.clock, session.userId, session.id, {
      current: String(form.current ?? ''),
      next: String(form.next ?? ''),
      repeat: String(form.repeat ?? ''),
    });
    if (!result.ok) return sendPage(reply, passwordForm(request, { kind: 'error', text: request.t.passwordErrors[result.reason] }), 422);
    return redirect(reply, session.passwordChangeRequired ? '/app/dashboard' : '/app/password?done=1');
  });

  web.post('/company', async (request, reply) => {
    const session = request.session as NonNullable<typeof request.session>;
    const wanted = String(((request.body ?? {}) as Form).company_id ?? '');
    const companies = await reachableCompanies(deps.db, session.userId);
    // A company the person does not reach is not found, like any other record of it.
    if (!companies.some((c) => c.id === wanted)) return reply.callNotFound();
    await switchCompany(deps.db, session.id, wanted);
    return redirect(reply, '/app/dashboard');
  });
}
