import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { webhookDelivery } from '../../src/modules/webhooks/index.ts';
import { createSealer } from '../../src/shared/secrets.ts';
import { COMPANY_FILE, countRows } from '../helpers/app.ts';
import { type CliWorkspace, cliWorkspace } from '../helpers/cli.ts';
import { BUSINESS_CUSTOMER } from '../invoicing/helpers.ts';
import { type Receiver, record, startReceiver, waitFor } from './helpers.ts';

const BIN = path.resolve(import.meta.dirname, '../../bin/kontor.js');

// The webhook commands through the real `kontor` command, on the embedded database (or
// the PostgreSQL server with KONTOR_TEST_DB=postgres).

describe('kontor admin webhook', () => {
  let w: CliWorkspace;
  let companyId: string;
  let apiKey: string;
  let hook: Receiver;
  before(async () => {
    w = await cliWorkspace();
    hook = await startReceiver();
    const file = w.writeFile('company.json', COMPANY_FILE);
    const boot = await w.run(['admin', 'bootstrap', '--org', 'Hook GmbH', '--company-file', file, '--admin-email', 'hooks@example.com', '--json']);
    assert.equal(boot.code, 0, boot.stderr);
    ({ company_id: companyId, api_key: apiKey } = JSON.parse(boot.stdout));
  });
  after(async () => {
    await hook.close();
    await w.cleanup();
  });

  const withDatabase: CliWorkspace['withDatabase'] = (work) => w.withDatabase(work);
  const endpointCount = () => withDatabase((db) => countRows({ db }, 'webhook_endpoints'));

  test('add prints {id, secret} once, list never shows the secret, remove takes the endpoint out', async () => {
    const added = await w.run([
      'admin',
      'webhook',
      'add',
      '--company',
      companyId,
      '--url',
      hook.url('/cli'),
      '--events',
      'invoice.paid,invoice.issued',
      '--json',
    ]);
    assert.equal(added.code, 0, added.stderr);
    const result = JSON.parse(added.stdout);
    assert.deepEqual(Object.keys(result), ['id', 'secret']);
    assert.match(result.id, /^whe_/);
    assert.match(result.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);

    const listed = await w.run(['admin', 'webhook', 'list', '--company', companyId, '--json']);
    assert.equal(listed.code, 0, listed.stderr);
    assert.ok(!listed.stdout.includes(result.secret) && !listed.stdout.includes('secret'), 'the secret is never shown again');
    const { endpoints } = JSON.parse(listed.stdout);
    assert.equal(endpoints.length, 1);
    assert.deepEqual(
      { id: endpoints[0].id, url: endpoints[0].url, events: endpoints[0].events, status: endpoints[0].status },
      { id: result.id, url: hook.url('/cli'), events: ['invoice.paid', 'invoice.issued'], status: 'active' },
    );
    const text = await w.run(['admin', 'webhook', 'list', '--company', companyId]);
    assert.match(text.stdout, new RegExp(`${result.id}\\s+active\\s+http://127\\.0\\.0\\.1:\\d+/cli\\s+invoice\\.paid,invoice\\.issued`));

    const removed = await w.run(['admin', 'webhook', 'remove', result.id, '--json']);
    assert.equal(removed.code, 0, removed.stderr);
    assert.equal(JSON.parse(removed.stdout).id, result.id);
    assert.deepEqual(JSON.parse((await w.run(['admin', 'webhook', 'list', '--company', companyId, '--json'])).stdout), { endpoints: [] });
    const again = await w.run(['admin', 'webhook', 'remove', result.id]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /^kontor: webhook endpoint whe_\w+ is already removed/);
  });

  test('refusals exit 1 with the reason and write nothing; usage errors exit 2', async () => {
    const before = await endpointCount();
    const refused: [string[], RegExp][] = [
      [['--company', companyId, '--url', 'ftp://files.example/in'], /^kontor: the webhook URL must use http or https, not ftp/],
      [['--company', companyId, '--url', 'hooks.example/in'], /^kontor: the webhook URL is not a URL/],
      [['--company', companyId, '--url', 'https://a:b@hooks.example/in'], /^kontor: the webhook URL must not contain a user name or password/],
      [['--company', companyId, '--url', 'https://hooks.example/in', '--events', 'invoice.paid,invoice.burnt'], /^kontor: unknown event kind invoice\.burnt/],
      [['--company', companyId, '--url', 'https://hooks.example/in', '--events', ''], /^kontor: --events names no event kind/],
      [['--company', 'com_nobody', '--url', 'https://hooks.example/in'], /^kontor: no company com_nobody/],
    ];
    for (const [args, message] of refused) {
      const res = await w.run(['admin', 'webhook', 'add', ...args, '--json']);
      assert.equal(res.code, 1, `${args.join(' ')}: ${res.stderr}`);
      assert.match(res.stderr, message);
      assert.equal(res.stdout, '', 'nothing on stdout');
    }
    const missing = await w.run(['admin', 'webhook', 'add', '--company', companyId]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--url is required/);
    const unknownList = await w.run(['admin', 'webhook', 'list', '--company', 'com_nobody']);
    assert.equal(unknownList.code, 1);
    assert.match(unknownList.stderr, /no company com_nobody/);
    const badLimit = await w.run(['admin', 'webhook', 'deliveries', '--limit', 'many']);
    assert.equal(badLimit.code, 2);
    assert.equal(await endpointCount(), before, 'nothing written');
  });

  test('jobs run delivers what is due and says so; deliveries shows every attempt', async () => {
    const added = JSON.parse((await w.run(['admin', 'webhook', 'add', '--company', companyId, '--url', hook.url('/jobs-run'), '--json'])).stdout);
    const eventId = await withDatabase((db) => record(db, companyId, 'invoice.overdue', { id: 'inv_x', overdue: true }));
    const run = await w.run(['jobs', 'run', '--as-of', '2026-12-01', '--company', companyId, '--json']);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout).webhooks, { delivered: 1, retried: 0, failed: 0 });
    const request = hook.received.find((q) => q.path === '/jobs-run');
    assert.ok(request, 'delivered');
    const envelope = new Webhook(added.secret).verify(request.body, request.headers) as { id: string; data: unknown };
    assert.equal(envelope.id, eventId);
    assert.deepEqual(envelope.data, { id: 'inv_x', overdue: true });

    const listed = await w.run(['admin', 'webhook', 'deliveries', '--company', companyId, '--event', eventId, '--json']);
    assert.equal(listed.code, 0, listed.stderr);
    const { deliveries } = JSON.parse(listed.stdout);
    assert.equal(deliveries.length, 1);
    assert.equal(deliveries[0].endpoint_id, added.id);
    assert.equal(deliveries[0].event_type, 'invoice.overdue');
    assert.equal(deliveries[0].status, 'delivered');
    assert.equal(deliveries[0].attempts.length, 1);
    assert.equal(deliveries[0].attempts[0].response_status, 204);
    const text = await w.run(['admin', 'webhook', 'deliveries', '--endpoint', added.id]);
    assert.match(
      text.stdout,
      new RegExp(`${eventId} invoice\\.overdue → ${added.id} \\S+: delivered\\n  #1 \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\dZ 204 \\d+ ms`),
    );
    const unknown = await w.run(['admin', 'webhook', 'deliveries', '--endpoint', 'whe_nothing']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no webhook endpoint whe_nothing/);
    await w.run(['admin', 'webhook', 'remove', added.id]);
  });

  test('jobs run prunes history older than KONTOR_EVENT_RETENTION_DAYS and says what went; a bad value is refused', async () => {
    const added = JSON.parse((await w.run(['admin', 'webhook', 'add', '--company', companyId, '--url', hook.url('/prune'), '--json'])).stdout);
    // Delivered three days ago by transport time (the worker's clock, set back in process).
    const eventId = await withDatabase(async (db) => {
      const id = await record(db, companyId, 'invoice.paid', { id: 'inv_old' });
      const threeDaysAgo = new Date(Date.now() - 3 * 24 * 60 * 60 * 1000);
      const tally = await webhookDelivery({ db, sealer: createSealer('cli-test-secret') }, { now: () => threeDaysAgo, log: () => {} }).drain({ companyId });
      assert.deepEqual(tally, { delivered: 1, retried: 0, failed: 0 });
      return id;
    });

    const bad = await w.run(['jobs', 'run', '--company', companyId], { KONTOR_EVENT_RETENTION_DAYS: '0' });
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /^kontor: KONTOR_EVENT_RETENTION_DAYS must be a whole number of days from 1 to 36500, got 0/);

    const run = await w.run(['jobs', 'run', '--as-of', '2026-12-02', '--company', companyId, '--json'], { KONTOR_EVENT_RETENTION_DAYS: '2' });
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout).tasks['webhooks.prune'], {
      companies: 1,
      ran: 1,
      skipped: 0,
      failed: 0,
      totals: { events: 1, deliveries: 1, attempts: 1, capped: 0 },
    });
    const listed = await w.run(['admin', 'webhook', 'deliveries', '--company', companyId, '--event', eventId, '--json']);
    assert.deepEqual(JSON.parse(listed.stdout).deliveries, [], 'gone with its event');
    await w.run(['admin', 'webhook', 'remove', added.id]);
  });

  test('kontor serve delivers the events of issued invoices with its worker; webhook commands reach a running server', async () => {
    const child: ChildProcess = spawn(process.execPath, ['--liftoff-only', BIN, 'serve', '--port', '0'], {
      cwd: w.dir,
      env: w.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    try {
      await waitFor(() => /listens on http:\/\/[^:]+:\d+/.test(output), 30_000, 'server start');
      const port = Number(/listens on http:\/\/[^:]+:(\d+)/.exec(output)![1]);
      const added = await w.run(['admin', 'webhook', 'add', '--company', companyId, '--url', hook.url('/serve'), '--events', 'invoice.issued', '--json']);
      assert.equal(added.code, 0, added.stderr);
      const { secret } = JSON.parse(added.stdout);
      const call = (method: string, url: string, body: unknown, headers: Record<string, string> = {}) =>
        fetch(`http://127.0.0.1:${port}${url}`, {
          method,
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', ...headers },
          body: JSON.stringify(body),
        });
      const customer = await call('PUT', '/v1/customers/by-ref/crm/serve-1', BUSINESS_CUSTOMER);
      assert.ok(customer.status < 300, await customer.text());
      const issued = await call(
        'POST',
        '/v1/invoices',
        {
          customer: { source: 'crm', external_ref: 'serve-1' },
          external_ref: 'serve-inv-1',
          lines: [{ description: 'Beratung', quantity: '1', unit: 'Stunde', unit_price_net: '120.00', vat_rate: 19 }],
          service_period: { start: '2026-11-01', end: '2026-11-30' },
          issue: true,
        },
        { 'idempotency-key': 'serve-inv-1' },
      );
      assert.equal(issued.status, 201, await issued.clone().text());
      const invoice = (await issued.json()) as { id: string; number: string };
      await waitFor(() => hook.received.some((q) => q.path === '/serve'), 20_000, 'delivery by the server’s worker');
      const request = hook.received.find((q) => q.path === '/serve')!;
      const envelope = new Webhook(secret).verify(request.body, request.headers) as { type: string; data: { id: string; number: string } };
      assert.equal(envelope.type, 'invoice.issued');
      assert.equal(envelope.data.id, invoice.id);
      assert.equal(envelope.data.number, invoice.number);
      await waitFor(async () => {
        const res = await w.run(['admin', 'webhook', 'deliveries', '--company', companyId, '--limit', '1', '--json']);
        return JSON.parse(res.stdout).deliveries[0]?.status === 'delivered';
      }, 20_000);
    } finally {
      child.kill('SIGTERM');
      if (child.exitCode === null) await once(child, 'exit');
    }
  });
});
