import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { listPeriodLocks, lockPeriod, PeriodLockRefused } from '../../modules/bookkeeping/lock-period.ts';
import { html } from '../html.ts';
import { csrfField, type Flash, page } from '../layout.ts';
import { actorOf, redirect, sendPage, shell, type WebDeps } from '../web-request.ts';
import { date, dateTimeFormat, typedDate } from './money.ts';
import { memberOrNoCompanyPage } from './require-member.ts';

// Accounting period locks (GoBD "Festschreibung", lock-period.ts): the locks set so far, who
// set them and when, and the form that moves the lock forward — final, never back, never
// past today; the form asks before it sends. Admins only, as the other settings.

/** A typed date: 2026-10-31 (the date field) or 31.10.2026 (typed by hand); null when it is none. */
export function registerPeriodLockPages(web: FastifyInstance, deps: WebDeps): void {
  const render = async (request: FastifyRequest, reply: FastifyReply, flash: Flash = null, status = 200, typed?: string) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const t = request.t;
    const p = t.settings.periodLocks;
    const locks = await listPeriodLocks(deps.db, member.company.id);
    const today = deps.clock.today(member.company.timezone);
    const time = dateTimeFormat(member.company.timezone);
    const invalid = status === 422;
    const body = html`<p class="lead">${p.intro}</p>
<p class="strong">${locks.locked_until ? p.lockedUntil(date(locks.locked_until)) : p.nothingLocked}</p>
<section class="panel" aria-labelledby="lock-heading"><h2 id="lock-heading">${p.lockHeading}</h2>
<form method="post" action="/app/settings/period-locks" class="form" data-confirm="${p.confirm}" novalidate>
${csrfField(member.session.csrfToken)}
<label for="until">${p.lock}</label>
<input id="until" name="until" type="date" required max="${today}"${locks.locked_until ? html` min="${locks.locked_until}"` : ''} value="${typed ?? ''}" aria-describedby="until-hint"${invalid ? html` aria-invalid="true"` : ''}>
<p id="until-hint" class="hint">${p.lockHint(date(today))}</p>
<button type="submit" class="danger">${p.lockButton}</button>
</form></section>
${
  locks.history.length === 0
    ? ''
    : html`<h2>${p.history}</h2>
<div class="table-wrap"><table class="table">
<thead><tr><th scope="col">${p.until}</th><th scope="col">${p.previous}</th><th scope="col">${p.at}</th><th scope="col">${p.by}</th></tr></thead>
<tbody>${[...locks.history]
        .reverse()
        .map(
          (lock) =>
            html`<tr><td>${date(lock.locked_until)}</td><td>${date(lock.previous_until)}</td><td>${time.format(new Date(lock.locked_at))}</td><td>${lock.locked_by_email ?? html`<span class="muted">${p.commandLine}</span>`}</td></tr>`,
        )}</tbody></table></div>`
}
<p><a href="/app/settings">← ${t.settings.backToSettings}</a></p>`;
    return sendPage(reply, page(shell(request, 'settings'), p.title, body, flash), status);
  };

  web.get('/settings/period-locks', { config: { adminOnly: true } }, async (request, reply) => {
    const done = (request.query as { done?: string }).done;
    const member = request.member;
    if (!member || (done !== 'locked' && done !== 'unchanged')) return render(request, reply);
    const { locked_until } = await listPeriodLocks(deps.db, member.company.id);
    const p = request.t.settings.periodLocks;
    return render(request, reply, locked_until ? { kind: 'ok', text: (done === 'locked' ? p.locked : p.unchanged)(date(locked_until)) } : null);
  });

  web.post('/settings/period-locks', { config: { adminOnly: true } }, async (request, reply) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const p = request.t.settings.periodLocks;
    const raw = (request.body as Record<string, unknown> | undefined)?.until;
    const typed = String((Array.isArray(raw) ? raw[0] : raw) ?? '')
      .trim()
      .slice(0, 32);
    const until = typedDate(typed);
    if (!until) return render(request, reply, { kind: 'error', text: p.badDate }, 422, typed);
    try {
      const result = await lockPeriod(deps.db, deps.clock, { companyId: member.company.id, until, actor: actorOf(member) });
      return redirect(reply, `/app/settings/period-locks?done=${result.changed ? 'locked' : 'unchanged'}`);
    } catch (error) {
      if (error instanceof PeriodLockRefused)
        return render(request, reply, { kind: 'error', text: request.lang === 'de' ? error.de : error.message }, 422, typed);
      throw error;
    }
  });
}
