import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';
import { type Html, html } from '../html.ts';
import type { Messages } from '../i18n.ts';
import { type Flash, page } from '../layout.ts';
import { sendPage, shell, type WebDeps } from '../web-request.ts';
import { AREA_PREFIXES, AREAS, type Area, areaOf, auditSentence, nameSubjects, type Subject, subjectOf } from './audit-words.ts';
import { dateTimeFormat, typedDate } from './money.ts';
import { memberOrNoCompanyPage } from './require-member.ts';

// The audit trail of the company (and the organisation-wide changes of its people), newest
// first, 50 per page, paged by key. Each entry reads as a sentence naming its subject (with
// a link to the subject's page), the values it changed as a short list; filtered by area,
// person and date range (days in the company's time zone), and the current filter exported
// as CSV for German Excel. Read only: there is no way to change an entry.

const PAGE = 50;
/** The most rows one CSV export holds (a filter narrows it). */
const CSV_LIMIT = 20_000;

type Values = Record<string, unknown> | null;
type Filter = { area: Area | null; person: string | null; from: string | null; to: string | null };
type Row = { seq: number; at: Date; email: string; action: string; subject_type: string; subject_id: string | null; before: Values; after: Values };

const parse = (value: unknown): Values =>
  value === null || value === undefined ? null : ((typeof value === 'string' ? JSON.parse(value) : value) as Record<string, unknown>);

/** The filter of the query; bad dates are reported, not used. */
function filterOf(query: Record<string, unknown>): { filter: Filter; badDate: boolean } {
  const one = (name: string) => (typeof query[name] === 'string' ? (query[name] as string).trim() : '');
  const area = one('area');
  const person = one('person');
  const day = (name: string) => (one(name) === '' ? { value: null, bad: false } : { value: typedDate(one(name)), bad: typedDate(one(name)) === null });
  const from = day('from');
  const to = day('to');
  return {
    filter: {
      area: (AREAS as string[]).includes(area) ? (area as Area) : null,
      person: /^[a-z]+_[0-9a-z]{1,40}$/.test(person) ? person : null,
      from: from.value,
      to: to.value,
    },
    badDate: from.bad || to.bad,
  };
}

async function listEntries(
  db: Database,
  organizationId: string,
  companyId: string,
  timezone: string,
  filter: Filter,
  beforeSeq: number | undefined,
  limit: number,
) {
  let query = db
    .selectFrom('audit_log as a')
    // A partner's own actions (the portal) name its partner account instead of a person.
    .leftJoin('users as u', 'u.id', 'a.user_id')
    .leftJoin('partner_accounts as pa', (join) => join.onRef('pa.company_id', '=', 'a.company_id').onRef('pa.id', '=', 'a.partner_account_id'))
    .select(['a.seq', 'a.at', 'a.action', 'a.subject_type', 'a.subject_id', 'a.before', 'a.after'])
    .select((eb) => eb.fn.coalesce('u.email', 'pa.email').as('email'))
    .where('a.organization_id', '=', organizationId)
    .where((eb) => eb.or([eb('a.company_id', '=', companyId), eb('a.company_id', 'is', null)]));
  if (filter.area) {
    const prefixes = AREA_PREFIXES[filter.area];
    query = query.where((eb) => eb.or(prefixes.map((p) => eb('a.action', 'like', `${p}.%`))));
  }
  if (filter.person) query = query.where('a.user_id', '=', filter.person);
  if (filter.from) query = query.where(sql<boolean>`(a.at at time zone ${timezone})::date >= ${filter.from}::date`);
  if (filter.to) query = query.where(sql<boolean>`(a.at at time zone ${timezone})::date <= ${filter.to}::date`);
  if (beforeSeq !== undefined) query = query.where('a.seq', '<', beforeSeq);
  const rows = await query.orderBy('a.seq', 'desc').limit(limit).execute();
  return rows.map((r) => ({ ...r, seq: Number(r.seq), before: parse(r.before), after: parse(r.after) })) as Row[];
}

/** The people who appear in the trail (for the person filter). */
async function peopleOf(db: Database, organizationId: string, companyId: string) {
  return db
    .selectFrom('audit_log as a')
    .innerJoin('users as u', 'u.id', 'a.user_id')
    .select(['u.id', 'u.email'])
    .distinct()
    .where('a.organization_id', '=', organizationId)
    .where((eb) => eb.or([eb('a.company_id', '=', companyId), eb('a.company_id', 'is', null)]))
    .orderBy('u.email')
    .execute();
}

const shown = (value: unknown): string => (value === null || value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value));

/** What an entry changed: each value that differs, before → after (a value only on one side: new or removed). */
function changes(before: Values, after: Values): { key: string; before: string; after: string }[] {
  const keys = [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])];
  return keys.filter((k) => shown(before?.[k]) !== shown(after?.[k])).map((k) => ({ key: k, before: shown(before?.[k]), after: shown(after?.[k]) }));
}

function changesCell(t: Messages, row: Row): Html {
  const list = changes(row.before, row.after);
  if (list.length === 0) return html`<span class="muted">–</span>`;
  const items = html`<ul class="diff">${list.map(
    (c) =>
      html`<li><span class="diff-key">${c.key}:</span> ${c.before === '' ? html`<span class="muted">${t.trail.created}</span>` : html`<del>${c.before}</del>`} → ${c.after === '' ? html`<span class="muted">${t.trail.removed}</span>` : html`<ins>${c.after}</ins>`}</li>`,
  )}</ul>`;
  const long = list.length > 3 || list.some((c) => c.before.length + c.after.length > 120);
  return long ? html`<details><summary>${t.trail.changeCount(list.length)}</summary>${items}</details>` : items;
}

function subjectCell(subject: Subject): Html {
  if (!subject.name) return html`<span class="muted">–</span>`;
  return subject.href ? html`<a href="${subject.href}">${subject.name}</a>` : html`${subject.name}`;
}

/** The query string of a filter (for paging, the export and the reset). */
function queryOf(filter: Filter, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams();
  if (filter.area) params.set('area', filter.area);
  if (filter.person) params.set('person', filter.person);
  if (filter.from) params.set('from', filter.from);
  if (filter.to) params.set('to', filter.to);
  for (const [k, v] of Object.entries(extra)) params.set(k, v);
  const text = params.toString();
  return text ? `?${text}` : '';
}

function filterForm(t: Messages, filter: Filter, people: { id: string; email: string }[], query: Record<string, unknown>): Html {
  const w = t.trail;
  const typed = (name: string, value: string | null) => (typeof query[name] === 'string' ? (query[name] as string) : (value ?? ''));
  return html`<form method="get" action="/app/audit" class="filters" role="search" aria-label="${w.filter}">
<div><label for="audit-area">${w.area}</label><select id="audit-area" name="area"><option value="">${w.allAreas}</option>${AREAS.map((a) => html`<option value="${a}"${filter.area === a ? html` selected` : ''}>${w.areas[a]}</option>`)}</select></div>
<div><label for="audit-person">${w.person}</label><select id="audit-person" name="person"><option value="">${w.allPeople}</option>${people.map((p) => html`<option value="${p.id}"${filter.person === p.id ? html` selected` : ''}>${p.email}</option>`)}</select></div>
<div><label for="audit-from">${w.from}</label><input id="audit-from" name="from" type="date" value="${typed('from', filter.from)}"></div>
<div><label for="audit-to">${w.to}</label><input id="audit-to" name="to" type="date" value="${typed('to', filter.to)}"></div>
<div class="filter-actions"><button type="submit">${w.filter}</button><a href="/app/audit">${w.reset}</a><a href="/app/audit.csv${queryOf(filter)}" download>${w.exportCsv}</a></div>
</form>`;
}

async function auditPage(request: FastifyRequest, reply: FastifyReply, deps: WebDeps) {
  const member = memberOrNoCompanyPage(request, reply);
  if (!member) return reply;
  const t = request.t;
  const query = (request.query ?? {}) as Record<string, unknown>;
  const { filter, badDate } = filterOf(query);
  const raw = typeof query.before === 'string' ? query.before : '';
  const beforeSeq = /^\d{1,15}$/.test(raw) ? Number(raw) : undefined;
  const { organizationId, id: companyId, timezone } = member.company;
  const [entries, people] = await Promise.all([
    listEntries(deps.db, organizationId, companyId, timezone, filter, beforeSeq, PAGE + 1),
    peopleOf(deps.db, organizationId, companyId),
  ]);
  const rows = entries.slice(0, PAGE);
  const names = await nameSubjects(deps.db, t, companyId, organizationId, rows);
  const time = dateTimeFormat(timezone, 'medium');
  const filtered = filter.area || filter.person || filter.from || filter.to;
  const body = html`<p class="lead">${t.auditIntro}</p>
${filterForm(t, filter, people, query)}
${
  rows.length === 0
    ? html`<p class="empty">${filtered ? t.trail.noMatches : t.auditEmpty}</p>`
    : html`<div class="table-wrap"><table class="table audit">
<thead><tr><th scope="col">${t.when}</th><th scope="col">${t.who}</th><th scope="col">${t.what}</th><th scope="col">${t.subject}</th><th scope="col">${t.trail.changes}</th></tr></thead>
<tbody>${rows.map((e) => {
        const subject = subjectOf(names, e);
        const area = areaOf(e.action);
        return html`<tr><td class="nowrap">${time.format(e.at)}</td><td>${e.email}</td><td>${auditSentence(t, e.action, { who: e.email, subject: subject.name, before: e.before, after: e.after })}${area ? html`<br><span class="muted">${t.trail.areas[area]}</span>` : ''}</td><td>${subjectCell(subject)}</td><td>${changesCell(t, e)}</td></tr>`;
      })}</tbody></table></div>`
}
${entries.length > PAGE ? html`<nav class="paging" aria-label="${t.older}"><a href="/app/audit${queryOf(filter, { before: String(rows.at(-1)?.seq) })}" rel="next">${t.older}</a></nav>` : ''}`;
  const flash: Flash = badDate ? { kind: 'error', text: t.trail.badDate } : null;
  return sendPage(reply, page(shell(request, 'audit'), t.audit, body, flash), badDate ? 400 : 200);
}

/** A CSV cell for German Excel: quoted when needed; a leading = + - @ cannot start a formula. */
function cell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[;"\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** Values as "key: value; …", amounts (12.50) with a decimal comma, dates (2026-11-21) as 21.11.2026. */
function csvValues(values: Values): string {
  if (!values) return '';
  const german = (text: string) =>
    text.replace(/^(-?\d+)\.(\d{2})$/, '$1,$2').replace(/^(\d{4})-(\d{2})-(\d{2})$/, (_m, y: string, mo: string, d: string) => `${d}.${mo}.${y}`);
  return Object.entries(values)
    .map(([k, v]) => `${k}: ${german(shown(v))}`)
    .join('; ');
}

async function auditCsv(request: FastifyRequest, reply: FastifyReply, deps: WebDeps) {
  const member = memberOrNoCompanyPage(request, reply);
  if (!member) return reply;
  const t = request.t;
  const { filter, badDate } = filterOf((request.query ?? {}) as Record<string, unknown>);
  if (badDate) return auditPage(request, reply, deps);
  const { organizationId, id: companyId, timezone } = member.company;
  const rows = await listEntries(deps.db, organizationId, companyId, timezone, filter, undefined, CSV_LIMIT);
  const names = await nameSubjects(deps.db, t, companyId, organizationId, rows);
  const day = new Intl.DateTimeFormat('de-DE', { day: '2-digit', month: '2-digit', year: 'numeric', timeZone: timezone });
  const clock = new Intl.DateTimeFormat('de-DE', { hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23', timeZone: timezone });
  const lines = [t.trail.csvHeader.map(cell).join(';')];
  for (const e of rows) {
    const subject = subjectOf(names, e);
    const area = areaOf(e.action);
    lines.push(
      [
        day.format(e.at),
        clock.format(e.at),
        e.email,
        area ? t.trail.areas[area] : '',
        auditSentence(t, e.action, { who: e.email, subject: subject.name, before: e.before, after: e.after }),
        subject.name,
        csvValues(e.before),
        csvValues(e.after),
      ]
        .map(cell)
        .join(';'),
    );
  }
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', 'attachment; filename="protokoll.csv"')
    .header('cache-control', 'private, no-store')
    .send(`\uFEFF${lines.join('\r\n')}\r\n`);
}

export function registerAuditPage(web: FastifyInstance, deps: WebDeps): void {
  web.get('/audit', (request, reply) => auditPage(request, reply, deps));
  web.get('/audit.csv', (request, reply) => auditCsv(request, reply, deps));
}
