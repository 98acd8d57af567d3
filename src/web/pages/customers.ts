import type { FastifyInstance } from 'fastify';
import {
  CUSTOMER_SORTS,
  type Cursor,
  type CustomerAccount,
  type CustomerListQuery,
  type CustomerSort,
  customerAccount,
  type ListedCustomer,
  listCustomers,
} from '../../modules/customers/customer-records.ts';
import { type Html, html } from '../html.ts';
import type { Messages } from '../i18n.ts';
import { page } from '../layout.ts';
import { sendPage, shell, type WebDeps } from '../web-request.ts';
import { customerDunningBox } from './dunning.ts';
import { date, euro, today } from './money.ts';
import { memberOrNoCompanyPage } from './require-member.ts';

// Customers with their credits and open items (issue 15): the list (search by name,
// number, e-mail or reference; sorted by name or number; paged by key, 50 a page; open and
// overdue amounts from one aggregated query) and one customer's account — master data,
// totals, open items with days overdue, credits from overpayments, the last invoices and
// the contracts. Read only: customers are kept through the API.

const PAGE_SIZE = 50;

function decodeCursor(raw: string | undefined): Cursor | null {
  if (!raw || raw.length > 600) return null;
  try {
    const decoded = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (
      Array.isArray(decoded) &&
      typeof decoded[0] === 'string' &&
      typeof decoded[1] === 'string' &&
      decoded[1].length <= 40 &&
      !/\p{Cc}/u.test(decoded.join(''))
    )
      return { value: decoded[0], id: decoded[1] };
  } catch {}
  return null;
}

const encodeCursor = (row: ListedCustomer) => Buffer.from(JSON.stringify([row.sort_value, row.id])).toString('base64url');

export function parseCustomerQuery(raw: Record<string, string | undefined>): CustomerListQuery {
  const sort: CustomerSort = raw.sort && raw.sort in CUSTOMER_SORTS ? (raw.sort as CustomerSort) : 'name';
  const after = decodeCursor(raw.after);
  return {
    q: String(raw.q ?? '')
      .replace(/\p{Cc}/gu, ' ')
      .trim()
      .slice(0, 100),
    sort,
    dir: raw.dir === 'desc' ? 'desc' : 'asc',
    after,
    before: after ? null : decodeCursor(raw.before),
    limit: PAGE_SIZE,
  };
}

function listUrl(query: CustomerListQuery, changes: { sort?: CustomerSort; dir?: 'asc' | 'desc'; after?: string; before?: string } = {}): string {
  const params = new URLSearchParams();
  if (query.q) params.set('q', query.q);
  const sort = changes.sort ?? query.sort;
  const dir = changes.dir ?? query.dir;
  if (sort !== 'name') params.set('sort', sort);
  if (dir !== 'asc') params.set('dir', dir);
  if (changes.after) params.set('after', changes.after);
  if (changes.before) params.set('before', changes.before);
  const text = params.toString();
  return `/app/customers${text ? `?${text}` : ''}`;
}

const address = (c: CustomerAccount['customer']): Html => {
  const street = [c.street, c.house_number].filter(Boolean).join(' ');
  const city = [c.zip, c.city].filter(Boolean).join(' ');
  const lines = [street, city, c.country_code].filter(Boolean) as string[];
  return lines.length === 0 ? html`–` : html`${lines.map((line, i) => html`${i > 0 ? html`<br>` : ''}${line}`)}`;
};

/** An e-mail address that may break after its "@" in a narrow column. */
const breakableEmail = (email: string): Html => {
  const at = email.indexOf('@');
  return at < 0 ? html`${email}` : html`${email.slice(0, at + 1)}<wbr>${email.slice(at + 1)}`;
};

function overdueBadge(t: Messages['records'], days: number, due: string | null, day: string): Html {
  if (days > 0) return html`<span class="badge warn">${t.daysOverdue(days)}</span>`;
  if (due === day) return html`<span class="badge">${t.dueToday}</span>`;
  return html`<span class="muted">${t.notDue}</span>`;
}

export function registerCustomerPages(web: FastifyInstance, deps: WebDeps): void {
  web.get('/customers', async (request, reply) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const t = request.t.records;
    const query = parseCustomerQuery(request.query as Record<string, string | undefined>);
    const day = today(deps.clock.now(), member.company.timezone);
    const { rows, hasPrevious, hasNext } = await listCustomers(deps.db, member.company.id, day, query);
    const header = (key: CustomerSort, label: string) => {
      const active = query.sort === key;
      const nextDir = active && query.dir === 'asc' ? 'desc' : 'asc';
      return html`<th scope="col"${active ? html` aria-sort="${query.dir === 'asc' ? 'ascending' : 'descending'}"` : ''}><a href="${listUrl(query, { sort: key, dir: nextDir })}">${label}${active ? (query.dir === 'asc' ? ' ▲' : ' ▼') : ''}</a></th>`;
    };
    const filters = html`<form method="get" action="/app/customers" class="filters" role="search">
<div><label for="q">${t.search}</label><input id="q" name="q" type="search" value="${query.q}" placeholder="${t.customerSearchPlaceholder}"></div>
${query.sort !== 'name' ? html`<input type="hidden" name="sort" value="${query.sort}">` : ''}${query.dir !== 'asc' ? html`<input type="hidden" name="dir" value="${query.dir}">` : ''}
<div class="filter-actions"><button type="submit" class="primary">${t.search}</button>${query.q ? html`<a href="/app/customers">${t.reset}</a>` : ''}</div>
</form>`;
    let table: Html;
    if (rows.length === 0) {
      table = html`<p class="empty">${query.q || query.after || query.before ? t.noCustomersFound : t.noCustomersYet}</p>`;
    } else {
      table = html`<div class="table-wrap"><table class="table">
<thead><tr>${header('name', t.name)}${header('number', t.customerNumber)}<th scope="col">${t.type}</th><th scope="col">${t.country}</th><th scope="col" class="num">${t.openAmount}</th><th scope="col" class="num">${t.overdueAmount}</th></tr></thead>
<tbody>
${rows.map(
  (c) => html`<tr>
<td class="wrap"><a href="/app/customers/${c.id}">${c.name}</a>${c.email ? html`<br><span class="muted">${c.email}</span>` : ''}</td>
<td>${c.kundennummer}<br><span class="muted">${c.external_ref}</span></td>
<td>${t.types[c.customer_type] ?? c.customer_type}</td>
<td>${c.country_code ?? '–'}</td>
<td class="num">${c.open_cents === '0' ? html`<span class="muted">${euro(0)}</span>` : euro(c.open_cents)}</td>
<td class="num">${c.overdue_cents === '0' ? html`<span class="muted">${euro(0)}</span>` : html`<span class="badge warn">${euro(c.overdue_cents)}</span>`}</td>
</tr>`,
)}
</tbody></table></div>`;
    }
    const first = rows[0];
    const last = rows.at(-1);
    const paging =
      hasPrevious || hasNext
        ? html`<nav class="paging" aria-label="${t.paging(t.customers)}">
${hasPrevious && first ? html`<a href="${listUrl(query, { before: encodeCursor(first) })}" rel="prev">← ${t.previous}</a>` : ''}
${hasNext && last ? html`<a href="${listUrl(query, { after: encodeCursor(last) })}" rel="next">${t.next} →</a>` : ''}
</nav>`
        : '';
    return sendPage(reply, page(shell(request, 'customers'), t.customers, html`${filters}${table}${paging}`));
  });

  web.get('/customers/:id', async (request, reply) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const t = request.t.records;
    const core = request.t;
    const { id } = request.params as { id: string };
    const day = today(deps.clock.now(), member.company.timezone);
    const account = await customerAccount(deps.db, member.company.id, id, day);
    if (!account) return reply.callNotFound();
    const c = account.customer;

    const facts = html`<dl class="facts">
<div><dt>${t.customerNumber}</dt><dd>${c.kundennummer}</dd></div>
<div><dt>${t.type}</dt><dd>${t.types[c.customer_type] ?? c.customer_type}</dd></div>
<div><dt>${t.totalOpen}</dt><dd class="strong">${euro(account.openCents)}</dd></div>
<div><dt>${t.totalOverdue}</dt><dd>${account.overdueCents > 0n ? html`<span class="badge warn">${euro(account.overdueCents)}</span>` : euro(0)}</dd></div>
<div><dt>${t.creditBalance}</dt><dd>${account.creditCents > 0n ? html`<span class="badge ok">${euro(account.creditCents)}</span>` : euro(0)}</dd></div>
</dl>`;

    const master = html`<section aria-labelledby="master-heading"><h2 id="master-heading">${t.masterData}</h2>
<dl class="facts">
<div><dt>${t.address}</dt><dd>${c.contact_name ? html`${t.contactName}: ${c.contact_name}<br>` : ''}${address(c)}</dd></div>
<div><dt>${t.email}</dt><dd>${c.email ? breakableEmail(c.email) : '–'}</dd></div>
<div><dt>${t.vatId}</dt><dd>${c.vat_id ?? '–'}</dd></div>
${c.leitweg_id ? html`<div><dt>${t.leitwegId}</dt><dd class="mono">${c.leitweg_id}</dd></div>` : ''}
<div><dt>${t.externalRef}</dt><dd><span class="mono">${c.external_source}/${c.external_ref}</span></dd></div>
</dl></section>`;

    const openItems =
      account.openItems.length === 0
        ? html`<p class="muted">${t.noOpenItems}</p>`
        : html`<div class="table-wrap"><table class="table">
<thead><tr><th scope="col">${t.invoice}</th><th scope="col">${t.issueDate}</th><th scope="col">${t.dueDate}</th><th scope="col" class="num">${t.gross}</th><th scope="col" class="num">${t.paid}</th><th scope="col" class="num">${t.open}</th><th scope="col">${t.overdue}</th></tr></thead>
<tbody>${account.openItems.map(
            (i) =>
              html`<tr><td><a href="/app/invoices/${i.id}">${i.number}</a>${i.status === 'partially_paid' ? html` <span class="status status-partially_paid">${core.statuses.partially_paid}</span>` : ''}</td><td>${date(i.issue_date)}</td><td>${date(i.due_date)}</td><td class="num">${euro(i.total_gross_cents)}</td><td class="num">${euro(i.amount_paid_cents)}</td><td class="num strong">${euro(i.open_cents)}</td><td>${overdueBadge(t, i.days_overdue, i.due_date, day)}</td></tr>`,
          )}</tbody>
<tfoot>
<tr><th scope="row" colspan="5">${t.totalOpen}</th><td class="num strong">${euro(account.openCents)}</td><td></td></tr>
<tr><th scope="row" colspan="5">${t.totalOverdue}</th><td class="num">${euro(account.overdueCents)}</td><td></td></tr>
</tfoot></table></div>`;

    const credits =
      account.credits.length === 0
        ? html`<p class="muted">${t.noCredits}</p>`
        : html`<div class="table-wrap"><table class="table">
<thead><tr><th scope="col">${t.bookingDate}</th><th scope="col" class="num">${t.amount}</th><th scope="col">${t.fromPayment}</th><th scope="col">${t.payer}</th></tr></thead>
<tbody>${account.credits.map(
            (cr) =>
              html`<tr><td>${date(cr.booking_date)}</td><td class="num">${euro(cr.amount_cents)}</td><td><a href="/app/invoices/${cr.invoice_id}">${cr.invoice_number ?? t.invoice}</a></td><td class="wrap">${cr.payer_name ?? ''}${cr.remittance_text ? html`<br><span class="muted">${cr.remittance_text}</span>` : ''}</td></tr>`,
          )}</tbody>
<tfoot><tr><th scope="row">${t.sum}</th><td class="num strong">${euro(account.creditCents)}</td><td colspan="2"></td></tr></tfoot></table></div>`;

    const invoices =
      account.recentInvoices.length === 0
        ? html`<p class="muted">${t.noInvoices}</p>`
        : html`<div class="table-wrap"><table class="table">
<thead><tr><th scope="col">${t.invoice}</th><th scope="col">${t.issueDate}</th><th scope="col">${t.dueDate}</th><th scope="col" class="num">${t.gross}</th><th scope="col">${t.status}</th></tr></thead>
<tbody>${account.recentInvoices.map(
            (i) =>
              html`<tr><td><a href="/app/invoices/${i.id}">${i.number ?? core.draft}</a>${i.type === 'storno' ? html` <span class="badge">${core.storno}</span>` : ''}</td><td>${date(i.issue_date)}</td><td>${date(i.due_date)}</td><td class="num">${euro(i.total_gross_cents)}</td><td><span class="status status-${i.status}">${core.statuses[i.status] ?? i.status}</span></td></tr>`,
          )}</tbody></table></div>
${account.invoiceCount > account.recentInvoices.length ? html`<p class="muted">${t.lastInvoicesOf(account.recentInvoices.length, account.invoiceCount)}</p>` : ''}
<p><a href="/app/invoices?${new URLSearchParams({ q: c.name.slice(0, 100) }).toString()}">${t.allInvoices}</a></p>`;

    const contracts =
      account.contracts.length === 0
        ? html`<p class="muted">${t.noCustomerContracts}</p>`
        : html`<div class="table-wrap"><table class="table">
<thead><tr><th scope="col">${t.contract}</th><th scope="col">${t.status}</th><th scope="col">${t.interval}</th><th scope="col">${t.nextBilling}</th></tr></thead>
<tbody>${account.contracts.map(
            (k) =>
              html`<tr><td><a href="/app/contracts/${k.id}">${k.number}</a> <span class="muted">${k.name}</span></td><td>${contractBadge(t, k.status)}</td><td>${t.intervals[k.billing_interval] ?? k.billing_interval}</td><td>${date(k.next_billing_date)}</td></tr>`,
          )}</tbody></table></div>`;

    const body = html`${facts}
${master}
${await customerDunningBox(deps, request, member, c.id)}
<section aria-labelledby="open-heading"><h2 id="open-heading">${t.openItems}</h2>${openItems}</section>
<section aria-labelledby="credits-heading"><h2 id="credits-heading">${t.credits}</h2><p class="hint">${t.creditsHint}</p>${credits}</section>
<section aria-labelledby="invoices-heading"><h2 id="invoices-heading">${t.lastInvoices}</h2>${invoices}</section>
<section aria-labelledby="contracts-heading"><h2 id="contracts-heading">${t.customerContracts}</h2>${contracts}</section>
<p><a href="/app/customers">← ${t.backToCustomers}</a></p>`;
    return sendPage(reply, page(shell(request, 'customers'), c.name, body));
  });
}

/** A contract's status as a badge (shared with the contract pages). */
export function contractBadge(t: Messages['records'], status: string): Html {
  const kind = status === 'active' ? ' ok' : status === 'paused' || status === 'cancelled' ? ' warn' : '';
  return html`<span class="badge${kind}">${t.contractStatuses[status] ?? status}</span>`;
}
