import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { invitePerson, listPeople, PeopleError, resetPassword, setPersonActive, setPersonCompany, setPersonRole } from '../../modules/access/people.ts';
import { isEmailAddress } from '../../shared/email.ts';
import { html } from '../html.ts';
import { csrfField, type Flash, page } from '../layout.ts';
import { storeForDisplay, takeForDisplay } from '../session/secret-display.ts';
import { actorOf, redirect, sendPage, shell, type WebDeps } from '../web-request.ts';
import { memberOrNoCompanyPage } from './require-member.ts';

// The people of the organisation (admins only): invite, reset a password (the one-time
// password is shown once, after a redirect: session/secret-display.ts), role, active, and the
// companies each reaches. The API keys follow (people.ts).

const USER_ID = /^usr_[0-9a-z]{26}$/;
const COMPANY_ID = /^cmp_[0-9a-z]{26}$/;

/** A one-time password waiting for its one display (session/secret-display.ts). */
type Shown = { kind: 'invited' | 'reset'; email: string; password: string };
const SHOWN = 'person-password';

export function registerUserPages(web: FastifyInstance, deps: WebDeps): void {
  type Typed = { email: string; role: string; companies: string[]; error: string };
  const overview = async (request: FastifyRequest, reply: FastifyReply, flash: Flash = null, status = 200, typed?: Typed) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const t = request.t;
    const displayId = (request.query as { shown?: string }).shown;
    const shown = status === 200 ? await takeForDisplay<Shown>(deps, member.session.id, SHOWN, displayId) : null;
    const shownBefore = !shown && displayId !== undefined;
    const csrf = member.session.csrfToken;
    const people = await listPeople(deps.db, member.company.organizationId);
    const companies = await deps.db
      .selectFrom('companies')
      .select(['id', 'name'])
      .where('organization_id', '=', member.company.organizationId)
      .orderBy('name')
      .execute();
    const nameOf = new Map(companies.map((c) => [c.id, c.name]));
    const invitedBox = shown
      ? html`<section class="panel" aria-labelledby="invited-heading"><h2 id="invited-heading">${shown.kind === 'reset' ? t.people.resetTitle(shown.email) : t.invitedTitle(shown.email)}</h2>
<p>${shown.kind === 'reset' ? t.people.resetPassword1 : t.invitedPassword}</p><p class="mono strong">${shown.password}</p><p class="hint">${t.invitedHint}</p></section>`
      : shownBefore
        ? html`<p class="hint" role="status">${t.people.shownOnce}</p>`
        : '';
    const emailError = typed?.error
      ? html`<p id="invite-email-error" class="hint"><span class="badge error">${t.settings.error}</span> ${typed.error}</p>`
      : '';
    const body = html`${invitedBox}
<section class="panel" aria-labelledby="invite-heading"><h2 id="invite-heading">${t.invite}</h2>
<form method="post" action="/app/users/invite" class="form">${csrfField(csrf)}
<label for="invite-email">${t.email}</label><input id="invite-email" name="email" type="email" required autocomplete="off" maxlength="254" value="${typed?.email ?? ''}"${typed?.error ? html` aria-invalid="true" aria-describedby="invite-email-error" autofocus` : ''}>${emailError}
<label for="invite-role">${t.role}</label><select id="invite-role" name="role"><option value="member">${t.roles.member}</option><option value="admin"${typed?.role === 'admin' ? html` selected` : ''}>${t.roles.admin}</option></select>
<fieldset><legend>${t.companies}</legend>${companies.map(
      (c) =>
        html`<label class="check"><input type="checkbox" name="company" value="${c.id}"${(typed ? typed.companies.includes(c.id) : c.id === member.company.id) ? html` checked` : ''}> ${c.name}</label>`,
    )}</fieldset>
<button type="submit" class="primary">${t.inviteButton}</button></form></section>
<h2>${t.users}</h2>
<div class="table-wrap"><table class="table people">
<thead><tr><th scope="col">${t.email}</th><th scope="col">${t.role}</th><th scope="col">${t.active}</th><th scope="col">${t.companies}</th></tr></thead>
<tbody>${people.map((p) => {
      const self = p.user_id === member.session.userId;
      return html`<tr>
<td>${p.email}${self ? html` <span class="badge">${t.you}</span>` : ''}</td>
<td><form method="post" action="/app/users/${p.user_id}/role" class="inline">${csrfField(csrf)}
<label class="visually-hidden" for="role-${p.user_id}">${t.roleOf(p.email)}</label>
<select id="role-${p.user_id}" name="role"${self ? html` disabled` : ''}><option value="member"${p.role === 'member' ? html` selected` : ''}>${t.roles.member}</option><option value="admin"${p.role === 'admin' ? html` selected` : ''}>${t.roles.admin}</option></select>
${self ? '' : html`<button type="submit">${t.save}</button>`}</form></td>
<td>${p.active ? t.active : html`<span class="badge warn">${t.inactive}</span>`}
${self ? '' : html`<form method="post" action="/app/users/${p.user_id}/active" class="inline">${csrfField(csrf)}<input type="hidden" name="active" value="${p.active ? '0' : '1'}"><button type="submit">${p.active ? t.deactivate : t.reactivate}</button></form>`}
${self ? '' : html`<form method="post" action="/app/users/${p.user_id}/password-reset" class="inline" data-confirm="${t.people.resetPasswordConfirm(p.email)}">${csrfField(csrf)}<button type="submit" aria-label="${t.people.resetPasswordLabel(p.email)}">${t.people.resetPassword}</button></form>`}</td>
<td><ul class="plain">${p.company_ids.map(
        (id) =>
          html`<li>${nameOf.get(id) ?? id}${
            self
              ? ''
              : html` <form method="post" action="/app/users/${p.user_id}/companies" class="inline">${csrfField(csrf)}<input type="hidden" name="company_id" value="${id}"><input type="hidden" name="reach" value="0"><button type="submit" aria-label="${t.takeCompanyFrom(nameOf.get(id) ?? id, p.email)}">${t.take}</button></form>`
          }</li>`,
      )}</ul>
${
  companies.some((c) => !p.company_ids.includes(c.id))
    ? html`<form method="post" action="/app/users/${p.user_id}/companies" class="inline">${csrfField(csrf)}<input type="hidden" name="reach" value="1">
<label class="visually-hidden" for="give-${p.user_id}">${t.giveCompanyTo(p.email)}</label><select id="give-${p.user_id}" name="company_id">${companies
        .filter((c) => !p.company_ids.includes(c.id))
        .map((c) => html`<option value="${c.id}">${c.name}</option>`)}</select><button type="submit">${t.give}</button></form>`
    : ''
}</td></tr>`;
    })}</tbody></table></div>
<p class="hint">${t.keysFollow}</p>`;
    return sendPage(reply, page(shell(request, 'users'), t.users, body, flash), status);
  };

  const act = async (request: FastifyRequest, reply: FastifyReply, change: (actor: ReturnType<typeof actorOf>) => Promise<void>) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    try {
      await change(actorOf(member));
    } catch (error) {
      if (error instanceof PeopleError) return overview(request, reply, { kind: 'error', text: error.message }, 422);
      throw error;
    }
    return redirect(reply, '/app/users?done=1');
  };
  const userId = (request: FastifyRequest) => {
    const { id } = request.params as { id: string };
    return USER_ID.test(id) ? id : null;
  };
  const form = (request: FastifyRequest) => (request.body ?? {}) as Record<string, string | string[] | undefined>;

  web.get('/users', { config: { adminOnly: true } }, async (request, reply) =>
    overview(request, reply, (request.query as { done?: string }).done ? { kind: 'ok', text: request.t.saved } : null),
  );

  web.post('/users/invite', { config: { adminOnly: true } }, async (request, reply) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const body = form(request);
    const companies = body.company === undefined ? [] : Array.isArray(body.company) ? body.company : [body.company];
    if (companies.length > 100 || companies.some((c) => !COMPANY_ID.test(c)))
      return overview(request, reply, { kind: 'error', text: request.t.badRequest }, 400);
    const email = String(body.email ?? '').slice(0, 1000);
    // The address is checked as the API checks one (shared/email.ts); the message stands at the field.
    if (!isEmailAddress(email.trim().toLowerCase()))
      return overview(request, reply, null, 422, { email, role: String(body.role ?? ''), companies, error: request.t.people.invalidEmail });
    try {
      const invited = await invitePerson(deps, actorOf(member), { email, role: String(body.role ?? ''), companyIds: companies });
      // The one-time password is shown once, on the page this redirects to (Post/Redirect/Get).
      if (invited.oneTimePassword) {
        const shown: Shown = { kind: 'invited', email: invited.email, password: invited.oneTimePassword };
        return redirect(reply, `/app/users?shown=${await storeForDisplay(deps, member.session.id, SHOWN, shown)}`);
      }
      return overview(request, reply, { kind: 'ok', text: request.t.invitedExisting(invited.email) });
    } catch (error) {
      if (error instanceof PeopleError) return overview(request, reply, { kind: 'error', text: error.message }, 422);
      throw error;
    }
  });

  web.post('/users/:id/password-reset', { config: { adminOnly: true } }, async (request, reply) => {
    const id = userId(request);
    if (!id) return reply.callNotFound();
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    try {
      const reset = await resetPassword(deps, actorOf(member), id);
      const shown: Shown = { kind: 'reset', email: reset.email, password: reset.oneTimePassword };
      return redirect(reply, `/app/users?shown=${await storeForDisplay(deps, member.session.id, SHOWN, shown)}`);
    } catch (error) {
      if (error instanceof PeopleError) return overview(request, reply, { kind: 'error', text: error.message }, 422);
      throw error;
    }
  });

  web.post('/users/:id/role', { config: { adminOnly: true } }, async (request, reply) => {
    const id = userId(request);
    if (!id) return reply.callNotFound();
    return act(request, reply, (actor) => setPersonRole(deps, actor, id, String(form(request).role ?? '')));
  });

  web.post('/users/:id/active', { config: { adminOnly: true } }, async (request, reply) => {
    const id = userId(request);
    if (!id) return reply.callNotFound();
    return act(request, reply, (actor) => setPersonActive(deps, actor, id, form(request).active === '1'));
  });

  web.post('/users/:id/companies', { config: { adminOnly: true } }, async (request, reply) => {
    const id = userId(request);
    const companyId = String(form(request).company_id ?? '');
    if (!id || !COMPANY_ID.test(companyId)) return reply.callNotFound();
    return act(request, reply, (actor) => setPersonCompany(deps, actor, id, companyId, form(request).reach === '1'));
  });
}
