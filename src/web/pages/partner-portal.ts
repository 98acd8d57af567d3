import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { deactivatePartnerAccount, invitePartnerAccount, PortalError, partnerAccounts, portalUrlOf } from '../../modules/portal/index.ts';
import { type Html, html } from '../html.ts';
import { csrfField, type Flash } from '../layout.ts';
import { actorOf, type Member, redirect, type WebDeps } from '../web-request.ts';
import { memberOrNoCompanyPage } from './require-member.ts';

// The partner page's "Partnerportal" box (issue 27 §1): the partner's portal accounts with
// their state, an invitation by e-mail address (the link is mailed from the company's
// mailbox; the person never sees it), and deactivation. Any member of the company may
// invite and deactivate; both are in the audit trail.

const PARTNER = /^cpt_[0-9a-z]{26}$/;
const ACCOUNT = /^pac_[0-9a-z]{26}$/;

/** The partner page, re-rendered with a message (partners.ts). */
export type PartnerDetail = (request: FastifyRequest, reply: FastifyReply, flash: Flash, status: number) => Promise<unknown>;

export async function portalSection(deps: WebDeps, request: FastifyRequest, member: Member, partnerId: string): Promise<Html> {
  const w = request.t.share.portal;
  const accounts = await partnerAccounts(deps.db, member.company.id, partnerId);
  const state = (a: { active: boolean; activated_at: Date | null }) => (!a.active ? 'inactive' : a.activated_at ? 'active' : 'invited');
  const rows = accounts.map((a) => {
    const s = state(a);
    const inviteAgain = html`<form method="post" action="/app/partners/${partnerId}/portal-invite" class="inline">${csrfField(member.session.csrfToken)}<input type="hidden" name="email" value="${a.email}"><button type="submit">${w.inviteAgain}</button></form>`;
    const deactivate = html`<form method="post" action="/app/partners/${partnerId}/portal-accounts/${a.id}/deactivate" class="inline">${csrfField(member.session.csrfToken)}<button type="submit" class="danger">${w.deactivate}</button></form>`;
    const action = s === 'inactive' ? inviteAgain : s === 'invited' ? html`${deactivate} ${inviteAgain}` : deactivate;
    return html`<tr><td>${a.email}</td><td><span class="badge${s === 'active' ? ' ok' : s === 'inactive' ? '' : ' warn'}">${w.states[s]}</span></td><td>${action}</td></tr>`;
  });
  return html`<section class="panel" aria-labelledby="portal-heading"><h2 id="portal-heading">${w.title}</h2>
<p class="hint">${w.intro}</p>
${accounts.length === 0 ? html`<p class="muted">${w.none}</p>` : html`<div class="table-wrap"><table class="table"><thead><tr><th scope="col">${w.email}</th><th scope="col">${w.status}</th><th scope="col"><span class="visually-hidden">${w.deactivate}</span></th></tr></thead><tbody>${rows}</tbody></table></div>`}
<form method="post" action="/app/partners/${partnerId}/portal-invite" class="form" novalidate>${csrfField(member.session.csrfToken)}
<label for="portal-email">${w.email}</label><input id="portal-email" name="email" type="email" autocomplete="off" spellcheck="false">
<button type="submit" class="primary">${w.invite}</button>
</form></section>`;
}

export function registerPartnerPortalRoutes(web: FastifyInstance, deps: WebDeps, detail: PartnerDetail): void {
  web.post('/partners/:id/portal-invite', async (request, reply) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const { id } = request.params as { id: string };
    if (!PARTNER.test(id)) return reply.callNotFound();
    const email = String((request.body as Record<string, unknown> | undefined)?.email ?? '').slice(0, 320);
    const portalUrl = portalUrlOf(undefined, process.env, `${request.protocol}://${request.host}/portal`);
    try {
      await invitePartnerAccount(deps, actorOf(member), { companyId: member.company.id, partnerId: id, email, portalUrl });
    } catch (error) {
      if (!(error instanceof PortalError)) throw error;
      if (error.refusal === 'partner_not_found') return reply.callNotFound();
      const text = request.t.share.portal.refusals[error.refusal] ?? error.message;
      return detail(request, reply, { kind: 'error', text }, 422);
    }
    return redirect(reply, `/app/partners/${id}?done=portal-invited&email=${encodeURIComponent(email.trim().toLowerCase())}`);
  });

  web.post('/partners/:id/portal-accounts/:account/deactivate', async (request, reply) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const { id, account } = request.params as { id: string; account: string };
    if (!PARTNER.test(id) || !ACCOUNT.test(account)) return reply.callNotFound();
    const owned = await deps.db
      .selectFrom('partner_accounts')
      .select('id')
      .where('company_id', '=', member.company.id)
      .where('partner_id', '=', id)
      .where('id', '=', account)
      .executeTakeFirst();
    if (!owned) return reply.callNotFound();
    await deactivatePartnerAccount(deps, actorOf(member), member.company.id, account);
    return redirect(reply, `/app/partners/${id}?done=portal-deactivated`);
  });
}
