import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { PartnerChangeKind } from '../../../db/schema-portal.ts';
import {
  CHANGE_FIELDS,
  CHANGE_KINDS,
  ChangeRequestError,
  FIELD_MAX,
  type FieldProblem,
  PARTNER_DATA_COLUMNS,
  type PartnerChangeRequest,
  partnerChangeRequests,
  requestPartnerChange,
  valuesLine,
  withdrawPartnerChange,
} from '../../../modules/portal/index.ts';
import { calendarDate } from '../../../shared/clock.ts';
import { type Html, html } from '../../html.ts';
import type { Flash } from '../../layout.ts';
import { date } from '../../pages/money.ts';
import { portalCsrf } from '../portal-layout.ts';
import { type PortalDeps, redirect, sendPage, sessionOf } from '../portal-request.ts';

// On the account page: the partner's data as the company has it on file, the partner's
// requests to change it (issue 27 §3: payout account, address, VAT ID, tax number), its
// pending requests with "withdraw", and its earlier ones. Nothing changes until an admin of
// the company confirms a request in the app (modules/portal/decide-change-request.ts).

const ID = /^pcr_[0-9a-z]{26}$/;

/** A refused request, shown again in its form with the partner's entries and what is wrong. */
export type RefusedChange = { kind: PartnerChangeKind; typed: Record<string, string>; problems: Record<string, FieldProblem> };

/** The account page with a message (pages/access.ts). */
export type AccountPage = (request: FastifyRequest, flash: Flash, refused?: RefusedChange) => Promise<string>;

const AUTOCOMPLETE: Record<string, string> = {
  street: 'address-line1',
  zip: 'postal-code',
  city: 'address-level2',
  country_code: 'country',
};

export async function partnerDataSections(deps: PortalDeps, request: FastifyRequest, refused?: RefusedChange): Promise<Html> {
  const session = sessionOf(request);
  const w = request.portal.t.changes;
  const partner = await deps.db
    .selectFrom('commission_partners')
    .select(PARTNER_DATA_COLUMNS)
    .where('company_id', '=', session.companyId)
    .where('id', '=', session.partnerId)
    .executeTakeFirstOrThrow();
  const requests = await partnerChangeRequests(deps.db, session.companyId, session.partnerId, { limit: 20 });
  const pending = requests.filter((r) => r.status === 'pending');
  const earlier = requests.filter((r) => r.status !== 'pending').slice(0, 10);
  const onFile = (kind: PartnerChangeKind) => valuesLine(kind, { ...partner }, w.none);
  const day = (at: Date) => date(calendarDate(at, session.timezone));

  const facts = html`<section class="panel" aria-labelledby="data-heading"><h2 id="data-heading">${w.yourData}</h2>
<p class="hint">${w.yourDataIntro(session.companyName)}</p>
<dl class="facts">${CHANGE_KINDS.map((kind) => html`<div><dt>${w.kinds[kind]}</dt><dd${kind === 'payout_account' && partner.iban_masked ? html` class="mono"` : ''}>${onFile(kind)}</dd></div>`)}</dl>
</section>`;

  const line = (r: PartnerChangeRequest, which: 'current' | 'requested') => valuesLine(r.kind, r[which], w.none);
  const pendingTable =
    pending.length === 0
      ? html``
      : html`<section class="panel" aria-labelledby="pending-heading"><h2 id="pending-heading">${w.pendingTitle}</h2>
<div class="table-wrap"><table class="table"><thead><tr><th scope="col">${w.kind}</th><th scope="col">${w.current}</th><th scope="col">${w.requested}</th><th scope="col">${w.requestedAt}</th><th scope="col"><span class="visually-hidden">${w.withdraw}</span></th></tr></thead>
<tbody>${pending.map(
          (r) =>
            html`<tr><td>${w.kinds[r.kind]}</td><td>${line(r, 'current')}</td><td class="strong">${line(r, 'requested')}</td><td>${day(r.requestedAt)}</td><td><form method="post" action="/portal/change-requests/${r.id}/withdraw" class="inline">${portalCsrf(session.csrfToken)}<button type="submit">${w.withdraw}</button></form></td></tr>`,
        )}</tbody></table></div></section>`;

  const field = (kind: PartnerChangeKind, name: string, value: string) => {
    const id = `cr-${kind}-${name}`;
    const problem = refused?.kind === kind ? refused.problems[name] : undefined;
    const error = problem ? (problem === 'too_long' ? w.problems.too_long(FIELD_MAX[name] as number) : w.problems[problem]) : null;
    const hint = name === 'iban' ? w.ibanHint : null;
    const describedBy = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
    return html`<label for="${id}">${w.fields[name]}</label>
<input id="${id}" name="${name}" value="${value}" autocomplete="${AUTOCOMPLETE[name] ?? 'off'}"${name === 'iban' || name === 'bic' || name === 'vat_id' ? html` spellcheck="false"` : ''}${describedBy ? html` aria-describedby="${describedBy}"` : ''}${error ? html` aria-invalid="true"` : ''}>
${hint ? html`<p id="${id}-hint" class="hint">${hint}</p>` : ''}${error ? html`<p id="${id}-error" class="hint"><span class="badge error">${w.errorBadge}</span> ${error}</p>` : ''}`;
  };
  // The address, VAT ID and tax number start from what is on file; the IBAN is never shown whole.
  const start = (name: string) => (name === 'iban' ? '' : ((partner as Record<string, string | null>)[name] ?? ''));
  const forms = CHANGE_KINDS.map((kind) => {
    const typed = refused?.kind === kind ? refused.typed : null;
    return html`<details${typed ? ' open' : ''}><summary>${w.kinds[kind]}</summary>
<form method="post" action="/portal/change-requests" class="form" novalidate>${portalCsrf(session.csrfToken)}
<input type="hidden" name="kind" value="${kind}">
${CHANGE_FIELDS[kind].map((name) => field(kind, name, typed ? (typed[name] ?? '') : start(name)))}
<button type="submit" class="primary">${w.submit}</button>
</form></details>`;
  });
  const requestSection = html`<section class="panel" aria-labelledby="change-heading"><h2 id="change-heading">${w.requestTitle}</h2>
<p class="hint">${w.requestIntro(session.companyName)}</p>
${forms}
</section>`;

  const history =
    earlier.length === 0
      ? html``
      : html`<section class="panel" aria-labelledby="history-heading"><h2 id="history-heading">${w.historyTitle}</h2>
<div class="table-wrap"><table class="table"><thead><tr><th scope="col">${w.kind}</th><th scope="col">${w.requested}</th><th scope="col">${w.requestedAt}</th><th scope="col">${w.status}</th><th scope="col">${w.note}</th></tr></thead>
<tbody>${earlier.map(
          (r) =>
            html`<tr><td>${w.kinds[r.kind]}</td><td>${line(r, 'requested')}</td><td>${day(r.requestedAt)}</td><td><span class="badge${r.status === 'confirmed' ? ' ok' : r.status === 'rejected' ? ' warn' : ''}">${w.statuses[r.status] ?? r.status}</span></td><td>${r.decisionNote ?? ''}</td></tr>`,
        )}</tbody></table></div></section>`;

  return html`${facts}
${pendingTable}
${requestSection}
${history}`;
}

export function registerPortalChangeRequestRoutes(portal: FastifyInstance, deps: PortalDeps, accountPage: AccountPage): void {
  portal.post('/change-requests', async (request, reply) => {
    const session = sessionOf(request);
    const w = request.portal.t.changes;
    const form = (request.body ?? {}) as Record<string, unknown>;
    const kind = String(form.kind ?? '');
    const fields = CHANGE_KINDS.includes(kind as PartnerChangeKind) ? CHANGE_FIELDS[kind as PartnerChangeKind] : [];
    const typed = Object.fromEntries(fields.map((name) => [name, String(form[name] ?? '').slice(0, 300)]));
    try {
      await requestPartnerChange(deps, session, { kind, values: typed });
    } catch (error) {
      if (!(error instanceof ChangeRequestError)) throw error;
      if (error.refusal === 'not_found') return reply.callNotFound();
      const text = error.refusal === 'invalid' ? w.refused : (w.refusals[error.refusal] ?? error.message);
      const refused = fields.length > 0 ? { kind: kind as PartnerChangeKind, typed, problems: error.problems } : undefined;
      return sendPage(reply, await accountPage(request, { kind: 'error', text }, refused), 422);
    }
    return redirect(reply, '/portal/account?done=change-requested');
  });

  portal.post('/change-requests/:id/withdraw', async (request, reply) => {
    const { id } = request.params as { id: string };
    if (!ID.test(id)) return reply.callNotFound();
    try {
      await withdrawPartnerChange(deps, sessionOf(request), id);
    } catch (error) {
      if (!(error instanceof ChangeRequestError)) throw error;
      if (error.refusal === 'not_found') return reply.callNotFound();
      const text = request.portal.t.changes.refusals[error.refusal] ?? error.message;
      return sendPage(reply, await accountPage(request, { kind: 'error', text }), 409);
    }
    return redirect(reply, '/portal/account?done=change-withdrawn');
  });
}
