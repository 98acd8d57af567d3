import type { FastifyInstance } from 'fastify';
import { type Html, html } from '../html.ts';
import { page } from '../layout.ts';
import { sendPage, shell, type WebDeps } from '../web-request.ts';
import { invoiceCsv } from './invoice-csv.ts';
import { encodeAfter, type ListQuery, listInvoices, openCents, parseListQuery, type SortKey, STATUS_FILTERS } from './invoice-list.ts';
import { date, euro, today } from './money.ts';
import { memberOrNoCompanyPage } from './require-member.ts';

// The invoice list: a form of filters (works without JavaScript), a table whose headers
// sort, and paging by key; "Neue Rechnung" writes a draft in the app (invoice-drafts.ts),
// marked in the list as written in the app. Net and open amounts are columns to switch on
// (issue 25), and the filtered list downloads as CSV for German Excel (invoice-csv.ts).

/** The optional columns a person switched on (checkboxes of the filter form). */
type Columns = { net: boolean; open: boolean };
const columnsOf = (raw: Record<string, unknown>): Columns => ({ net: raw.col_net === '1', open: raw.col_open === '1' });

function queryString(query: ListQuery, changes: Partial<Record<'sort' | 'dir' | 'after', string | null>>, columns?: Columns): string {
  const params = new URLSearchParams();
  if (query.q) params.set('q', query.q);
  if (query.status) params.set('status', query.status);
  if (query.from) params.set('from', query.from);
  if (query.to) params.set('to', query.to);
  const sort = changes.sort ?? query.sort;
  const dir = changes.dir ?? query.dir;
  if (sort !== 'issue_date') params.set('sort', sort);
  params.set('dir', dir);
  if (changes.after) params.set('after', changes.after);
  if (columns?.net) params.set('col_net', '1');
  if (columns?.open) params.set('col_open', '1');
  return `?${params}`;
}

export function registerInvoicePages(web: FastifyInstance, deps: WebDeps): void {
  // The filtered list (no paging key: every invoice it finds) as CSV, streamed page by page.
  web.get('/invoices.csv', async (request, reply) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const query = parseListQuery(request.query as Record<string, unknown>);
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="rechnungen-${today(deps.clock.now(), member.company.timezone)}.csv"`)
      .header('cache-control', 'no-store')
      .send(invoiceCsv(deps.db, member.company.id, query));
  });
  web.get('/invoices', async (request, reply) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const t = request.t;
    const query = parseListQuery(request.query as Record<string, unknown>);
    const columns = columnsOf(request.query as Record<string, unknown>);
    const { rows, more } = await listInvoices(deps.db, member.company.id, query);
    const header = (key: SortKey, label: string, numeric = false) => {
      const active = query.sort === key;
      const nextDir = active && query.dir === 'asc' ? 'desc' : active ? 'asc' : key === 'issue_date' || key === 'gross' ? 'desc' : 'asc';
      return html`<th scope="col"${numeric ? html` class="num"` : ''}${active ? html` aria-sort="${query.dir === 'asc' ? 'ascending' : 'descending'}"` : ''}><a href="/app/invoices${queryString(query, { sort: key, dir: nextDir }, columns)}">${label}${active ? (query.dir === 'asc' ? ' ▲' : ' ▼') : ''}</a></th>`;
    };
    const filtered = Boolean(query.q || query.status || query.from || query.to);
    const statusOption = (value: string, label: string) => html`<option value="${value}"${query.status === value ? html` selected` : ''}>${label}</option>`;
    const filters = html`<form method="get" action="/app/invoices" class="filters" role="search">
<div><label for="q">${t.search}</label><input id="q" name="q" type="search" value="${query.q}" placeholder="${t.searchPlaceholder}"></div>
<div><label for="status">${t.status}</label><select id="status" name="status">${statusOption('', t.allStatuses)}${statusOption('open', t.open)}${statusOption('overdue', t.overdue)}${STATUS_FILTERS.filter((s) => s !== 'open' && s !== 'overdue').map((s) => statusOption(s, t.statuses[s] ?? s))}</select></div>
<div><label for="from">${t.from}</label><input id="from" name="from" type="date" value="${query.from ?? ''}"></div>
<div><label for="to">${t.to}</label><input id="to" name="to" type="date" value="${query.to ?? ''}"></div>
<fieldset class="columns"><legend>${t.listColumns}</legend><label><input type="checkbox" name="col_net" value="1"${columns.net ? html` checked` : ''}> ${t.net}</label> <label><input type="checkbox" name="col_open" value="1"${columns.open ? html` checked` : ''}> ${t.openAmount}</label></fieldset>
<input type="hidden" name="sort" value="${query.sort}"><input type="hidden" name="dir" value="${query.dir}">
<div class="filter-actions"><button type="submit" class="primary">${t.filter}</button>${filtered ? html`<a href="/app/invoices">${t.reset}</a>` : ''}</div>
</form>`;
    let table: Html;
    if (rows.length === 0) {
      table = html`<p class="empty">${filtered || query.after ? t.noInvoices : t.noInvoicesYet}</p>`;
    } else {
      table = html`<div class="table-wrap"><table class="table">
<thead><tr>${header('number', t.number)}${header('customer', t.customer)}${header('issue_date', t.issueDate)}${header('due_date', t.dueDate)}${columns.net ? html`<th scope="col" class="num">${t.net}</th>` : ''}${header('gross', t.gross, true)}${columns.open ? html`<th scope="col" class="num">${t.openAmount}</th>` : ''}<th scope="col">${t.status}</th></tr></thead>
<tbody>
${rows.map(
  (row) => html`<tr>
<td><a href="/app/invoices/${row.id}">${row.number ?? t.draft}</a>${row.type === 'storno' ? html` <span class="badge">${t.storno}</span>` : ''}${row.origin === 'app' ? html` <span class="badge" title="${t.drafts.writtenInAppHint}">${t.drafts.writtenInApp}</span>` : ''}</td>
<td>${row.customer_name}</td>
<td>${date(row.issue_date)}</td>
<td>${date(row.due_date)}</td>
${columns.net ? html`<td class="num">${euro(row.total_net_cents)}</td>` : ''}
<td class="num">${euro(row.total_gross_cents)}</td>
${columns.open ? html`<td class="num">${row.status === 'draft' ? '–' : euro(openCents(row))}</td>` : ''}
<td><span class="status status-${row.status}">${t.statuses[row.status] ?? row.status}</span>${row.overdue && row.status !== 'paid' && row.status !== 'cancelled' ? html` <span class="badge warn">${t.overdueBadge}</span>` : ''}</td>
</tr>`,
)}
</tbody></table></div>`;
    }
    const last = rows.at(-1);
    const paging = html`<nav class="paging" aria-label="${t.invoices}">
${query.after ? html`<a href="/app/invoices${queryString(query, {}, columns)}">${t.previous}</a>` : ''}
${more && last ? html`<a href="/app/invoices${queryString(query, { after: encodeAfter(last) }, columns)}" rel="next">${t.next}</a>` : ''}
</nav>`;
    const actions = html`<p class="actions"><a class="button primary" href="/app/invoices/new">${t.drafts.newInvoice}</a> <a class="button" href="/app/invoices.csv${queryString(query, {})}" download>${t.exportCsv}</a></p>`;
    const done = (request.query as { done?: string }).done === 'discarded' ? ({ kind: 'ok', text: t.drafts.discarded } as const) : null;
    return sendPage(reply, page(shell(request, 'invoices'), t.invoices, html`${actions}${filters}${table}${paging}`, done));
  });
}
