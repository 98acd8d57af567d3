import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Config } from './config.ts';
import type { Database } from './db/connection.ts';
import { loggerOptions } from './http/access-log.ts';
import { CURRENT_API_VERSION, resolveApiVersion } from './http/api-version.ts';
import { type AuthContext, type Authenticator, createAuthenticator } from './http/auth.ts';
import { installErrorHandling } from './http/error-handler.ts';
import type { Metrics } from './http/metrics.ts';
import { docsUiOptions, documentRefusals } from './http/openapi.ts';
import { newRequestId } from './http/request-id.ts';
import { installBodyParsers, resolveTimeouts, type Timeouts, transportOptions } from './http/transport.ts';
import { installTransportHooks } from './http/transport-hooks.ts';
import { validatorCompiler } from './http/validation.ts';
import type { Scope } from './modules/access/api-keys.ts';
import { registerCommissionRoutes } from './modules/commissions/index.ts';
import { registerContractRoutes } from './modules/contracts/index.ts';
import { registerCustomerRoutes } from './modules/customers/index.ts';
import { createEarlyRenders, type InvoicingDeps, registerInvoiceRoutes } from './modules/invoicing/index.ts';
import type { Mailer } from './modules/mail/index.ts';
import { registerProductRoutes } from './modules/products/index.ts';
import { registerCommissionStatementRoutes } from './modules/statements/index.ts';
import type { Clock } from './shared/clock.ts';
import { AppError } from './shared/errors.ts';
import type { Sealer } from './shared/secrets.ts';
import { registerWebApp } from './web/index.ts';
import { registerPartnerPortal } from './web/portal/index.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The scope an /v1 operation needs (design §3). */
    scope?: Scope;
  }
  interface FastifyRequest {
    auth: AuthContext;
    apiVersion: string;
  }
}

export type AppDeps = {
  db: Database;
  clock: Clock;
  config: Pick<Config, 'logLevel'>;
  /** Config.trustProxy (KONTOR_TRUST_PROXY): whose X-Forwarded-* headers count; unset = nobody's. */
  trustProxy?: Config['trustProxy'];
  authenticator?: Authenticator;
  logger?: FastifyServerOptions['logger'];
  /** The operator's metrics (http/metrics.ts): every answer is counted and timed. */
  metrics?: Metrics;
  /** Request and header timeouts (http/transport.ts); tests pass short ones. */
  timeouts?: Partial<Timeouts>;
  /** Seals and opens secrets with the instance secret (payout accounts in the app). */
  sealer: Sealer;
  /** Renderers (of statements too), booking and mailbox of invoice operations (modules/invoicing/outside.ts), and the database's liveness. */
  invoicing: Pick<InvoicingDeps, 'render' | 'renderStatement' | 'book' | 'bookingWrites' | 'mail' | 'mailed' | 'liveness'>;
  /** The process's mailer (the app's test mail, statements sent from the app). */
  mailer: Mailer;
};

export const BODY_LIMIT = 1024 * 1024;

/** 'in-front': the peer of the connection (hop 0) is the proxy, whatever its address; nobody behind it. */
function fastifyTrustProxy(trust: Config['trustProxy']): FastifyServerOptions['trustProxy'] {
  if (trust === 'in-front') return (_address: string, hop: number) => hop === 0;
  return trust;
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    logger: loggerOptions(deps.logger, deps.config.logLevel),
    bodyLimit: BODY_LIMIT,
    genReqId: newRequestId,
    // Behind a TLS-terminating proxy: its X-Forwarded-Proto makes the session cookie Secure and
    // its X-Forwarded-For is the address sign-in throttling counts — only from a trusted proxy.
    trustProxy: fastifyTrustProxy(deps.trustProxy ?? false),
    requestIdHeader: false,
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    // Long path parameters must reach validation (validation_failed), not the router's 404.
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 8192 },
    ...transportOptions(deps.timeouts),
  });
  app.setValidatorCompiler(validatorCompiler);
  installErrorHandling(app);
  const metrics = deps.metrics;
  if (metrics)
    app.addHook('onResponse', async (request, reply) => {
      metrics.observeRequest(request.method, request.routeOptions?.url ?? null, reply.statusCode, reply.elapsedTime / 1000);
    });
  installBodyParsers(app);
  // The request id on every answer, and the refusals Node or Fastify would write themselves.
  installTransportHooks(app, resolveTimeouts(deps.timeouts));
  const authenticator = deps.authenticator ?? createAuthenticator(deps.db, deps.clock);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Kontor API',
        version: CURRENT_API_VERSION,
        description: 'Invoicing and revenue share for German companies. Every refusal has the body {detail: {code, ...}}.',
      },
      servers: [{ url: '/' }],
      components: { securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'kt_… API key' } } },
      security: [{ apiKey: [] }],
    },
    transform: documentRefusals,
  });
  await app.register(swaggerUi, docsUiOptions);

  app.get('/health', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  // Who opens the server's address in a browser lands in the app (the API lives under /v1).
  app.get('/', { schema: { hide: true } }, async (_request, reply) => reply.code(302).header('location', '/app').send());
  app.get('/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  await app.register(
    async (api) => {
      api.decorateRequest('auth', null as unknown as AuthContext);
      api.decorateRequest('apiVersion', CURRENT_API_VERSION);
      api.addHook('onRequest', async (request, reply) => {
        request.apiVersion = resolveApiVersion(request.headers['service-version']);
        reply.header('service-version', request.apiVersion);
        request.auth = await authenticator.authenticate(request.headers.authorization);
        const scope = request.routeOptions.config.scope;
        if (scope && !request.auth.scopes.includes(scope)) throw new AppError('api_key_scope_missing', { scope });
      });
      const deps2 = { db: deps.db, clock: deps.clock };
      registerCustomerRoutes(api, deps2);
      registerProductRoutes(api, deps2);
      registerContractRoutes(api, deps2);
      registerCommissionRoutes(api, deps2);
      registerCommissionStatementRoutes(api, { ...deps2, renderStatement: deps.invoicing.renderStatement });
      registerInvoiceRoutes(api, { ...deps2, ...deps.invoicing, earlyRenders: createEarlyRenders() });
    },
    { prefix: '/v1' },
  );
  await registerWebApp(app, {
    db: deps.db,
    clock: deps.clock,
    sealer: deps.sealer,
    mailer: deps.mailer,
    onKeyRevoked: () => authenticator.forget(),
    invoicing: { ...deps.invoicing, db: deps.db, clock: deps.clock },
  });
  await registerPartnerPortal(app, {
    db: deps.db,
    clock: deps.clock,
    sealer: deps.sealer,
    mailer: deps.mailer,
    invoicing: { ...deps.invoicing, db: deps.db, clock: deps.clock },
  });
  return app;
}
