import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isScope, SCOPES, type Scope } from '../../modules/access/api-keys.ts';
import { ApiKeyError, createApiKey, listApiKeys, revokeApiKey } from '../../modules/access/manage-api-keys.ts';
import { calendarDate } from '../../shared/clock.ts';
import { html } from '../html.ts';
import { csrfField, type Flash, page } from '../layout.ts';
import { storeForDisplay, takeForDisplay } from '../session/secret-display.ts';
import { actorOf, redirect, sendPage, shell, type WebDeps } from '../web-request.ts';
import { date, dateTimeFormat, typedDate } from './money.ts';
import { memberOrNoCompanyPage } from './require-member.ts';

// API keys of the company (admins only): the list (prefix, scopes, creator, expiry, status;
// never the key or its hash), a key created with chosen scopes and an optional expiry date
// (end of that day in the company's time zone) and shown once by Post/Redirect/Get: the
// POST stores it sealed for this session and redirects to the list with the display's id
// (never the key) in the URL; that GET takes it out, so a reload shows it no more and
// creates no second key (session/secret-display.ts, issue 25) — and revocation,
// which the API refuses at once. Every change is in the audit trail (manage-api-keys.ts).

const KEY_ID = /^key_[0-9a-z]{26}$/;
const PAGE = 50;

type Typed = { scopes: string[]; expires: string };
type Created = { apiKey: string; scopes: string[]; expiresAt: string | null };

/** YYYY-MM-DD (the date field) or a German date (31.12.2027); null when it is neither. */
export function registerApiKeyPages(web: FastifyInstance, deps: WebDeps): void {
  const overview = async (request: FastifyRequest, reply: FastifyReply, flash: Flash = null, status = 200, typed?: Typed, created?: Created) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const t = request.t.keys;
    const zone = member.company.timezone;
    const raw = (request.query as { before?: string }).before;
    const beforeId = raw && KEY_ID.test(raw) ? raw : undefined;
    const keys = await listApiKeys(deps.db, deps.clock, member.company.id, { ...(beforeId ? { beforeId } : {}), limit: PAGE + 1 });
    const shown = keys.slice(0, PAGE);
    const time = dateTimeFormat(zone);
    const day = (iso: string | null) => (iso ? date(calendarDate(new Date(iso), zone)) : t.unlimited);
    const csrf = member.session.csrfToken;
    const invalid = status === 422;
    const checked = typed?.scopes ?? [];

    const createdBox = created
      ? html`<section class="panel warn" aria-labelledby="created-heading">
<h2 id="created-heading">${t.createdTitle}</h2>
<p><strong>${t.createdWarning}</strong></p>
<code class="secret" id="new-key">${created.apiKey}</code>
<p class="hint">${t.copyHint}</p>
<dl class="facts">
<div><dt>${t.scopes}</dt><dd>${created.scopes.map((s) => html`<code>${s}</code> `)}</dd></div>
<div><dt>${t.expires}</dt><dd>${created.expiresAt ? date(calendarDate(new Date(created.expiresAt), zone)) : t.unlimited}</dd></div>
</dl>
</section>`
      : '';

    const list =
      shown.length === 0
        ? html`<p class="empty">${t.noKeys}</p>`
        : html`<div class="table-wrap"><table class="table compact">
<thead><tr><th scope="col">${t.key}</th><th scope="col">${t.scopes}</th><th scope="col">${t.createdAt}</th><th scope="col">${t.expires}</th><th scope="col">${t.status}</th></tr></thead>
<tbody>${shown.map(
            (k) => html`<tr>
<td><span class="mono">${k.prefix}…</span><br><span class="hint mono">${k.id}</span></td>
<td><ul class="plain">${k.scopes.map((s) => html`<li><code title="${t.scopeMeanings[s] ?? ''}">${s}</code></li>`)}</ul></td>
<td class="wrap">${time.format(new Date(k.created_at))}<br><span class="hint">${t.by(k.creator_email)}</span></td>
<td>${day(k.expires_at)}</td>
<td><span class="badge${k.status === 'active' ? ' ok' : k.status === 'expired' ? ' warn' : ''}">${t.keyStatuses[k.status]}</span>${
              k.status === 'active' && k.creator_without_rights
                ? html` <span class="badge error" title="${t.creatorWithoutRightsHint}">${t.creatorWithoutRights}</span>`
                : ''
            }${
              k.status === 'revoked'
                ? ''
                : html`<form method="post" action="/app/api-keys/${k.id}/revoke" class="inline" data-confirm="${t.revokeConfirm(k.prefix)}">${csrfField(csrf)}<button type="submit" class="danger" aria-label="${t.revokeLabel(k.prefix)}">${t.revoke}</button></form>`
            }</td>
</tr>`,
          )}</tbody></table></div>
${keys.length > PAGE ? html`<nav class="paging"><a href="/app/api-keys?before=${shown.at(-1)?.id}" rel="next">${t.olderKeys}</a></nav>` : ''}`;

    const form = html`<section class="panel" aria-labelledby="create-heading"><h2 id="create-heading">${t.createKey}</h2>
<form method="post" action="/app/api-keys" class="form" data-progress="${t.creating}" novalidate>${csrfField(csrf)}
<fieldset><legend>${t.scopesLegend}</legend>${SCOPES.map(
      (s) =>
        html`<label class="check"><input type="checkbox" name="scope" value="${s}"${checked.includes(s) ? html` checked` : ''}> <span><code>${s}</code> – ${t.scopeMeanings[s]}</span></label>`,
    )}</fieldset>
<label for="expires">${t.expiresOptional}</label>
<input id="expires" name="expires" type="date" value="${typed?.expires ?? ''}" min="${deps.clock.today(zone)}" aria-describedby="expires-hint"${invalid && typed?.expires ? html` aria-invalid="true"` : ''}>
<p id="expires-hint" class="hint">${t.expiresHint}</p>
<button type="submit" class="primary">${t.createButton}</button>
</form></section>`;

    const body = html`${createdBox}<p class="lead">${t.apiKeysIntro}</p>
<div class="stack">${list}${form}</div>`;
    return sendPage(reply, page(shell(request, 'apiKeys'), t.apiKeys, body, flash), status);
  };

  web.get('/api-keys', { config: { adminOnly: true } }, async (request, reply) => {
    const query = request.query as { revoked?: string; shown?: string };
    if (query.shown !== undefined && request.member) {
      const created = await takeForDisplay<Created>(deps, request.member.session.id, 'api_key', query.shown);
      if (created) return overview(request, reply, null, 200, undefined, created);
      return overview(request, reply, { kind: 'error', text: `${request.t.steps.shownOnce}: ${request.t.steps.keyShownOnce}` });
    }
    return overview(request, reply, query.revoked === '1' ? { kind: 'ok', text: request.t.keys.revoked } : null);
  });

  web.post('/api-keys', { config: { adminOnly: true } }, async (request, reply) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const t = request.t.keys;
    const form = (request.body ?? {}) as Record<string, string | string[] | undefined>;
    const scopes = form.scope === undefined ? [] : Array.isArray(form.scope) ? form.scope : [form.scope];
    if (scopes.length > SCOPES.length * 2 || scopes.some((s) => !isScope(s)))
      return overview(request, reply, { kind: 'error', text: request.t.badRequest }, 400);
    const expiresText = String(form.expires ?? '')
      .trim()
      .slice(0, 20);
    const typed: Typed = { scopes, expires: expiresText };
    const refuse = (code: string) => overview(request, reply, { kind: 'error', text: t.keyErrors[code] ?? request.t.badRequest }, 422, typed);
    if (scopes.length === 0) return refuse('scopes_empty');
    const expiresOn = expiresText === '' ? undefined : typedDate(expiresText);
    if (expiresOn === null) return refuse('expiry_invalid');
    const chosen = [...new Set(scopes)] as Scope[];
    try {
      const created = await createApiKey(
        deps.db,
        deps.clock,
        {
          companyId: member.company.id,
          creatorEmail: member.session.email,
          scopes: chosen,
          ...(expiresOn ? { expiresOn, timeZone: member.company.timezone } : {}),
        },
        actorOf(member),
      );
      const row = await deps.db.selectFrom('api_keys').select('expires_at').where('id', '=', created.id).executeTakeFirstOrThrow();
      // Shown once, on the GET this redirects to (a reload shows only its prefix).
      const shown: Created = { apiKey: created.api_key, scopes: chosen, expiresAt: row.expires_at ? row.expires_at.toISOString() : null };
      return redirect(reply, `/app/api-keys?shown=${await storeForDisplay(deps, member.session.id, 'api_key', shown)}`);
    } catch (error) {
      if (error instanceof ApiKeyError) return refuse(error.code);
      throw error;
    }
  });

  web.post('/api-keys/:id/revoke', { config: { adminOnly: true } }, async (request, reply) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const { id } = request.params as { id: string };
    if (!KEY_ID.test(id)) return reply.callNotFound();
    try {
      await revokeApiKey(deps.db, deps.clock, id, { actor: actorOf(member), companyId: member.company.id });
    } catch (error) {
      if (error instanceof ApiKeyError && error.code === 'key_unknown') return reply.callNotFound();
      throw error;
    }
    deps.onKeyRevoked?.();
    return redirect(reply, '/app/api-keys?revoked=1');
  });
}
