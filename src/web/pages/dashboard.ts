import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';
import { type Html, html } from '../html.ts';
import type { Messages } from '../i18n.ts';
import { page } from '../layout.ts';
import { sendPage, shell, type WebDeps } from '../web-request.ts';
import { baseRateWarning } from './dunning.ts';
import { decimal, euro, today } from './money.ts';
import { memberOrNoCompanyPage } from './require-member.ts';

// The overview: open, overdue and paid amounts, and net revenue of the last twelve months
// (issued invoices and their stornos by issue date) as a bar chart drawn on the server (SVG).

type Figures = { openCents: string; openCount: number; overdueCents: string; overdueCount: number; paidCents: string; paidCount: number };

async function figures(db: Database, companyId: string, yearStart: string): Promise<Figures> {
  const row = await sql<{ open_cents: string; open_count: number; overdue_cents: string; overdue_count: number; paid_cents: string; paid_count: number }>`
    select coalesce(sum(total_gross_cents - amount_paid_cents) filter (where open), 0)::text as open_cents,
           count(*) filter (where open)::int as open_count,
           coalesce(sum(total_gross_cents - amount_paid_cents) filter (where open and overdue), 0)::text as overdue_cents,
           count(*) filter (where open and overdue)::int as overdue_count,
           coalesce(sum(total_gross_cents) filter (where status = 'paid' and paid_at >= ${yearStart}::date), 0)::text as paid_cents,
           count(*) filter (where status = 'paid' and paid_at >= ${yearStart}::date)::int as paid_count
    from (select *, status in ('issued', 'sent', 'partially_paid') and type = 'invoice' as open
          from invoices where company_id = ${companyId} and status <> 'draft') i`.execute(db);
  const r = row.rows[0] as NonNullable<(typeof row.rows)[0]>;
  return {
    openCents: r.open_cents,
    openCount: r.open_count,
    overdueCents: r.overdue_cents,
    overdueCount: r.overdue_count,
    paidCents: r.paid_cents,
    paidCount: r.paid_count,
  };
}

async function revenueByMonth(db: Database, companyId: string, fromMonth: string): Promise<Map<string, bigint>> {
  const rows = await sql<{ month: string; net: string }>`
    select to_char(issue_date, 'YYYY-MM') as month, sum(total_net_cents)::text as net
    from invoices
    where company_id = ${companyId} and status <> 'draft' and issue_date >= ${fromMonth}::date
    group by 1`.execute(db);
  return new Map(rows.rows.map((r) => [r.month, BigInt(r.net)]));
}

function lastTwelveMonths(day: string): string[] {
  const [y, m] = day.split('-').map(Number) as [number, number];
  return Array.from({ length: 12 }, (_, i) => {
    const index = y * 12 + (m - 1) - (11 - i);
    return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}`;
  });
}

const MONTHS_DE = ['Jan', 'Feb', 'Mär', 'Apr', 'Mai', 'Jun', 'Jul', 'Aug', 'Sep', 'Okt', 'Nov', 'Dez'];
const MONTHS_EN = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** A bar's amount in whole euros ("12.346 €", "€12,346"), millions with one decimal ("1,2 Mio. €", "€1.2m"): it fits above a bar. */
function barAmount(lang: 'de' | 'en', cents: bigint): string {
  const negative = cents < 0n;
  const abs = negative ? -cents : cents;
  const euros = (abs + 50n) / 100n;
  const sign = negative ? '-' : '';
  if (euros >= 1_000_000n) {
    const tenths = (euros + 50_000n) / 100_000n;
    return lang === 'de' ? `${sign}${tenths / 10n},${tenths % 10n}\u00a0Mio.\u00a0€` : `${sign}€${tenths / 10n}.${tenths % 10n}m`;
  }
  return lang === 'de' ? `${sign}${decimal(String(euros), 0)}\u00a0€` : `${sign}€${decimal(String(euros), 0)}`;
}

/**
 * Twelve bars, each with its amount above it and its month below, the year under the first
 * bar and under each January (issue 25). For screen readers the chart is a list whose items
 * are named "Nov 2026: 370,00 €"; the table below gives the exact amounts.
 */
function chart(t: Messages, lang: 'de' | 'en', months: string[], revenue: Map<string, bigint>): Html {
  const values = months.map((m) => revenue.get(m) ?? 0n);
  const max = values.reduce((a, b) => (b > a ? b : a), 0n);
  if (max <= 0n) return html`<p class="empty">${t.noRevenue}</p>`;
  const width = 720;
  const height = 240;
  const bar = width / months.length;
  const names = lang === 'de' ? MONTHS_DE : MONTHS_EN;
  const monthName = (month: string) => `${names[Number(month.slice(5)) - 1]} ${month.slice(0, 4)}`;
  const bars = months.map((month, i) => {
    const value = values[i] as bigint;
    const h = value > 0n ? Math.max(2, Number((value * 160n) / max)) : 0;
    const centre = (i * bar + bar / 2).toFixed(1);
    const yearLabel =
      i === 0 || month.endsWith('-01') ? html`<text x="${centre}" y="230" text-anchor="middle" class="axis year">${month.slice(0, 4)}</text>` : '';
    return html`<g role="listitem" aria-label="${monthName(month)}: ${euro(value)}"><rect x="${(i * bar + 6).toFixed(1)}" y="${190 - h}" width="${(bar - 12).toFixed(1)}" height="${h}" rx="3" class="bar"></rect>
<text x="${centre}" y="${190 - h - 6}" text-anchor="middle" font-size="11" fill="currentColor" class="value">${barAmount(lang, value)}</text>
<text x="${centre}" y="210" text-anchor="middle" class="axis">${names[Number(month.slice(5)) - 1]}</text>${yearLabel}</g>`;
  });
  // The same figures as a table for reading exact amounts.
  return html`<figure class="chart">
<svg viewBox="0 0 ${width} ${height}" role="list" aria-labelledby="chart-title"><title id="chart-title">${t.revenueByMonth}</title>${bars}</svg>
<details><summary>${t.revenueByMonth}</summary><table class="table compact"><tbody>
${months.map((m, i) => html`<tr><th scope="row">${monthName(m)}</th><td class="num">${euro(values[i] as bigint)}</td></tr>`)}
</tbody></table></details>
</figure>`;
}

export function registerDashboardPage(web: FastifyInstance, deps: WebDeps): void {
  web.get('/dashboard', async (request, reply) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const t = request.t;
    const day = today(deps.clock.now(), member.company.timezone);
    const months = lastTwelveMonths(day);
    const [f, revenue] = await Promise.all([
      figures(deps.db, member.company.id, `${day.slice(0, 4)}-01-01`),
      revenueByMonth(deps.db, member.company.id, `${months[0]}-01`),
    ]);
    const tile = (label: string, cents: string, count: number, href: string, kind = '') =>
      html`<a class="tile ${kind}" href="${href}"><span class="tile-label">${label}</span><span class="tile-amount">${euro(cents)}</span><span class="tile-count">${t.invoicesCount(count)}</span></a>`;
    const body = html`${baseRateWarning(request, member, deps.clock.now())}<section class="tiles" aria-label="${t.dashboard}">
${tile(t.open, f.openCents, f.openCount, '/app/invoices?status=open')}
${tile(t.overdue, f.overdueCents, f.overdueCount, '/app/invoices?status=overdue', f.overdueCount > 0 ? 'warn' : '')}
${tile(t.paidThisYear(day.slice(0, 4)), f.paidCents, f.paidCount, '/app/invoices?status=paid')}
</section>
<section aria-labelledby="revenue-heading"><h2 id="revenue-heading">${t.revenueByMonth}</h2>${chart(t, request.lang, months, revenue)}</section>`;
    return sendPage(reply, page(shell(request, 'dashboard'), t.dashboard, body));
  });
}
