import type { PortalStatement } from '../../../modules/portal/partner-records.ts';
import { type Html, html } from '../../html.ts';
import { date, euro } from '../../pages/money.ts';
import type { PortalMessages } from '../texts.ts';

/** The partner's statements as a table (the overview's latest, the statements page's all). */
export function statementTable(t: PortalMessages, statements: readonly PortalStatement[]): Html {
  return html`<div class="table-wrap"><table class="table">
<thead><tr><th scope="col">${t.number}</th><th scope="col">${t.kind}</th><th scope="col">${t.issueDate}</th><th scope="col">${t.period}</th><th scope="col" class="num">${t.gross}</th><th scope="col">${t.status}</th></tr></thead>
<tbody>${statements.map(
    (s) =>
      html`<tr><td><a href="/portal/statements/${s.id}">${s.number}</a></td><td>${s.type === 'cancellation' ? t.cancellation : (t.kinds[s.kind] ?? s.kind)}</td><td>${date(s.issueDate)}</td><td>${date(s.periodStart)} – ${date(s.periodEnd)}</td><td class="num">${euro(s.grossCents)}</td><td><span class="badge${s.state === 'invoice_missing' ? ' warn' : ''}">${t.statementStates[s.state] ?? s.state}</span></td></tr>`,
  )}</tbody></table></div>`;
}
