import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { serverErrorLog } from '../shared/error-for-log.ts';
import { ASSETS, SECURITY_HEADERS } from './assets.ts';
import { html } from './html.ts';
import { barePage } from './layout.ts';
import { registerAccountPages } from './pages/account.ts';
import { registerApiKeyPages } from './pages/api-keys.ts';
import { registerAttributionPages } from './pages/attributions.ts';
import { registerAuditPage } from './pages/audit.ts';
import { registerBankPages } from './pages/bank.ts';
import { registerContractPages } from './pages/contracts.ts';
import { registerCustomerPages } from './pages/customers.ts';
import { registerDashboardPage } from './pages/dashboard.ts';
import { registerDunningPages } from './pages/dunning.ts';
import { registerExportPages } from './pages/exports.ts';
import { registerInvoiceDetailPages } from './pages/invoice-detail.ts';
import { registerInvoiceDraftPages } from './pages/invoice-drafts.ts';
import { registerInvoicePages } from './pages/invoices.ts';
import { formatIn } from './pages/money.ts';
import { registerPartnerPages } from './pages/partners.ts';
import { registerPayoutPages } from './pages/payouts.ts';
import { registerSettingsPages } from './pages/settings.ts';
import { registerStatementPages } from './pages/statements.ts';
import { registerTaxPages } from './pages/tax.ts';
import { registerGobdPages } from './pages/tax-gobd.ts';
import { registerUserPages } from './pages/users.ts';
import { registerWebhookPages } from './pages/webhooks.ts';
import { foreignOrigin, sameOrigin, tokenMatches } from './session/csrf.ts';
import { registerFormTokens } from './session/form-tokens.ts';
import { findSession } from './session/sessions.ts';
import { reachableCompanies } from './session/sign-in.ts';
import { LANG_COOKIE, SESSION_COOKIE, sendPage, setLang, type WebDeps } from './web-request.ts';

export type { WebDeps } from './web-request.ts';

// The back-office app under /app (design §7): server-rendered pages over the same module
// operations as the API and the command line. Sessions in HttpOnly SameSite cookies backed
// by app_sessions; every POST carries the session's CSRF token; pages need a session,
// some the admin role; a person only ever sees the companies they belong to.

export async function registerWebApp(app: FastifyInstance, deps: WebDeps): Promise<void> {
  await app.register(
    async (web) => {
      await web.register(cookie);
      await web.register(formbody, { bodyLimit: 64 * 1024 });
      // The app's pages are no part of the API's OpenAPI document.
      web.addHook('onRoute', (route) => {
        route.schema = { ...(route.schema ?? {}), hide: true };
      });
      web.decorateRequest('lang', 'de');
      web.decorateRequest('t', null as never);
      web.decorateRequest('session', null);
      web.decorateRequest('member', null);

      web.addHook('onRequest', async (request, reply) => {
        reply.headers(SECURITY_HEADERS);
        setLang(request);
        if (request.routeOptions.config.public) return;
        const session = await findSession(deps.db, deps.clock, request.cookies[SESSION_COOKIE]);
        if (!session) return signInFirst(request, reply);
        request.session = session;
        if (request.method !== 'GET' && request.method !== 'HEAD') return; // checked after the body is read
        await loadMember(request, reply, deps);
      });
      // Amounts and dates of everything that follows are written in the page's language (money.ts).
      web.addHook('preHandler', (request, _reply, done) => formatIn(request.lang, done));
      web.addHook('preHandler', async (request, reply) => {
        if (request.routeOptions.config.public || request.method === 'GET' || request.method === 'HEAD') return;
        if (!request.session) return;
        // A file upload's token arrives among its parts: the upload's handler checks it (bank.ts); its Origin is checked here.
        if (String(request.headers['content-type'] ?? '').startsWith('multipart/form-data'))
          return foreignOrigin(request) ? refuseForm(request, reply) : loadMember(request, reply, deps);
        const body = request.body as Record<string, unknown> | undefined;
        const token = body?._csrf ?? request.headers['x-csrf-token'];
        if (!tokenMatches(request.session.csrfToken, token) || foreignOrigin(request)) {
          return sendPage(
            reply,
            barePage(request.lang, request.t, request.t.csrfFailed, html`<p><a href="/app/dashboard">${request.t.dashboard}</a></p>`),
            403,
          );
        }
        await loadMember(request, reply, deps);
      });
      // After the CSRF check: a form's one-time token is claimed; a form sent again is answered here.
      registerFormTokens(web, deps);

      web.get('/assets/:name', { config: { public: true } }, async (request, reply) => {
        const asset = ASSETS[(request.params as { name: string }).name];
        if (!asset) return reply.code(404).type('text/plain').send('not found');
        return reply.type(asset.type).header('cache-control', 'no-cache').send(asset.body);
      });
      web.get('/lang', { config: { public: true } }, async (request, reply) => {
        const to = (request.query as { to?: string }).to === 'en' ? 'en' : 'de';
        // Back to the page it came from; a Referer that is no URL or from elsewhere is ignored.
        const referer = URL.parse(request.headers.referer ?? '');
        const back = referer && sameOrigin(referer.origin, request.headers.host) ? referer.pathname : '/app';
        return reply
          .setCookie(LANG_COOKIE, to, { path: '/app', sameSite: 'lax', httpOnly: true, maxAge: 365 * 24 * 3600 })
          .code(303)
          .header('location', back.startsWith('/app') ? back : '/app')
          .send();
      });
      web.get('/', { config: { public: true } }, async (_request, reply) => reply.code(303).header('location', '/app/dashboard').send());

      registerAccountPages(web, deps);
      registerDashboardPage(web, deps);
      registerInvoicePages(web, deps);
      registerInvoiceDetailPages(web, deps.invoicing);
      registerUserPages(web, deps);
      registerAuditPage(web, deps);
      registerPartnerPages(web, deps);
      registerPayoutPages(web, deps);
      registerBankPages(web, deps);
      registerSettingsPages(web, deps);
      registerApiKeyPages(web, deps);
      registerWebhookPages(web, deps);
      registerCustomerPages(web, deps);
      registerContractPages(web, deps);
      registerStatementPages(web, deps);
      registerAttributionPages(web, deps);
      registerInvoiceDraftPages(web, deps);
      registerDunningPages(web, deps);
      registerExportPages(web, deps);
      registerTaxPages(web, deps);
      registerGobdPages(web, deps);

      web.setNotFoundHandler((request, reply) => {
        setLang(request);
        return sendPage(reply, barePage(request.lang, request.t, request.t.notFound, html`<p><a href="/app/dashboard">${request.t.dashboard}</a></p>`), 404);
      });
      web.setErrorHandler((error, request, reply) => {
        const status = (error as { statusCode?: number }).statusCode;
        if (status && status >= 400 && status < 500) {
          return sendPage(
            reply,
            barePage(request.lang ?? 'de', request.t, request.t.badRequest, html`<p><a href="/app/dashboard">${request.t.dashboard}</a></p>`),
            status,
          );
        }
        request.log.error(serverErrorLog(error as Error), 'app page failed');
        return sendPage(
          reply,
          barePage(request.lang ?? 'de', request.t, request.t.serverError, html`<p><a href="/app/dashboard">${request.t.dashboard}</a></p>`),
          500,
        );
      });
    },
    { prefix: '/app' },
  );
}

/** A refused change (no CSRF token, a foreign Origin): 403 with a German page; the session and its cookie stay. */
function refuseForm(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendPage(reply, barePage(request.lang, request.t, request.t.csrfFailed, html`<p><a href="/app/dashboard">${request.t.dashboard}</a></p>`), 403);
}

async function signInFirst(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  // A cross-site form arrives without the SameSite cookie: refused, and the cookie the
  // browser holds is left alone (clearing it would sign the person out from elsewhere).
  if (request.method !== 'GET' && request.method !== 'HEAD' && foreignOrigin(request)) return refuseForm(request, reply);
  const hadSession = Boolean(request.cookies[SESSION_COOKIE]);
  if (hadSession) reply.clearCookie(SESSION_COOKIE, { path: '/app' });
  if (request.method === 'GET') {
    const next = request.url.startsWith('/app/') && request.url.length < 500 ? request.url : '/app/dashboard';
    return reply
      .code(303)
      .header('location', `/app/sign-in?${new URLSearchParams({ next, ...(hadSession ? { ended: '1' } : {}) })}`)
      .send();
  }
  return reply
    .code(303)
    .header('location', `/app/sign-in${hadSession ? '?ended=1' : ''}`)
    .send();
}

/** The session's company and role; a person who must change the password sees only that page. */
async function loadMember(request: FastifyRequest, reply: FastifyReply, deps: WebDeps): Promise<unknown> {
  const session = request.session;
  if (!session) return;
  if (session.passwordChangeRequired && !request.url.startsWith('/app/password') && !request.url.startsWith('/app/sign-out')) {
    return reply.code(303).header('location', '/app/password').send();
  }
  const companies = await reachableCompanies(deps.db, session.userId);
  const company = companies.find((c) => c.id === session.companyId) ?? companies[0];
  if (!company) {
    request.member = null;
    return;
  }
  request.member = {
    session,
    role: company.role as 'admin' | 'member',
    company: { id: company.id, name: company.name, organizationId: company.organization_id, timezone: company.timezone },
    companies: companies.map((c) => ({ id: c.id, name: c.name })),
  };
  if (request.routeOptions.config.adminOnly && request.member.role !== 'admin') {
    return sendPage(reply, barePage(request.lang, request.t, request.t.forbidden, html`<p><a href="/app/dashboard">${request.t.dashboard}</a></p>`), 403);
  }
}
