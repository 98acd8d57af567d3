import type { FastifyInstance } from 'fastify';
import { partnerPayouts } from '../../../modules/portal/partner-records.ts';
import { html } from '../../html.ts';
import { date, euro } from '../../pages/money.ts';
import { portalPage } from '../portal-layout.ts';
import { type PortalDeps, sendPage, sessionOf } from '../portal-request.ts';

// The transfers to the partner: the day the company's bank executes them, the amount, the
// account (masked) and the statement each pays.

export function registerPortalPayoutPage(portal: FastifyInstance, deps: PortalDeps): void {
  portal.get('/payouts', async (request, reply) => {
    const session = sessionOf(request);
    const { t } = request.portal;
    const payouts = await partnerPayouts(deps.db, session.companyId, session.partnerId);
    const body =
      payouts.length === 0
        ? html`<p class="empty">${t.noPayouts}</p>`
        : html`<p class="hint">${t.payoutsIntro}</p><div class="table-wrap"><table class="table">
<thead><tr><th scope="col">${t.executionDate}</th><th scope="col" class="num">${t.amount}</th><th scope="col">${t.toAccount}</th><th scope="col">${t.forStatements}</th></tr></thead>
<tbody>${payouts.map(
            (p) =>
              html`<tr><td>${date(p.executionDate)}</td><td class="num">${euro(p.amountCents)}</td><td class="mono">${p.ibanMasked ?? '–'}</td><td><a href="/portal/statements/${p.statementId}">${p.statementNumber}</a></td></tr>`,
          )}</tbody></table></div>`;
    return sendPage(reply, portalPage(request.portal, 'payouts', t.nav.payouts, body));
  });
}
