import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { maskIban } from '../../modules/commissions/payout-account.ts';
import { type PayableStatement, PayoutRunError, payableStatements, runPayout } from '../../modules/payouts/payout-run.ts';
import { isCalendarDate } from '../../shared/dates.ts';
import { html } from '../html.ts';
import { csrfField, type Flash, page } from '../layout.ts';
import { actorOf, type Member, redirect, sendPage, shell, type WebDeps } from '../web-request.ts';
import { date, euro, today } from './money.ts';
import { memberOrNoCompanyPage } from './require-member.ts';

// The payout run: an admin picks issued statements (none is preselected), reviews the run
// on a confirmation page (count, total, execution date, the company's account, masked) and
// only that page's POST (confirmed=1, a one-time form token) lets Kontor mark them paid, book the
// payouts and hands out the SEPA credit-transfer file (pain.001.001.09) for the bank;
// earlier runs and their files stay available. A request to invoice is offered only once the
// partner's invoice is recorded, and then for that invoice's gross (issue 24).

const RUN_ID = /^prn_[0-9a-z]{26}$/;

type Chosen = { ids: string[]; executionDate: string };

/** The form's statements and execution date; null when they are not this app's form. */
function chosenOf(request: FastifyRequest): Chosen | null {
  const form = (request.body ?? {}) as Record<string, string | string[] | undefined>;
  const ids = form.statement === undefined ? [] : Array.isArray(form.statement) ? form.statement : [form.statement];
  if (ids.length > 1000 || ids.some((id) => !/^cst_[0-9a-z]{26}$/.test(id))) return null;
  return { ids, executionDate: String(form.execution_date ?? '').slice(0, 10) };
}

export function registerPayoutPages(web: FastifyInstance, deps: WebDeps): void {
  const overview = async (request: FastifyRequest, reply: FastifyReply, flash: Flash = null, status = 200, chosen: Chosen | null = null) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const t = request.t;
    // After a refusal the choice is kept; nothing is ever ticked by Kontor itself (issue 25).
    const chosenBefore = new Set(chosen?.ids ?? []);
    const typedDay = chosen?.executionDate && isCalendarDate(chosen.executionDate) ? chosen.executionDate : null;
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
        : html`<p class="hint">${t.steps.nothingChosenHint}</p><form method="post" action="/app/payouts/review" class="stack">${csrfField(member.session.csrfToken, false)}
<div class="table-wrap"><table class="table">
<thead><tr><th scope="col"><span class="visually-hidden">${t.choose}</span></th><th scope="col">${t.number}</th><th scope="col">${t.partner}</th><th scope="col">${t.period}</th><th scope="col">${t.payoutAccount}</th><th scope="col" class="num">${t.amount}</th></tr></thead>
<tbody>${payable.map((s) => {
            // A request to invoice is paid against the partner's recorded invoice only, its gross (issue 24).
            const waiting = s.kind === 'partner_invoice' && s.invoice_number === null;
            const selectable = s.iban_masked !== null && !waiting;
            return html`<tr><td><input type="checkbox" name="statement" value="${s.id}" id="s-${s.id}"${selectable ? (chosenBefore.has(s.id) ? html` checked` : '') : html` disabled`} aria-label="${s.number} ${s.partner_name}"></td>
<td><label for="s-${s.id}">${s.number}</label>${waiting ? html` <a href="/app/statements/${s.id}" class="badge warn" title="${t.share.invoiceMissingHint}">${t.share.invoiceMissing}</a>` : s.invoice_number ? html`<br><span class="hint">${t.share.againstInvoice(s.invoice_number)}</span>` : ''}</td><td>${s.partner_name}</td><td>${date(s.period_start)} – ${date(s.period_end)}</td>
<td>${s.iban_masked ?? html`<a href="/app/partners/${s.partner_id}" class="badge warn">${t.missing}</a>`}</td><td class="num">${euro(s.invoice_gross_cents ?? s.gross_cents)}</td></tr>`;
          })}</tbody></table></div>
<div class="filters"><div><label for="execution_date">${t.executionDate}</label><input id="execution_date" name="execution_date" type="date" required min="${day}" value="${typedDay ?? day}"></div>
<div class="filter-actions"><button type="submit" class="primary">${t.steps.review}</button></div></div>
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

  /** The confirmation page: what the run will pay, from which account; nothing is marked paid yet. */
  const review = async (request: FastifyRequest, reply: FastifyReply, member: Member, chosen: Chosen) => {
    const t = request.t;
    const refuse = (text: string) => overview(request, reply, { kind: 'error', text }, 422, chosen);
    if (chosen.ids.length === 0) return refuse('Bitte wählen Sie mindestens eine Gutschrift oder Abrechnung aus.');
    const [payable, company] = await Promise.all([
      payableStatements(deps.db, member.company.id),
      deps.db.selectFrom('companies').select(['iban', 'bic', 'account_holder', 'name']).where('id', '=', member.company.id).executeTakeFirstOrThrow(),
    ]);
    if (!isCalendarDate(chosen.executionDate)) return refuse('Das Ausführungsdatum fehlt.');
    if (chosen.executionDate < today(deps.clock.now(), member.company.timezone)) return refuse('Das Ausführungsdatum liegt in der Vergangenheit.');
    const byId = new Map(payable.map((s) => [s.id, s]));
    const rows: PayableStatement[] = [];
    for (const id of new Set(chosen.ids)) {
      const row = byId.get(id);
      if (!row || row.iban_masked === null || (row.kind === 'partner_invoice' && row.invoice_number === null))
        return refuse('Eine der gewählten Abrechnungen kann nicht (mehr) ausgezahlt werden. Bitte wählen Sie erneut.');
      rows.push(row);
    }
    const amount = (s: PayableStatement) => BigInt(s.invoice_gross_cents ?? s.gross_cents);
    const total = rows.reduce((sum, s) => sum + amount(s), 0n);
    const debtor = company.iban ? `${maskIban(company.iban)}${company.bic ? ` · BIC ${company.bic}` : ''}` : null;
    const body = html`<p class="lead">${t.steps.confirmIntro}</p>
<dl class="facts">
<div><dt>${t.steps.count}</dt><dd class="strong">${rows.length}</dd></div>
<div><dt>${t.steps.total}</dt><dd class="strong">${euro(total)}</dd></div>
<div><dt>${t.executionDate}</dt><dd class="strong">${date(chosen.executionDate)}</dd></div>
<div><dt>${t.steps.debtorAccount}</dt><dd>${debtor ? html`<span class="mono">${debtor}</span><br><span class="hint">${company.account_holder ?? company.name}</span>` : html`<span class="badge warn">${t.steps.noDebtorAccount}</span>`}</dd></div>
</dl>
<div class="table-wrap"><table class="table"><thead><tr><th scope="col">${t.number}</th><th scope="col">${t.partner}</th><th scope="col">${t.payoutAccount}</th><th scope="col" class="num">${t.amount}</th></tr></thead>
<tbody>${rows.map((s) => html`<tr><td>${s.number}</td><td>${s.partner_name}</td><td class="mono">${s.iban_masked}</td><td class="num">${euro(amount(s))}</td></tr>`)}</tbody></table></div>
${
  debtor
    ? html`<form method="post" action="/app/payouts" class="stack">${csrfField(member.session.csrfToken)}
<input type="hidden" name="confirmed" value="1"><input type="hidden" name="execution_date" value="${chosen.executionDate}">
${rows.map((s) => html`<input type="hidden" name="statement" value="${s.id}">`)}
<p class="hint" id="confirm-run-hint">${t.steps.confirmRunHint}</p>
<p class="actions"><button type="submit" class="primary" aria-describedby="confirm-run-hint">${t.steps.confirmRun}</button> <a href="/app/payouts">${t.steps.changeSelection}</a></p>
</form>`
    : html`<p><a href="/app/payouts">${t.steps.changeSelection}</a></p>`
}`;
    return sendPage(reply, page(shell(request, 'payouts'), t.steps.confirmTitle, body));
  };

  web.post('/payouts/review', { config: { adminOnly: true } }, async (request, reply) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const chosen = chosenOf(request);
    if (!chosen) return overview(request, reply, { kind: 'error', text: request.t.badRequest }, 422);
    return review(request, reply, member, chosen);
  });

  web.post('/payouts', { config: { adminOnly: true } }, async (request, reply) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const form = (request.body ?? {}) as Record<string, string | string[] | undefined>;
    const picked = chosenOf(request);
    if (!picked) return overview(request, reply, { kind: 'error', text: request.t.badRequest }, 422);
    // Only the confirmation page's POST creates the run; any other shows that page first.
    if (form.confirmed !== '1') return review(request, reply, member, picked);
    const chosen = picked.ids;
    try {
      const run = await runPayout(
        deps,
        member.company.id,
        { statementIds: chosen, executionDate: picked.executionDate },
        { ...actorOf(member), email: member.session.email },
      );
      return redirect(reply, `/app/payouts/${run.runId}`);
    } catch (error) {
      if (error instanceof PayoutRunError) return overview(request, reply, { kind: 'error', text: error.message }, 422, picked);
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
