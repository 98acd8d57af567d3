import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AttributionDecisionError, confirmAttribution, type DecidedAttribution, rejectAttribution } from '../../modules/commissions/index.ts';
import { html } from '../html.ts';
import { csrfField, type Flash, page } from '../layout.ts';
import { actorOf, redirect, sendPage, shell, type WebDeps } from '../web-request.ts';
import { date, today } from './money.ts';
import { memberOrNoCompanyPage } from './require-member.ts';

// Attributions waiting for a person (the company setting attributions_need_confirmation):
// confirm one (active: the customer's revenue paid since its start earns the partner commission)
// or reject it; the latest decisions below. Each decision goes through decide-attribution.ts
// with the person in the audit trail, in the decision's own transaction.

const ID = /^cat_[0-9a-z]{26}$/;
const PENDING_SHOWN = 200;
const DECIDED_SHOWN = 50;

export function registerAttributionPages(web: FastifyInstance, deps: WebDeps): void {
  const base = (companyId: string) =>
    deps.db
      .selectFrom('commission_attributions as a')
      .innerJoin('commission_partners as p', (join) => join.onRef('p.company_id', '=', 'a.company_id').onRef('p.id', '=', 'a.partner_id'))
      .innerJoin('customers as c', (join) => join.onRef('c.company_id', '=', 'a.company_id').onRef('c.id', '=', 'a.customer_id'))
      .innerJoin('commission_agreements as g', (join) => join.onRef('g.company_id', '=', 'a.company_id').onRef('g.id', '=', 'a.agreement_id'))
      .select([
        'a.id',
        'a.status',
        'a.start_date',
        'a.end_date',
        'a.source',
        'a.conflicts_with_id',
        'a.created_at',
        'a.decided_by',
        'a.decided_at',
        'a.partner_id',
        'p.name as partner_name',
        'c.name as customer_name',
        'g.name as agreement_name',
        'g.external_ref as agreement_ref',
      ])
      .where('a.company_id', '=', companyId);

  const overview = async (request: FastifyRequest, reply: FastifyReply, flash: Flash = null, status = 200) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const t = request.t.share;
    const companyId = member.company.id;
    const [pending, decided, company] = await Promise.all([
      base(companyId)
        .where('a.status', '=', 'proposed')
        .orderBy('a.created_at')
        .orderBy('a.id')
        .limit(PENDING_SHOWN + 1)
        .execute(),
      base(companyId)
        .where('a.decided_at', 'is not', null)
        .where('a.status', 'in', ['active', 'rejected'])
        .orderBy('a.decided_at', 'desc')
        .orderBy('a.id', 'desc')
        .limit(DECIDED_SHOWN)
        .execute(),
      deps.db.selectFrom('companies').select('attributions_need_confirmation').where('id', '=', companyId).executeTakeFirstOrThrow(),
    ]);
    const day = (at: Date | null) => (at ? date(today(new Date(at), member.company.timezone)) : '–');
    const validity = (a: { start_date: string; end_date: string | null }) =>
      a.end_date ? `${date(a.start_date)} – ${date(a.end_date)}` : t.fromOn(date(a.start_date));
    const agreement = (a: { agreement_name: string | null; agreement_ref: string }) =>
      a.agreement_name ?? html`${t.unnamedAgreement} <span class="muted mono">${a.agreement_ref}</span>`;
    // A function: each form gets its own one-time token (session/form-tokens.ts).
    const csrf = () => csrfField(member.session.csrfToken);
    const shown = pending.slice(0, PENDING_SHOWN);
    const pendingTable =
      shown.length === 0
        ? html`<p class="empty">${t.nothingPending}</p>`
        : html`<div class="table-wrap"><table class="table">
<thead><tr><th scope="col">${t.partner}</th><th scope="col">${t.customer}</th><th scope="col">${t.agreement}</th><th scope="col">${t.validity}</th><th scope="col">${t.proposedSince}</th><th scope="col">${t.source}</th><th scope="col">${t.decision}</th></tr></thead>
<tbody>${shown.map(
            (a) => html`<tr>
<td><a href="/app/partners/${a.partner_id}">${a.partner_name}</a></td>
<td>${a.customer_name}${a.conflicts_with_id ? html` <span class="badge warn" title="${t.conflictWith}">${t.conflict}</span>` : ''}</td>
<td>${agreement(a)}</td>
<td>${validity(a)}</td>
<td>${day(a.created_at)}</td>
<td>${t.sources[a.source] ?? a.source}</td>
<td>
<form method="post" action="/app/attributions/${a.id}/confirm" class="inline">${csrf()}<button type="submit" class="primary" aria-label="${t.confirmFor(a.customer_name, a.partner_name)}">${t.confirm}</button></form>
<form method="post" action="/app/attributions/${a.id}/reject" class="inline" data-confirm="${t.rejectConfirm}">${csrf()}<button type="submit" class="danger" aria-label="${t.rejectFor(a.customer_name, a.partner_name)}">${t.reject}</button></form>
</td>
</tr>`,
          )}</tbody></table></div>
${pending.length > PENDING_SHOWN ? html`<p class="muted">${t.pendingMore(PENDING_SHOWN)}</p>` : ''}`;
    const decidedTable =
      decided.length === 0
        ? html`<p class="muted">${t.nothingDecided}</p>`
        : html`<div class="table-wrap"><table class="table compact">
<thead><tr><th scope="col">${t.partner}</th><th scope="col">${t.customer}</th><th scope="col">${t.agreement}</th><th scope="col">${t.validity}</th><th scope="col">${t.decision}</th><th scope="col">${t.decidedBy}</th><th scope="col">${t.decidedAt}</th></tr></thead>
<tbody>${decided.map(
            (a) => html`<tr>
<td><a href="/app/partners/${a.partner_id}">${a.partner_name}</a></td>
<td>${a.customer_name}</td>
<td>${agreement(a)}</td>
<td>${validity(a)}</td>
<td>${a.status === 'active' ? html`<span class="badge ok">${t.confirmed}</span>` : html`<span class="badge error">${t.rejected}</span>`}</td>
<td>${a.decided_by ?? '–'}</td>
<td>${day(a.decided_at)}</td>
</tr>`,
          )}</tbody></table></div>`;
    const body = html`<p class="lead">${t.attributionsIntro}</p>
${company.attributions_need_confirmation ? '' : html`<p class="hint">${t.confirmationOff}</p>`}
<h2>${t.pending}</h2>
${pendingTable}
<h2>${t.decided}</h2>
${decidedTable}`;
    return sendPage(reply, page(shell(request, 'attributions'), t.attributions, body, flash), status);
  };

  web.get('/attributions', async (request, reply) => {
    const done = (request.query as { done?: string }).done;
    const texts = request.t.share.attributionDone;
    const text = done === 'confirmed' || done === 'rejected' || done === 'unchanged' ? texts[done] : null;
    return overview(request, reply, text ? { kind: 'ok', text } : null);
  });

  const decisions = {
    confirm: { run: confirmAttribution, done: 'confirmed' },
    reject: { run: rejectAttribution, done: 'rejected' },
  } as const;
  for (const [step, decision] of Object.entries(decisions)) {
    web.post(`/attributions/:id/${step}`, async (request, reply) => {
      const member = memberOrNoCompanyPage(request, reply);
      if (!member) return reply;
      const { id } = request.params as { id: string };
      if (!ID.test(id)) return reply.callNotFound();
      let result: DecidedAttribution;
      try {
        result = await decision.run(deps, id, member.session.email, actorOf(member));
      } catch (error) {
        if (!(error instanceof AttributionDecisionError)) throw error;
        if (error.refusal === 'not_found') return reply.callNotFound();
        const t = request.t.share;
        const text = (error.refusal ? t.attributionRefusals[error.refusal] : undefined) ?? t.refusedOther;
        return overview(request, reply, { kind: 'error', text }, 409);
      }
      return redirect(reply, `/app/attributions?done=${result.changed ? decision.done : 'unchanged'}`);
    });
  }
}
