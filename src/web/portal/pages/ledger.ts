import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isMonth, type MonthRange, type PortalEntry, partnerLedger } from '../../../modules/portal/partner-ledger.ts';
import { formatDate } from '../../../shared/german-format.ts';
import { type Html, html } from '../../html.ts';
import { csvAmount, csvField } from '../../pages/invoice-csv.ts';
import { date, decimal, euro } from '../../pages/money.ts';
import { portalPage } from '../portal-layout.ts';
import { type PortalDeps, sendPage, sessionOf } from '../portal-request.ts';
import type { PortalMessages } from '../texts.ts';

// The partner's ledger: a month range filter, the entries with their sum, and the same
// range as CSV for German Excel (the app's CSV rules: UTF-8 with BOM, ";", decimal comma,
// DD.MM.YYYY, CRLF; always German: it goes to the partner's bookkeeping).

const SHOWN = 500;
const CSV_LIMIT = 200_000;

type Query = { from?: string; to?: string };

function rangeOf(query: Query): { range: MonthRange; bad: boolean } {
  const from = String(query.from ?? '').trim();
  const to = String(query.to ?? '').trim();
  const bad = (from !== '' && !isMonth(from)) || (to !== '' && !isMonth(to));
  return { range: { from: from !== '' && isMonth(from) ? from : null, to: to !== '' && isMonth(to) ? to : null }, bad };
}

function entryRow(t: PortalMessages, e: PortalEntry): Html {
  const marker =
    e.kind === 'clawback'
      ? html` <span class="badge warn">${t.clawback}</span>`
      : e.kind === 'correction'
        ? html` <span class="badge">${t.correction}</span>`
        : '';
  return html`<tr><td>${date(e.paidOn)}</td><td>${e.allCustomers ? t.allCustomers : (e.customerName ?? '–')}</td><td>${e.agreementName ?? e.agreementRef}</td><td class="num">${e.contractMonth ?? '–'}</td><td class="num">${decimal(e.percent, 0)} %</td><td class="num">${euro(e.basisCents)}</td><td class="num">${euro(e.amountCents)}${marker}</td><td>${t.entryStates[e.status] ?? e.status}${e.statementNumber ? html` (${e.statementNumber})` : ''}</td></tr>`;
}

export function registerPortalLedgerPages(portal: FastifyInstance, deps: PortalDeps): void {
  portal.get('/ledger', async (request: FastifyRequest, reply) => {
    const session = sessionOf(request);
    const { t } = request.portal;
    const query = request.query as Query;
    const { range, bad } = rangeOf(query);
    const ledger = await partnerLedger(deps.db, session.companyId, session.partnerId, range, SHOWN);
    const csvQuery = new URLSearchParams({ ...(range.from ? { from: range.from } : {}), ...(range.to ? { to: range.to } : {}) }).toString();
    const monthField = (name: 'from' | 'to', label: string) =>
      html`<div><label for="${name}">${label}</label><input id="${name}" name="${name}" inputmode="numeric" pattern="\\d{4}-\\d{2}" placeholder="2026-10" value="${String(query[name] ?? '').slice(0, 7)}" aria-describedby="month-hint"${bad ? html` aria-invalid="true"` : ''}></div>`;
    const body = html`<p class="hint">${t.ledgerIntro}</p>
<form method="get" action="/portal/ledger" class="filters">
${monthField('from', t.from)}
${monthField('to', t.to)}
<p id="month-hint" class="hint">${t.monthHint}</p>
<button type="submit">${t.filter}</button>
</form>
<p><a href="/portal/ledger.csv${csvQuery ? `?${csvQuery}` : ''}" download>${t.downloadCsv}</a></p>
${
  ledger.entries.length === 0
    ? html`<p class="empty">${t.noEntries}</p>`
    : html`<div class="table-wrap"><table class="table">
<thead><tr><th scope="col">${t.revenueDate}</th><th scope="col">${t.customer}</th><th scope="col">${t.agreement}</th><th scope="col" class="num">${t.contractMonth}</th><th scope="col" class="num">${t.percent}</th><th scope="col" class="num">${t.basis}</th><th scope="col" class="num">${t.amount}</th><th scope="col">${t.status}</th></tr></thead>
<tbody>${ledger.entries.map((e) => entryRow(t, e))}</tbody>
<tfoot><tr><th scope="row" colspan="6">${t.sum}</th><td class="num strong">${euro(ledger.sumCents)}</td><td></td></tr></tfoot></table></div>
${ledger.count > ledger.entries.length ? html`<p class="hint">${t.shownFirst(ledger.entries.length)}</p>` : ''}`
}`;
    return sendPage(reply, portalPage(request.portal, 'ledger', t.nav.ledger, body, bad ? { kind: 'error', text: t.badMonth } : null), bad ? 422 : 200);
  });

  portal.get('/ledger.csv', async (request, reply) => {
    const session = sessionOf(request);
    const { range, bad } = rangeOf(request.query as Query);
    if (bad) return reply.callNotFound();
    const ledger = await partnerLedger(deps.db, session.companyId, session.partnerId, range, CSV_LIMIT);
    const header = [
      'Umsatz bezahlt am',
      'Kunde',
      'Vereinbarung',
      'Vertragsmonat',
      'Prozent',
      'Bemessungsgrundlage',
      'Provision',
      'Art',
      'Status',
      'Abrechnung',
    ];
    const kinds = { revenue: 'Provision', clawback: 'Rückbuchung', correction: 'Korrektur' };
    const states: Record<string, string> = { open: 'offen', statemented: 'abgerechnet', paid: 'ausgezahlt' };
    const lines = ledger.entries.map((e) =>
      [
        formatDate(e.paidOn),
        csvField(e.allCustomers ? '' : (e.customerName ?? '')),
        csvField(e.agreementName ?? e.agreementRef),
        e.contractMonth === null ? '' : String(e.contractMonth),
        e.percent.replace('.', ','),
        csvAmount(e.basisCents),
        csvAmount(e.amountCents),
        kinds[e.kind],
        states[e.status] ?? e.status,
        csvField(e.statementNumber ?? ''),
      ].join(';'),
    );
    const name = `provisionen${range.from ? `-${range.from}` : ''}${range.to ? `-bis-${range.to}` : ''}.csv`;
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${name}"`)
      .header('cache-control', 'private, no-store')
      .send(`\uFEFF${[header.join(';'), ...lines].join('\r\n')}\r\n`);
  });
}
