import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { type AppDeps, buildApp } from '../../src/app.ts';
import type { DatabaseHandle } from '../../src/db/connection.ts';
import type { DB } from '../../src/db/schema.ts';
import { createAuthenticator } from '../../src/http/auth.ts';
import { bootstrapOrganization, createApiKey, type Scope } from '../../src/modules/access/index.ts';
import type { InvoicingDeps } from '../../src/modules/invoicing/index.ts';
import { defaultRenderThreads, type InvoicingOutside, invoicingOutside } from '../../src/modules/invoicing/outside.ts';
import { createRenderPool, type RenderPool } from '../../src/modules/invoicing/render/render-pool.ts';
import { createMailer, type Mailer } from '../../src/modules/mail/index.ts';
import { fixedClock } from '../../src/shared/clock.ts';
import { COMPANY_FILE, sealer } from './company.ts';
import { testDatabase } from './database.ts';

export { COMPANY_FILE, sealer } from './company.ts';

export type TestCompany = {
  organizationId: string;
  companyId: string;
  userId: string;
  adminEmail: string;
  apiKey: string /** The bootstrap's one-time password. */;
  password: string;
};

export type TestApp = {
  app: FastifyInstance;
  handle: DatabaseHandle;
  clock: ReturnType<typeof fixedClock>;
  company: TestCompany;
  /** A second company in its own organisation (for 404-across-companies tests). */
  newCompany(label: string): Promise<TestCompany>;
  newKey(options?: { scopes?: Scope[]; company?: TestCompany; expiresOn?: string; allCompanies?: boolean }): Promise<string>;
  request(method: string, url: string, options?: { key?: string | null; body?: unknown; headers?: Record<string, string> }): Promise<LightMyRequestResponse>;
  /** The data folder of this test (mail outbox). */
  dataDir: string;
  /** The process's mailer the app uses (statements, test mails). */
  mailer: Mailer;
  /** The renderers, booking and mailboxes the app uses (for jobs that need them: JobDeps.services). */
  invoicing: InvoicingOutside & Pick<InvoicingDeps, 'liveness'>;
  close(): Promise<void>;
};

let counter = 0;

// One render pool for every TestApp of the process: a render thread loads pdfkit, the
// fonts and the e-invoice library's schema (~1 s of CPU) once, not once per test file of a
// group (scripts/test-groups.ts). An idle thread does not keep the process alive (render-pool.ts).
let sharedRenderer: RenderPool | undefined;

export async function testApp(
  options: {
    now?: string;
    authCacheMs?: number;
    app?: Pick<AppDeps, 'logger' | 'timeouts'>;
    invoicing?: Partial<InvoicingOutside & Pick<InvoicingDeps, 'liveness'>>;
  } = {},
): Promise<TestApp> {
  const handle = await testDatabase();
  const clock = fixedClock(options.now ?? '2026-11-21T10:00:00Z');
  const authenticator = createAuthenticator(handle.db, clock, { cacheMs: options.authCacheMs ?? 0 });
  const dataDir = mkdtempSync(path.join(tmpdir(), 'kontor-test-data-'));
  const mailer = createMailer({ dataDir, sealer });
  sharedRenderer ??= createRenderPool(defaultRenderThreads());
  const outside = invoicingOutside({ dataDir, sealer, mailer, renderer: sharedRenderer });
  const invoicing = { ...outside, liveness: handle.liveness, ...options.invoicing };
  const app = await buildApp({ db: handle.db, clock, config: { logLevel: 'silent' }, authenticator, sealer, mailer, invoicing, ...options.app });

  const newCompany = async (label: string): Promise<TestCompany> => {
    counter += 1;
    const adminEmail = `admin-${label}-${counter}-${process.pid}@example.com`;
    const result = await bootstrapOrganization(handle.db, sealer, {
      organizationName: `${label} org`,
      companyFile: JSON.stringify({ ...COMPANY_FILE, name: `${label} GmbH` }),
      adminEmail,
    });
    return {
      organizationId: result.organization_id,
      companyId: result.company_id,
      userId: result.user_id,
      adminEmail,
      apiKey: result.api_key,
      password: result.user_password,
    };
  };
  const company = await newCompany('main');

  return {
    app,
    handle,
    clock,
    company,
    newCompany,
    async newKey(opts = {}) {
      const target = opts.company ?? company;
      const created = await createApiKey(handle.db, clock, {
        companyId: target.companyId,
        creatorEmail: target.adminEmail,
        ...(opts.scopes ? { scopes: opts.scopes } : {}),
        ...(opts.expiresOn ? { expiresOn: opts.expiresOn } : {}),
        ...(opts.allCompanies ? { allCompanies: true } : {}),
      });
      return created.api_key;
    },
    request(method, url, opts = {}) {
      const key = opts.key === undefined ? company.apiKey : opts.key;
      return app.inject({
        method: method as 'GET',
        url,
        headers: {
          ...(key ? { authorization: `Bearer ${key}` } : {}),
          ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...opts.headers,
        },
        ...(opts.body !== undefined ? { payload: typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body) } : {}),
      });
    },
    dataDir,
    mailer,
    invoicing: invoicing as InvoicingOutside & Pick<InvoicingDeps, 'liveness'>,
    async close() {
      await app.close();
      await outside.close();
      mailer.close();
      await handle.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Counts rows of a table (for "nothing was written" assertions). */
export async function countRows(handle: Pick<DatabaseHandle, 'db'>, table: keyof DB): Promise<number> {
  const row = await handle.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
