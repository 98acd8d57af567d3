import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { COMPANY_FILE } from '../helpers/app.ts';
import { type CliWorkspace, cliWorkspace } from '../helpers/cli.ts';
import { usePostgres } from '../helpers/database.ts';

async function put(port: number, key: string, ref: string, body: unknown) {
  return fetch(`http://127.0.0.1:${port}/v1/customers/by-ref/crm/${ref}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe('the kontor command', () => {
  let w: CliWorkspace;
  let boot: { organization_id: string; company_id: string; user_id: string; user_password: string; api_key: string };
  before(async () => {
    w = await cliWorkspace();
  });
  after(() => w.cleanup());

  test('a first serve on an empty database prints the command that creates the first company and key', async () => {
    const server = await w.spawnServer();
    const health = await fetch(`http://127.0.0.1:${server.port}/health`);
    assert.equal(health.status, 200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.match(server.output(), /kontor admin bootstrap --org "[^"]+" --company-file \S+ --admin-email \S+/);
    server.child.kill('SIGTERM');
    const [code] = await once(server.child, 'exit');
    assert.equal(code, 0, 'stops cleanly on SIGTERM');
  });

  test('admin bootstrap --json prints exactly the documented JSON and nothing else on stdout', async () => {
    const file = w.writeFile('company.json', COMPANY_FILE);
    const res = await w.run(['admin', 'bootstrap', '--org', 'CLI GmbH', '--company-file', file, '--admin-email', 'Chefin@Example.com', '--json']);
    assert.equal(res.code, 0, res.stderr);
    boot = JSON.parse(res.stdout);
    assert.deepEqual(Object.keys(boot).sort(), ['api_key', 'company_id', 'organization_id', 'user_id', 'user_password']);
    assert.match(boot.api_key, /^kt_[0-9A-Za-z]{40}$/);
    assert.equal(res.stdout.trim().split('\n').length, 1);
  });

  test('admin bootstrap refuses a company file with unknown keys or bad values, and an existing admin', async () => {
    const bad = w.writeFile('bad.json', { ...COMPANY_FILE, name: 'Other', colour: 'blue', iban: 'DE00123' });
    const res = await w.run(['admin', 'bootstrap', '--org', 'X', '--company-file', bad, '--admin-email', 'x@example.com', '--json']);
    assert.equal(res.code, 1);
    assert.equal(res.stdout, '');
    assert.match(res.stderr, /colour: extra_forbidden/);
    const again = await w.run([
      'admin',
      'bootstrap',
      '--org',
      'Y',
      '--company-file',
      w.writeFile('c2.json', COMPANY_FILE),
      '--admin-email',
      'chefin@example.com',
    ]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /exists already/);
    const usage = await w.run(['admin', 'bootstrap', '--org', 'Y']);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /--company-file is required/);
  });

  test('api-key create, company update and user steps work and refuse clearly', async () => {
    const created = await w.run([
      'admin',
      'api-key',
      'create',
      '--company',
      boot.company_id,
      '--creator',
      'chefin@example.com',
      '--scopes',
      'partner:invoices:read',
      '--expires',
      '2099-12-31',
      '--json',
    ]);
    assert.equal(created.code, 0, created.stderr);
    const key = JSON.parse(created.stdout);
    assert.deepEqual(Object.keys(key).sort(), ['api_key', 'id']);
    const unknownScope = await w.run(['admin', 'api-key', 'create', '--company', boot.company_id, '--creator', 'chefin@example.com', '--scopes', 'everything']);
    assert.equal(unknownScope.code, 1);
    assert.match(unknownScope.stderr, /unknown scope everything/);
    const stranger = await w.run(['admin', 'api-key', 'create', '--company', boot.company_id, '--creator', 'nobody@example.com']);
    assert.equal(stranger.code, 1);
    const update = await w.run([
      'admin',
      'company',
      'update',
      '--company',
      boot.company_id,
      '--company-file',
      w.writeFile('u.json', { payment_terms_days: 30, small_business: true }),
      '--json',
    ]);
    assert.equal(update.code, 0, update.stderr);
    assert.deepEqual(JSON.parse(update.stdout).updated, ['payment_terms_days', 'small_business']);
    const revoke = await w.run(['admin', 'api-key', 'revoke', key.id, '--json']);
    assert.equal(revoke.code, 0, revoke.stderr);
    assert.equal(JSON.parse(revoke.stdout).id, key.id);
    const role = await w.run(['admin', 'user', 'set-role', 'chefin@example.com', 'owner']);
    assert.equal(role.code, 1);
    const migrate = await w.run(['migrate', '--json']);
    assert.equal(migrate.code, 0, migrate.stderr);
    assert.deepEqual(JSON.parse(migrate.stdout), { applied: [] });
  });

  test('jobs run --as-of prints the summary of the day and refuses a malformed date', async () => {
    const res = await w.run(['jobs', 'run', '--as-of', '2026-12-01', '--company', boot.company_id, '--json']);
    assert.equal(res.code, 0, res.stderr);
    const summary = JSON.parse(res.stdout);
    assert.equal(summary.as_of, '2026-12-01');
    assert.deepEqual(Object.keys(summary.jobs).sort(), ['done', 'failed', 'retried']);
    const bad = await w.run(['jobs', 'run', '--as-of', '1.12.2026']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--as-of must be a date YYYY-MM-DD/);
    const unknown = await w.run(['jobs', 'run', '--company', 'cmp_nope']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no company cmp_nope/);
  });

  test('commands run while serve holds the data folder go through the server; committed writes survive kill -9', {
    skip: usePostgres && 'embedded data folder only',
  }, async () => {
    const server = await w.spawnServer();
    assert.doesNotMatch(server.output(), /admin bootstrap/, 'no first-run hint once a company exists');
    const created = await w.run(['admin', 'api-key', 'create', '--company', boot.company_id, '--creator', 'chefin@example.com', '--json']);
    assert.equal(created.code, 0, created.stderr);
    const key = JSON.parse(created.stdout);
    const res = await put(server.port, key.api_key, 'durable-1', { name: 'Bleibt AG' });
    assert.equal(res.status, 201);
    const revoked = await w.run(['admin', 'api-key', 'revoke', key.id, '--json']);
    assert.equal(revoked.code, 0, revoked.stderr);
    const refused = await put(server.port, key.api_key, 'durable-2', { name: 'x' });
    assert.equal(refused.status, 401, 'a revocation through the server takes effect at once');
    server.child.kill('SIGKILL');
    await once(server.child, 'exit');

    const again = await w.spawnServer();
    const read = await fetch(`http://127.0.0.1:${again.port}/v1/customers/by-ref/crm/durable-1`, { headers: { authorization: `Bearer ${boot.api_key}` } });
    assert.equal(read.status, 200, 'the customer committed before the kill is there');
    assert.equal(((await read.json()) as { name: string }).name, 'Bleibt AG');
    again.child.kill('SIGTERM');
    await once(again.child, 'exit');
  });
});
