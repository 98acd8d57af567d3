import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import type { Config } from '../../src/config.ts';
import { sealer, type TestApp, testApp } from '../helpers/app.ts';

// Issue 25: behind a TLS-terminating proxy (KONTOR_TRUST_PROXY, config.ts) — over real HTTP,
// a listening server and the headers a proxy sends. A trusted proxy's X-Forwarded-Proto:
// https makes the session cookie Secure, its X-Forwarded-For is the client address that
// sign-in throttling counts; anybody else's X-Forwarded-* headers count for nothing.

describe('the app behind a reverse proxy', () => {
  let t: TestApp;
  const servers: FastifyInstance[] = [];
  before(async () => {
    t = await testApp();
  });
  after(async () => {
    for (const server of servers) await server.close();
    await t.close();
  });

  /** The app over the test's database, listening on 127.0.0.1 with this trust. */
  const listening = async (trustProxy: Config['trustProxy']) => {
    const app = await buildApp({
      db: t.handle.db,
      clock: t.clock,
      config: { logLevel: 'silent' },
      sealer,
      mailer: t.mailer,
      invoicing: t.invoicing,
      trustProxy,
    });
    servers.push(app);
    return app.listen({ port: 0, host: '127.0.0.1' });
  };
  const signIn = (base: string, password: string, headers: Record<string, string>) =>
    fetch(`${base}/app/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams({ email: t.company.adminEmail, password }).toString(),
    });
  const sessionCookie = (res: Response) => res.headers.getSetCookie().find((c) => c.startsWith('kontor_session=')) ?? '';
  /** Whether a failed sign-in was counted against this address (the throttle keeps only its hash). */
  const counted = async (address: string) =>
    Boolean(
      await t.handle.db
        .selectFrom('sign_in_throttle')
        .select('key')
        .where('key', '=', `address:${createHash('sha256').update(address).digest('hex')}`)
        .executeTakeFirst(),
    );

  for (const [label, trust, trusted] of [
    ['off (the default): a client sends X-Forwarded-* itself', false, false],
    ['a proxy elsewhere (10.0.0.0/8): the connection from 127.0.0.1 is no proxy', ['10.0.0.0/8'], false],
    ['the proxy by its address (127.0.0.1, ::1)', ['127.0.0.1', '::1'], true],
    ['true: the one in front', 'in-front', true],
  ] as const) {
    test(`${label}: Secure cookie and throttled address ${trusted ? 'from the proxy' : 'from the connection'}`, async () => {
      const base = await listening(trust as Config['trustProxy']);
      const client = `203.0.113.${servers.length}`;
      const https = await signIn(base, t.company.password, { 'x-forwarded-proto': 'https', 'x-forwarded-for': `192.0.2.66, ${client}` });
      assert.equal(https.status, 303);
      const cookie = sessionCookie(https);
      assert.match(cookie, /HttpOnly/);
      if (trusted) assert.match(cookie, /; Secure/);
      else assert.doesNotMatch(cookie, /Secure/i);
      await t.handle.db.deleteFrom('sign_in_throttle').execute();
      assert.equal((await signIn(base, 'falsch', { 'x-forwarded-for': `192.0.2.66, ${client}` })).status, 401);
      // Trusted: the address the proxy saw (the last entry; what the client wrote before it counts for nothing).
      assert.equal(await counted(client), trusted);
      assert.equal(await counted('192.0.2.66'), false);
      assert.equal(await counted('127.0.0.1'), !trusted);
      if (trusted) {
        // The proxy's plain http (the person typed http://) makes no Secure cookie.
        assert.doesNotMatch(sessionCookie(await signIn(base, t.company.password, { 'x-forwarded-proto': 'http' })), /Secure/i);
      }
    });
  }
});
