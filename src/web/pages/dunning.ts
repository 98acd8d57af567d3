import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../../db/connection.ts';
import type { DunningLevel } from '../../db/schema-dunning.ts';
import {
  activeBaseRates,
  currentRateMissing,
  DunningActionError,
  type DunningActionRefusal,
  liftDunningStop,
  listDunningStops,
  listSentNotices,
  listUnsentNotices,
  type NoticeListRow,
  noticePdf,
  noticeReason,
  policyOf,
  REASON_MAX,
  RetryNoticeError,
  remindNow,
  retryNotice,
  type StopRow,
  setDunningStop,
  stopForCustomer,
  stopsForInvoice,
} from '../../modules/dunning/index.ts';
import { calendarDate } from '../../shared/clock.ts';
import { addDays } from '../../shared/dates.ts';
import { type Html, html } from '../html.ts';
import type { Messages } from '../i18n.ts';
import { csrfField, type Flash, page } from '../layout.ts';
import * as stopTexts from '../texts/dunning-stops.ts';
import { actorOf, type Member, redirect, sendPage, shell, type WebDeps } from '../web-request.ts';
import { date, dateTimeFormat, euro } from './money.ts';
import { memberOrNoCompanyPage } from './require-member.ts';

// Dunning notices (Zahlungserinnerung, Mahnungen) of the company: first those that did not go
// out — failed (no address, mailbox refused) or cancelled by a payment — with the reason in
// words and "Erneut versuchen" for a failed one once its cause is fixed (retry-notice.ts: the
// same letter back to the send job, audit row); then the sent ones, newest first, paged by key.
// Daily work: members and admins alike.

const ID = /^dun_[0-9a-z]{26}$/;
/** Paging key: the last row's sent_at (epoch ms) and id. */
const AFTER = /^(\d{1,15})_(dun_[0-9a-z]{26})$/;
const OPEN = ['issued', 'sent', 'partially_paid'];

const levelTitle = (t: Messages, level: DunningLevel) => t.books.levels[level] ?? String(level);
const STOP_ID = /^dst_[0-9a-z]{26}$/;
const INVOICE_ID = /^inv_[0-9a-z]{26}$/;
const CUSTOMER_ID = /^cus_[0-9a-z]{26}$/;
type StopTexts = typeof stopTexts.de;
/** The Mahnsperre texts in the request's language. */
const wordsOf = (request: FastifyRequest): StopTexts => (request.lang === 'en' ? stopTexts.en : stopTexts.de);

/**
 * Issue 25: admins are warned (dashboard, dunning page) while the Basiszinssatz table has no
 * rate for the company's current half-year, with what to do. Empty for members and otherwise.
 */
export function baseRateWarning(request: FastifyRequest, member: Member, now: Date): Html {
  if (member.role !== 'admin') return html``;
  const missing = currentRateMissing(calendarDate(now, member.company.timezone));
  if (!missing) return html``;
  const w = wordsOf(request);
  const rate = `${missing.last.rate.replace('.', request.lang === 'en' ? '.' : ',')} %`;
  return html`<section class="panel warn" aria-labelledby="base-rate-heading"><h2 id="base-rate-heading">${w.rateHeading}</h2>
<p>${w.rateMissing(date(missing.halfYear), rate, date(missing.last.from))}</p>
<p>${w.rateWhat}</p><ol class="messages"><li>${w.rateSource}</li><li>${w.rateFile(missing.halfYear, activeBaseRates().file)}</li><li>${w.rateRestart}</li></ol></section>`;
}

function stopReasonField(w: StopTexts, id: string): Html {
  return html`<label for="${id}">${w.stopReasonLabel}</label>
<input id="${id}" name="reason" type="text" required maxlength="${REASON_MAX}" aria-describedby="${id}-hint" autocomplete="off">
<p class="hint" id="${id}-hint">${w.stopReasonHint}</p>`;
}

function liftForm(w: StopTexts, csrf: string, stop: StopRow, label: string, back: string): Html {
  return html`<form method="post" action="/app/dunning/stops/${stop.id}/lift" class="inline">${csrfField(csrf)}<input type="hidden" name="back" value="${back}"><button type="submit">${w.lift}<span class="visually-hidden"> – ${w.liftOf(label)}</span></button></form>`;
}

/**
 * The invoice page's dunning box (issue 25): the Mahnsperren that hold for the invoice (its
 * own and its customer's) with "aufheben", else the form to set one; and for an overdue
 * invoice whose next notice may go out, "Erinnerung jetzt senden". Empty for drafts and Stornos.
 */
export async function invoiceDunningBox(
  deps: { db: Database; clock: { now(): Date } },
  request: FastifyRequest,
  member: Member,
  invoiceId: string,
): Promise<Html> {
  const companyId = member.company.id;
  const invoice = await deps.db
    .selectFrom('invoices as i')
    .innerJoin('companies as co', 'co.id', 'i.company_id')
    .select([
      'i.id',
      'i.type',
      'i.number',
      'i.status',
      'i.due_date',
      'i.dunning_level',
      'i.last_dunning_on',
      'i.amount_paid_cents',
      'i.total_gross_cents',
      'co.dunning',
    ])
    .where('i.company_id', '=', companyId)
    .where('i.id', '=', invoiceId)
    .executeTakeFirst();
  if (invoice?.type !== 'invoice' || !invoice.number) return html``;
  const open = OPEN.includes(invoice.status);
  const stops = await stopsForInvoice(deps.db, companyId, invoiceId);
  if (!open && stops.length === 0) return html``;
  const w = wordsOf(request);
  const csrf = member.session.csrfToken;
  const time = dateTimeFormat(member.company.timezone);
  const back = `/app/invoices/${invoiceId}`;
  const parts: Html[] = [];
  for (const stop of stops) {
    const text = stop.invoice_id
      ? w.stopActive(time.format(stop.set_at), stop.set_by_email)
      : w.stopActiveCustomer(stop.customer_name, time.format(stop.set_at), stop.set_by_email);
    const label = stop.invoice_id ? (stop.invoice_number ?? '') : w.allInvoicesOf(stop.customer_name);
    parts.push(html`<p><span class="badge warn">${w.stopBadge}</span> ${text}: <q>${stop.reason}</q></p>${liftForm(w, csrf, stop, label, back)}`);
  }
  if (open && stops.length === 0) {
    const pending = await deps.db
      .selectFrom('dunning_notices')
      .select('level')
      .where('company_id', '=', companyId)
      .where('invoice_id', '=', invoiceId)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    const policy = policyOf(invoice.dunning);
    const today = calendarDate(deps.clock.now(), member.company.timezone);
    const level = ((invoice.dunning_level ?? -1) + 1) as DunningLevel;
    const title = levelTitle(request.t, Math.min(level, 3) as DunningLevel);
    const overdue = invoice.due_date !== null && invoice.due_date < today && invoice.amount_paid_cents < invoice.total_gross_cents;
    const nextOn = invoice.last_dunning_on ? addDays(invoice.last_dunning_on, policy.interval_days) : null;
    if (pending) parts.push(html`<p>${w.pendingNotice(levelTitle(request.t, pending.level))}</p>`);
    else if (policy.enabled && overdue && level <= policy.levels) {
      if (nextOn && nextOn > today) parts.push(html`<p class="muted">${w.nextDue(title, date(nextOn))}</p>`);
      else
        parts.push(
          html`<p>${w.remindHint(title)}</p><form method="post" action="/app/dunning/remind">${csrfField(csrf)}<input type="hidden" name="invoice_id" value="${invoiceId}"><button type="submit" class="primary">${w.remindNow(title)}</button></form>`,
        );
    }
    parts.push(html`<form method="post" action="/app/dunning/stops" class="form">${csrfField(csrf)}<input type="hidden" name="invoice_id" value="${invoiceId}">
${stopReasonField(w, 'stop-reason')}<p><button type="submit">${w.setInvoiceStop}</button></p></form>`);
  }
  return html`<section class="panel${stops.length > 0 ? ' warn' : ''}" aria-labelledby="dunning-box-heading"><h2 id="dunning-box-heading">${w.boxHeading}</h2>${boxStatus(request)}${parts}</section>`;
}

/** The customer page's Mahnsperre box (issue 25): the stop for all of the customer's invoices, or the form to set it. */
export async function customerDunningBox(deps: { db: Database }, request: FastifyRequest, member: Member, customerId: string): Promise<Html> {
  const w = wordsOf(request);
  const csrf = member.session.csrfToken;
  const stop = await stopForCustomer(deps.db, member.company.id, customerId);
  const back = `/app/customers/${customerId}`;
  if (stop) {
    const time = dateTimeFormat(member.company.timezone);
    return html`<section class="panel warn" aria-labelledby="dunning-box-heading"><h2 id="dunning-box-heading">${w.boxHeading}</h2>${boxStatus(request)}
<p><span class="badge warn">${w.stopBadge}</span> ${w.stopActiveCustomer(stop.customer_name, time.format(stop.set_at), stop.set_by_email)}: <q>${stop.reason}</q></p>
${liftForm(w, csrf, stop, w.allInvoicesOf(stop.customer_name), back)}</section>`;
  }
  return html`<section class="panel" aria-labelledby="dunning-box-heading"><h2 id="dunning-box-heading">${w.boxHeading}</h2>${boxStatus(request)}
<form method="post" action="/app/dunning/stops" class="form">${csrfField(csrf)}<input type="hidden" name="customer_id" value="${customerId}">
${stopReasonField(w, 'stop-reason')}<p><button type="submit">${w.setCustomerStop}</button></p></form></section>`;
}

function stopsTable(w: StopTexts, member: Member, rows: StopRow[]): Html {
  if (rows.length === 0) return html`<p class="empty">${w.noStops}</p>`;
  const csrf = member.session.csrfToken;
  const time = dateTimeFormat(member.company.timezone);
  return html`<div class="table-wrap"><table class="table">
<thead><tr><th scope="col">${w.subject}</th><th scope="col">${w.reason}</th><th scope="col">${w.since}</th><th scope="col">${w.action}</th></tr></thead>
<tbody>${rows.map((row) => {
    const label = row.invoice_id ? (row.invoice_number ?? '') : w.allInvoicesOf(row.customer_name);
    const subject = row.invoice_id
      ? html`<a href="/app/invoices/${row.invoice_id}">${row.invoice_number}</a> <span class="muted">${row.customer_name}</span>`
      : html`<a href="/app/customers/${row.customer_id}">${w.allInvoicesOf(row.customer_name)}</a>`;
    return html`<tr><td class="wrap">${subject}</td><td class="wrap">${row.reason}</td><td class="wrap">${w.setBy(time.format(row.set_at), row.set_by_email)}</td><td>${liftForm(w, csrf, row, label, '/app/dunning')}</td></tr>`;
  })}</tbody></table></div>`;
}

/** The outcome of a step of the box, after its redirect back (`?dunning=…`; the words need no ids). */
function boxStatus(request: FastifyRequest): Html {
  const w = wordsOf(request);
  const done = (request.query as { dunning?: string }).dunning;
  const text =
    done === 'stop_set'
      ? w.boxStopSet
      : done === 'stop_existed'
        ? w.boxStopExisted
        : done === 'stop_lifted'
          ? w.boxStopLifted
          : done === 'reminded'
            ? w.boxReminded
            : null;
  return text ? html`<p class="flash flash-ok" role="status">${text}</p>` : html``;
}

/** Where a form of the boxes sends the person back to: the invoice or customer page it came from, else the dunning page. */
function backTo(raw: string | undefined): string {
  return raw && /^\/app\/(invoices\/inv|customers\/cus)_[0-9a-z]{26}$/.test(raw) ? raw : '/app/dunning';
}

function reasonCell(t: Messages, row: NoticeListRow): Html {
  const b = t.books;
  const { code, detail } = noticeReason(row.reason);
  const status = html`<span class="badge ${row.status === 'failed' ? 'error' : 'warn'}">${b.noticeStatus[row.status] ?? row.status}</span>`;
  if (code) {
    // A mail error's detail is the mail module's German sentence for whoever fixes it (server answer, address).
    const mailError = code === 'recipient_missing' || code === 'mail_rejected' || code === 'mail_unreachable';
    return html`${status} ${b.reasons[code]}${mailError && detail ? html`<details><summary>${b.moreDetails}</summary><p>${detail}</p></details>` : ''}`;
  }
  return html`${status} ${b.unknownReason}${row.reason ? html`<details><summary>${b.technicalDetails}</summary><p class="mono">${row.reason}</p></details>` : ''}`;
}

function invoiceCell(t: Messages, row: NoticeListRow): Html {
  const closed = !OPEN.includes(row.invoice_status);
  return html`<a href="/app/invoices/${row.invoice_id}">${row.invoice_number ?? row.invoice_id}</a>${
    closed ? html` <span class="badge">${t.statuses[row.invoice_status] ?? row.invoice_status}</span>` : ''
  }`;
}

function pdfLink(t: Messages, row: NoticeListRow): Html {
  if (!row.has_pdf) return html`<span class="muted">–</span>`;
  return html`<a href="/app/dunning/${row.id}/pdf" download>${t.books.pdf}<span class="visually-hidden"> – ${t.books.pdfOf(levelTitle(t, row.level), row.invoice_number ?? '')}</span></a>`;
}

function unsentTable(t: Messages, member: Member, rows: NoticeListRow[]): Html {
  const b = t.books;
  if (rows.length === 0) return html`<p class="empty">${b.noUnsent}</p>`;
  const csrf = member.session.csrfToken;
  return html`<p class="hint">${b.retryHint}</p>
<div class="table-wrap"><table class="table">
<thead><tr><th scope="col">${b.invoice}</th><th scope="col">${b.customer}</th><th scope="col">${b.document}</th><th scope="col" class="num">${b.claimed}</th><th scope="col">${b.reason}</th><th scope="col">${b.action}</th></tr></thead>
<tbody>${rows.map((row) => {
    const title = levelTitle(t, row.level);
    const retryable = row.status === 'failed' && OPEN.includes(row.invoice_status);
    return html`<tr><td>${invoiceCell(t, row)}</td><td>${row.customer_name}</td><td class="wrap">${b.noticeOf(title, date(row.notice_date))}${row.has_pdf ? html`<br>${pdfLink(t, row)}` : ''}</td><td class="num">${euro(row.total_cents)}</td>
<td class="wrap">${reasonCell(t, row)}</td>
<td>${
      retryable
        ? html`<form method="post" action="/app/dunning/${row.id}/retry" class="inline">${csrfField(csrf)}<button type="submit">${b.retry}<span class="visually-hidden"> – ${b.retryOf(title, row.invoice_number ?? '')}</span></button></form>`
        : ''
    }</td></tr>`;
  })}</tbody></table></div>`;
}

function sentTable(t: Messages, timezone: string, rows: NoticeListRow[]): Html {
  const b = t.books;
  if (rows.length === 0) return html`<p class="empty">${b.noSent}</p>`;
  const time = dateTimeFormat(timezone);
  return html`<div class="table-wrap"><table class="table">
<thead><tr><th scope="col">${b.invoice}</th><th scope="col">${b.customer}</th><th scope="col">${b.level}</th><th scope="col" class="num">${b.claimed}</th><th scope="col">${b.noticeDate}</th><th scope="col">${b.sentAt}</th><th scope="col">${b.pdf}</th></tr></thead>
<tbody>${rows.map(
    (row) =>
      html`<tr><td>${invoiceCell(t, row)}</td><td>${row.customer_name}</td><td>${levelTitle(t, row.level)}</td><td class="num">${euro(row.total_cents)}</td><td>${date(row.notice_date)}</td><td>${row.sent_at ? time.format(row.sent_at) : '–'}${
        noticeReason(row.reason).code === 'mail_unconfirmed'
          ? html` <span class="badge warn" title="${b.reasons.mail_unconfirmed}">${b.unconfirmed}</span>`
          : ''
      }</td><td>${pdfLink(t, row)}</td></tr>`,
  )}</tbody></table></div>`;
}

export function registerDunningPages(web: FastifyInstance, deps: WebDeps): void {
  const overview = async (request: FastifyRequest, reply: FastifyReply, flash: Flash = null, status = 200) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const t = request.t;
    const b = t.books;
    const raw = (request.query as { after?: string }).after;
    const key = raw ? AFTER.exec(raw) : null;
    const after = key ? { sentAt: new Date(Number(key[1])), id: key[2] as string } : null;
    const [unsent, sent, stops] = await Promise.all([
      listUnsentNotices(deps.db, member.company.id, deps.clock.now()),
      listSentNotices(deps.db, member.company.id, after),
      listDunningStops(deps.db, member.company.id),
    ]);
    const last = sent.rows.at(-1);
    const w = wordsOf(request);
    const body = html`${baseRateWarning(request, member, deps.clock.now())}<p class="lead">${b.dunningIntro}</p>
<section aria-labelledby="unsent-heading"><h2 id="unsent-heading">${b.unsentHeading}</h2>
${unsentTable(t, member, unsent)}
</section>
<section aria-labelledby="stops-heading"><h2 id="stops-heading">${w.stopsHeading}</h2><p class="hint">${w.stopsHint}</p>
${stopsTable(w, member, stops)}
</section>
<section aria-labelledby="sent-heading"><h2 id="sent-heading">${b.sentHeading}</h2>
${sentTable(t, member.company.timezone, sent.rows)}
<nav class="paging" aria-label="${b.sentHeading}">
${after ? html`<a href="/app/dunning">${t.previous}</a>` : ''}
${sent.more && last?.sent_at ? html`<a href="/app/dunning?after=${last.sent_at.getTime()}_${last.id}" rel="next">${t.next}</a>` : ''}
</nav>
</section>`;
    return sendPage(reply, page(shell(request, 'dunning'), b.dunning, body, flash), status);
  };

  web.get('/dunning', async (request, reply) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const retried = (request.query as { retried?: string }).retried;
    if ((request.query as { dunning?: string }).dunning === 'stop_lifted')
      return overview(request, reply, { kind: 'ok', text: wordsOf(request).boxStopLifted });
    if (!retried || !ID.test(retried)) return overview(request, reply);
    const notice = await deps.db
      .selectFrom('dunning_notices as n')
      .innerJoin('invoices as i', (join) => join.onRef('i.company_id', '=', 'n.company_id').onRef('i.id', '=', 'n.invoice_id'))
      .select(['n.level', 'i.number', 'n.document'])
      .where('n.company_id', '=', member.company.id)
      .where('n.id', '=', retried)
      .executeTakeFirst();
    if (!notice) return overview(request, reply);
    const email = (notice.document as { buyer?: { email?: string | null } }).buyer?.email ?? '';
    return overview(request, reply, { kind: 'ok', text: request.t.books.retried(levelTitle(request.t, notice.level), notice.number ?? '', email) });
  });

  const refused = (request: FastifyRequest, reply: FastifyReply, error: unknown) => {
    if (error instanceof DunningActionError && ['invoice_not_found', 'customer_not_found', 'stop_not_found'].includes(error.code)) return reply.callNotFound();
    if (error instanceof DunningActionError)
      return overview(request, reply, { kind: 'error', text: wordsOf(request).refused[error.code as DunningActionRefusal](error.values) }, 422);
    throw error;
  };

  // Issue 25: a Mahnsperre for an invoice or a customer (the boxes of their pages).
  web.post('/dunning/stops', async (request, reply) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const form = (request.body ?? {}) as { invoice_id?: string; customer_id?: string; reason?: string };
    const target =
      typeof form.invoice_id === 'string' && INVOICE_ID.test(form.invoice_id)
        ? { invoiceId: form.invoice_id }
        : typeof form.customer_id === 'string' && CUSTOMER_ID.test(form.customer_id)
          ? { customerId: form.customer_id }
          : null;
    if (!target) return reply.callNotFound();
    let result: Awaited<ReturnType<typeof setDunningStop>>;
    try {
      result = await setDunningStop(deps, member.company.id, target, typeof form.reason === 'string' ? form.reason : '', actorOf(member));
    } catch (error) {
      return refused(request, reply, error);
    }
    const back = 'invoiceId' in target ? `/app/invoices/${target.invoiceId}` : `/app/customers/${target.customerId}`;
    return redirect(reply, `${back}?dunning=${result.created ? 'stop_set' : 'stop_existed'}`);
  });

  web.post('/dunning/stops/:id/lift', async (request, reply) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const { id } = request.params as { id: string };
    if (!STOP_ID.test(id)) return reply.callNotFound();
    try {
      await liftDunningStop(deps, member.company.id, id, actorOf(member));
    } catch (error) {
      return refused(request, reply, error);
    }
    const back = backTo((request.body as { back?: string } | undefined)?.back);
    return redirect(reply, `${back}?dunning=stop_lifted`);
  });

  // Issue 25: "Erinnerung jetzt senden" for one overdue invoice (the box of the invoice page).
  web.post('/dunning/remind', async (request, reply) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const invoiceId = (request.body as { invoice_id?: string } | undefined)?.invoice_id;
    if (typeof invoiceId !== 'string' || !INVOICE_ID.test(invoiceId)) return reply.callNotFound();
    try {
      await remindNow(deps, member.company.id, invoiceId, actorOf(member));
    } catch (error) {
      return refused(request, reply, error);
    }
    return redirect(reply, `/app/invoices/${invoiceId}?dunning=reminded`);
  });

  web.post('/dunning/:id/retry', async (request, reply) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const { id } = request.params as { id: string };
    if (!ID.test(id)) return reply.callNotFound();
    try {
      await retryNotice(deps, member.company.id, id, actorOf(member));
    } catch (error) {
      if (error instanceof RetryNoticeError && error.code === 'notice_not_found') return reply.callNotFound();
      if (error instanceof RetryNoticeError)
        return overview(request, reply, { kind: 'error', text: request.t.books.retryRefused[error.code](error.values) }, 422);
      throw error;
    }
    return redirect(reply, `/app/dunning?retried=${id}`);
  });

  web.get('/dunning/:id/pdf', async (request, reply) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const { id } = request.params as { id: string };
    if (!ID.test(id)) return reply.callNotFound();
    const stored = await noticePdf(deps.db, member.company.id, id);
    if (!stored) return reply.callNotFound();
    return reply
      .type('application/pdf')
      .header('content-disposition', `attachment; filename="${stored.fileName.replace(/[^\w.-]/g, '-')}"`)
      .header('cache-control', 'private, no-store')
      .send(stored.pdf);
  });
}
