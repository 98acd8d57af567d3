import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { BookkeepingError, createDatevExport, type DatevWarningCode, datevFileName, fiscalYearStartOf } from '../../modules/bookkeeping/index.ts';
import { addDays, isCalendarDate } from '../../shared/dates.ts';
import { type Html, html } from '../html.ts';
import type { Messages } from '../i18n.ts';
import { csrfField, type Flash, page } from '../layout.ts';
import { actorOf, type Member, sendPage, shell, type WebDeps } from '../web-request.ts';
import { date, dateTimeFormat } from './money.ts';
import { memberOrNoCompanyPage } from './require-member.ts';

// The DATEV export (german-rules §6.4): a period (the previous calendar month by default,
// quick links for it and the current fiscal year), and the EXTF Buchungsstapel as a download
// named like the command line's file. Since the answer is a file, the export and its
// warnings are kept in the audit trail (`datev.exported`, same transaction as the read) and
// the latest exports are listed here with them. Bookkeeping is daily work: members and
// admins alike (docs/decisions.md "Back-office app": admins for people, keys, webhooks and
// settings).

type Range = { from: string; to: string };

function previousMonth(today: string): Range {
  const firstOfThisMonth = `${today.slice(0, 7)}-01`;
  const to = addDays(firstOfThisMonth, -1);
  return { from: `${to.slice(0, 7)}-01`, to };
}

type ExportRow = { at: Date; email: string; after: Record<string, unknown> | null };

async function recentExports(deps: WebDeps, member: Member): Promise<ExportRow[]> {
  const rows = await deps.db
    .selectFrom('audit_log as a')
    .innerJoin('users as u', 'u.id', 'a.user_id')
    .select(['a.at', 'u.email', 'a.after'])
    .where('a.organization_id', '=', member.company.organizationId)
    .where('a.company_id', '=', member.company.id)
    .where('a.action', '=', 'datev.exported')
    .orderBy('a.seq', 'desc')
    .limit(10)
    .execute();
  return rows.map((row) => ({
    at: row.at,
    email: row.email,
    after: (typeof row.after === 'string' ? JSON.parse(row.after) : row.after) as Record<string, unknown> | null,
  }));
}

function warningsCell(t: Messages, after: Record<string, unknown> | null): Html {
  const codes = Array.isArray(after?.warning_codes) ? (after.warning_codes as string[]) : [];
  const texts = Array.isArray(after?.warnings) ? (after.warnings as string[]) : [];
  if (codes.length === 0 && texts.length === 0) return html`<span class="muted">${t.books.none}</span>`;
  // Known causes in the page's language; a warning without a code as the module wrote it.
  const shown = codes.length > 0 ? codes.map((code) => t.books.warningTexts[code as DatevWarningCode] ?? code) : texts;
  return html`${shown.map((text) => html`<span class="badge warn">${text}</span> `)}`;
}

export function registerExportPages(web: FastifyInstance, deps: WebDeps): void {
  const company = (member: Member) =>
    deps.db
      .selectFrom('companies')
      .select(['fiscal_year_start', 'datev_consultant_number', 'datev_client_number'])
      .where('id', '=', member.company.id)
      .executeTakeFirstOrThrow();

  const overview = async (
    request: FastifyRequest,
    reply: FastifyReply,
    typed: Range | null,
    flash: Flash = null,
    status = 200,
    details: string | null = null,
  ) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const t = request.t;
    const b = t.books;
    const [settings, exports] = await Promise.all([company(member), recentExports(deps, member)]);
    const today = deps.clock.today(member.company.timezone);
    const lastMonth = previousMonth(today);
    const fiscalYear = { from: fiscalYearStartOf(today, settings.fiscal_year_start), to: today };
    const query = request.query as { from?: string; to?: string };
    const range = typed ?? (query.from && query.to && isCalendarDate(query.from) && isCalendarDate(query.to) ? { from: query.from, to: query.to } : lastMonth);
    const quick = (label: string, r: Range) => html`<a href="/app/exports?from=${r.from}&amp;to=${r.to}">${label} (${date(r.from)} – ${date(r.to)})</a>`;
    const time = dateTimeFormat(member.company.timezone);
    const body = html`<p class="lead">${b.exportsIntro}</p>
${settings.datev_consultant_number === null || settings.datev_client_number === null ? html`<div class="panel warn"><p>${b.testNumbersWarning}</p></div>` : ''}
${details ? html`<details><summary>${b.technicalDetails}</summary><p class="mono">${details}</p></details>` : ''}
<form method="post" action="/app/exports" class="filters" data-progress="${b.exporting}" data-download>
${csrfField(member.session.csrfToken)}
<div><label for="from">${b.from}</label><input id="from" name="from" type="date" required value="${range.from}"${status === 422 ? html` aria-invalid="true"` : ''}></div>
<div><label for="to">${b.to}</label><input id="to" name="to" type="date" required value="${range.to}"${status === 422 ? html` aria-invalid="true"` : ''}></div>
<div class="filter-actions"><button type="submit" class="primary">${b.download}</button></div>
</form>
<p><span class="muted">${b.quickRanges}:</span> ${quick(b.previousMonth, lastMonth)} · ${quick(b.fiscalYear, fiscalYear)}</p>
<p class="hint">${b.fiscalYearStarts(date(fiscalYear.from))}</p>
<section aria-labelledby="exports-heading"><h2 id="exports-heading">${b.recentExports}</h2>
${
  exports.length === 0
    ? html`<p class="empty">${b.noExports}</p>`
    : // Without links in it the table needs its own stop for the keyboard when it scrolls sideways.
      html`<div class="table-wrap" role="region" aria-labelledby="exports-heading" tabindex="0"><table class="table">
<thead><tr><th scope="col">${b.when}</th><th scope="col">${b.who}</th><th scope="col">${b.period}</th><th scope="col" class="num">${b.bookings}</th><th scope="col">${b.warnings}</th></tr></thead>
<tbody>${exports.map(
        (e) =>
          html`<tr><td>${time.format(e.at)}</td><td>${e.email}</td><td>${date(String(e.after?.from ?? ''))} – ${date(String(e.after?.to ?? ''))}</td><td class="num">${String(e.after?.bookings ?? '')}</td><td>${warningsCell(t, e.after)}</td></tr>`,
      )}</tbody></table></div>`
}
</section>`;
    return sendPage(reply, page(shell(request, 'exports'), b.exports, body, flash), status);
  };

  web.get('/exports', async (request, reply) => overview(request, reply, null));

  web.post('/exports', async (request, reply) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const b = request.t.books;
    const form = (request.body ?? {}) as Record<string, string | undefined>;
    const typed = { from: String(form.from ?? '').slice(0, 10), to: String(form.to ?? '').slice(0, 10) };
    if (!isCalendarDate(typed.from) || !isCalendarDate(typed.to)) return overview(request, reply, typed, { kind: 'error', text: b.invalidDates }, 422);
    if (typed.from > typed.to) return overview(request, reply, typed, { kind: 'error', text: b.toBeforeFrom(date(typed.from), date(typed.to)) }, 422);
    let result: Awaited<ReturnType<typeof createDatevExport>>;
    try {
      result = await createDatevExport(deps.db, member.company.id, { ...typed, now: deps.clock.now(), actor: actorOf(member) });
    } catch (error) {
      if (!(error instanceof BookkeepingError)) throw error;
      if (error.code === 'company_not_found') return reply.callNotFound();
      if (error.code === 'invalid_range') {
        const { fiscal_year_start } = await company(member);
        const start = fiscalYearStartOf(typed.to, fiscal_year_start);
        const text = fiscalYearStartOf(typed.from, fiscal_year_start) !== start ? b.acrossFiscalYears(date(start)) : b.invalidDates;
        return overview(request, reply, typed, { kind: 'error', text }, 422);
      }
      return overview(request, reply, typed, { kind: 'error', text: b.notExportable }, 422, error.message);
    }
    return reply
      .type('text/csv; charset=windows-1252')
      .header('content-disposition', `attachment; filename="${datevFileName(typed.from, typed.to)}"`)
      .header('cache-control', 'private, no-store')
      .send(result.file);
  });
}
