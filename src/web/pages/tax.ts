import type { FastifyInstance } from 'fastify';
import { TaxPeriodError, taxPeriod, type UstvaLine, ustvaReport } from '../../modules/tax/index.ts';
import { addDays } from '../../shared/dates.ts';
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
    const previous = addDays(`${today(deps.clock.now(), member.company.timezone).slice(0, 7)}-01`, -1).slice(0, 7);
    let period: ReturnType<typeof taxPeriod>;
    let bad = false;
    try {
      period = taxPeriod(asked === '' ? previous : asked);
    } catch (error) {
      if (!(error instanceof TaxPeriodError)) throw error;
      bad = true;
      period = taxPeriod(previous);
    }
    const report = await ustvaReport(deps.db, member.company.id, period);
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
${report.filed && report.locked_until ? html`<p class="panel">${t.filed(date(report.locked_until))}</p>` : ''}
${report.note ? html`<p class="panel">${report.note}</p>` : ''}
<h2 id="ustva-heading">${period.label} (${date(period.from)} – ${date(period.to)})</h2>
${table}
${lines.length > 0 ? html`${lines.map((line) => documentsOf(t, line))}` : ''}
${report.rounding_difference_cents !== 0 ? html`<p class="hint">${t.rounding(euro(report.rounding_difference_cents))}</p>` : ''}
${report.small_business ? '' : html`<p class="hint">${t.oss}</p>`}`;
    return sendPage(reply, page(shell(request, 'tax'), t.title, body, bad ? { kind: 'error', text: t.badPeriod } : null), bad ? 422 : 200);
  });
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
<tbody>${shown.map((d) => {
    const link = DOCUMENT_LINKS[d.document_type];
    const label = `${t.kinds[d.document_type] ?? d.document_type} ${d.document_number}`;
    return html`<tr><td>${date(d.entry_date)}</td><td>${link ? html`<a href="${link}${d.document_id.split('.')[0]}">${label}</a>` : label}</td><td class="num">${euro(d.amount_cents)}</td></tr>`;
  })}</tbody></table></div></details>`;
}
