import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { StoredStatementLine } from '../../db/schema-commissions.ts';
import {
  cancelStatement,
  type DecidedStatement,
  issueDraftStatement,
  markStatementPaid,
  objectToStatement,
  StatementError,
  sendStatement,
} from '../../modules/statements/decide-statement.ts';
import { statementFiles } from '../../modules/statements/deliver-statement.ts';
import { DELIVER_STATEMENT_JOB } from '../../modules/statements/issue-statement.ts';
import { findPartnerInvoice, type PartnerInvoiceField, PartnerInvoiceRefused, recordPartnerInvoice } from '../../modules/statements/record-partner-invoice.ts';
import { statementNotes } from '../../modules/statements/render/statement-notes.ts';
import type { StatementDocument } from '../../modules/statements/statement-document.ts';
import { fileKinds } from '../../modules/statements/statements.repository.ts';
import { type Html, html } from '../html.ts';
import type { Messages } from '../i18n.ts';
import { csrfField, type Flash, page } from '../layout.ts';
import { actorOf, type Member, redirect, sendPage, shell, type WebDeps } from '../web-request.ts';
import { germanDecimal } from './invoice-form.ts';
import { date, dateTimeFormat, euro, today, typedDate } from './money.ts';
import { memberOrNoCompanyPage } from './require-member.ts';

// Revenue-share statements: the list (filter by status and partner, paging by key), and one
// statement with its lines, where its commission came from, the PDF and its history; the
// person-side steps by state — issue a draft, send, cancel, record an objection, mark paid
// (admins, as the payout run) — each through the statements module with the person in the
// audit trail, in the step's own transaction. A request to invoice takes the partner's
// invoice (number, date, amounts; a difference is shown and must be confirmed) before it
// can be paid (issue 24). Refusals show in German, never as a 500.

const ID = /^cst_[0-9a-z]{26}$/;
const PARTNER_ID = /^cpt_[0-9a-z]{26}$/;
const PAGE_SIZE = 50;
const ENTRIES_SHOWN = 200;
const STATUSES = ['draft', 'issued', 'sent', 'cancelled', 'objected'] as const;
const FILTERS = [...STATUSES, 'unpaid', 'paid'] as const;
type Filter = (typeof FILTERS)[number];

type Share = Messages['share'];

const BADGE: Record<string, string> = { draft: 'badge', issued: 'badge', sent: 'badge ok', cancelled: 'badge error', objected: 'badge warn' };

function statusBadge(t: Share, status: string): Html {
  return html`<span class="${BADGE[status] ?? 'badge'}">${t.statuses[status] ?? status}</span>`;
}

function kindName(t: Share, row: { kind: string; type: string }): string {
  const kind = t.kinds[row.kind] ?? row.kind;
  return row.type === 'cancellation' ? t.cancellationOf(kind) : kind;
}

const percent = (value: string) => `${value.replace('.', ',')} %`;

type ListQuery = { status: Filter | null; partner: string | null; after: number | null };

function parseQuery(raw: Record<string, string | undefined>): ListQuery {
  const status = FILTERS.find((f) => f === raw.status) ?? null;
  const partner = raw.partner && PARTNER_ID.test(raw.partner) ? raw.partner : null;
  const after = raw.after && /^\d{1,15}$/.test(raw.after) ? Number(raw.after) : null;
  return { status, partner, after };
}

function listUrl(query: ListQuery, after: number | null): string {
  const params = new URLSearchParams();
  if (query.status) params.set('status', query.status);
  if (query.partner) params.set('partner', query.partner);
  if (after !== null) params.set('after', String(after));
  const text = params.toString();
  return `/app/statements${text ? `?${text}` : ''}`;
}

async function loadStatement(deps: WebDeps, member: Member, id: string) {
  const statement = await deps.db
    .selectFrom('commission_statements')
    .selectAll()
    .where('company_id', '=', member.company.id)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!statement) return null;
  const companyId = member.company.id;
  const related = [statement.cancels_statement_id, statement.cancelled_by_id].filter((r): r is string => r !== null);
  const [partner, others, files, events, audit, run] = await Promise.all([
    deps.db
      .selectFrom('commission_partners')
      .select(['id', 'name', 'email', 'self_billing_agreed_on'])
      .where('company_id', '=', companyId)
      .where('id', '=', statement.partner_id)
      .executeTakeFirstOrThrow(),
    related.length === 0
      ? Promise.resolve([])
      : deps.db.selectFrom('commission_statements').select(['id', 'number']).where('company_id', '=', companyId).where('id', 'in', related).execute(),
    fileKinds(deps.db, companyId, [id]),
    deps.db
      .selectFrom('events')
      .select(['type', 'created_at'])
      .where('company_id', '=', companyId)
      .where('subject_id', '=', id)
      .where('type', 'like', 'commission_statement.%')
      .orderBy('seq')
      .execute(),
    deps.db
      .selectFrom('audit_log as a')
      .innerJoin('users as u', 'u.id', 'a.user_id')
      .select(['a.action', 'a.at', 'u.email'])
      .where('a.company_id', '=', companyId)
      .where('a.subject_type', '=', 'commission_statement')
      .where('a.subject_id', '=', id)
      .orderBy('a.seq')
      .execute(),
    deps.db
      .selectFrom('payout_run_items as i')
      .innerJoin('payout_runs as r', (join) => join.onRef('r.company_id', '=', 'i.company_id').onRef('r.id', '=', 'i.run_id'))
      .innerJoin('users as u', 'u.id', 'r.created_by')
      .select(['r.id', 'r.execution_date', 'u.email'])
      .where('i.company_id', '=', companyId)
      .where('i.statement_id', '=', id)
      .executeTakeFirst(),
  ]);
  const entries = await deps.db
    .selectFrom('commission_entries as e')
    .leftJoin('customers as c', (join) => join.onRef('c.company_id', '=', 'e.company_id').onRef('c.id', '=', 'e.customer_id'))
    .leftJoin('invoices as i', (join) => join.onRef('i.company_id', '=', 'e.company_id').onRef('i.id', '=', 'e.source_id').on('e.source_type', '=', 'invoice'))
    .select([
      'e.id',
      'e.paid_on',
      'e.source_type',
      'e.source_id',
      'e.contract_month',
      'e.percent',
      'e.basis_cents',
      'e.amount_cents',
      'c.name as customer_name',
      'i.id as invoice_id',
      'i.number as invoice_number',
    ])
    .where('e.company_id', '=', companyId)
    .where('e.statement_id', '=', id)
    .orderBy('e.seq')
    .limit(ENTRIES_SHOWN + 1)
    .execute();
  let entryCount = entries.length;
  if (entries.length > ENTRIES_SHOWN) {
    const counted = await deps.db
      .selectFrom('commission_entries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('company_id', '=', companyId)
      .where('statement_id', '=', id)
      .executeTakeFirstOrThrow();
    entryCount = Number(counted.n);
  }
  const kinds = files.get(id) ?? new Set<string>();
  const mail = await mailState(deps, companyId, id);
  const invoice = statement.kind === 'partner_invoice' ? await findPartnerInvoice(deps.db, companyId, id) : null;
  return {
    statement,
    invoice,
    partner,
    cancels: others.find((o) => o.id === statement.cancels_statement_id) ?? null,
    cancelledBy: others.find((o) => o.id === statement.cancelled_by_id) ?? null,
    hasXml: kinds.has('xml'),
    events,
    audit,
    run: run ?? null,
    mail,
    entries: entries.slice(0, ENTRIES_SHOWN),
    entryCount,
  };
}

type Loaded = NonNullable<Awaited<ReturnType<typeof loadStatement>>>;

/**
 * The statement's mail by its delivery job (committed with the issued statement, issue-statement.ts):
 * 'queued' while the job is to run or running, 'failed' once it gave up (its last error), else 'none'
 * (no job, or one that only stored the files because the partner had no e-mail then).
 */
type MailState = { state: 'queued' | 'failed' | 'none'; error: string | null };

async function mailState(deps: WebDeps, companyId: string, id: string): Promise<MailState> {
  const job = await deps.db
    .selectFrom('jobs')
    .select(['status', 'payload', 'last_error'])
    .where('dedupe_key', '=', `${DELIVER_STATEMENT_JOB}:${companyId}:${id}`)
    .executeTakeFirst();
  if (!job || (job.payload as { send?: boolean }).send !== true) return { state: 'none', error: null };
  if (job.status === 'pending' || job.status === 'running') return { state: 'queued', error: job.last_error };
  if (job.status === 'failed') return { state: 'failed', error: job.last_error };
  return { state: 'none', error: null };
}

function notesOf(loaded: Loaded): string[] {
  const { statement, partner } = loaded;
  const doc = statement.document as StatementDocument | null;
  if (doc) return doc.notes;
  try {
    return statementNotes({
      kind: statement.kind,
      taxNote: statement.tax_note,
      type: statement.type,
      precedingStatement: null,
      selfBillingAgreedOn: partner.self_billing_agreed_on,
    });
  } catch {
    return [];
  }
}

/** The steps this statement allows, as forms; a member sees why marking paid is not theirs. */
function actionsSection(t: Share, steps: Messages['steps'], member: Member, loaded: Loaded, payoutsLabel: string): Html {
  const { statement, partner } = loaded;
  const id = statement.id;
  const open = statement.status === 'issued' || statement.status === 'sent';
  const unpaid = statement.paid_at === null;
  /** One step: its button (in a form of its own) and, below it, what it does. */
  const step = (path: string, label: string, kind: 'primary' | 'danger' | '', hint: Html | string, attributes: Html = html``) =>
    html`<div><form method="post" action="/app/statements/${id}/${path}"${attributes}>${csrfField(member.session.csrfToken)}<button type="submit"${kind ? html` class="${kind}"` : ''} aria-describedby="hint-${path}">${label}</button></form>
<p class="hint" id="hint-${path}">${hint}</p></div>`;
  const note = (text: string) => html`<p class="muted">${text}</p>`;
  const parts: Html[] = [];
  if (statement.status === 'draft') parts.push(step('issue', t.issue, 'primary', t.issueHint));
  // Only the mail steps the state allows (issue 25): none while the mail is queued; after a
  // failed delivery "Erneut senden" with a confirmation; a sent statement is not sent again.
  if (statement.status === 'issued') {
    const s = steps;
    if (!partner.email) parts.push(note(t.noPartnerEmail));
    else if (loaded.mail.state === 'queued') parts.push(html`<p class="muted" role="status">${s.mailQueued(partner.email)}</p>`);
    else if (loaded.mail.state === 'failed')
      parts.push(
        html`<p class="panel warn">${s.mailFailed(loaded.mail.error ?? '–')}</p>`,
        step('send', s.resend, 'primary', s.resendHint(partner.email), html` data-confirm="${s.resendConfirm}" data-progress="${s.resend} …"`),
      );
    else parts.push(step('send', t.send, 'primary', t.sendHint(partner.email), html` data-progress="${t.send} …"`));
  }
  if (open && statement.type === 'statement' && unpaid) {
    parts.push(
      statement.kind === 'partner_invoice' && !loaded.invoice
        ? note(t.markPaidNeedsInvoice)
        : member.role === 'admin'
          ? step('mark-paid', t.markPaid, '', html`${t.markPaidHint} <a href="/app/payouts">${payoutsLabel}</a>.`, html` data-confirm="${t.markPaidConfirm}"`)
          : note(t.markPaidAdminOnly),
    );
    if (statement.kind === 'self_billing') parts.push(step('objection', t.objection, 'danger', t.objectionHint, html` data-confirm="${t.objectionConfirm}"`));
    parts.push(step('cancel', t.cancel, 'danger', t.cancelHint, html` data-confirm="${t.cancelConfirm}"`));
  }
  if (open && statement.type === 'statement' && !unpaid) parts.push(note(t.paidNotCancellable));
  if (parts.length === 0) return html``;
  return html`<section class="panel" aria-labelledby="actions-heading"><h2 id="actions-heading">${t.actions}</h2><div class="stack">${parts}</div></section>`;
}

/** The partner-invoice form as sent back after a refusal: the typed values, the field sentences, the differences to confirm. */
export type InvoiceForm = { values: Record<string, string>; fields: Partial<Record<PartnerInvoiceField, string>>; differences: string[] };

const INVOICE_FIELDS: { name: PartnerInvoiceField; label: (t: Share) => string; hint?: (t: Share) => string; mode?: string }[] = [
  { name: 'number', label: (t) => t.invoiceNumber },
  { name: 'invoice_date', label: (t) => t.invoiceDate, hint: (t) => t.dateHint },
  { name: 'net', label: (t) => t.invoiceNet, hint: (t) => t.amountHint, mode: 'decimal' },
  { name: 'vat', label: (t) => t.invoiceVat, hint: (t) => t.amountHint, mode: 'decimal' },
  { name: 'gross', label: (t) => t.invoiceGross, hint: (t) => t.amountHint, mode: 'decimal' },
];

/** A request to invoice: the partner's recorded invoice, or the form to record it (issue 24). */
function partnerInvoiceSection(t: Share, member: Member, loaded: Loaded, form: InvoiceForm | null): Html {
  const { statement, invoice } = loaded;
  if (statement.kind !== 'partner_invoice' || statement.type !== 'statement') return html``;
  const expected = html`<p class="hint">${t.expected(euro(statement.net_cents), euro(statement.vat_cents), euro(statement.gross_cents))}</p>`;
  const heading = html`<h2 id="invoice-heading">${t.partnerInvoice}</h2>`;
  if (invoice) {
    const time = dateTimeFormat(member.company.timezone);
    return html`<section class="panel" aria-labelledby="invoice-heading">${heading}
<p class="strong">${t.invoiceRecorded(invoice.number, date(invoice.invoiceDate))}</p>
<dl class="facts"><div><dt>${t.invoiceNet}</dt><dd>${euro(invoice.netCents)}</dd></div><div><dt>${t.invoiceVat}</dt><dd>${euro(invoice.vatCents)}</dd></div><div><dt>${t.invoiceGross}</dt><dd class="strong">${euro(invoice.grossCents)}</dd></div></dl>
${expected}
${invoice.differences.length > 0 ? html`<p>${t.differencesConfirmed}</p><ul class="messages">${invoice.differences.map((d) => html`<li>${d}</li>`)}</ul>` : ''}
<p class="hint">${invoice.via === 'portal' ? t.uploadedBy(invoice.recordedBy, time.format(invoice.recordedAt)) : t.recordedBy(invoice.recordedBy, time.format(invoice.recordedAt))}. ${invoice.via === 'portal' ? html`<a href="/app/statements/${statement.id}/partner-invoice-file">${t.uploadedFile}</a>. ` : ''}${statement.paid_at ? '' : t.payoutAgainstInvoice(euro(invoice.grossCents))}</p></section>`;
  }
  const open = (statement.status === 'issued' || statement.status === 'sent') && statement.paid_at === null;
  if (!open)
    return statement.status === 'draft'
      ? html``
      : html`<section class="panel" aria-labelledby="invoice-heading">${heading}<p class="muted">${t.invoiceNotRecordable}</p></section>`;
  const values = form?.values ?? {};
  const fields = form?.fields ?? {};
  const input = (spec: (typeof INVOICE_FIELDS)[number]) => {
    const id = `pi-${spec.name}`;
    const error = fields[spec.name];
    const hint = spec.hint?.(t);
    const describedBy = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
    return html`<label for="${id}">${spec.label(t)}</label><input id="${id}" name="${spec.name}" value="${values[spec.name] ?? ''}" autocomplete="off" spellcheck="false" required${spec.mode ? html` inputmode="${spec.mode}"` : ''}${describedBy ? html` aria-describedby="${describedBy}"` : ''}${error ? html` aria-invalid="true"` : ''}>
${hint ? html`<p id="${id}-hint" class="hint">${hint}</p>` : ''}${error ? html`<p id="${id}-error" class="hint"><span class="badge error">${t.errorBadge}</span> ${error}</p>` : ''}`;
  };
  const mismatch =
    form && form.differences.length > 0
      ? html`<div class="panel warn" role="alert"><p>${t.mismatchTitle}</p><ul class="messages">${form.differences.map((d) => html`<li>${d}</li>`)}</ul>
<label class="check" for="pi-confirm"><input type="checkbox" id="pi-confirm" name="confirm_mismatch" value="1"> ${t.confirmMismatch}</label></div>`
      : '';
  return html`<section class="panel" aria-labelledby="invoice-heading">${heading}<p>${t.partnerInvoiceIntro}</p>${expected}
<form method="post" action="/app/statements/${statement.id}/record-invoice" class="form" novalidate>${csrfField(member.session.csrfToken)}
${INVOICE_FIELDS.map(input)}
${mismatch}
<button type="submit" class="primary">${t.recordInvoice}</button>
</form></section>`;
}

function historySection(t: Share, member: Member, loaded: Loaded): Html {
  const time = dateTimeFormat(member.company.timezone);
  const { statement, events, audit, run } = loaded;
  const used = new Set<number>();
  const who = (eventType: string, at: Date): string | null => {
    const action = eventType.replace('commission_statement.', 'statement.');
    const index = audit.findIndex((a, i) => !used.has(i) && a.action === action && new Date(a.at).getTime() === new Date(at).getTime());
    if (index < 0) return null;
    used.add(index);
    return audit[index]?.email ?? null;
  };
  const items: { at: number; item: Html }[] = [];
  const add = (at: Date, item: Html) => items.push({ at: new Date(at).getTime(), item: html`<li><time>${time.format(new Date(at))}</time> ${item}</li>` });
  if (statement.type === 'statement') add(statement.created_at, html`${t.created}`);
  for (const event of events) {
    const email = who(event.type, event.created_at);
    const viaRun =
      event.type === 'commission_statement.paid' && run && !email
        ? html` ${member.role === 'admin' ? html`<a href="/app/payouts/${run.id}">${t.inPayoutRun}</a>` : t.inPayoutRun} ${t.by(run.email)}`
        : '';
    add(event.created_at, html`${t.events[event.type] ?? event.type}${email ? html` ${t.by(email)}` : ''}${viaRun}`);
  }
  // Steps without an event of their own: the partner's invoice recorded (issue 24).
  for (const row of audit.filter((a) => a.action === 'statement.invoice_recorded'))
    add(row.at, html`${t.auditActions['statement.invoice_recorded']} ${t.by(row.email)}`);
  // Stable: same instants keep their order (created before issued).
  items.sort((a, b) => a.at - b.at);
  return html`<h2>${t.history}</h2><ul class="timeline">${items.map((i) => i.item)}</ul>`;
}

function linesTable(t: Share, statement: Loaded['statement']): Html {
  const lines = statement.lines as StoredStatementLine[];
  return html`<h2>${t.lines}</h2>
<div class="table-wrap"><table class="table">
<thead><tr><th scope="col">${t.position}</th><th scope="col">${t.description}</th><th scope="col">${t.period}</th><th scope="col" class="num">${t.basis}</th><th scope="col" class="num">${t.percent}</th><th scope="col" class="num">${t.entryCount}</th><th scope="col" class="num">${t.commission}</th></tr></thead>
<tbody>${lines.map(
    (l) =>
      html`<tr><td>${l.position}</td><td class="wrap">${l.description}</td><td>${date(l.period_start)} – ${date(l.period_end)}</td><td class="num">${euro(l.basis_cents)}</td><td class="num">${percent(l.percent)}</td><td class="num">${l.entry_count}</td><td class="num">${euro(l.amount_cents)}</td></tr>`,
  )}</tbody>
<tfoot>
<tr><th scope="row" colspan="6">${t.net}</th><td class="num">${euro(statement.net_cents)}</td></tr>
<tr><th scope="row" colspan="6">${t.vat} (${percent(statement.vat_rate)})</th><td class="num">${euro(statement.vat_cents)}</td></tr>
<tr><th scope="row" colspan="6">${t.gross}</th><td class="num strong">${euro(statement.gross_cents)}</td></tr>
</tfoot></table></div>`;
}

function originsSection(t: Share, loaded: Loaded): Html {
  const { statement, entries, entryCount } = loaded;
  if (entries.length === 0) {
    return statement.status === 'cancelled' || statement.status === 'objected' ? html`<h2>${t.origins}</h2><p class="muted">${t.originsReleased}</p>` : html``;
  }
  return html`<h2>${t.origins}</h2><p class="hint">${t.originsHint}</p>
<div class="table-wrap"><table class="table compact">
<thead><tr><th scope="col">${t.revenuePaidOn}</th><th scope="col">${t.customer}</th><th scope="col">${t.origin}</th><th scope="col" class="num">${t.contractMonth}</th><th scope="col" class="num">${t.basis}</th><th scope="col" class="num">${t.percent}</th><th scope="col" class="num">${t.commission}</th></tr></thead>
<tbody>${entries.map(
    (e) =>
      html`<tr><td>${date(e.paid_on)}</td><td>${e.customer_name ?? '–'}</td><td>${
        e.invoice_id && e.invoice_number
          ? html`<a href="/app/invoices/${e.invoice_id}">${t.invoice(e.invoice_number)}</a>`
          : e.source_type === 'revenue_event' && e.source_id
            ? t.revenueEvent(e.source_id)
            : '–'
      }</td><td class="num">${e.contract_month ?? '–'}</td><td class="num">${euro(e.basis_cents)}</td><td class="num">${percent(e.percent)}</td><td class="num">${euro(e.amount_cents)}</td></tr>`,
  )}</tbody></table></div>
${entryCount > entries.length ? html`<p class="muted">${t.originsMore(entryCount - entries.length)}</p>` : ''}`;
}

export function registerStatementPages(web: FastifyInstance, deps: WebDeps): void {
  // A statement's files render on the server's render threads (as invoices do) when not yet stored.
  const renderStatement = deps.invoicing.renderStatement;
  web.get('/statements', async (request, reply) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const t = request.t.share;
    const query = parseQuery(request.query as Record<string, string | undefined>);
    let select = deps.db
      .selectFrom('commission_statements as s')
      .innerJoin('commission_partners as p', (join) => join.onRef('p.company_id', '=', 's.company_id').onRef('p.id', '=', 's.partner_id'))
      .select([
        's.id',
        's.seq',
        's.number',
        's.kind',
        's.type',
        's.status',
        's.period_start',
        's.period_end',
        's.net_cents',
        's.vat_cents',
        's.gross_cents',
        's.paid_at',
        's.held_reason',
        's.partner_id',
        'p.name as partner_name',
      ])
      .where('s.company_id', '=', member.company.id);
    if (query.status === 'paid') select = select.where('s.paid_at', 'is not', null);
    else if (query.status === 'unpaid')
      select = select.where('s.paid_at', 'is', null).where('s.type', '=', 'statement').where('s.status', 'in', ['issued', 'sent']);
    else if (query.status) select = select.where('s.status', '=', query.status);
    if (query.partner) select = select.where('s.partner_id', '=', query.partner);
    if (query.after !== null) select = select.where('s.seq', '<', query.after);
    const [found, partners] = await Promise.all([
      select
        .orderBy('s.seq', 'desc')
        .limit(PAGE_SIZE + 1)
        .execute(),
      deps.db
        .selectFrom('commission_partners')
        .select(['id', 'name'])
        .where('company_id', '=', member.company.id)
        .orderBy('name')
        .orderBy('id')
        .limit(500)
        .execute(),
    ]);
    const rows = found.slice(0, PAGE_SIZE);
    const filtered = query.status !== null || query.partner !== null;
    const option = (value: string, label: string, selected: boolean) => html`<option value="${value}"${selected ? html` selected` : ''}>${label}</option>`;
    const filters = html`<form method="get" action="/app/statements" class="filters" role="search">
<div><label for="status">${t.status}</label><select id="status" name="status">${option('', t.allStatuses, query.status === null)}${STATUSES.map((s) => option(s, t.statuses[s] ?? s, query.status === s))}${option('unpaid', t.unpaidFilter, query.status === 'unpaid')}${option('paid', t.paidFilter, query.status === 'paid')}</select></div>
<div><label for="partner">${t.partner}</label><select id="partner" name="partner">${option('', t.allPartners, query.partner === null)}${partners.map((p) => option(p.id, p.name, query.partner === p.id))}</select></div>
<div class="filter-actions"><button type="submit" class="primary">${t.filter}</button>${filtered ? html`<a href="/app/statements">${t.reset}</a>` : ''}</div>
</form>`;
    const table =
      rows.length === 0
        ? html`<p class="empty">${filtered || query.after !== null ? t.noStatements : t.noStatementsYet}</p>`
        : html`<div class="table-wrap"><table class="table">
<thead><tr><th scope="col">${t.number}</th><th scope="col">${t.partner}</th><th scope="col">${t.kindLabel}</th><th scope="col">${t.period}</th><th scope="col" class="num">${t.net}</th><th scope="col" class="num">${t.vat}</th><th scope="col" class="num">${t.gross}</th><th scope="col">${t.status}</th><th scope="col">${t.paid}</th></tr></thead>
<tbody>${rows.map(
            (s) => html`<tr>
<td><a href="/app/statements/${s.id}">${s.number ?? (s.status === 'draft' ? t.draft : t.discardedDraft)}</a></td>
<td class="wrap"><a href="/app/partners/${s.partner_id}">${s.partner_name}</a></td>
<td>${kindName(t, s)}</td>
<td>${date(s.period_start)} – ${date(s.period_end)}</td>
<td class="num">${euro(s.net_cents)}</td>
<td class="num">${euro(s.vat_cents)}</td>
<td class="num">${euro(s.gross_cents)}</td>
<td>${statusBadge(t, s.status)}${s.status === 'draft' && s.held_reason ? html` <span class="badge warn">${t.held}</span>` : ''}</td>
<td>${s.paid_at ? html`<span class="badge ok">${t.yes}</span>` : t.no}</td>
</tr>`,
          )}</tbody></table></div>`;
    const last = rows.at(-1);
    const paging = html`<nav class="paging" aria-label="${t.statements}">
${query.after !== null ? html`<a href="${listUrl(query, null)}">${t.first}</a>` : ''}
${found.length > PAGE_SIZE && last ? html`<a href="${listUrl(query, Number(last.seq))}" rel="next">${t.next}</a>` : ''}
</nav>`;
    return sendPage(reply, page(shell(request, 'statements'), t.statements, html`<p class="lead">${t.statementsIntro}</p>${filters}${table}${paging}`));
  });

  const detail = async (request: FastifyRequest, reply: FastifyReply, flash: Flash = null, status = 200, invoiceForm: InvoiceForm | null = null) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const t = request.t.share;
    const { id } = request.params as { id: string };
    if (!ID.test(id)) return reply.callNotFound();
    const loaded = await loadStatement(deps, member, id);
    if (!loaded) return reply.callNotFound();
    const { statement, partner, cancels, cancelledBy } = loaded;
    const notes = notesOf(loaded);
    const day = (at: Date | null) => (at ? date(today(new Date(at), member.company.timezone)) : '–');
    const title = t.statementTitle(kindName(t, statement), statement.number);
    const body = html`<dl class="facts">
<div><dt>${t.status}</dt><dd>${statusBadge(t, statement.status)}${statement.paid_at ? html` <span class="badge ok">${t.paid}</span>` : ''}</dd></div>
<div><dt>${t.partner}</dt><dd><a href="/app/partners/${partner.id}">${partner.name}</a></dd></div>
<div><dt>${t.kindLabel}</dt><dd>${kindName(t, statement)}</dd></div>
<div><dt>${t.issueDate}</dt><dd>${date(statement.issue_date)}</dd></div>
<div><dt>${t.period}</dt><dd>${date(statement.period_start)} – ${date(statement.period_end)}</dd></div>
<div><dt>${t.gross}</dt><dd class="strong">${euro(statement.gross_cents)}</dd></div>
<div><dt>${t.paidOn}</dt><dd>${statement.paid_at ? day(statement.paid_at) : t.notPaid}</dd></div>
${statement.sent_to ? html`<div><dt>${t.sentTo}</dt><dd>${statement.sent_to} (${day(statement.sent_at)})</dd></div>` : ''}
${statement.objected_at ? html`<div><dt>${t.objectedOn}</dt><dd>${day(statement.objected_at)}</dd></div>` : ''}
${cancels ? html`<div><dt>${t.cancels}</dt><dd><a href="/app/statements/${cancels.id}">${cancels.number}</a></dd></div>` : ''}
${cancelledBy ? html`<div><dt>${t.cancelledBy}</dt><dd><a href="/app/statements/${cancelledBy.id}">${cancelledBy.number}</a></dd></div>` : ''}
</dl>
${statement.status === 'draft' && statement.held_reason ? html`<div class="panel warn" role="status"><p class="strong">${t.held}</p><p>${statement.held_reason}</p></div>` : ''}
${actionsSection(t, request.t.steps, member, loaded, request.t.nav.payouts)}
${partnerInvoiceSection(t, member, loaded, invoiceForm)}
${linesTable(t, statement)}
${notes.length > 0 ? html`<h2>${t.taxNote}</h2><ul class="messages">${notes.map((n) => html`<li>${n}</li>`)}</ul>` : ''}
${originsSection(t, loaded)}
${
  statement.number
    ? html`<h2>${t.documents}</h2><p class="actions"><a href="/app/statements/${id}/pdf" download>${t.downloadPdf}</a>${loaded.hasXml ? html` · <a href="/app/statements/${id}/xml" download>${t.downloadXml}</a>` : ''}</p>
<iframe class="pdf" src="/app/statements/${id}/pdf" title="${t.pdfPreview}"></iframe>`
    : ''
}
${historySection(t, member, loaded)}
<p><a href="/app/statements">← ${t.back}</a></p>`;
    return sendPage(reply, page(shell(request, 'statements'), title, body, flash), status);
  };

  web.get('/statements/:id', async (request, reply) => {
    const done = (request.query as { done?: string }).done;
    if (!done) return detail(request, reply);
    const member = request.member;
    const { id } = request.params as { id: string };
    const t = request.t.share;
    let text: string | null = null;
    if (member && ID.test(id)) {
      const row = await deps.db
        .selectFrom('commission_statements')
        .select(['number', 'sent_to', 'cancelled_by_id'])
        .where('company_id', '=', member.company.id)
        .where('id', '=', id)
        .executeTakeFirst();
      const cancellation = row?.cancelled_by_id
        ? await deps.db
            .selectFrom('commission_statements')
            .select('number')
            .where('company_id', '=', member.company.id)
            .where('id', '=', row.cancelled_by_id)
            .executeTakeFirst()
        : undefined;
      if (row) {
        if (done === 'issued' && row.number) text = t.done.issued(row.number);
        else if (done === 'sent' && row.sent_to) text = t.done.sent(row.sent_to);
        else if (done === 'cancelled' && cancellation?.number) text = t.done.cancelled(cancellation.number);
        else if (done === 'discarded' || done === 'objected' || done === 'paid' || done === 'unchanged' || done === 'invoice_recorded') text = t.done[done];
      }
    }
    return detail(request, reply, text ? { kind: 'ok', text } : null);
  });

  type Step = 'issue' | 'send' | 'cancel' | 'objection' | 'mark-paid';
  const steps: Record<Step, (id: string, by: string, actor: ReturnType<typeof actorOf>) => Promise<DecidedStatement>> = {
    issue: (id, by, actor) => issueDraftStatement(deps, id, by, actor),
    send: (id, _by, actor) => sendStatement({ ...deps, renderStatement }, id, actor),
    cancel: (id, by, actor) => cancelStatement(deps, id, by, actor),
    objection: (id, by, actor) => objectToStatement(deps, id, by, actor),
    'mark-paid': (id, by, actor) => markStatementPaid(deps, id, by, actor),
  };
  const doneOf = (step: Step, result: DecidedStatement): string => {
    if (!result.changed) return 'unchanged';
    if (step === 'cancel') return result.cancellation ? 'cancelled' : 'discarded';
    return { issue: 'issued', send: 'sent', objection: 'objected', 'mark-paid': 'paid' }[step];
  };

  for (const step of Object.keys(steps) as Step[]) {
    // Marking paid moves money out of the books' view like a payout run: admins only, as there.
    web.post(`/statements/:id/${step}`, { config: { adminOnly: step === 'mark-paid' } }, async (request, reply) => {
      const member = memberOrNoCompanyPage(request, reply);
      if (!member) return reply;
      const { id } = request.params as { id: string };
      if (!ID.test(id)) return reply.callNotFound();
      const t = request.t.share;
      // The mail is queued (issuing sends it): sending now would mail it twice.
      if (step === 'send') {
        const queued = await deps.db
          .selectFrom('commission_statements')
          .select('status')
          .where('company_id', '=', member.company.id)
          .where('id', '=', id)
          .executeTakeFirst();
        if (queued?.status === 'issued' && (await mailState(deps, member.company.id, id)).state === 'queued')
          return detail(request, reply, { kind: 'error', text: request.t.steps.sendQueuedRefused }, 409);
      }
      let result: DecidedStatement;
      try {
        result = await steps[step](id, member.session.email, actorOf(member));
      } catch (error) {
        if (!(error instanceof StatementError)) throw error;
        if (error.refusal === 'not_found') return reply.callNotFound();
        const known = error.refusal ? t.refusals[error.refusal] : undefined;
        // The mail server's words, or what the partner's XRechnung lacks, follow the refusal.
        const text = known && error.reason ? `${known} ${error.reason}` : (known ?? t.refusedOther);
        const status = error.refusal === 'mail_failed' || error.refusal === 'no_email' || error.refusal === 'einvoice_contact_missing' ? 422 : 409;
        return detail(request, reply, { kind: 'error', text }, status);
      }
      return redirect(reply, `/app/statements/${id}?done=${doneOf(step, result)}`);
    });
  }

  // The partner's invoice for a request to invoice (members and admins: it is the daily work; paying stays an admin's).
  web.post('/statements/:id/record-invoice', async (request, reply) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const { id } = request.params as { id: string };
    if (!ID.test(id)) return reply.callNotFound();
    const raw = (request.body ?? {}) as Record<string, string | string[] | undefined>;
    const value = (name: string) => String(Array.isArray(raw[name]) ? (raw[name] as string[])[0] : (raw[name] ?? '')).slice(0, 200);
    const values = Object.fromEntries(['number', 'invoice_date', 'net', 'vat', 'gross'].map((name) => [name, value(name)]));
    // German input (05.11.2026, 1.234,56) or ISO: the operation takes ISO dates and decimal points.
    const amount = (text: string) => germanDecimal(text) ?? (/^\s*\d+\.\d{1,2}\s*$/.test(text) ? text.trim() : text.trim() === '' ? '' : '-');
    try {
      await recordPartnerInvoice(
        deps,
        id,
        {
          number: values.number as string,
          invoiceDate: typedDate(values.invoice_date as string) ?? (values.invoice_date as string),
          net: amount(values.net as string),
          vat: amount(values.vat as string),
          gross: amount(values.gross as string),
          confirmMismatch: value('confirm_mismatch') === '1',
        },
        { ...actorOf(member), email: member.session.email },
      );
    } catch (error) {
      if (!(error instanceof PartnerInvoiceRefused)) throw error;
      if (error.code === 'not_found') return reply.callNotFound();
      const conflict = error.code === 'not_recordable' || error.code === 'already_recorded';
      return detail(request, reply, { kind: 'error', text: error.message }, conflict ? 409 : 422, {
        values,
        fields: error.fields,
        differences: error.differences,
      });
    }
    return redirect(reply, `/app/statements/${id}?done=invoice_recorded`);
  });

  // The partner's invoice as it was handed in through the portal (kept byte for byte).
  web.get('/statements/:id/partner-invoice-file', async (request, reply) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const { id } = request.params as { id: string };
    if (!ID.test(id)) return reply.callNotFound();
    const file = await deps.db
      .selectFrom('partner_invoice_uploads')
      .select(['file_name', 'format', 'content'])
      .where('company_id', '=', member.company.id)
      .where('statement_id', '=', id)
      .where('accepted', '=', true)
      .executeTakeFirst();
    if (!file?.content) return reply.callNotFound();
    const pdf = file.format === 'zugferd' || file.format === 'pdf';
    return reply
      .type(pdf ? 'application/pdf' : 'application/xml')
      .header('content-disposition', `attachment; filename="${file.file_name.replace(/[^A-Za-z0-9._-]/g, '-')}"`)
      .header('cache-control', 'private, no-store')
      .send(Buffer.from(file.content));
  });

  for (const kind of ['pdf', 'xml'] as const) {
    web.get(`/statements/:id/${kind}`, async (request, reply) => {
      const member = memberOrNoCompanyPage(request, reply);
      if (!member) return reply;
      const { id } = request.params as { id: string };
      if (!ID.test(id)) return reply.callNotFound();
      const row = await deps.db
        .selectFrom('commission_statements')
        .select('number')
        .where('company_id', '=', member.company.id)
        .where('id', '=', id)
        .executeTakeFirst();
      if (!row?.number) return reply.callNotFound();
      // Rendered and stored once when the delivery job has not done it yet (a pure function of the document).
      const files = await statementFiles({ db: deps.db, renderStatement }, member.company.id, id);
      const file = files ? files[kind] : null;
      if (!file) return reply.callNotFound();
      return (
        reply
          .type(kind === 'pdf' ? 'application/pdf' : 'application/xml')
          .header('content-disposition', `${kind === 'pdf' ? 'inline' : 'attachment'}; filename="${row.number}.${kind}"`)
          .header('cache-control', 'private, no-store')
          // The PDF may be shown in the statement page's preview (same origin only).
          .header('x-frame-options', 'SAMEORIGIN')
          .header('content-security-policy', "default-src 'none'; frame-ancestors 'self'; plugin-types application/pdf")
          .send(file)
      );
    });
  }
}
