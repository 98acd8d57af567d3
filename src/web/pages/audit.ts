import type { FastifyInstance } from 'fastify';
import { listAudit } from '../../modules/audit/audit-log.ts';
import { type Html, html } from '../html.ts';
import type { Messages } from '../i18n.ts';
import { page } from '../layout.ts';
import { sendPage, shell, type WebDeps } from '../web-request.ts';
import { dateTimeFormat } from './money.ts';
import { memberOrNoCompanyPage } from './require-member.ts';

// The audit trail of the company (and the organisation-wide changes of its people), newest
// first, 50 per page. Read only: there is no way to change an entry.

function values(value: Record<string, unknown> | null): Html {
  if (!value) return html`<span class="muted">–</span>`;
  return html`<dl class="values">${Object.entries(value).map(([k, v]) => html`<dt>${k}</dt><dd>${typeof v === 'string' ? v : JSON.stringify(v)}</dd>`)}</dl>`;
}

/** An action's label: the core texts, else the area texts (t.settings.auditActions, …), else its code. */
function actionLabel(t: Messages, action: string): string {
  return t.actions[action] ?? AREAS.map((area) => t[area].auditActions[action]).find(Boolean) ?? action;
}

const AREAS = ['settings', 'keys', 'records', 'share', 'drafts', 'books'] as const;

export function registerAuditPage(web: FastifyInstance, deps: WebDeps): void {
  web.get('/audit', async (request, reply) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const t = request.t;
    const raw = (request.query as { before?: string }).before;
    const beforeSeq = raw && /^\d{1,15}$/.test(raw) ? Number(raw) : undefined;
    const entries = await listAudit(deps.db, member.company.organizationId, member.company.id, { ...(beforeSeq ? { beforeSeq } : {}), limit: 51 });
    const shown = entries.slice(0, 50);
    const time = dateTimeFormat(member.company.timezone, 'medium');
    const body = html`<p class="lead">${t.auditIntro}</p>
${
  shown.length === 0
    ? html`<p class="empty">${t.auditEmpty}</p>`
    : html`<div class="table-wrap"><table class="table audit">
<thead><tr><th scope="col">${t.when}</th><th scope="col">${t.who}</th><th scope="col">${t.what}</th><th scope="col">${t.subject}</th><th scope="col">${t.before}</th><th scope="col">${t.after}</th></tr></thead>
<tbody>${shown.map(
        (e) =>
          html`<tr><td>${time.format(e.at)}</td><td>${e.email}</td><td>${actionLabel(t, e.action)}</td><td>${e.subject_type}${e.subject_id ? html` <code>${e.subject_id}</code>` : ''}</td><td>${values(e.before)}</td><td>${values(e.after)}</td></tr>`,
      )}</tbody></table></div>`
}
${entries.length > 50 ? html`<nav class="paging"><a href="/app/audit?before=${shown.at(-1)?.seq}" rel="next">${t.older}</a></nav>` : ''}`;
    return sendPage(reply, page(shell(request, 'audit'), t.audit, body));
  });
}
