import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PayoutRunError, payableStatements, runPayout } from '../../modules/payouts/payout-run.ts';
import { html } from '../html.ts';
import { csrfField, type Flash, page } from '../layout.ts';
import { actorOf, redirect, sendPage, shell, type WebDeps } from '../web-request.ts';
import { date, euro, today } from './money.ts';
import { memberOrNoCompanyPage } from './require-member.ts';

// The payout run: an admin picks issued statements, Kontor marks them paid, books the
// payouts and hands out the SEPA credit-transfer file (pain.001.001.09) for the bank;
// earlier runs and their files stay available. A request to invoice is offered only once the
// partner's invoice is recorded, and then for that invoice's gross (issue 24).

const RUN_ID = /^prn_[0-9a-z]{26}$/;

export function registerPayoutPages(web: FastifyInstance, deps: WebDeps): void {
  const overview = async (request: FastifyRequest, reply: FastifyReply, flash: Flash = null, status = 200) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const t = request.t;
    const [payable, runs] = await Promise.all([
      payableStatements(deps.db, member.company.id),
      deps.db
        .selectFrom('payout_runs as r')
        .innerJoin('users as u', 'u.id', 'r.created_by')
        .select(['r.id', 'r.execution_date', 'r.payment_count', 'r.total_cents', 'r.created_at', 'u.email'])
        .where('r.company_id', '=', member.company.id)
        .orderBy('r.created_at', 'desc')
        .limit(50)
        .execute(),
    ]);
    const day = today(deps.clock.now(), member.company.timezone);
    const choose =
      payable.length === 0
        ? html`<p class="empty">${t.nothingToPay}</p>`
        : html`<form method="post" action="/app/payouts" class="stack">${csrfField(member.session.csrfToken)}
<div class="table-wrap"><table class="table">
<thead><tr><th scope="col"><span class="visually-hidden">${t.choose}</span></th><th scope="col">${t.number}</th><th scope="col">${t.partner}</th><th scope="col">${t.period}</th><th scope="col">${t.payoutAccount}</th><th scope="col" class="num">${t.amount}</th></tr></thead>
<tbody>${payable.map((s) => {
            // A request to invoice is paid against the partner's recorded invoice only, its gross (issue 24).
            const waiting = s.kind === 'partner_invoice' && s.invoice_number === null;
            const selectable = s.iban_masked !== null && !waiting;
            return html`<tr><td><input type="checkbox" name="statement" value="${s.id}" id="s-${s.id}"${selectable ? html` checked` : html` disabled`} aria-label="${s.number} ${s.partner_name}"></td>
<td><label for="s-${s.id}">${s.number}</label>${waiting ? html` <a href="/app/statements/${s.id}" class="badge warn" title="${t.share.invoiceMissingHint}">${t.share.invoiceMissing}</a>` : s.invoice_number ? html`<br><span class="hint">${t.share.againstInvoice(s.invoice_number)}</span>` : ''}</td><td>${s.partner_name}</td><td>${date(s.period_start)} – ${date(s.period_end)}</td>
<td>${s.iban_masked ?? html`<a href="/app/partners/${s.partner_id}" class="badge warn">${t.missing}</a>`}</td><td class="num">${euro(s.invoice_gross_cents ?? s.gross_cents)}</td></tr>`;
          })}</tbody></table></div>
<div class="filters"><div><label for="execution_date">${t.executionDate}</label><input id="execution_date" name="execution_date" type="date" required min="${day}" value="${day}"></div>
<div class="filter-actions"><button type="submit" class="primary">${t.createPayoutRun}</button></div></div>
<p class="hint">${t.payoutRunHint} ${t.share.invoiceMissingHint}</p>
</form>`;
    const history =
      runs.length === 0
        ? html`<p class="muted">${t.noPayoutRuns}</p>`
        : html`<div class="table-wrap"><table class="table"><thead><tr><th scope="col">${t.executionDate}</th><th scope="col" class="num">${t.transfers}</th><th scope="col" class="num">${t.amount}</th><th scope="col">${t.who}</th><th scope="col">${t.file}</th></tr></thead>
<tbody>${runs.map((r) => html`<tr><td><a href="/app/payouts/${r.id}">${date(r.execution_date)}</a></td><td class="num">${r.payment_count}</td><td class="num">${euro(r.total_cents)}</td><td>${r.email}</td><td><a href="/app/payouts/${r.id}/file" download>pain.001</a></td></tr>`)}</tbody></table></div>`;
    return sendPage(reply, page(shell(request, 'payouts'), t.payouts, html`<h2>${t.payable}</h2>${choose}<h2>${t.payoutRuns}</h2>${history}`, flash), status);
  };

  web.get('/payouts', { config: { adminOnly: true } }, async (request, reply) => overview(request, reply));

  web.post('/payouts', { config: { adminOnly: true } }, async (request, reply) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const form = (request.body ?? {}) as Record<string, string | string[] | undefined>;
    const chosen = form.statement === undefined ? [] : Array.isArray(form.statement) ? form.statement : [form.statement];
    if (chosen.length > 1000 || chosen.some((id) => !/^cst_[0-9a-z]{26}$/.test(id)))
      return overview(request, reply, { kind: 'error', text: request.t.badRequest }, 422);
    try {
      const run = await runPayout(
        deps,
        member.company.id,
        { statementIds: chosen, executionDate: String(form.execution_date ?? '') },
        { ...actorOf(member), email: member.session.email },
      );
      return redirect(reply, `/app/payouts/${run.runId}`);
    } catch (error) {
      if (error instanceof PayoutRunError) return overview(request, reply, { kind: 'error', text: error.message }, 422);
      throw error;
    }
  });

  web.get('/payouts/:id', { config: { adminOnly: true } }, async (request, reply) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const t = request.t;
    const { id } = request.params as { id: string };
    if (!RUN_ID.test(id)) return reply.callNotFound();
    const run = await deps.db.selectFrom('payout_runs').selectAll().where('company_id', '=', member.company.id).where('id', '=', id).executeTakeFirst();
    if (!run) return reply.callNotFound();
    const items = await deps.db
      .selectFrom('payout_run_items as i')
      .innerJoin('commission_partners as p', (join) => join.onRef('p.company_id', '=', 'i.company_id').onRef('p.id', '=', 'i.partner_id'))
      .select(['i.end_to_end_id', 'i.amount_cents', 'p.name', 'p.iban_masked'])
      .where('i.company_id', '=', member.company.id)
      .where('i.run_id', '=', id)
      .orderBy('i.end_to_end_id')
      .execute();
    const body = html`<p class="flash flash-ok" role="status">${t.payoutRunDone(run.payment_count, euro(run.total_cents))}</p>
<p class="actions"><a class="button primary" href="/app/payouts/${id}/file" download>${t.downloadSepa}</a></p>
<dl class="facts"><div><dt>${t.executionDate}</dt><dd>${date(run.execution_date)}</dd></div><div><dt>${t.messageId}</dt><dd class="mono">${run.message_id}</dd></div><div><dt>${t.amount}</dt><dd class="strong">${euro(run.total_cents)}</dd></div></dl>
<div class="table-wrap"><table class="table"><thead><tr><th scope="col">${t.number}</th><th scope="col">${t.partner}</th><th scope="col">${t.payoutAccount}</th><th scope="col" class="num">${t.amount}</th></tr></thead>
<tbody>${items.map((i) => html`<tr><td>${i.end_to_end_id}</td><td>${i.name}</td><td class="mono">${i.iban_masked ?? ''}</td><td class="num">${euro(i.amount_cents)}</td></tr>`)}</tbody></table></div>
<p><a href="/app/payouts">← ${t.payouts}</a></p>`;
    return sendPage(reply, page(shell(request, 'payouts'), t.payoutRun, body));
  });

  web.get('/payouts/:id/file', { config: { adminOnly: true } }, async (request, reply) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const { id } = request.params as { id: string };
    if (!RUN_ID.test(id)) return reply.callNotFound();
    const run = await deps.db
      .selectFrom('payout_runs')
      .select(['file', 'message_id'])
      .where('company_id', '=', member.company.id)
      .where('id', '=', id)
      .executeTakeFirst();
    if (!run) return reply.callNotFound();
    return reply
      .type('application/xml; charset=utf-8')
      .header('content-disposition', `attachment; filename="${run.message_id}.xml"`)
      .header('cache-control', 'private, no-store')
      .send(run.file);
  });
}
