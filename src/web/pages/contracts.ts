import type { FastifyInstance } from 'fastify';
import type { ContractStatus } from '../../db/schema-contracts.ts';
import { billsUsage } from '../../modules/contracts/billing-plan.ts';
import { CONTRACT_STATUSES, type ContractListQuery, contractRecord, listContracts } from '../../modules/contracts/contract-records.ts';
import { billedSoFar } from '../../modules/contracts/item-terms.ts';
import { addDays } from '../../shared/dates.ts';
import { type Html, html } from '../html.ts';
import type { Messages } from '../i18n.ts';
import { page } from '../layout.ts';
import { sendPage, shell, type WebDeps } from '../web-request.ts';
import { contractBadge } from './customers.ts';
import { date, decimal, euro, money, today } from './money.ts';

type ContractRecordView = NonNullable<Awaited<ReturnType<typeof contractRecord>>>;

import { memberOrNoCompanyPage } from './require-member.ts';

// Contracts with their billing cycles (issue 15): the list (search by number, name or
// customer; filter by status; paged by contract number, 50 a page) and one contract — its
// terms and items (with the day a quantity last changed), the billings ahead with their
// expected amounts (planned as the billing run plans them), the usage reported for the open
// period, its credit carried to the next invoices (issue 24), and every billed period with
// its invoice. Read only: contracts are kept through the API.

const PAGE_SIZE = 50;
/** A contract number as a paging key (contract_number_pattern allows at most 64 characters). */
const isNumberCursor = (value: string | undefined): value is string =>
  typeof value === 'string' && value.length > 0 && value.length <= 64 && !/\p{Cc}/u.test(value);

export function parseContractQuery(raw: Record<string, string | undefined>): ContractListQuery {
  const after = isNumberCursor(raw.after) ? raw.after : null;
  return {
    q: String(raw.q ?? '')
      .replace(/\p{Cc}/gu, ' ')
      .trim()
      .slice(0, 100),
    status: CONTRACT_STATUSES.includes(raw.status as ContractStatus) ? (raw.status as ContractStatus) : null,
    after,
    before: !after && isNumberCursor(raw.before) ? raw.before : null,
    limit: PAGE_SIZE,
  };
}

function listUrl(query: ContractListQuery, changes: { after?: string; before?: string } = {}): string {
  const params = new URLSearchParams();
  if (query.q) params.set('q', query.q);
  if (query.status) params.set('status', query.status);
  if (changes.after) params.set('after', changes.after);
  if (changes.before) params.set('before', changes.before);
  const text = params.toString();
  return `/app/contracts${text ? `?${text}` : ''}`;
}

const qty = (value: string) => decimal(value, 0);

/** The quantity of an item, with the day it last changed and the one before. */
function quantityCell(t: Messages['records'], item: ContractRecordView['items'][number]): Html {
  const history = item.quantities ?? [];
  const last = history.at(-1);
  const before = history.at(-2);
  const since = last && before ? html`<br><span class="muted">${t.quantitySince(date(last.from), qty(before.quantity))}</span>` : '';
  return html`${qty(item.quantity)}${item.unit ? html` ${item.unit}` : ''}${since}`;
}

/** The contract's credits: what is open per VAT rate, and each credit with the invoices that used it. */
function creditSection(t: Messages['records'], credits: ContractRecordView['credits']): Html | '' {
  if (credits.length === 0) return '';
  const open = new Map<number, number>();
  for (const credit of credits) if (credit.open_cents > 0) open.set(credit.vat_rate, (open.get(credit.vat_rate) ?? 0) + credit.open_cents);
  const summary =
    open.size === 0
      ? html`<p>${t.noOpenCredit}</p>`
      : html`<p class="strong">${t.openCredit(
          [...open]
            .sort(([a], [b]) => b - a)
            .map(([rate, cents]) => `${euro(cents)} (${rate} %)`)
            .join(', '),
        )}</p>`;
  return html`<section aria-labelledby="credit-heading"><h2 id="credit-heading">${t.credit}</h2>
<p class="hint">${t.creditHint}</p>${summary}
<div class="table-wrap"><table class="table">
<thead><tr><th scope="col">${t.creditText}</th><th scope="col">${t.period}</th><th scope="col" class="num">${t.vat}</th><th scope="col" class="num">${t.creditAmount}</th><th scope="col" class="num">${t.creditOpen}</th><th scope="col">${t.creditUsed}</th></tr></thead>
<tbody>${credits.map(
    (credit) =>
      html`<tr><td class="wrap">${credit.description}</td><td>${date(credit.service_period_start)} – ${date(credit.service_period_end)}</td><td class="num">${credit.vat_rate} %</td><td class="num">${euro(credit.amount_cents)}</td><td class="num">${euro(credit.open_cents)}</td><td>${credit.uses.map((use, i) => html`${i > 0 ? html`<br>` : ''}<a href="/app/invoices/${use.invoice_id}">${use.invoice_number ?? use.invoice_id}</a> ${euro(use.amount_cents)}`)}</td></tr>`,
  )}</tbody></table></div></section>`;
}

/**
 * The last day an item is billed for (issue 25): for items billed by quantity the end of the
 * days billed so far (contract_items.billed_quantities, or billed_until for older rows); for
 * usage, billed in arrears, the day before the open usage period once a billing ran, but not
 * past the item's end. Null: nothing billed yet.
 */
function itemBilledUntil(contract: ContractRecordView['contract'], item: ContractRecordView['items'][number]): string | null {
  if (billsUsage(item)) {
    const end = contract.last_billing_date && contract.usage_open_from ? addDays(contract.usage_open_from, -1) : null;
    if (end === null || end < item.starts_on) return null;
    return item.ends_after !== null && item.ends_after < end ? item.ends_after : end;
  }
  return billedSoFar(contract, item)?.at(-1)?.to ?? null;
}

function cycleBadge(t: Messages['records'], status: string): Html {
  const kind = status === 'billed' ? ' ok' : status === 'failed' ? ' error' : status === 'paused' ? ' warn' : '';
  return html`<span class="badge${kind}">${t.cycleStatuses[status] ?? status}</span>`;
}

export function registerContractPages(web: FastifyInstance, deps: WebDeps): void {
  web.get('/contracts', async (request, reply) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const t = request.t.records;
    const query = parseContractQuery(request.query as Record<string, string | undefined>);
    const day = today(deps.clock.now(), member.company.timezone);
    const { rows, hasPrevious, hasNext } = await listContracts(deps.db, member.company.id, day, query);
    const option = (value: string, label: string) => html`<option value="${value}"${(query.status ?? '') === value ? html` selected` : ''}>${label}</option>`;
    const filtered = Boolean(query.q || query.status);
    const filters = html`<form method="get" action="/app/contracts" class="filters" role="search">
<div><label for="q">${t.search}</label><input id="q" name="q" type="search" value="${query.q}" placeholder="${t.contractSearchPlaceholder}"></div>
<div><label for="status">${t.status}</label><select id="status" name="status">${option('', t.allStatuses)}${CONTRACT_STATUSES.map((s) => option(s, t.contractStatuses[s] ?? s))}</select></div>
<div class="filter-actions"><button type="submit" class="primary">${t.filter}</button>${filtered ? html`<a href="/app/contracts">${t.reset}</a>` : ''}</div>
</form>`;
    let table: Html;
    if (rows.length === 0) {
      table = html`<p class="empty">${filtered || query.after || query.before ? t.noContractsFound : t.noContractsYet}</p>`;
    } else {
      table = html`<div class="table-wrap"><table class="table">
<thead><tr><th scope="col">${t.contract}</th><th scope="col">${t.customer}</th><th scope="col">${t.status}</th><th scope="col">${t.interval}</th><th scope="col">${t.nextBilling}</th><th scope="col" class="num">${t.perCycle}</th></tr></thead>
<tbody>
${rows.map((k) => {
  const amount =
    k.cycle_net === null
      ? '–'
      : k.cycle_net === '0.00' && k.plus_usage
        ? html`<span class="muted">${t.usageOnly}</span>`
        : html`${money(k.cycle_net)}${k.plus_usage ? html`<br><span class="muted">${t.plusUsage}</span>` : ''}`;
  return html`<tr>
<td class="wrap"><a href="/app/contracts/${k.id}">${k.number}</a><br><span class="muted">${k.name}</span></td>
<td class="wrap"><a href="/app/customers/${k.customer_id}">${k.customer_name}</a></td>
<td>${contractBadge(t, k.status)}</td>
<td>${t.intervals[k.billing_interval] ?? k.billing_interval}</td>
<td>${date(k.next_billing_date)}</td>
<td class="num">${amount}</td>
</tr>`;
})}
</tbody></table></div>`;
    }
    const first = rows[0];
    const last = rows.at(-1);
    const paging =
      hasPrevious || hasNext
        ? html`<nav class="paging" aria-label="${t.paging(t.contracts)}">
${hasPrevious && first ? html`<a href="${listUrl(query, { before: first.number })}" rel="prev">← ${t.previous}</a>` : ''}
${hasNext && last ? html`<a href="${listUrl(query, { after: last.number })}" rel="next">${t.next} →</a>` : ''}
</nav>`
        : '';
    return sendPage(reply, page(shell(request, 'contracts'), t.contracts, html`${filters}${table}${paging}`));
  });

  web.get('/contracts/:id', async (request, reply) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const t = request.t.records;
    const core = request.t;
    const { id } = request.params as { id: string };
    const record = await contractRecord(deps.db, member.company.id, id);
    if (!record) return reply.callNotFound();
    const { contract: k, customer, items, cycles, upcoming, usage, credits } = record;

    const facts = html`<dl class="facts">
<div><dt>${t.contractName}</dt><dd>${k.name}</dd></div>
<div><dt>${t.customer}</dt><dd><a href="/app/customers/${customer.id}">${customer.name}</a> <span class="muted">(${customer.kundennummer})</span></dd></div>
<div><dt>${t.status}</dt><dd>${contractBadge(t, k.status)}</dd></div>
<div><dt>${t.nextBilling}</dt><dd class="strong">${date(k.next_billing_date)}</dd></div>
</dl>`;

    const terms = html`<section aria-labelledby="terms-heading"><h2 id="terms-heading">${t.terms}</h2>
<dl class="facts">
<div><dt>${t.startDate}</dt><dd>${date(k.start_date)}</dd></div>
${k.billing_starts_on ? html`<div><dt>${t.billingStartsOn}</dt><dd>${date(k.billing_starts_on)}</dd></div>` : ''}
<div><dt>${t.endDate}</dt><dd>${k.end_date ? date(k.end_date) : t.openEnded}</dd></div>
<div><dt>${t.interval}</dt><dd>${t.intervals[k.billing_interval] ?? k.billing_interval}</dd></div>
<div><dt>${t.invoiceMode}</dt><dd>${t.invoiceModes[k.invoice_mode] ?? k.invoice_mode}</dd></div>
<div><dt>${t.paymentTerms}</dt><dd>${k.payment_terms_days === null ? t.companyDefault : t.paymentTermsDays(k.payment_terms_days)}</dd></div>
${k.usage_open_from ? html`<div><dt>${t.usageOpenFrom}</dt><dd>${date(k.usage_open_from)}</dd></div>` : ''}
${k.pauses.length > 0 ? html`<div><dt>${t.pauses}</dt><dd>${k.pauses.map((p, i) => html`${i > 0 ? html`<br>` : ''}${t.pauseRange(date(p.from), p.until ? date(p.until) : null)}`)}</dd></div>` : ''}
<div><dt>${t.externalRef}</dt><dd><span class="mono">${k.external_source}/${k.external_ref}</span></dd></div>
</dl></section>`;

    const pricing = (item: (typeof items)[number]): Html => {
      const parts: Html[] = [html`${t.pricingModels[item.pricing_model] ?? item.pricing_model}`];
      if (item.pricing_model === 'package' && item.included_quantity)
        parts.push(html`<br><span class="muted">${t.packageSize(qty(item.included_quantity))}</span>`);
      if (item.pricing_model === 'quota')
        parts.push(
          html`<br><span class="muted">${t.included(qty(item.included_quantity ?? '0'))}${item.overage_price ? html`, ${t.overagePrice(money(item.overage_price))}` : ''}</span>`,
        );
      if (item.tiers && item.tiers.length > 0)
        parts.push(
          html`<br><span class="muted">${t.tiersText}: ${item.tiers.map((tier, i) => html`${i > 0 ? '; ' : ''}${t.tierRange(qty(tier.from), tier.to === null ? null : qty(tier.to))}: ${money(tier.unit_price)}${tier.flat_price && tier.flat_price !== '0' ? html` + ${money(tier.flat_price)}` : ''}`)}</span>`,
        );
      return html`${parts}`;
    };
    const billed = (item: (typeof items)[number]) => {
      const until = itemBilledUntil(k, item);
      return until ? date(until) : t.notBilledYet;
    };
    const itemsTable =
      items.length === 0
        ? html`<p class="muted">${t.noItems}</p>`
        : html`<div class="table-wrap"><table class="table">
<thead><tr><th scope="col">${t.position}</th><th scope="col">${t.description}</th><th scope="col">${t.timing}</th><th scope="col">${t.pricingModel}</th><th scope="col" class="num">${t.quantity}</th><th scope="col" class="num">${t.unitPrice}</th><th scope="col" class="num">${t.vat}</th><th scope="col">${t.billedUntil}</th><th scope="col">${t.endsAfter}</th></tr></thead>
<tbody>${items.map(
            (item) =>
              html`<tr><td>${item.position}</td><td class="wrap">${item.description}${item.product_number ? html`<br><span class="muted">${t.product} ${item.product_number}</span>` : ''}</td><td>${t.timings[item.billing_timing] ?? item.billing_timing}</td><td class="wrap">${pricing(item)}</td><td class="num">${billsUsage(item) ? html`<span class="muted">${t.byUsage}</span>` : quantityCell(t, item)}</td><td class="num">${money(item.unit_price_net)}</td><td class="num">${item.vat_rate} %</td><td data-col="billed-until">${billed(item)}</td><td data-col="ends">${item.ends_after ? date(item.ends_after) : t.openEnded}</td></tr>`,
          )}</tbody></table></div>`;

    const upcomingTable =
      upcoming.length === 0
        ? html`<p class="muted">${k.status === 'draft' ? t.noUpcomingDraft : t.noUpcoming}</p>`
        : html`<p class="hint">${t.upcomingHint}</p><div class="table-wrap"><table class="table">
<thead><tr><th scope="col">${t.billingDate}</th><th scope="col">${t.period}</th><th scope="col" class="num">${t.expectedNet}</th></tr></thead>
<tbody>${upcoming.map(
            (u) =>
              html`<tr><td>${date(u.billing_date)}${u.final ? html` <span class="badge">${t.finalBilling}</span>` : ''}${u.paused ? html` <span class="badge warn">${t.pausedBilling}</span>` : ''}</td><td>${date(u.start)} – ${date(u.end)}</td><td class="num">${u.expected_net === null ? '–' : money(u.expected_net)}${u.plus_usage ? html`<br><span class="muted">${t.plusUsage}</span>` : ''}</td></tr>`,
          )}</tbody></table></div>`;

    const usageSection = usage
      ? html`<section aria-labelledby="usage-heading"><h2 id="usage-heading">${t.usage}</h2>
<p class="hint">${t.usageSince(date(usage.from), usage.to ? date(usage.to) : null)}</p>
<div class="table-wrap"><table class="table">
<thead><tr><th scope="col">${t.description}</th><th scope="col" class="num">${t.quantity}</th><th scope="col" class="num">${t.records}</th></tr></thead>
<tbody>${usage.sums.map(
          (s) =>
            html`<tr><td class="wrap">${s.description} <span class="muted">(${s.item_ref})</span></td><td class="num">${qty(s.quantity)}${s.unit ? html` ${s.unit}` : ''}</td><td class="num">${s.records}</td></tr>`,
        )}</tbody></table></div></section>`
      : '';

    const cyclesTable =
      cycles.length === 0
        ? html`<p class="muted">${t.noCycles}</p>`
        : html`<div class="table-wrap"><table class="table">
<thead><tr><th scope="col">${t.period}</th><th scope="col">${t.billedOn}</th><th scope="col">${t.status}</th><th scope="col">${t.invoice}</th><th scope="col">${t.invoiceStatus}</th><th scope="col" class="num">${core.net}</th><th scope="col" class="num">${core.gross}</th></tr></thead>
<tbody>${cycles.map(
            (y) =>
              html`<tr><td>${date(y.start_date)} – ${date(y.end_date)}</td><td>${date(y.billing_date)}</td><td${y.reason ? html` class="wrap"` : ''}>${cycleBadge(t, y.status)}${y.status === 'failed' && y.reason ? html`<br><span class="muted">${y.reason} (${t.attempts(y.attempts)})</span>` : ''}</td><td>${y.invoice_id ? html`<a href="/app/invoices/${y.invoice_id}">${y.invoice_number ?? core.draft}</a>` : '–'}</td><td>${y.invoice_status ? html`<span class="status status-${y.invoice_status}">${core.statuses[y.invoice_status] ?? y.invoice_status}</span>` : '–'}</td><td class="num">${y.total_net === null ? '–' : money(y.total_net)}</td><td class="num">${y.invoice_gross_cents === null ? '–' : euro(y.invoice_gross_cents)}</td></tr>`,
          )}</tbody></table></div>`;

    const body = html`${facts}
${terms}
<section aria-labelledby="items-heading"><h2 id="items-heading">${t.items}</h2>${itemsTable}</section>
<section aria-labelledby="upcoming-heading"><h2 id="upcoming-heading">${t.upcoming}</h2>${upcomingTable}</section>
${usageSection}
${creditSection(t, credits)}
<section aria-labelledby="cycles-heading"><h2 id="cycles-heading">${t.cycles}</h2>${cyclesTable}</section>
<p><a href="/app/contracts">← ${t.backToContracts}</a></p>`;
    return sendPage(reply, page(shell(request, 'contracts'), t.contractTitle(k.number), body));
  });
}
