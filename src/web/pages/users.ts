import type { FastifyInstance } from 'fastify';
import { html } from '../html.ts';
import { page } from '../layout.ts';
import { sendPage, shell, type WebDeps } from '../web-request.ts';
import { memberOrNoCompanyPage } from './require-member.ts';

// The people of the organisation (admins only): e-mail, role, active, companies reached.

export function registerUserPages(web: FastifyInstance, deps: WebDeps): void {
  web.get('/users', { config: { adminOnly: true } }, async (request, reply) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const t = request.t;
    const people = await deps.db
      .selectFrom('memberships as m')
      .innerJoin('users as u', 'u.id', 'm.user_id')
      .select(['u.id', 'u.email', 'm.role', 'm.active'])
      .where('m.organization_id', '=', member.company.organizationId)
      .orderBy('u.email')
      .execute();
    const body = html`<div class="table-wrap"><table class="table">
<thead><tr><th scope="col">${t.email}</th><th scope="col">${t.role}</th><th scope="col">${t.active}</th></tr></thead>
<tbody>${people.map((p) => html`<tr><td>${p.email}</td><td>${t.roles[p.role] ?? p.role}</td><td>${p.active ? t.active : t.inactive}</td></tr>`)}</tbody>
</table></div>`;
    return sendPage(reply, page(shell(request, 'users'), t.users, body));
  });
}
