import type { FastifyInstance } from 'fastify';
import type { StoredStatementLine } from '../../../db/schema-commissions.ts';
import { type PortalStatement, partnerStatement, partnerStatements } from '../../../modules/portal/partner-records.ts';
import { statementFiles } from '../../../modules/statements/deliver-statement.ts';
import { objectToStatement, StatementError } from '../../../modules/statements/index.ts';
import { type Html, html } from '../../html.ts';
import type { Flash } from '../../layout.ts';
import { date, decimal, euro } from '../../pages/money.ts';
import { portalCsrf, portalPage } from '../portal-layout.ts';
import { type PortalDeps, redirect, sendPage, sessionOf } from '../portal-request.ts';
import type { PortalMessages } from '../texts.ts';
import { invoiceSection, type OwnStatement, registerPortalInvoiceUpload, type StatementDetail } from './invoice-upload.ts';
import { statementTable } from './statement-table.ts';

// The partner's statements: the list, one statement with its lines and documents (PDF, and
// the e-invoice XML where there is one), and what the partner does with it — object to a
// Gutschrift. Every look-up is bound to the session's partner: another partner's or
// company's statement id is a 404, like an unknown one.

const ID = /^cst_[0-9a-z]{26}$/;

const MAX_REASON = 2000;

export function registerPortalStatementPages(portal: FastifyInstance, deps: PortalDeps): void {
  const renderStatement = deps.invoicing.renderStatement;

  portal.get('/statements', async (request, reply) => {
    const session = sessionOf(request);
    const { t } = request.portal;
    const statements = await partnerStatements(deps.db, session.companyId, session.partnerId);
    const body = statements.length === 0 ? html`<p class="empty">${t.noStatements}</p>` : statementTable(t, statements);
    return sendPage(reply, portalPage(request.portal, 'statements', t.nav.statements, body));
  });

  /** The session's own statement of the address, or null (the caller answers 404). */
  const ownStatement: OwnStatement = async (request) => {
    const { id } = request.params as { id: string };
    if (!ID.test(id)) return null;
    const session = sessionOf(request);
    return partnerStatement(deps.db, session.companyId, session.partnerId, id);
  };

  const detail: StatementDetail = async (request, reply, flash = null, status = 200, more = {}) => {
    const typedReason = more.typedReason ?? '';
    const statement = await ownStatement(request);
    if (!statement) return reply.callNotFound();
    const session = sessionOf(request);
    const { t } = request.portal;
    const row = await deps.db
      .selectFrom('commission_statements')
      .select('lines')
      .where('company_id', '=', session.companyId)
      .where('id', '=', statement.id)
      .executeTakeFirstOrThrow();
    const allCustomers = new Set(
      (
        await deps.db
          .selectFrom('commission_agreements')
          .select('id')
          .where('company_id', '=', session.companyId)
          .where('partner_id', '=', session.partnerId)
          .where('applies_to', '=', 'all_customers')
          .execute()
      ).map((a) => a.id),
    );
    const hasXml = statement.eInvoiceFormat !== null;
    const body = html`<dl class="facts">
<div><dt>${t.kind}</dt><dd>${statement.type === 'cancellation' ? t.cancellation : (t.kinds[statement.kind] ?? statement.kind)}</dd></div>
<div><dt>${t.issueDate}</dt><dd>${date(statement.issueDate)}</dd></div>
<div><dt>${t.period}</dt><dd>${date(statement.periodStart)} – ${date(statement.periodEnd)}</dd></div>
<div><dt>${t.status}</dt><dd><span class="badge${statement.state === 'invoice_missing' ? ' warn' : ''}">${t.statementStates[statement.state] ?? statement.state}</span></dd></div>
<div><dt>${t.net}</dt><dd>${euro(statement.netCents)}</dd></div>
<div><dt>${t.vat}</dt><dd>${euro(statement.vatCents)}</dd></div>
<div><dt>${t.gross}</dt><dd class="strong">${euro(statement.grossCents)}</dd></div>
</dl>
<p class="actions"><a href="/portal/statements/${statement.id}/pdf">${t.downloadPdf}</a>${hasXml ? html` · <a href="/portal/statements/${statement.id}/xml">${t.downloadXml}</a>` : ''}</p>
<h2 id="lines-heading">${t.lines}</h2>
${linesTable(t, row.lines, allCustomers)}
${statement.kind === 'partner_invoice' && statement.type === 'statement' ? await invoiceSection(deps, request, statement, more.refused ?? null, more.typed ?? null) : ''}
${objectionSection(t, statement, session.csrfToken, typedReason)}
<p><a href="/portal/statements">${t.backToStatements}</a></p>`;
    return sendPage(reply, portalPage(request.portal, 'statements', `${t.kinds[statement.kind] ?? ''} ${statement.number}`.trim(), body, flash), status);
  };

  portal.get('/statements/:id', async (request, reply) => {
    const done = (request.query as { done?: string }).done;
    const { t } = request.portal;
    const flash: Flash = done === 'objected' ? { kind: 'ok', text: t.objected } : done === 'invoice' ? { kind: 'ok', text: t.invoiceAccepted } : null;
    return detail(request, reply, flash);
  });

  registerPortalInvoiceUpload(portal, deps, ownStatement, detail);

  portal.post('/statements/:id/objection', async (request, reply) => {
    const statement = await ownStatement(request);
    if (!statement) return reply.callNotFound();
    const session = sessionOf(request);
    const { t } = request.portal;
    const reason = String(((request.body ?? {}) as Record<string, unknown>).reason ?? '')
      .replace(/\r\n?/g, '\n')
      .trim();
    if (reason === '' || reason.length > MAX_REASON)
      return detail(request, reply, { kind: 'error', text: t.objectionReasonMissing(MAX_REASON) }, 422, { typedReason: reason.slice(0, MAX_REASON) });
    try {
      await objectToStatement(
        deps,
        statement.id,
        session.email,
        { partnerAccountId: session.accountId, organizationId: session.organizationId, companyId: session.companyId },
        reason,
      );
    } catch (error) {
      if (!(error instanceof StatementError)) throw error;
      if (error.refusal === 'not_found') return reply.callNotFound();
      return detail(request, reply, { kind: 'error', text: t.objectionRefused[error.refusal ?? 'other'] ?? (t.objectionRefused.other as string) }, 409);
    }
    return redirect(reply, `/portal/statements/${statement.id}?done=objected`);
  });

  for (const kind of ['pdf', 'xml'] as const) {
    portal.get(`/statements/:id/${kind}`, async (request, reply) => {
      const statement = await ownStatement(request);
      if (!statement) return reply.callNotFound();
      const files = await statementFiles({ db: deps.db, renderStatement }, sessionOf(request).companyId, statement.id);
      const file = files ? files[kind] : null;
      if (!file) return reply.callNotFound();
      return reply
        .type(kind === 'pdf' ? 'application/pdf' : 'application/xml')
        .header('content-disposition', `attachment; filename="${statement.number.replace(/[^A-Za-z0-9._-]/g, '-')}.${kind}"`)
        .header('cache-control', 'private, no-store')
        .send(file);
    });
  }
}

function linesTable(t: PortalMessages, lines: readonly StoredStatementLine[], allCustomers: ReadonlySet<string>): Html {
  return html`<div class="table-wrap"><table class="table" aria-labelledby="lines-heading">
<thead><tr><th scope="col">${t.customer}</th><th scope="col">${t.agreement}</th><th scope="col" class="num">${t.contractMonth}</th><th scope="col" class="num">${t.percent}</th><th scope="col" class="num">${t.basis}</th><th scope="col" class="num">${t.amount}</th></tr></thead>
<tbody>${lines.map(
    (line) =>
      html`<tr><td>${allCustomers.has(line.agreement_id) ? t.allCustomers : (line.customer_name ?? '–')}</td><td>${line.agreement_name ?? '–'}</td><td class="num">${line.contract_month ?? '–'}</td><td class="num">${decimal(line.percent, 0)} %</td><td class="num">${euro(line.basis_cents)}</td><td class="num">${euro(line.amount_cents)}</td></tr>`,
  )}</tbody></table></div>`;
}

/** The objection form, for an issued Gutschrift not yet paid. */
function objectionSection(t: PortalMessages, statement: PortalStatement, csrfToken: string, typed: string): Html {
  const objectable =
    statement.type === 'statement' && statement.kind === 'self_billing' && (statement.status === 'issued' || statement.status === 'sent') && !statement.paidAt;
  if (!objectable) return html``;
  return html`<section class="panel" aria-labelledby="objection-heading"><h2 id="objection-heading">${t.objectionTitle}</h2>
<p>${t.objectionIntro}</p>
<form method="post" action="/portal/statements/${statement.id}/objection" class="form">${portalCsrf(csrfToken)}
<label for="reason">${t.objectionReason}</label>
<textarea id="reason" name="reason" rows="4" maxlength="${MAX_REASON}" required aria-describedby="reason-hint">${typed}</textarea>
<p id="reason-hint" class="hint">${t.objectionReasonHint}</p>
<button type="submit" class="danger">${t.objectionSubmit}</button>
</form></section>`;
}
