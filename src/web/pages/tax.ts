import type { FastifyInstance } from 'fastify';
import {
  type Filing,
  lastEndedPeriod,
  type TaxPeriod,
  TaxPeriodError,
  taxPeriod,
  type UstvaDocument,
  type UstvaLine,
  ustvaReport,
  type ZmReport,
  zmCsv,
  zmFileName,
  zmReport,
} from '../../modules/tax/index.ts';
import { type Html, html } from '../html.ts';
import { page } from '../layout.ts';
import { sendPage, shell, type WebDeps } from '../web-request.ts';
import { date, decimal, euro, formatLang, money, today } from './money.ts';
import { memberOrNoCompanyPage } from './require-member.ts';

// Steuern → Umsatzsteuer-Voranmeldung (issue 28 §1): a month or quarter (the previous month
// by default), the Kennzahlen as the form takes them with the booked sums, and under each
// the documents behind it (a native <details>, so it opens by keyboard and without script).
// Reads only; members and admins alike, like the DATEV export.

const DOCUMENT_LINKS: Record<string, string> = { invoice: '/app/invoices/', storno: '/app/invoices/', commission_statement: '/app/statements/' };

export function registerTaxPages(web: FastifyInstance, deps: WebDeps): void {
  web.get('/tax/ustva', async (request, reply) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const t = request.t.tax;
    const asked = String((request.query as { period?: string }).period ?? '').slice(0, 20);
    // By default the company's last period that has ended: the previous month, quarter or year.
    const rhythm = (await deps.db.selectFrom('companies').select('vat_return_period').where('id', '=', member.company.id).executeTakeFirstOrThrow())
      .vat_return_period;
    const previous = lastEndedPeriod(rhythm, today(deps.clock.now(), member.company.timezone));
    let period: ReturnType<typeof taxPeriod>;
    let bad = false;
    try {
      period = asked === '' ? previous : taxPeriod(asked);
    } catch (error) {
      if (!(error instanceof TaxPeriodError)) throw error;
      bad = true;
      period = previous;
    }
    const report = await ustvaReport(deps.db, member.company.id, period);
    const zm = await zmReport(deps.db, member.company.id, period);
    const form = html`<form method="get" action="/app/tax/ustva" class="filters">
<div><label for="period">${t.period}</label><input id="period" name="period" value="${bad ? asked : period.label}" aria-describedby="period-hint"${bad ? html` aria-invalid="true"` : ''}></div>
<p id="period-hint" class="hint">${t.periodHint}</p>
<button type="submit">${t.show}</button>
</form>`;
    const lines = report.lines;
    const table =
      lines.length === 0
        ? ''
        : html`<div class="table-wrap"><table class="table" aria-labelledby="ustva-heading">
<thead><tr><th scope="col">${t.kz}</th><th scope="col">${t.figure}</th><th scope="col" class="num">${t.form}</th><th scope="col" class="num">${t.booked}</th></tr></thead>
<tbody>${lines.map((line) => row(t, line))}</tbody></table></div>`;
    const body = html`<p class="hint">${request.t.tax.intro}</p>
${form}
${report.small_business ? '' : filingNote(t, report.filing, period)}
${report.filed && report.locked_until ? html`<p class="panel">${t.filed(date(report.locked_until))}</p>` : ''}
${report.note ? html`<p class="panel">${report.note}</p>` : ''}
<h2 id="ustva-heading">${period.label} (${date(period.from)} – ${date(period.to)})</h2>
${table}
${lines.length > 0 ? html`${lines.map((line) => documentsOf(t, line))}` : ''}
${report.rounding_difference_cents !== 0 ? html`<p class="hint">${t.rounding(euro(report.rounding_difference_cents))}</p>` : ''}
${report.small_business ? '' : html`<p class="hint">${t.oss}</p>`}
${zmSection(t, zm)}
${member.role === 'admin' ? html`<p><a href="/app/tax/gobd">${t.gobdLink}</a></p>` : ''}`;
    return sendPage(reply, page(shell(request, 'tax'), t.title, body, bad ? { kind: 'error', text: t.badPeriod } : null), bad ? 422 : 200);
  });

  // The ZM upload file; while a VAT ID would make the upload fail, the page says why and there is no file.
  web.get('/tax/zm.csv', async (request, reply) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    let period: ReturnType<typeof taxPeriod>;
    try {
      period = taxPeriod(String((request.query as { period?: string }).period ?? '').slice(0, 20));
    } catch (error) {
      if (!(error instanceof TaxPeriodError)) throw error;
      return reply.redirect('/app/tax/ustva', 303);
    }
    const zm = await zmReport(deps.db, member.company.id, period);
    if (zm.problems.length > 0 || zm.rows.length === 0) return reply.redirect(`/app/tax/ustva?period=${encodeURIComponent(period.label)}#zm-heading`, 303);
    return reply
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${zmFileName(period)}"`)
      .header('cache-control', 'no-store')
      .send(zmCsv(zm));
  });
}

/** The company's rhythm, and the period's deadlines or why it is no filing period. */
function filingNote(t: TaxTexts, filing: Filing, period: TaxPeriod): Html {
  const rhythm = t.rhythm[filing.rhythm] ?? filing.rhythm;
  const lines = [t.filing(rhythm, filing.extension)];
  if (period.kind === 'year') lines.push(t.yearSums);
  if (!filing.is_filing_period && period.kind !== 'year') lines.push(t.notFilingPeriod(rhythm));
  else if (filing.ustva_due) lines.push(t.ustvaDue(date(filing.ustva_due)));
  return html`<p class="hint" id="filing">${lines.join(' ')}</p>`;
}

function zmSection(t: TaxTexts, zm: ZmReport): Html {
  if (zm.small_business || zm.period.kind === 'year') return html`<h2 id="zm-heading">${t.zmTitle}</h2><p class="panel">${zm.note}</p>`;
  const table =
    zm.rows.length === 0
      ? html`<p>${zm.note ?? t.zmNothing}</p>`
      : html`<div class="table-wrap"><table class="table" aria-labelledby="zm-heading">
<thead><tr><th scope="col">${t.vatId}</th><th scope="col" class="num">${t.inFile}</th><th scope="col">${t.kind}</th><th scope="col" class="num">${t.booked}</th><th scope="col">${t.documents}</th></tr></thead>
<tbody>${zm.rows.map(
          (row) =>
            html`<tr><td>${row.vat_id}</td><td class="num">${decimal(String(row.amount_euros), 0)}</td><td>${row.kind}</td><td class="num">${euro(row.amount_cents)}</td><td class="wrap">${row.documents.map((d, i) => html`${i > 0 ? ', ' : ''}${documentLink(t, d)}`)}</td></tr>`,
        )}</tbody></table></div>`;
  const problems =
    zm.problems.length > 0
      ? html`<div class="panel" role="alert"><p>${t.zmProblems}</p><ul>${zm.problems.map((p) => html`<li>${p}</li>`)}</ul></div>`
      : zm.rows.length > 0
        ? html`<p><a class="button" href="/app/tax/zm.csv?period=${encodeURIComponent(zm.period.label)}" download>${t.download(zm.period.label)}</a></p>`
        : '';
  return html`<h2 id="zm-heading">${t.zmTitle}</h2>
<p class="hint">${t.zmIntro}${zm.filing.zm_due && zm.rows.length > 0 ? html` ${t.zmDue(date(zm.filing.zm_due))}` : ''}</p>
${table}
${problems}`;
}

function documentLink(t: TaxTexts, d: UstvaDocument): Html {
  const link = DOCUMENT_LINKS[d.document_type];
  const label = `${t.kinds[d.document_type] ?? d.document_type} ${d.document_number}`;
  return link ? html`<a href="${link}${d.document_id.split('.')[0]}">${label}</a>` : html`${label}`;
}

type TaxTexts = import('../i18n.ts').Messages['tax'];

/** The form's value as the page's language writes it: whole euros "850 €", or euros and cents. */
function formValue(line: UstvaLine): string {
  const digits = line.form.replace('-', '');
  const sign = line.form.startsWith('-') ? '-' : '';
  if (line.unit === 'cent') return money(line.form);
  const whole = decimal(digits, 0);
  return formatLang() === 'de' ? `${sign}${whole} €` : `${sign}€${whole}`;
}

function row(t: TaxTexts, line: UstvaLine): Html {
  const strong = line.key === '83';
  return html`<tr${strong ? html` class="strong"` : ''}><td>${line.kz ?? ''}</td><td class="wrap">${line.label}${line.documents.length > 0 ? html` <a href="#docs-${line.key}">${t.documentCount(line.documents.length)}</a>` : ''}</td><td class="num">${formValue(line)}</td><td class="num">${euro(line.booked_cents)}</td></tr>`;
}

function documentsOf(t: TaxTexts, line: UstvaLine): Html {
  if (line.documents.length === 0) return html``;
  const shown = line.documents.slice(0, 500);
  return html`<details id="docs-${line.key}" class="panel"><summary>${line.kz ? `Kz ${line.kz}` : ''} ${line.label} — ${t.documentCount(line.documents.length)}</summary>
<div class="table-wrap"><table class="table" aria-label="${t.documents}: ${line.label}">
<thead><tr><th scope="col">${t.entryDate}</th><th scope="col">${t.document}</th><th scope="col" class="num">${t.amount}</th></tr></thead>
<tbody>${shown.map((d) => html`<tr><td>${date(d.entry_date)}</td><td>${documentLink(t, d)}</td><td class="num">${euro(d.amount_cents)}</td></tr>`)}</tbody></table></div></details>`;
}
