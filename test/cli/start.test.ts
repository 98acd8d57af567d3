import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ConfigError, trustProxy } from '../../src/config.ts';
import { type CliWorkspace, cliWorkspace } from '../helpers/cli.ts';

// Issue 25: starting Kontor, through the real `kontor serve` process and real HTTP:
// `npm start` names the app's address beside /v1 and /docs, and / leads to the app; the
// setting KONTOR_TRUST_PROXY is read at the start (what it does: test/web/proxy.test.ts).

describe('kontor serve: the address of the app, and KONTOR_TRUST_PROXY', () => {
  let w: CliWorkspace;
  before(async () => {
    w = await cliWorkspace();
    // The database made first: the server's start then fits spawnServer's wait on a busy machine.
    const migrated = await w.run(['migrate']);
    assert.equal(migrated.code, 0, migrated.stderr);
  });
  after(() => w.cleanup());

  test('the start line names the app beside /v1 and /docs; / leads to /app', async () => {
    const server = await w.spawnServer();
    try {
      const line = /Kontor listens on (http:\/\/[^\s]+) \(([^)]*)\)/.exec(server.output());
      assert.ok(line, server.output());
      const base = line[1] as string;
      assert.equal(line[2], `the app at ${base}/app, API under /v1, docs at /docs`);
      const root = await fetch(`${base}/`, { redirect: 'manual' });
      assert.equal(root.status, 302);
      assert.equal(root.headers.get('location'), '/app');
      const app = await fetch(`${base}/app`, { redirect: 'manual' });
      assert.equal(app.status, 303);
      assert.equal(app.headers.get('location'), '/app/dashboard');
    } finally {
      server.child.kill('SIGKILL');
    }
  });

  test('KONTOR_TRUST_PROXY: off, true (the one in front), addresses and CIDR ranges; anything else stops the start', async () => {
    assert.equal(trustProxy(undefined), false);
    assert.equal(trustProxy('off'), false);
    assert.equal(trustProxy('true'), 'in-front');
    assert.deepEqual(trustProxy('10.0.0.0/8, 192.168.1.5,fd00::/8,loopback'), ['10.0.0.0/8', '192.168.1.5', 'fd00::/8', 'loopback']);
    for (const bad of ['yes', '10.0.0.0/33', '300.1.1.1', 'proxy.example', '10.0.0.1/8/2']) assert.throws(() => trustProxy(bad), ConfigError, bad);
    const refused = await w.run(['serve', '--port', '0'], { KONTOR_TRUST_PROXY: 'proxy.example' });
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^kontor: KONTOR_TRUST_PROXY must be off, true, or addresses\/CIDR ranges separated by commas/);
  });
});
