import type { FastifyInstance } from 'fastify';
import { partnerStatements } from '../../../modules/portal/partner-records.ts';
import { html } from '../../html.ts';
import type { Flash } from '../../layout.ts';
import { euro } from '../../pages/money.ts';
import { portalPage } from '../portal-layout.ts';
import { type PortalDeps, sendPage, sessionOf } from '../portal-request.ts';
import { statementTable } from './statement-table.ts';

// The partner's first page: its balance — the same three figures as the API's `balance`
// (open, statemented, paid), kept with the ledger — and its latest statements.

export function registerPortalOverviewPage(portal: FastifyInstance, deps: PortalDeps): void {
  portal.get('/overview', async (request, reply) => {
    const session = sessionOf(request);
    const { t } = request.portal;
    const partner = await deps.db
      .selectFrom('commission_partners')
      .select(['balance_open_cents', 'balance_statemented_cents', 'balance_paid_cents'])
      .where('company_id', '=', session.companyId)
      .where('id', '=', session.partnerId)
      .executeTakeFirstOrThrow();
    const all = await partnerStatements(deps.db, session.companyId, session.partnerId);
    const statements = all.slice(0, 5);
    const waiting = all.filter((s) => s.state === 'invoice_missing').length;
    const figure = (label: string, cents: number, hint: string) =>
      html`<div><dt>${label}</dt><dd class="strong">${euro(cents)}</dd><dd class="hint">${hint}</dd></div>`;
    const body = html`<dl class="facts" aria-label="${t.nav.overview}">
${figure(t.balanceOpen, partner.balance_open_cents, t.balanceOpenHint)}
${figure(t.balanceStatemented, partner.balance_statemented_cents, t.balanceStatementedHint)}
${figure(t.balancePaid, partner.balance_paid_cents, t.balancePaidHint)}
</dl>
${waiting > 0 ? html`<p class="panel warn">${t.waitingForInvoice(waiting)} <a href="/portal/statements">${t.allStatements}</a></p>` : ''}
<h2 id="latest-heading">${t.latestStatements}</h2>
${statements.length === 0 ? html`<p class="empty">${t.noStatements}</p>` : statementTable(t, statements)}
<p><a href="/portal/statements">${t.allStatements}</a></p>`;
    const flash: Flash = (request.query as { welcome?: string }).welcome === '1' ? { kind: 'ok', text: t.passwordSet } : null;
    return sendPage(reply, portalPage(request.portal, 'overview', t.nav.overview, body, flash));
  });
}
