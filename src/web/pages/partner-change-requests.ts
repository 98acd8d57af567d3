import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  ChangeRequestError,
  confirmPartnerChange,
  MAX_REJECTION_NOTE,
  partnerChangeRequest,
  partnerChangeRequests,
  rejectPartnerChange,
  valuesLine,
} from '../../modules/portal/index.ts';
import { calendarDate } from '../../shared/clock.ts';
import { type Html, html } from '../html.ts';
import { csrfField } from '../layout.ts';
import { actorOf, type Member, redirect, type WebDeps } from '../web-request.ts';
import { date } from './money.ts';
import type { PartnerDetail } from './partner-portal.ts';
import { memberOrNoCompanyPage } from './require-member.ts';

// The partner page's box of the partner's change requests from the portal (issue 27 §3):
// each pending request with what is on file and what is asked for (the IBAN masked), and,
// for an admin, "Bestätigen" and "Ablehnen" with the reason for the partner (four eyes: the
// partner asks, an admin agrees; the module checks the role again). A member sees the list.

const PARTNER = /^cpt_[0-9a-z]{26}$/;
const REQUEST = /^pcr_[0-9a-z]{26}$/;

export async function changeRequestsSection(deps: WebDeps, request: FastifyRequest, member: Member, partnerId: string): Promise<Html> {
  const w = request.t.share.changeRequests;
  const pending = await partnerChangeRequests(deps.db, member.company.id, partnerId, { pendingOnly: true });
  const admin = member.role === 'admin';
  const items = pending.map((r) => {
    const actions = admin
      ? html`<form method="post" action="/app/partners/${partnerId}/change-requests/${r.id}/confirm" class="inline">${csrfField(member.session.csrfToken)}<button type="submit" class="primary">${w.confirm}</button></form>
<form method="post" action="/app/partners/${partnerId}/change-requests/${r.id}/reject" class="form" novalidate>${csrfField(member.session.csrfToken)}
<label for="note-${r.id}">${w.note}</label><textarea id="note-${r.id}" name="note" rows="2" maxlength="${MAX_REJECTION_NOTE}" required></textarea>
<button type="submit" class="danger">${w.reject}</button></form>`
      : html``;
    return html`<article class="panel" aria-label="${w.kinds[r.kind] ?? r.kind}"><h3>${w.kinds[r.kind] ?? r.kind}</h3>
<p class="muted">${w.requestedBy(r.requestedBy, date(calendarDate(r.requestedAt, member.company.timezone)))}</p>
<dl class="facts"><div><dt>${w.current}</dt><dd>${valuesLine(r.kind, r.current, w.noValue)}</dd></div><div><dt>${w.requested}</dt><dd class="strong">${valuesLine(r.kind, r.requested, w.noValue)}</dd></div></dl>
${r.kind === 'payout_account' ? '' : html`<p class="hint">${w.apiNote}</p>`}
${actions}</article>`;
  });
  return html`<section class="panel" aria-labelledby="change-requests-heading"><h2 id="change-requests-heading">${w.title}</h2>
<p class="hint">${w.intro}</p>
${pending.length === 0 ? html`<p class="muted">${w.none}</p>` : html`<div class="stack">${items}</div>`}
${pending.length > 0 && !admin ? html`<p class="muted">${w.adminOnly}</p>` : ''}
</section>`;
}

/** The flash of a decision (`?done=` on the partner page), or null. */
export function changeRequestDone(request: FastifyRequest, done: string | undefined): string | null {
  const w = request.t.share.changeRequests;
  return done === 'change-confirmed' ? w.confirmed : done === 'change-rejected' ? w.rejected : null;
}

export function registerPartnerChangeRequestRoutes(web: FastifyInstance, deps: WebDeps, detail: PartnerDetail): void {
  for (const decision of ['confirm', 'reject'] as const) {
    web.post(`/partners/:id/change-requests/:rid/${decision}`, { config: { adminOnly: true } }, async (request, reply) => {
      const member = memberOrNoCompanyPage(request, reply);
      if (!member) return reply;
      const { id, rid } = request.params as { id: string; rid: string };
      if (!PARTNER.test(id) || !REQUEST.test(rid)) return reply.callNotFound();
      // Another partner's or company's request: 404, like an unknown one.
      const found = await partnerChangeRequest(deps.db, member.company.id, rid);
      if (!found || found.partnerId !== id) return reply.callNotFound();
      const actor = { ...actorOf(member), email: member.session.email };
      try {
        if (decision === 'confirm') await confirmPartnerChange(deps, actor, member.company.id, rid);
        else await rejectPartnerChange(deps, actor, member.company.id, rid, String((request.body as Record<string, unknown> | undefined)?.note ?? ''));
      } catch (error) {
        if (!(error instanceof ChangeRequestError)) throw error;
        if (error.refusal === 'not_found') return reply.callNotFound();
        const text = request.t.share.changeRequests.refusals[error.refusal] ?? error.message;
        return detail(request, reply, { kind: 'error', text }, error.refusal === 'not_admin' ? 403 : error.refusal === 'note_missing' ? 422 : 409);
      }
      return redirect(reply, `/app/partners/${id}?done=change-${decision === 'confirm' ? 'confirmed' : 'rejected'}`);
    });
  }
}
