import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { findPortalSession } from '../../modules/portal/index.ts';
import { serverErrorLog } from '../../shared/error-for-log.ts';
import { ASSETS, SECURITY_HEADERS } from '../assets.ts';
import { html } from '../html.ts';
import { formatIn } from '../pages/money.ts';
import { foreignOrigin, sameOrigin, tokenMatches } from '../session/csrf.ts';
import { portalAccountPage, registerPortalAccessPages } from './pages/access.ts';
import { registerPortalAgreementPage } from './pages/agreements.ts';
import { registerPortalChangeRequestRoutes } from './pages/change-requests.ts';
import { registerPortalLedgerPages } from './pages/ledger.ts';
import { registerPortalOverviewPage } from './pages/overview.ts';
import { registerPortalPayoutPage } from './pages/payouts.ts';
import { registerPortalStatementPages } from './pages/statements.ts';
import { portalBarePage } from './portal-layout.ts';
import { PORTAL_COOKIE, PORTAL_LANG_COOKIE, type PortalDeps, portalRequest, sendPage } from './portal-request.ts';

export type { PortalDeps } from './portal-request.ts';

// The partner portal under /portal (issue 27): a company's revenue-share partner signs in
// with an account of its own kind (partner_accounts, portal_sessions) and sees only its own
// partner of its own company. As strict as the app (web/index.ts): sessions in an HttpOnly
// SameSite cookie scoped to /portal, a CSRF token on every POST and the Origin checked,
// the same security headers, the same password rules and throttling (with keys of its
// own). A portal session opens nothing under /app or /v1: those look up their own tables.

export async function registerPartnerPortal(app: FastifyInstance, deps: PortalDeps): Promise<void> {
  await app.register(
    async (portal) => {
      await portal.register(cookie);
      await portal.register(formbody, { bodyLimit: 64 * 1024 });
      portal.addHook('onRoute', (route) => {
        route.schema = { ...(route.schema ?? {}), hide: true };
      });
      portal.decorateRequest('portal', null as never);

      portal.addHook('onRequest', async (request, reply) => {
        reply.headers(SECURITY_HEADERS);
        request.portal = portalRequest(request);
        if (request.routeOptions.config.public) return;
        const session = await findPortalSession(deps.db, deps.clock, request.cookies[PORTAL_COOKIE]);
        if (!session) return signInFirst(request, reply);
        request.portal.session = session;
      });
      portal.addHook('preHandler', (request, _reply, done) => formatIn(request.portal.lang, done));
      portal.addHook('preHandler', async (request, reply) => {
        if (request.routeOptions.config.public || request.method === 'GET' || request.method === 'HEAD') return;
        const session = request.portal.session;
        if (!session) return;
        // An upload's token arrives among its parts: its handler checks it; the Origin is checked here.
        if (String(request.headers['content-type'] ?? '').startsWith('multipart/form-data')) return foreignOrigin(request) ? refuse(request, reply) : undefined;
        const body = request.body as Record<string, unknown> | undefined;
        if (!tokenMatches(session.csrfToken, body?._csrf ?? request.headers['x-csrf-token']) || foreignOrigin(request)) return refuse(request, reply);
      });

      portal.get('/assets/:name', { config: { public: true } }, async (request, reply) => {
        const asset = ASSETS[(request.params as { name: string }).name];
        if (!asset) return reply.code(404).type('text/plain').send('not found');
        return reply.type(asset.type).header('cache-control', 'no-cache').send(asset.body);
      });
      portal.get('/lang', { config: { public: true } }, async (request, reply) => {
        const to = (request.query as { to?: string }).to === 'en' ? 'en' : 'de';
        const referer = URL.parse(request.headers.referer ?? '');
        const back = referer && sameOrigin(referer.origin, request.headers.host) ? referer.pathname : '/portal';
        return reply
          .setCookie(PORTAL_LANG_COOKIE, to, { path: '/portal', sameSite: 'lax', httpOnly: true, maxAge: 365 * 24 * 3600 })
          .code(303)
          .header('location', back.startsWith('/portal') ? back : '/portal')
          .send();
      });
      portal.get('/', async (_request, reply) => reply.code(303).header('location', '/portal/overview').send());

      registerPortalAccessPages(portal, deps);
      registerPortalOverviewPage(portal, deps);
      registerPortalLedgerPages(portal, deps);
      registerPortalAgreementPage(portal, deps);
      registerPortalStatementPages(portal, deps);
      registerPortalPayoutPage(portal, deps);
      registerPortalChangeRequestRoutes(portal, deps, (request, flash, refused) => portalAccountPage(deps, request, flash, refused));

      portal.setNotFoundHandler((request, reply) => {
        request.portal ??= portalRequest(request);
        const { t } = request.portal;
        return sendPage(reply, portalBarePage(request.portal, t.notFound, html`<p><a href="/portal/overview">${t.toOverview}</a></p>`), 404);
      });
      portal.setErrorHandler((error, request, reply) => {
        request.portal ??= portalRequest(request);
        const { t } = request.portal;
        const status = (error as { statusCode?: number }).statusCode;
        if (status && status >= 400 && status < 500)
          return sendPage(reply, portalBarePage(request.portal, t.badRequest, html`<p><a href="/portal/overview">${t.toOverview}</a></p>`), status);
        request.log.error(serverErrorLog(error as Error), 'portal page failed');
        return sendPage(reply, portalBarePage(request.portal, t.serverError, html`<p><a href="/portal/overview">${t.toOverview}</a></p>`), 500);
      });
    },
    { prefix: '/portal' },
  );
}

function refuse(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const { t } = request.portal;
  return sendPage(reply, portalBarePage(request.portal, t.csrfFailed, html`<p><a href="/portal/overview">${t.toOverview}</a></p>`), 403);
}

async function signInFirst(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  if (request.method !== 'GET' && request.method !== 'HEAD' && foreignOrigin(request)) return refuse(request, reply);
  const hadSession = Boolean(request.cookies[PORTAL_COOKIE]);
  if (hadSession) reply.clearCookie(PORTAL_COOKIE, { path: '/portal' });
  if (request.method === 'GET') {
    const next = request.url.startsWith('/portal/') && request.url.length < 500 ? request.url : '/portal/overview';
    const query = new URLSearchParams({ next });
    if (hadSession) query.set('ended', '1');
    return reply.code(303).header('location', `/portal/sign-in?${query}`).send();
  }
  return reply
    .code(303)
    .header('location', `/portal/sign-in${hadSession ? '?ended=1' : ''}`)
    .send();
}
