import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DunningLevel } from '../../db/schema-dunning.ts';
import { listSentNotices, listUnsentNotices, type NoticeListRow, noticePdf, noticeReason, RetryNoticeError, retryNotice } from '../../modules/dunning/index.ts';
import { type Html, html } from '../html.ts';
import type { Messages } from '../i18n.ts';
import { csrfField, type Flash, page } from '../layout.ts';
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
    const [unsent, sent] = await Promise.all([
      listUnsentNotices(deps.db, member.company.id, deps.clock.now()),
      listSentNotices(deps.db, member.company.id, after),
    ]);
    const last = sent.rows.at(-1);
    const body = html`<p class="lead">${b.dunningIntro}</p>
<section aria-labelledby="unsent-heading"><h2 id="unsent-heading">${b.unsentHeading}</h2>
${unsentTable(t, member, unsent)}
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
