import type { FastifyInstance } from 'fastify';
import { partnerAgreements } from '../../../modules/portal/partner-records.ts';
import { calendarDate } from '../../../shared/clock.ts';
import { html } from '../../html.ts';
import { date, decimal } from '../../pages/money.ts';
import { portalPage } from '../portal-layout.ts';
import { type PortalDeps, sendPage, sessionOf } from '../portal-request.ts';

// The partner's agreements: validity, whom they apply to, the tiers, and for each customer
// attributed to the partner the contract month it is in today with that month's percent.

export function registerPortalAgreementPage(portal: FastifyInstance, deps: PortalDeps): void {
  portal.get('/agreements', async (request, reply) => {
    const session = sessionOf(request);
    const { t } = request.portal;
    const today = calendarDate(deps.clock.now(), session.timezone);
    const agreements = await partnerAgreements(deps.db, session.companyId, session.partnerId, today);
    const percent = (p: string | null) => (p === null ? t.beyondTiers : `${decimal(p, 0)} %`);
    const sections = agreements.map(
      (a, index) => html`<section class="panel" aria-labelledby="agreement-${index}"><h2 id="agreement-${index}">${a.name ?? a.ref}</h2>
<dl class="facts">
<div><dt>${t.validity}</dt><dd>${a.endDate ? t.fromTo(date(a.startDate), date(a.endDate)) : t.fromOn(date(a.startDate))}</dd></div>
<div><dt>${t.appliesTo}</dt><dd>${a.allCustomers ? t.appliesAll : t.appliesAttributed}</dd></div>
${a.allCustomers && a.monthNow !== null ? html`<div><dt>${t.monthNow}</dt><dd>${a.monthNow} (${percent(a.percentNow)})</dd></div>` : ''}
</dl>
<h3 id="agreement-${index}-tiers">${t.tiers}</h3>
<div class="table-wrap"><table class="table" aria-labelledby="agreement-${index}-tiers">
<thead><tr><th scope="col">${t.contractMonth}</th><th scope="col" class="num">${t.percent}</th></tr></thead>
<tbody>${a.tiers.map((tier) => html`<tr><td>${t.tierMonths(tier.from_month, tier.to_month)}</td><td class="num">${decimal(tier.percent, 0)} %</td></tr>`)}</tbody></table></div>
${
  a.allCustomers
    ? ''
    : html`<h3 id="agreement-${index}-customers">${t.customers}</h3>${
        a.customers.length === 0
          ? html`<p class="empty">${t.noCustomers}</p>`
          : html`<div class="table-wrap"><table class="table" aria-labelledby="agreement-${index}-customers">
<thead><tr><th scope="col">${t.customer}</th><th scope="col">${t.attributedSince}</th><th scope="col" class="num">${t.monthNow}</th><th scope="col" class="num">${t.percentNow}</th></tr></thead>
<tbody>${a.customers.map(
              (c) =>
                html`<tr><td>${c.name}</td><td>${c.until ? t.fromTo(date(c.since), date(c.until)) : date(c.since)}</td><td class="num">${c.monthNow ?? t.notStarted}</td><td class="num">${c.monthNow === null ? '–' : percent(c.percentNow)}</td></tr>`,
            )}</tbody></table></div>`
      }`
}
</section>`,
    );
    const body = agreements.length === 0 ? html`<p class="empty">${t.noAgreements}</p>` : html`<p class="hint">${t.agreementsIntro}</p>${sections}`;
    return sendPage(reply, portalPage(request.portal, 'agreements', t.nav.agreements, body));
  });
}
