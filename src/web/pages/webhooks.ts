import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { WebhookDeliveryStatus } from '../../db/schema-webhooks.ts';
import {
  addWebhookEndpoint,
  canResend,
  DELIVERY_STATUSES,
  EVENT_KINDS,
  listWebhookDeliveries,
  listWebhookEndpoints,
  removeWebhookEndpoint,
  resendWebhookDelivery,
  type WebhookDeliveryView,
  WebhookError,
  WebhookUrlError,
} from '../../modules/webhooks/index.ts';
import { type Html, html } from '../html.ts';
import { csrfField, type Flash, page } from '../layout.ts';
import { storeForDisplay, takeForDisplay } from '../session/secret-display.ts';
import { actorOf, redirect, sendPage, shell, type WebDeps } from '../web-request.ts';
import { dateTimeFormat } from './money.ts';
import { memberOrNoCompanyPage } from './require-member.ts';

// Webhook endpoints of the company (admins only): the list, adding one (the URL checked by
// checkWebhookUrl, the event kinds as checkboxes, none = every kind) with its signing secret
// shown once by Post/Redirect/Get (stored sealed for this session, taken out by the GET it
// redirects to: a reload shows it no more and adds nothing; session/secret-display.ts), removal, and an endpoint's page with its deliveries
// (newest first, paged by key, each with every attempt) where a failed delivery is sent
// again. Every change is in the audit trail, written by the module in the change's
// transaction; the secret never is.

const ENDPOINT_ID = /^whe_[0-9a-z]{26}$/;
const DELIVERY_ID = /^\d{1,15}$/;
const PAGE = 50;

type Typed = { url: string; events: string[] };

export function registerWebhookPages(web: FastifyInstance, deps: WebDeps): void {
  const eventList = (t: FastifyRequest['t']['keys'], events: readonly string[]): Html =>
    events.length === 0
      ? html`${t.allEvents}`
      : html`<ul class="plain">${events.map((e) => html`<li><code title="${t.eventMeanings[e] ?? ''}">${e}</code></li>`)}</ul>`;

  const endpointBadge = (t: FastifyRequest['t']['keys'], status: string): Html =>
    html`<span class="badge${status === 'active' ? ' ok' : status === 'failing' ? ' error' : ''}">${t.endpointStatuses[status] ?? status}</span>`;

  const overview = async (
    request: FastifyRequest,
    reply: FastifyReply,
    flash: Flash = null,
    status = 200,
    typed?: Typed,
    secret?: { id: string; secret: string },
  ) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const t = request.t.keys;
    const csrf = member.session.csrfToken;
    const time = dateTimeFormat(member.company.timezone);
    const endpoints = await listWebhookEndpoints(deps.db, member.company.id);
    const chosen = typed?.events ?? [];

    const secretBox = secret
      ? html`<section class="panel warn" aria-labelledby="secret-heading">
<h2 id="secret-heading">${t.secretTitle}</h2>
<p><strong>${t.secretWarning}</strong></p>
<code class="secret" id="new-secret">${secret.secret}</code>
<p class="hint">${t.secretCopyHint}</p>
<p><a href="/app/webhooks/${secret.id}">${t.showDeliveries}</a></p>
</section>`
      : '';

    const list =
      endpoints.length === 0
        ? html`<p class="empty">${t.noEndpoints}</p>`
        : html`<div class="table-wrap"><table class="table">
<thead><tr><th scope="col">${t.url}</th><th scope="col">${t.events}</th><th scope="col">${t.addedAt}</th><th scope="col">${t.status}</th><th scope="col"><span class="visually-hidden">${t.remove}</span></th></tr></thead>
<tbody>${endpoints.map(
            (e) => html`<tr>
<td class="wrap"><a href="/app/webhooks/${e.id}"><span class="mono">${e.url}</span></a></td>
<td>${eventList(t, e.events)}</td>
<td>${time.format(new Date(e.created_at))}</td>
<td>${endpointBadge(t, e.status)}${e.failing_since ? html`<br><span class="hint">${t.failingSince(time.format(new Date(e.failing_since)))}</span>` : ''}</td>
<td><form method="post" action="/app/webhooks/${e.id}/remove" class="inline" data-confirm="${t.removeConfirm(e.url)}">${csrfField(csrf)}<button type="submit" class="danger" aria-label="${t.removeLabel(e.url)}">${t.remove}</button></form></td>
</tr>`,
          )}</tbody></table></div>`;

    const invalid = status === 422;
    const form = html`<section class="panel" aria-labelledby="add-heading"><h2 id="add-heading">${t.addEndpoint}</h2>
<form method="post" action="/app/webhooks" class="form" data-progress="${t.adding}" novalidate>${csrfField(csrf)}
<label for="url">${t.url}</label>
<input id="url" name="url" type="url" inputmode="url" autocomplete="off" spellcheck="false" maxlength="2048" value="${typed?.url ?? ''}" placeholder="https://" aria-describedby="url-hint"${invalid ? html` aria-invalid="true"` : ''}>
<p id="url-hint" class="hint">${t.urlHint}</p>
<fieldset aria-describedby="events-hint"><legend>${t.eventsLegend}</legend>
<p id="events-hint" class="hint">${t.eventsHint}</p>
${EVENT_KINDS.map(
  (kind) =>
    html`<label class="check"><input type="checkbox" name="event" value="${kind}"${chosen.includes(kind) ? html` checked` : ''}> <span><code>${kind}</code> – ${t.eventMeanings[kind] ?? ''}</span></label>`,
)}</fieldset>
<button type="submit" class="primary">${t.addButton}</button>
</form></section>`;

    const body = html`${secretBox}<p class="lead">${t.webhooksIntro}</p>
<div class="stack">${list}${form}</div>`;
    return sendPage(reply, page(shell(request, 'webhooks'), t.webhooks, body, flash), status);
  };

  const detail = async (request: FastifyRequest, reply: FastifyReply, flash: Flash = null, status = 200) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const t = request.t.keys;
    const { id } = request.params as { id: string };
    if (!ENDPOINT_ID.test(id)) return reply.callNotFound();
    const endpoint = await deps.db
      .selectFrom('webhook_endpoints')
      .select(['id', 'url', 'event_types', 'status', 'failing_since', 'removed_at', 'created_at'])
      .where('company_id', '=', member.company.id)
      .where('id', '=', id)
      .executeTakeFirst();
    if (!endpoint) return reply.callNotFound();
    const query = request.query as { status?: string; before?: string };
    const statusFilter = DELIVERY_STATUSES.includes(query.status as WebhookDeliveryStatus) ? (query.status as WebhookDeliveryStatus) : undefined;
    const beforeSeq = query.before && /^\d{1,15}$/.test(query.before) ? Number(query.before) : undefined;
    const deliveries = await listWebhookDeliveries(deps.db, {
      companyId: member.company.id,
      endpointId: endpoint.id,
      ...(statusFilter ? { status: statusFilter } : {}),
      ...(beforeSeq !== undefined ? { beforeSeq } : {}),
      limit: PAGE + 1,
    });
    const shown = deliveries.slice(0, PAGE);
    const time = dateTimeFormat(member.company.timezone, 'medium');
    const csrf = member.session.csrfToken;
    const removed = endpoint.status === 'removed';
    // Retries are due in transport (real) time, like every webhook time (modules/webhooks/README.md).
    const now = new Date();

    const deliveryBadge = (d: WebhookDeliveryView) => {
      const key = d.status === 'pending' && d.attempt_count > 0 ? 'retrying' : d.status;
      const tone = { delivered: ' ok', retrying: ' warn', failed: ' error' }[key as string] ?? '';
      return html`<span class="badge${tone}">${t.deliveryStatuses[key] ?? key}</span>`;
    };
    const answerOf = (status: number | null, error: string | null): Html => {
      if (status === null && error === null) return html`–`;
      const shownError = error !== null && error !== `HTTP ${status}` ? error : null;
      return html`${status !== null ? t.httpStatus(status) : t.noAnswer}${shownError ? html`<br><span class="hint">${shownError}</span>` : ''}`;
    };
    const attemptsOf = (d: WebhookDeliveryView): Html =>
      d.attempts.length === 0
        ? html`${d.attempt_count}`
        : html`<details><summary>${t.attemptsSummary(d.attempt_count)}</summary><ol class="plain">${d.attempts.map(
            (a) =>
              html`<li>${t.attemptNo} ${a.attempt} · ${time.format(new Date(a.started_at))} · ${answerOf(a.response_status, a.error)}${
                a.duration_ms === null ? '' : html` · ${t.ms(a.duration_ms)}`
              }</li>`,
          )}</ol></details>`;

    const filter = html`<form method="get" action="/app/webhooks/${endpoint.id}" class="inline">
<label for="status-filter">${t.filterStatus}</label>
<select id="status-filter" name="status"><option value="">${t.allStatuses}</option>${DELIVERY_STATUSES.map(
      (s) => html`<option value="${s}"${statusFilter === s ? html` selected` : ''}>${t.deliveryStatuses[s]}</option>`,
    )}</select>
<button type="submit">${t.filter}</button></form>`;

    const table =
      shown.length === 0
        ? html`<p class="empty">${statusFilter ? t.noDeliveriesFiltered : t.noDeliveries}</p>`
        : html`<div class="table-wrap"><table class="table">
<thead><tr><th scope="col">${t.event}</th><th scope="col">${t.status}</th><th scope="col">${t.attempts}</th><th scope="col">${t.lastAnswer}</th><th scope="col">${t.nextAttempt}</th><th scope="col"><span class="visually-hidden">${t.resend}</span></th></tr></thead>
<tbody>${shown.map(
            (d) => html`<tr>
<td><code title="${t.eventMeanings[d.event_type] ?? ''}">${d.event_type}</code><br><span class="hint mono">${d.event_id}</span></td>
<td>${deliveryBadge(d)}</td>
<td class="wrap">${attemptsOf(d)}</td>
<td class="wrap">${answerOf(d.last_response_status, d.last_error)}</td>
<td>${d.next_attempt_at ? time.format(new Date(d.next_attempt_at)) : '–'}</td>
<td>${
              !removed && canResend(d, now)
                ? html`<form method="post" action="/app/webhooks/${endpoint.id}/deliveries/${d.id}/resend" class="inline">${csrfField(csrf)}<button type="submit" aria-label="${t.resendLabel(d.event_type, d.event_id)}">${t.resend}</button></form>`
                : ''
            }</td>
</tr>`,
          )}</tbody></table></div>
${
  deliveries.length > PAGE
    ? html`<nav class="paging"><a href="/app/webhooks/${endpoint.id}?${new URLSearchParams({ ...(statusFilter ? { status: statusFilter } : {}), before: String(shown.at(-1)?.event_seq) }).toString()}" rel="next">${t.olderDeliveries}</a></nav>`
    : ''
}`;

    const body = html`<p>${t.url}: <span class="mono">${endpoint.url}</span></p>
<dl class="facts">
<div><dt>${t.events}</dt><dd>${eventList(t, endpoint.event_types)}</dd></div>
<div><dt>${t.status}</dt><dd>${endpointBadge(t, endpoint.status)}${
      endpoint.failing_since ? html` <span class="hint">${t.failingSince(time.format(endpoint.failing_since))}</span>` : ''
    }${endpoint.removed_at ? html` <span class="hint">${t.removedAt(time.format(endpoint.removed_at))}</span>` : ''}</dd></div>
<div><dt>${t.addedAt}</dt><dd>${time.format(endpoint.created_at)}</dd></div>
</dl>
${endpoint.status === 'failing' ? html`<p class="hint">${t.failingHint}</p>` : ''}
<section aria-labelledby="deliveries-heading"><h2 id="deliveries-heading">${t.deliveries}</h2>
${filter}
${table}
</section>
${
  removed
    ? ''
    : html`<form method="post" action="/app/webhooks/${endpoint.id}/remove" data-confirm="${t.removeConfirm(endpoint.url)}">${csrfField(csrf)}<button type="submit" class="danger">${t.removeLabel(endpoint.url)}</button></form>`
}
<p><a href="/app/webhooks">← ${t.backToWebhooks}</a></p>`;
    return sendPage(reply, page(shell(request, 'webhooks'), t.endpoint, body, flash), status);
  };

  web.get('/webhooks', { config: { adminOnly: true } }, async (request, reply) => {
    const query = request.query as { removed?: string; shown?: string };
    if (query.shown !== undefined && request.member) {
      const added = await takeForDisplay<{ id: string; secret: string }>(deps, request.member.session.id, 'webhook_secret', query.shown);
      if (added) return overview(request, reply, null, 200, undefined, added);
      return overview(request, reply, { kind: 'error', text: `${request.t.steps.shownOnce}: ${request.t.steps.secretShownOnce}` });
    }
    return overview(request, reply, query.removed === '1' ? { kind: 'ok', text: request.t.keys.removed } : null);
  });

  web.post('/webhooks', { config: { adminOnly: true } }, async (request, reply) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const t = request.t.keys;
    const form = (request.body ?? {}) as Record<string, string | string[] | undefined>;
    const events = form.event === undefined ? [] : Array.isArray(form.event) ? form.event : [form.event];
    if (events.length > EVENT_KINDS.length * 2 || events.some((e) => !EVENT_KINDS.includes(e)))
      return overview(request, reply, { kind: 'error', text: request.t.badRequest }, 400);
    const url = String(form.url ?? '').slice(0, 4096);
    const typed: Typed = { url, events };
    if (url.trim() === '') return overview(request, reply, { kind: 'error', text: t.urlMissing }, 422, typed);
    try {
      const added = await addWebhookEndpoint(deps.db, deps.clock, deps.sealer, { companyId: member.company.id, url, events }, actorOf(member));
      // The secret is shown once, on the GET this redirects to; it is in no URL.
      const shown = await storeForDisplay(deps, member.session.id, 'webhook_secret', { id: added.id, secret: added.secret });
      return redirect(reply, `/app/webhooks?shown=${shown}`);
    } catch (error) {
      if (error instanceof WebhookUrlError) return overview(request, reply, { kind: 'error', text: t.urlProblems[error.problem] ?? t.urlMissing }, 422, typed);
      throw error;
    }
  });

  web.post('/webhooks/:id/remove', { config: { adminOnly: true } }, async (request, reply) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const { id } = request.params as { id: string };
    if (!ENDPOINT_ID.test(id)) return reply.callNotFound();
    try {
      await removeWebhookEndpoint(deps.db, deps.clock, id, actorOf(member));
    } catch (error) {
      if (error instanceof WebhookError && error.code === 'endpoint_unknown') return reply.callNotFound();
      // Removed meanwhile (a second click, another admin): it is gone as asked.
      if (!(error instanceof WebhookError && error.code === 'endpoint_removed')) throw error;
    }
    return redirect(reply, '/app/webhooks?removed=1');
  });

  web.get('/webhooks/:id', { config: { adminOnly: true } }, async (request, reply) =>
    detail(request, reply, (request.query as { resent?: string }).resent === '1' ? { kind: 'ok', text: request.t.keys.resent } : null),
  );

  web.post('/webhooks/:id/deliveries/:deliveryId/resend', { config: { adminOnly: true } }, async (request, reply) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const { id, deliveryId } = request.params as { id: string; deliveryId: string };
    if (!ENDPOINT_ID.test(id) || !DELIVERY_ID.test(deliveryId)) return reply.callNotFound();
    const delivery = await deps.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('company_id', '=', member.company.id)
      .where('endpoint_id', '=', id)
      .where('id', '=', Number(deliveryId))
      .executeTakeFirst();
    if (!delivery) return reply.callNotFound();
    try {
      await resendWebhookDelivery(deps.db, deps.clock, actorOf(member), { companyId: member.company.id, deliveryId: delivery.id });
    } catch (error) {
      if (error instanceof WebhookError && error.code === 'delivery_unknown') return reply.callNotFound();
      if (error instanceof WebhookError)
        return detail(request, reply, { kind: 'error', text: request.t.keys.webhookErrors[error.code] ?? request.t.badRequest }, 422);
      throw error;
    }
    return redirect(reply, `/app/webhooks/${id}?resent=1`);
  });
}
