import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GobdExportError, verfahrensdokumentation, writeGobdExport, zipSink } from '../../modules/tax/index.ts';
import { isCalendarDate } from '../../shared/dates.ts';
import { errorForLog } from '../../shared/error-for-log.ts';
import { html } from '../html.ts';
import { csrfField, type Flash, page } from '../layout.ts';
import { actorOf, type Member, sendPage, shell, type WebDeps } from '../web-request.ts';
import { date, dateTimeFormat } from './money.ts';
import { memberOrNoCompanyPage } from './require-member.ts';

// Steuern → GoBD-Export (issue 28 §3), for admins: the audit export of a range as one ZIP
// (the same files `kontor export gobd` writes into a folder, byte for byte), the latest
// exports from the audit trail, and the Verfahrensdokumentation draft as PDF or Markdown.
// Admins only: the export hands the company's whole data, people's addresses included, to
// someone outside.

type Range = { from: string; to: string };

/** The previous calendar year: what an audit asks for most. */
function previousYear(today: string): Range {
  const year = Number(today.slice(0, 4)) - 1;
  return { from: `${year}-01-01`, to: `${year}-12-31` };
}

export const gobdZipName = (range: Range) => `GoBD-Export_${range.from}_${range.to}.zip`;

export function registerGobdPages(web: FastifyInstance, deps: WebDeps): void {
  const recent = (member: Member) =>
    deps.db
      .selectFrom('audit_log as a')
      .innerJoin('users as u', 'u.id', 'a.user_id')
      .select(['a.at', 'u.email', 'a.after'])
      .where('a.organization_id', '=', member.company.organizationId)
      .where('a.company_id', '=', member.company.id)
      .where('a.action', '=', 'gobd.exported')
      .orderBy('a.seq', 'desc')
      .limit(10)
      .execute();

  const overview = async (request: FastifyRequest, reply: FastifyReply, typed: Range | null, flash: Flash = null, status = 200) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const t = request.t.tax;
    const range = typed ?? previousYear(deps.clock.today(member.company.timezone));
    const time = dateTimeFormat(member.company.timezone);
    const exports = await recent(member);
    const invalid = status === 422 ? html` aria-invalid="true"` : '';
    const body = html`<p class="lead">${t.gobdIntro}</p>
<form method="post" action="/app/tax/gobd" class="filters" data-progress="${t.gobdExporting}" data-download>
${csrfField(member.session.csrfToken)}
<div><label for="from">${t.gobdFrom}</label><input id="from" name="from" type="date" required value="${range.from}"${invalid}></div>
<div><label for="to">${t.gobdTo}</label><input id="to" name="to" type="date" required value="${range.to}"${invalid}></div>
<div class="filter-actions"><button type="submit" class="primary">${t.gobdDownload}</button></div>
</form>
<p class="hint">${t.gobdNotLocked}</p>
<section aria-labelledby="gobd-recent"><h2 id="gobd-recent">${t.gobdRecent}</h2>
${
  exports.length === 0
    ? html`<p class="empty">${t.gobdNone}</p>`
    : html`<div class="table-wrap" role="region" aria-labelledby="gobd-recent" tabindex="0"><table class="table">
<thead><tr><th scope="col">${t.gobdWhen}</th><th scope="col">${t.gobdWho}</th><th scope="col">${t.gobdRange}</th><th scope="col" class="num">${t.gobdDocuments}</th><th scope="col">${t.gobdIndexHash}</th></tr></thead>
<tbody>${exports.map((e) => {
        const after = (typeof e.after === 'string' ? JSON.parse(e.after) : e.after) as Record<string, unknown> | null;
        return html`<tr><td>${time.format(e.at)}</td><td>${e.email}</td><td>${date(String(after?.from ?? ''))} – ${date(String(after?.to ?? ''))}</td><td class="num">${String(after?.documents ?? '')}</td><td class="mono wrap">${String(after?.index_sha256 ?? '')}</td></tr>`;
      })}</tbody></table></div>`
}
</section>
<section aria-labelledby="vd-heading"><h2 id="vd-heading">${t.vdTitle}</h2>
<p>${t.vdIntro}</p>
<p class="actions"><a class="button" href="/app/tax/verfahrensdokumentation.pdf" download>${t.vdPdf}</a> <a class="button" href="/app/tax/verfahrensdokumentation.md" download>${t.vdMarkdown}</a></p>
</section>`;
    return sendPage(reply, page(shell(request, 'tax'), t.gobdTitle, body, flash), status);
  };

  web.get('/tax/gobd', { config: { adminOnly: true } }, async (request, reply) => overview(request, reply, null));

  web.post('/tax/gobd', { config: { adminOnly: true } }, async (request, reply) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const t = request.t.tax;
    const form = (request.body ?? {}) as Record<string, string | undefined>;
    const typed = { from: String(form.from ?? '').slice(0, 10), to: String(form.to ?? '').slice(0, 10) };
    if (!isCalendarDate(typed.from) || !isCalendarDate(typed.to) || typed.from > typed.to)
      return overview(request, reply, typed, { kind: 'error', text: t.gobdBadRange }, 422);
    // Every ZIP entry carries the range's last day as its time, so the same data gives the same ZIP.
    const zip = zipSink(new Date(`${typed.to}T12:00:00Z`));
    const done = writeGobdExport(deps.db, member.company.id, { ...typed, now: deps.clock.now(), actor: actorOf(member) }, zip.sink).then(
      () => zip.finish(),
      (error: unknown) => {
        zip.stream.destroy(error instanceof Error ? error : new Error(String(error)));
        if (!(error instanceof GobdExportError)) request.log.error({ error: errorForLog(error) }, 'GoBD export failed');
      },
    );
    void done;
    return reply
      .type('application/zip')
      .header('content-disposition', `attachment; filename="${gobdZipName(typed)}"`)
      .header('cache-control', 'private, no-store')
      .send(zip.stream);
  });

  for (const kind of ['pdf', 'md'] as const) {
    web.get(`/tax/verfahrensdokumentation.${kind}`, { config: { adminOnly: true } }, async (request, reply) => {
      const member = memberOrNoCompanyPage(request, reply);
      if (!member) return reply;
      const draft = await verfahrensdokumentation(deps.db, member.company.id, deps.clock.now());
      return reply
        .type(kind === 'pdf' ? 'application/pdf' : 'text/markdown; charset=utf-8')
        .header('content-disposition', `attachment; filename="${draft.fileName}.${kind}"`)
        .header('cache-control', 'private, no-store')
        .send(kind === 'pdf' ? draft.pdf : draft.markdown);
    });
  }
}
