import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import { readFiles } from '../../modules/invoicing/invoice-files.ts';
import type { InvoicingDeps } from '../../modules/invoicing/invoicing-deps.ts';
import { checkDraft, issueDraft } from '../../modules/invoicing/issue-draft.ts';
import { AppError } from '../../shared/errors.ts';
import { type Html, html } from '../html.ts';
import type { Messages } from '../i18n.ts';
import { csrfField, type Flash, page } from '../layout.ts';
import { actorOf, type Member, redirect, sendPage, shell } from '../web-request.ts';
import { auditSentence, eventSentence } from './audit-words.ts';
import { invoiceDunningBox } from './dunning.ts';
import { bookingsSection, loadInvoiceMoney, paymentHistory, paymentsSection } from './invoice-money.ts';
import { money as amount, date, dateTimeFormat, decimal, euro } from './money.ts';
import { memberOrNoCompanyPage } from './require-member.ts';

// One invoice: its head, lines and totals, the PDF (preview and download), the e-invoice,
// its history (events and the audit trail) and bookings; for a draft, the issue button —
// with the VAT warnings a person may confirm, or the problems that keep it from being
// issued — and, for one written in the app, change and discard; for an issued invoice,
// mail it (again) and cancel it (the steps: invoice-actions.ts).

type Confirmation = { messages: string[]; email: string; confirmed_at: string };

async function loadInvoice(deps: InvoicingDeps, member: Member, id: string) {
  if (!/^inv_[0-9a-z]{26}$/.test(id)) return null;
  const invoice = await deps.db
    .selectFrom('invoices as i')
    .innerJoin('customers as c', (join) => join.onRef('c.company_id', '=', 'i.company_id').onRef('c.id', '=', 'i.customer_id'))
    .select([
      'i.id',
      'i.number',
      'i.status',
      'i.type',
      'i.issue_date',
      'i.due_date',
      'i.service_period_start',
      'i.service_period_end',
      'i.total_net_cents',
      'i.total_tax_cents',
      'i.total_gross_cents',
      'i.amount_paid_cents',
      'i.vat_verdict',
      'i.e_invoice',
      'i.overdue',
      'i.tax_confirmation',
      'i.origin',
      'i.note',
      'i.sent_at',
      'i.cancels_invoice_id',
      'i.cancelled_by_invoice_id',
      'c.name as customer_name',
      'c.kundennummer',
      // The mail goes to the address frozen in the issued document (mail/invoice-mail.ts).
      sql<string | null>`i.document -> 'buyer' ->> 'email'`.as('mail_to'),
    ])
    .where('i.company_id', '=', member.company.id)
    .where('i.id', '=', id)
    .executeTakeFirst();
  if (!invoice) return null;
  const [lines, events, money, audit, related, lastMail, reversals, notices] = await Promise.all([
    deps.db
      .selectFrom('invoice_lines')
      .select(['position', 'description', 'quantity', 'unit', 'unit_price_net', 'vat_rate', 'net_cents'])
      .where('company_id', '=', member.company.id)
      .where('invoice_id', '=', id)
      .orderBy('position')
      .execute(),
    deps.db
      .selectFrom('events')
      .select(['type', 'created_at', sql<number | null>`(data ->> 'dunning_level')::int`.as('dunning_level')])
      .where('company_id', '=', member.company.id)
      .where('subject_id', '=', id)
      .orderBy('seq')
      .execute(),
    // Its payments, reversals and bookings (invoice-money.ts).
    loadInvoiceMoney(deps.db, member.company.id, id),
    // Who did what to it (an invoice written in the app has no events: migration 0026).
    deps.db
      .selectFrom('audit_log as a')
      .innerJoin('users as u', 'u.id', 'a.user_id')
      .select(['a.action', 'a.at', 'u.email', 'a.before', 'a.after'])
      .where('a.organization_id', '=', member.company.organizationId)
      .where('a.company_id', '=', member.company.id)
      .where('a.subject_type', '=', 'invoice')
      .where('a.subject_id', '=', id)
      .orderBy('a.seq')
      .execute(),
    // The storno pair's numbers.
    deps.db
      .selectFrom('invoices')
      .select(['id', 'number'])
      .where('company_id', '=', member.company.id)
      .where((eb) => eb.or([eb('id', '=', invoice.cancels_invoice_id ?? ''), eb('id', '=', invoice.cancelled_by_invoice_id ?? '')]))
      .execute(),
    deps.db
      .selectFrom('invoice_mail_attempts')
      .select('state')
      .where('company_id', '=', member.company.id)
      .where('invoice_id', '=', id)
      .orderBy('started_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst(),
    // Money the bank statement took back from it (issue 24: a refund, a return); no event says so.
    deps.db
      .selectFrom('payment_reversals')
      .select(['invoice_cents', 'credit_cents', 'kind', 'booking_date', 'created_at'])
      .where('company_id', '=', member.company.id)
      .where('invoice_id', '=', id)
      .orderBy('created_at')
      .execute(),
    // The address each reminder went to (its history line names it).
    deps.db
      .selectFrom('dunning_notices')
      .select(['level', sql<string | null>`document -> 'buyer' ->> 'email'`.as('email')])
      .where('company_id', '=', member.company.id)
      .where('invoice_id', '=', id)
      .where('status', '=', 'sent')
      .orderBy('sent_at')
      .execute(),
  ]);
  const files = invoice.status === 'draft' ? { pdf: false, xml: false } : await hasFiles(deps, member.company.id, id);
  const numberOf = (other: string | null) => (other ? (related.find((r) => r.id === other)?.number ?? null) : null);
  return {
    invoice,
    lines,
    events,
    money,
    notices,
    audit,
    reversals,
    files,
    cancels: invoice.cancels_invoice_id ? { id: invoice.cancels_invoice_id, number: numberOf(invoice.cancels_invoice_id) } : null,
    cancelledBy: invoice.cancelled_by_invoice_id ? { id: invoice.cancelled_by_invoice_id, number: numberOf(invoice.cancelled_by_invoice_id) } : null,
    mailUnconfirmed: lastMail?.state === 'unconfirmed',
  };
}

const json = (value: unknown) =>
  value === null || value === undefined ? null : ((typeof value === 'string' ? JSON.parse(value) : value) as Record<string, unknown>);

type Loaded = NonNullable<Awaited<ReturnType<typeof loadInvoice>>>;

/** A draft the app wrote: change it, or discard it (no number yet, so no gap). */
function draftSection(t: Messages, csrf: string, id: string): Html {
  const d = t.drafts;
  return html`<section class="panel" aria-labelledby="draft-heading"><h2 id="draft-heading">${d.draftActions}</h2>
<p><a class="button primary" href="/app/invoices/${id}/edit">${d.editDraft}</a></p>
<p class="hint">${d.discardHint}</p>
<form method="post" action="/app/invoices/${id}/discard" data-confirm="${d.discardConfirm}">${csrfField(csrf)}<button type="submit" class="danger">${d.discardDraft}</button></form></section>`;
}

/** Mail an issued invoice (or storno), again if it was mailed before; or why it cannot go. */
function mailSection(t: Messages, csrf: string, found: Loaded, time: Intl.DateTimeFormat): Html {
  const d = t.drafts;
  const { invoice } = found;
  const id = invoice.id;
  if (invoice.status === 'draft' || invoice.status === 'cancelled') return html``;
  const email = invoice.mail_to?.trim();
  let action: Html;
  if (!email) action = html`<p>${d.noRecipient}</p>`;
  else if (!invoice.sent_at && found.mailUnconfirmed)
    action = html`<p>${d.unconfirmed}</p><form method="post" action="/app/invoices/${id}/send">${csrfField(csrf)}<input type="hidden" name="resend" value="1"><button type="submit">${d.sendAnyway}</button></form>`;
  else
    action = html`<form method="post" action="/app/invoices/${id}/send">${csrfField(csrf)}${invoice.sent_at ? html`<input type="hidden" name="again" value="1">` : ''}<button type="submit"${invoice.sent_at ? '' : html` class="primary"`}>${invoice.sent_at ? d.sendAgain : d.sendByMail}</button></form>`;
  return html`<section class="panel" aria-labelledby="mail-heading"><h2 id="mail-heading">${d.mail}</h2>
${email ? html`<p>${d.sendTo(email)}</p>` : ''}${invoice.sent_at ? html`<p class="muted">${d.sentAt(time.format(invoice.sent_at))}</p>` : ''}
${action}</section>`;
}

/** Cancel an issued invoice by a Stornorechnung; a paid one says why it cannot be. */
function cancelSection(t: Messages, csrf: string, found: Loaded): Html {
  const d = t.drafts;
  const { invoice } = found;
  if (invoice.type !== 'invoice') return html``;
  if (invoice.status === 'paid' || invoice.status === 'partially_paid')
    return html`<section class="panel" aria-labelledby="cancel-heading"><h2 id="cancel-heading">${d.cancelHeading}</h2><p class="muted">${d.notCancellablePaid}</p></section>`;
  if (invoice.status !== 'issued' && invoice.status !== 'sent') return html``;
  return html`<section class="panel" aria-labelledby="cancel-heading"><h2 id="cancel-heading">${d.cancelHeading}</h2>
<p>${d.cancelHint}</p>
<form method="post" action="/app/invoices/${invoice.id}/cancel" data-confirm="${d.cancelConfirm(invoice.number ?? '')}">${csrfField(csrf)}<button type="submit" class="danger">${d.cancel}</button></form></section>`;
}

/** The flash after a step that redirected here (`?done=…`). */
function doneFlash(t: Messages, done: string | undefined, found: Loaded): Flash {
  const d = t.drafts;
  const email = found.invoice.mail_to ?? '';
  switch (done) {
    case 'issued':
      return { kind: 'ok', text: t.issuedDone };
    case 'draft':
      return { kind: 'ok', text: d.draftSaved };
    case 'changed':
      return { kind: 'ok', text: d.draftChanged };
    case 'sent':
      return { kind: 'ok', text: d.sentDone(email) };
    case 'sent-again':
      return { kind: 'ok', text: d.sentAgainDone(email) };
    case 'cancelled':
      return found.cancelledBy ? { kind: 'ok', text: d.cancelledDone(found.cancelledBy.number ?? '') } : null;
    default:
      return null;
  }
}

async function hasFiles(deps: InvoicingDeps, companyId: string, invoiceId: string) {
  const rows = await deps.db.selectFrom('invoice_files').select('kind').where('company_id', '=', companyId).where('invoice_id', '=', invoiceId).execute();
  return { pdf: rows.some((r) => r.kind === 'pdf'), xml: rows.some((r) => r.kind === 'xml') };
}

function issueSection(t: Messages, csrf: string, id: string, check: { messages: string[]; confirmable: boolean }): Html {
  if (check.messages.length === 0) {
    return html`<section class="panel" aria-labelledby="issue-heading"><h2 id="issue-heading">${t.issueDraft}</h2>
<p>${t.issueDraftHint}</p>
<form method="post" action="/app/invoices/${id}/issue">${csrfField(csrf)}<button type="submit" class="primary">${t.issueNow}</button></form></section>`;
  }
  const list = html`<ul class="messages">${check.messages.map((m) => html`<li>${m}</li>`)}</ul>`;
  if (!check.confirmable) {
    return html`<section class="panel warn" aria-labelledby="issue-heading"><h2 id="issue-heading">${t.notIssuable}</h2>${list}<p>${t.notIssuableHint}</p></section>`;
  }
  return html`<section class="panel warn" aria-labelledby="issue-heading"><h2 id="issue-heading">${t.taxWarning}</h2>${list}
<form method="post" action="/app/invoices/${id}/issue" class="form">${csrfField(csrf)}
<label class="check"><input type="checkbox" name="confirm_domestic_supply" value="1" required> ${t.confirmDomesticSupply}</label>
<button type="submit" class="primary">${t.confirmAndIssue}</button></form></section>`;
}

/**
 * The invoice's page; `flash` and `status` when a step on it was refused (422), `done` when a
 * step redirected here.
 */
export async function renderDetail(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: InvoicingDeps,
  id: string,
  flash: Flash = null,
  status = 200,
  done?: string,
) {
  const member = memberOrNoCompanyPage(request, reply);
  if (!member) return reply;
  const t = request.t;
  const d = t.drafts;
  const found = await loadInvoice(deps, member, id);
  if (!found) return reply.callNotFound();
  const { invoice, lines, events, money, notices, files, audit, reversals } = found;
  const csrf = member.session.csrfToken;
  flash ??= doneFlash(t, done, found);
  const number = invoice.number ?? t.draft;
  const said = (level: number | null) => ({
    number,
    to: (level === null ? invoice.mail_to : notices.findLast((n) => n.level === level)?.email) ?? '',
    level: level ?? 0,
    storno: found.cancelledBy?.number ?? '',
  });
  const history = [
    ...events.map((e) => ({ at: e.created_at, text: eventSentence(t, e.type, said(e.type === 'invoice.dunning_sent' ? (e.dunning_level ?? 0) : null)) })),
    ...audit.map((a) => ({ at: a.at, text: auditSentence(t, a.action, { who: a.email, subject: number, before: json(a.before), after: json(a.after) }) })),
    ...paymentHistory(t, money),
    ...reversals.map((r) => ({ at: r.created_at, text: t.books.reversalHistory(r.kind, euro(r.invoice_cents), euro(r.credit_cents), date(r.booking_date)) })),
  ].sort((a, b) => a.at.getTime() - b.at.getTime());
  const link = (ref: { id: string; number: string | null }) => html`<a href="/app/invoices/${ref.id}">${ref.number ?? ref.id}</a>`;
  const time = dateTimeFormat(member.company.timezone);
  const title = invoice.number ? `${invoice.type === 'storno' ? t.storno : t.invoice} ${invoice.number}` : t.draft;
  const confirmation = invoice.tax_confirmation
    ? ((typeof invoice.tax_confirmation === 'string' ? JSON.parse(invoice.tax_confirmation) : invoice.tax_confirmation) as Confirmation)
    : null;
  const check = invoice.status === 'draft' ? await checkDraft(deps, member.company.id, id) : null;
  const body = html`
<dl class="facts">
<div><dt>${t.status}</dt><dd><span class="status status-${invoice.status}">${t.statuses[invoice.status] ?? invoice.status}</span>${invoice.overdue && invoice.status !== 'paid' ? html` <span class="badge warn">${t.overdueBadge}</span>` : ''}${invoice.origin === 'app' ? html` <span class="badge" title="${d.writtenInAppHint}">${d.writtenInApp}</span>` : ''}</dd></div>
<div><dt>${t.customer}</dt><dd>${invoice.customer_name} <span class="muted">(${invoice.kundennummer})</span></dd></div>
<div><dt>${t.issueDate}</dt><dd>${date(invoice.issue_date)}</dd></div>
<div><dt>${t.dueDate}</dt><dd>${date(invoice.due_date)}</dd></div>
<div><dt>${t.servicePeriod}</dt><dd>${date(invoice.service_period_start)} – ${date(invoice.service_period_end)}</dd></div>
<div><dt>${t.gross}</dt><dd class="strong">${euro(invoice.total_gross_cents)}</dd></div>
${invoice.sent_at ? html`<div><dt>${d.sentOn}</dt><dd>${time.format(invoice.sent_at)}</dd></div>` : ''}
${found.cancelledBy ? html`<div><dt>${d.cancelledBy}</dt><dd>${link(found.cancelledBy)}</dd></div>` : ''}
${found.cancels ? html`<div><dt>${d.cancels}</dt><dd>${link(found.cancels)}</dd></div>` : ''}
${invoice.note ? html`<div><dt>${d.noteLabel}</dt><dd>${invoice.note}</dd></div>` : ''}
</dl>
${check ? issueSection(t, csrf, id, check) : ''}
${invoice.status === 'draft' && invoice.origin === 'app' ? draftSection(t, csrf, id) : ''}
${mailSection(t, csrf, found, time)}
${cancelSection(t, csrf, found)}
${await invoiceDunningBox(deps, request, member, id)}
${confirmation ? html`<section class="panel" aria-labelledby="confirmed-heading"><h2 id="confirmed-heading">${t.confirmedWarning}</h2><ul class="messages">${confirmation.messages.map((m) => html`<li>${m}</li>`)}</ul><p>${t.confirmedBy(confirmation.email, time.format(new Date(confirmation.confirmed_at)))}</p></section>` : ''}
${paymentsSection(t, invoice, money, time)}
<h2>${t.lines}</h2>
<div class="table-wrap"><table class="table">
<thead><tr><th scope="col">${t.position}</th><th scope="col">${t.description}</th><th scope="col" class="num">${t.quantity}</th><th scope="col">${t.unit}</th><th scope="col" class="num">${t.unitPrice}</th><th scope="col" class="num">${t.vat}</th><th scope="col" class="num">${t.net}</th></tr></thead>
<tbody>${lines.map(
    (l) =>
      html`<tr><td>${l.position}</td><td class="wrap">${l.description}</td><td class="num">${decimal(l.quantity, 0)}</td><td>${l.unit ?? ''}</td><td class="num">${amount(l.unit_price_net)}</td><td class="num">${l.vat_rate} %</td><td class="num">${euro(l.net_cents)}</td></tr>`,
  )}</tbody>
<tfoot>
<tr><th scope="row" colspan="6">${t.net}</th><td class="num">${euro(invoice.total_net_cents)}</td></tr>
<tr><th scope="row" colspan="6">${t.vat}</th><td class="num">${euro(invoice.total_tax_cents)}</td></tr>
<tr><th scope="row" colspan="6">${t.gross}</th><td class="num strong">${euro(invoice.total_gross_cents)}</td></tr>
</tfoot></table></div>
${
  files.pdf
    ? html`<h2>${t.documents}</h2><p class="actions"><a href="/app/invoices/${id}/pdf" download>${t.downloadPdf}</a>${files.xml ? html` · <a href="/app/invoices/${id}/xml" download>${t.downloadXml}</a>` : ''}</p>
<iframe class="pdf" src="/app/invoices/${id}/pdf" title="${t.pdfPreview}"></iframe>`
    : ''
}
<h2>${t.history}</h2>
${history.length === 0 ? html`<p class="muted">${t.noEvents}</p>` : html`<ul class="timeline">${history.map((e) => html`<li><time>${time.format(e.at)}</time> ${e.text}</li>`)}</ul>`}
${bookingsSection(t, money)}
<p><a href="/app/invoices">← ${t.invoices}</a></p>`;
  return sendPage(reply, page(shell(request, 'invoices'), title, body, flash), status);
}

export function registerInvoiceDetailPages(web: FastifyInstance, deps: InvoicingDeps): void {
  web.get('/invoices/:id', async (request, reply) => {
    const { id } = request.params as { id: string };
    const done = (request.query as { done?: string }).done;
    return renderDetail(request, reply, deps, id, null, 200, typeof done === 'string' ? done : undefined);
  });

  web.post('/invoices/:id/issue', async (request, reply) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const { id } = request.params as { id: string };
    if (!/^inv_[0-9a-z]{26}$/.test(id)) return reply.callNotFound();
    const form = (request.body ?? {}) as Record<string, string | undefined>;
    try {
      await issueDraft(deps, member.company.id, id, {
        confirmDomesticSupply: form.confirm_domestic_supply === '1',
        actor: { ...actorOf(member), email: member.session.email },
      });
    } catch (error) {
      if (error instanceof AppError && error.code === 'invoice_not_found') return reply.callNotFound();
      if (error instanceof AppError && error.code === 'invoice_not_issuable') {
        const messages = (error.fields.messages as string[] | undefined) ?? [error.message];
        return renderDetail(request, reply, deps, id, { kind: 'error', text: `${request.t.notIssued} ${messages.join(' ')}` }, 422);
      }
      throw error;
    }
    return redirect(reply, `/app/invoices/${id}?done=issued`);
  });

  for (const kind of ['pdf', 'xml'] as const) {
    web.get(`/invoices/:id/${kind}`, async (request, reply) => {
      const member = memberOrNoCompanyPage(request, reply);
      if (!member) return reply;
      const { id } = request.params as { id: string };
      if (!/^inv_[0-9a-z]{26}$/.test(id)) return reply.callNotFound();
      const invoice = await deps.db.selectFrom('invoices').select('number').where('company_id', '=', member.company.id).where('id', '=', id).executeTakeFirst();
      const file = invoice ? (await readFiles(deps.db, member.company.id, id, [kind]))[kind] : null;
      if (!invoice || !file) return reply.callNotFound();
      return (
        reply
          .type(kind === 'pdf' ? 'application/pdf' : 'application/xml')
          .header('content-disposition', `${kind === 'pdf' ? 'inline' : 'attachment'}; filename="${invoice.number}.${kind}"`)
          .header('cache-control', 'private, no-store')
          // The PDF may be shown in the invoice page's preview (same origin only).
          .header('x-frame-options', 'SAMEORIGIN')
          .header('content-security-policy', "default-src 'none'; frame-ancestors 'self'; plugin-types application/pdf")
          .send(file)
      );
    });
  }
}
