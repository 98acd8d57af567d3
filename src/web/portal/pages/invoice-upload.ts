import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { PortalStatement } from '../../../modules/portal/partner-records.ts';
import { PartnerInvoiceRefused, type TypedInvoice, uploadPartnerInvoice } from '../../../modules/statements/index.ts';
import { MAX_EINVOICE_BYTES } from '../../../modules/statements/partner-einvoice/index.ts';
import { type Html, html } from '../../html.ts';
import type { Flash } from '../../layout.ts';
import { date, dateTimeFormat, euro, typedDate, typedDecimal } from '../../pages/money.ts';
import { tokenMatches } from '../../session/csrf.ts';
import { portalCsrf } from '../portal-layout.ts';
import { type PortalDeps, redirect, sessionOf } from '../portal-request.ts';

// The partner hands in its invoice for a request to invoice (issue 27 §3): the upload form
// on the statement's page, what became of earlier uploads, and the invoice once accepted.
// The file is read and checked by the statements module (upload-partner-invoice.ts); a
// refusal shows every reason in German and records no invoice. A small business or a
// private person may hand in a plain PDF and then types its number, date and amount.

export type OwnStatement = (request: FastifyRequest) => Promise<PortalStatement | null>;
export type StatementDetail = (
  request: FastifyRequest,
  reply: FastifyReply,
  flash?: Flash,
  status?: number,
  more?: { typedReason?: string; refused?: string[] | null; typed?: TypedInvoice | null },
) => Promise<unknown>;

const MAX_FIELD = 200;

export function registerPortalInvoiceUpload(portal: FastifyInstance, deps: PortalDeps, ownStatement: OwnStatement, detail: StatementDetail): void {
  void portal.register(async (scope) => {
    await scope.register(multipart, { limits: { fileSize: MAX_EINVOICE_BYTES, files: 1, fields: 6, fieldSize: 1000 } });
    scope.post('/statements/:id/invoice', async (request, reply) => {
      const statement = await ownStatement(request);
      if (!statement) return reply.callNotFound();
      const session = sessionOf(request);
      const { t } = request.portal;
      if (!request.isMultipart()) return detail(request, reply, { kind: 'error', text: t.invoiceNoFile }, 400);
      let bytes: Buffer | null = null;
      let fileName = '';
      const fields: Record<string, string> = {};
      try {
        for await (const part of request.parts()) {
          if (part.type === 'file') {
            fileName = part.filename;
            bytes = await part.toBuffer();
          } else if (typeof part.value === 'string') fields[part.fieldname] = part.value.slice(0, MAX_FIELD);
        }
      } catch {
        return detail(request, reply, { kind: 'error', text: t.invoiceTooLarge(MAX_EINVOICE_BYTES / 1024 / 1024) }, 413);
      }
      // The CSRF check of a multipart form: its token arrives among the parts (the Origin was checked before).
      if (!tokenMatches(session.csrfToken, fields._csrf)) return detail(request, reply, { kind: 'error', text: t.csrfFailed }, 403);
      if (!bytes || bytes.length === 0) return detail(request, reply, { kind: 'error', text: t.invoiceNoFile }, 400);
      const typed = typedOf(fields);
      try {
        const outcome = await uploadPartnerInvoice(
          deps,
          {
            partnerAccountId: session.accountId,
            organizationId: session.organizationId,
            companyId: session.companyId,
            partnerId: session.partnerId,
            email: session.email,
          },
          statement.id,
          { name: fileName, bytes },
          typed,
        );
        if (outcome.accepted) return redirect(reply, `/portal/statements/${statement.id}?done=invoice`);
        return detail(request, reply, { kind: 'error', text: t.invoiceRefusedFlash }, 422, { refused: outcome.reasons, typed });
      } catch (error) {
        if (!(error instanceof PartnerInvoiceRefused)) throw error;
        if (error.code === 'not_found') return reply.callNotFound();
        return detail(request, reply, { kind: 'error', text: error.message }, 409);
      }
    });
  });
}

/** The typed number, date and amount of a plain PDF, or null when none was typed. */
function typedOf(fields: Record<string, string>): TypedInvoice | null {
  const number = (fields.number ?? '').trim();
  const invoiceDate = (fields.invoice_date ?? '').trim();
  const gross = (fields.gross ?? '').trim();
  if (number === '' && invoiceDate === '' && gross === '') return null;
  // The checks word a wrong date or amount; typed German (24.11.2026, 1.234,56) is read here.
  return { number, invoiceDate: typedDate(invoiceDate) ?? invoiceDate, gross: typedDecimal(gross) ?? gross };
}

/** The partner's invoice on the statement's page: accepted, or the form with earlier uploads. */
export async function invoiceSection(
  deps: PortalDeps,
  request: FastifyRequest,
  statement: PortalStatement,
  refused: string[] | null,
  typed: TypedInvoice | null,
): Promise<Html> {
  const session = sessionOf(request);
  const { t } = request.portal;
  const uploads = await deps.db
    .selectFrom('partner_invoice_uploads')
    .select(['received_at', 'file_name', 'accepted', 'reasons'])
    .where('company_id', '=', session.companyId)
    .where('statement_id', '=', statement.id)
    .orderBy('received_at', 'desc')
    .orderBy('id', 'desc')
    .limit(20)
    .execute();
  const invoice = await deps.db
    .selectFrom('commission_partner_invoices')
    .select(['number', 'invoice_date', 'gross_cents', 'recorded_at', 'recorded_by'])
    .where('company_id', '=', session.companyId)
    .where('statement_id', '=', statement.id)
    .executeTakeFirst();
  const when = dateTimeFormat(session.timezone);
  const reasonsBox = (reasons: readonly string[]) => html`<ul class="reasons">${reasons.map((r) => html`<li>${r}</li>`)}</ul>`;
  const history =
    uploads.length === 0
      ? ''
      : html`<h3 id="uploads-heading">${t.uploads}</h3><div class="table-wrap"><table class="table" aria-labelledby="uploads-heading">
<thead><tr><th scope="col">${t.receivedAt}</th><th scope="col">${t.fileName}</th><th scope="col">${t.result}</th></tr></thead>
<tbody>${uploads.map(
          (u) =>
            html`<tr><td>${when.format(new Date(u.received_at))}</td><td>${u.file_name}</td><td>${u.accepted ? html`<span class="badge ok">${t.uploadAccepted}</span>` : html`<span class="badge warn">${t.uploadRefused}</span>${reasonsBox(u.reasons)}`}</td></tr>`,
        )}</tbody></table></div>`;
  const refusedBox = refused ? html`<div class="panel warn" role="alert"><p class="strong">${t.invoiceRefused}</p>${reasonsBox(refused)}</div>` : '';
  if (invoice)
    return html`<section class="panel" aria-labelledby="invoice-heading"><h2 id="invoice-heading">${t.yourInvoice}</h2>
${refusedBox}
<p>${t.invoiceRecorded(invoice.number, date(invoice.invoice_date), euro(Number(invoice.gross_cents)), invoice.recorded_by === null)}</p>
${history}</section>`;
  if (statement.state !== 'invoice_missing') return html``;
  const plainAllowed = statement.taxNote === 'small_business' || statement.taxNote === 'private_person';
  const field = (name: 'number' | 'invoice_date' | 'gross', label: string, value: string) =>
    html`<label for="i-${name}">${label}</label><input id="i-${name}" name="${name}" value="${value}" autocomplete="off"${name === 'gross' ? html` inputmode="decimal"` : ''}>`;
  return html`<section class="panel" aria-labelledby="invoice-heading"><h2 id="invoice-heading">${t.handInInvoice}</h2>
<p>${t.handInIntro(statement.number, euro(statement.grossCents))}</p>
${refusedBox}
<form method="post" action="/portal/statements/${statement.id}/invoice" enctype="multipart/form-data" class="form">${portalCsrf(session.csrfToken)}
<label for="i-file">${t.invoiceFile}</label>
<input id="i-file" name="file" type="file" accept=".xml,.pdf,application/xml,text/xml,application/pdf" required aria-describedby="i-file-hint">
<p id="i-file-hint" class="hint">${t.invoiceFileHint}</p>
${
  plainAllowed
    ? html`<fieldset><legend>${t.plainPdfLegend}</legend><p class="hint">${t.plainPdfHint}</p>
${field('number', t.invoiceNumber, typed?.number ?? '')}
${field('invoice_date', t.invoiceDate, typed?.invoiceDate ?? '')}
${field('gross', t.invoiceAmount, typed?.gross ?? '')}</fieldset>`
    : ''
}
<button type="submit" class="primary">${t.uploadInvoice}</button>
</form>
${history}</section>`;
}
