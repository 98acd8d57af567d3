import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  acceptPartnerInvitation,
  changePartnerPassword,
  endPortalSession,
  invitationAccount,
  PortalError,
  startPortalSession,
} from '../../../modules/portal/index.ts';
import { calendarDate } from '../../../shared/clock.ts';
import { MIN_PASSWORD_LENGTH } from '../../../shared/passwords.ts';
import { type Html, html } from '../../html.ts';
import type { Flash } from '../../layout.ts';
import { date } from '../../pages/money.ts';
import { foreignOrigin } from '../../session/csrf.ts';
import { passwordChangeForm } from '../../session/password-form.ts';
import { portalBarePage, portalCsrf, portalPage } from '../portal-layout.ts';
import { PORTAL_COOKIE, type PortalDeps, redirect, sendPage, sessionOf } from '../portal-request.ts';
import { portalSignIn } from '../portal-sign-in.ts';
import { partnerDataSections, type RefusedChange } from './change-requests.ts';

// Getting in and out of the portal: the invitation link (the partner chooses its password
// and is signed in), sign-in, sign-out, and the password change on the access page.

type Form = Record<string, string | undefined>;

const TOKEN = /^[A-Za-z0-9_-]{20,100}$/;

const safeNext = (next: string | undefined) =>
  next && /^\/portal\/[A-Za-z0-9/_?=&%.-]*$/.test(next) && !next.startsWith('/portal/sign-') && !next.startsWith('/portal/invitation')
    ? next
    : '/portal/overview';

const cookieOptions = (request: FastifyRequest) => ({ path: '/portal', httpOnly: true, sameSite: 'lax' as const, secure: request.protocol === 'https' });

export function registerPortalAccessPages(portal: FastifyInstance, deps: PortalDeps): void {
  const signInForm = (request: FastifyRequest, next: string, email = '') => {
    const { t } = request.portal;
    return html`
<form method="post" action="/portal/sign-in" class="form">
<input type="hidden" name="next" value="${next}">
<label for="email">${t.email}</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${email}" autofocus>
<label for="password">${t.password}</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit" class="primary">${t.signIn}</button>
</form>`;
  };

  portal.get('/sign-in', { config: { public: true } }, async (request, reply) => {
    const query = request.query as Form;
    const { t } = request.portal;
    const flash: Flash = query.ended ? { kind: 'error', text: t.sessionEnded } : query.out ? { kind: 'ok', text: t.signedOut } : null;
    return sendPage(reply, portalBarePage(request.portal, t.signInTitle, signInForm(request, safeNext(query.next)), flash));
  });

  portal.post('/sign-in', { config: { public: true } }, async (request, reply) => {
    const { t } = request.portal;
    // Login CSRF: a form on another site must not sign this browser in.
    if (foreignOrigin(request))
      return sendPage(
        reply,
        portalBarePage(request.portal, t.signInTitle, signInForm(request, '/portal/overview'), { kind: 'error', text: t.foreignSignIn }),
        403,
      );
    const form = (request.body ?? {}) as Form;
    const email = String(form.email ?? '').slice(0, 320);
    const next = safeNext(form.next);
    const result = await portalSignIn(deps.db, deps.clock, { email, password: String(form.password ?? ''), address: request.ip });
    if (!result.ok) {
      const text =
        result.reason === 'locked'
          ? t.locked(Math.max(1, Math.ceil(((result.until as Date).getTime() - deps.clock.now().getTime()) / 60000)))
          : t.wrongCredentials;
      return sendPage(
        reply,
        portalBarePage(request.portal, t.signInTitle, signInForm(request, next, email), { kind: 'error', text }),
        result.reason === 'locked' ? 429 : 401,
      );
    }
    reply.setCookie(PORTAL_COOKIE, result.token, cookieOptions(request));
    return redirect(reply, next);
  });

  portal.post('/sign-out', async (request, reply) => {
    await endPortalSession(deps.db, deps.clock, sessionOf(request).id);
    reply.clearCookie(PORTAL_COOKIE, { path: '/portal' });
    return redirect(reply, '/portal/sign-in?out=1');
  });

  // The invitation link: GET shows the form, POST sets the password and signs in. The token
  // in the address is the secret: the page is never cached and sends no Referer (same-origin).
  const invitationPage = async (request: FastifyRequest, token: string, flash: Flash, status: number) => {
    const { t } = request.portal;
    const account = TOKEN.test(token) ? await invitationAccount(deps.db, deps.clock, token) : null;
    if (!account) return { status: 404, markup: portalBarePage(request.portal, t.invitationTitle, html`<p>${t.invitationInvalid}</p>`) };
    const company = await deps.db.selectFrom('companies').select(['name', 'timezone']).where('id', '=', account.company_id).executeTakeFirstOrThrow();
    const until = calendarDate(account.expires_at, company.timezone);
    const body: Html = html`<p>${t.invitationIntro(company.name, account.email)}</p>
<p class="hint">${t.invitationValidUntil(date(until))}</p>
<form method="post" action="/portal/invitation/${token}" class="form">
<input type="text" name="username" autocomplete="username" value="${account.email}" hidden>
<label for="next">${t.newPassword}</label>
<input id="next" name="password" type="password" autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}" required aria-describedby="next-hint">
<p id="next-hint" class="hint">${t.passwordHint(MIN_PASSWORD_LENGTH)}</p>
<label for="repeat">${t.repeatPassword}</label>
<input id="repeat" name="repeat" type="password" autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}" required>
<button type="submit" class="primary">${t.setPassword}</button>
</form>`;
    return { status, markup: portalBarePage(request.portal, t.invitationTitle, body, flash) };
  };

  portal.get('/invitation/:token', { config: { public: true } }, async (request, reply) => {
    const page = await invitationPage(request, (request.params as { token: string }).token, null, 200);
    return sendPage(reply, page.markup, page.status);
  });

  portal.post('/invitation/:token', { config: { public: true } }, async (request, reply) => {
    const { t } = request.portal;
    const token = (request.params as { token: string }).token;
    if (foreignOrigin(request)) return sendPage(reply, portalBarePage(request.portal, t.csrfFailed, html``), 403);
    if (!TOKEN.test(token)) return sendPage(reply, portalBarePage(request.portal, t.invitationTitle, html`<p>${t.invitationInvalid}</p>`), 404);
    const form = (request.body ?? {}) as Form;
    try {
      const account = await acceptPartnerInvitation(deps, { token, password: String(form.password ?? ''), repeat: String(form.repeat ?? '') });
      reply.setCookie(PORTAL_COOKIE, await startPortalSession(deps.db, deps.clock, account), cookieOptions(request));
      return redirect(reply, '/portal/overview?welcome=1');
    } catch (error) {
      if (!(error instanceof PortalError)) throw error;
      const text = t.passwordRefusals[error.refusal] ?? error.message;
      const page = await invitationPage(request, token, { kind: 'error', text }, 422);
      return sendPage(reply, page.markup, page.status === 404 ? 404 : 422);
    }
  });

  portal.get('/account', async (request, reply) => {
    const { t } = request.portal;
    const done = (request.query as Form).done;
    const text =
      done === 'password'
        ? t.passwordChanged
        : done === 'change-requested'
          ? t.changes.requestedDone(sessionOf(request).companyName)
          : done === 'change-withdrawn'
            ? t.changes.withdrawnDone
            : null;
    return sendPage(reply, await portalAccountPage(deps, request, text ? { kind: 'ok', text } : null));
  });

  portal.post('/password', async (request, reply) => {
    const form = (request.body ?? {}) as Form;
    const session = sessionOf(request);
    const result = await changePartnerPassword(deps, session, {
      current: String(form.current ?? ''),
      next: String(form.next ?? ''),
      repeat: String(form.repeat ?? ''),
    });
    if (!result.ok)
      return sendPage(reply, await portalAccountPage(deps, request, { kind: 'error', text: request.portal.t.passwordErrors[result.reason] }), 422);
    return redirect(reply, '/portal/account?done=password');
  });
}

/**
 * The account page: the password form and the partner's data with its change requests
 * (change-requests.ts); `refused` shows a refused request again in its form.
 */
export async function portalAccountPage(deps: PortalDeps, request: FastifyRequest, flash: Flash, refused?: RefusedChange): Promise<string> {
  const { t } = request.portal;
  const session = sessionOf(request);
  return portalPage(
    request.portal,
    'account',
    t.nav.account,
    html`<p>${t.signedInAs(session.email)}</p>
${await partnerDataSections(deps, request, refused)}
<section class="panel" aria-labelledby="password-heading"><h2 id="password-heading">${t.changePassword}</h2>
${passwordChangeForm(t, '/portal/password', portalCsrf(session.csrfToken), session.email)}</section>`,
    flash,
  );
}
