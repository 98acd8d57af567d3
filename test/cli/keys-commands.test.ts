import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import type { CommandContext } from '../../src/cli/command-kit.ts';
import { runCommand } from '../../src/cli/commands.ts';
import { bufferIo } from '../../src/cli/io.ts';
import { hashApiKey } from '../../src/modules/access/api-keys.ts';
import { invitePerson } from '../../src/modules/access/people.ts';
import { webhookDelivery } from '../../src/modules/webhooks/index.ts';
import { countRows, sealer, type TestApp, type TestCompany, testApp } from '../helpers/app.ts';
import { type Receiver, record, startReceiver } from '../webhooks/helpers.ts';

// The app's API-key and webhook steps on the command line (design §2): list keys and
// endpoints, deliveries of an endpoint by status, re-send a failed delivery, and --by EMAIL
// on create/revoke/add/remove recording the audit row as the app does.

describe('kontor: API keys and webhooks on the command line', () => {
  let t: TestApp;
  let ctx: CommandContext;
  let other: TestCompany;
  let receiver: Receiver;
  let answer = 500;
  const memberEmail = 'cli.mitglied@example.com';
  const kontor = async (...args: string[]) => {
    const io = bufferIo();
    const code = await runCommand(args, io, ctx);
    return { code, stdout: io.stdout, stderr: io.stderr };
  };
  const auditOf = (subjectId: string) =>
    t.handle.db.selectFrom('audit_log').select(['action', 'user_id', 'before', 'after']).where('subject_id', '=', subjectId).orderBy('seq').execute();

  before(async () => {
    t = await testApp();
    ctx = { db: t.handle.db, clock: t.clock, sealer, cwd: t.dataDir, dataDir: t.dataDir };
    await invitePerson(
      { db: t.handle.db, clock: t.clock },
      { userId: t.company.userId, organizationId: t.company.organizationId, companyId: t.company.companyId },
      { email: memberEmail, role: 'member', companyIds: [t.company.companyId] },
    );
    other = await t.newCompany('cli-fremd');
    receiver = await startReceiver((_request, response) => {
      response.writeHead(answer).end();
    });
  });
  after(async () => {
    await receiver.close();
    await t.close();
  });

  test('api-key create|revoke --by record the audit row; list shows prefix and status, never the key', async () => {
    const created = await kontor(
      'admin',
      'api-key',
      'create',
      '--company',
      t.company.companyId,
      '--by',
      t.company.adminEmail,
      '--scopes',
      'partner:invoices:read,partner:customers:write',
      '--json',
    );
    assert.equal(created.code, 0, created.stderr);
    const { api_key: key, id } = JSON.parse(created.stdout);
    assert.equal((await t.request('GET', '/v1/customers/by-ref/crm/nobody', { key })).json().detail.code, 'customer_not_found');
    const audit = await auditOf(id);
    assert.deepEqual(
      audit.map((a) => [a.action, a.user_id]),
      [['api_key.created', t.company.userId]],
    );
    assert.ok(!JSON.stringify(audit).includes(key) && !JSON.stringify(audit).includes(hashApiKey(key)));

    const listed = await kontor('admin', 'api-key', 'list', '--company', t.company.companyId, '--json');
    assert.equal(listed.code, 0, listed.stderr);
    const { keys } = JSON.parse(listed.stdout);
    const mine = keys.find((k: { id: string }) => k.id === id);
    assert.deepEqual(
      { prefix: mine.prefix, scopes: mine.scopes, creator_email: mine.creator_email, status: mine.status, revoked_at: mine.revoked_at },
      {
        prefix: key.slice(0, 8),
        scopes: ['partner:invoices:read', 'partner:customers:write'],
        creator_email: t.company.adminEmail,
        status: 'active',
        revoked_at: null,
      },
    );
    assert.ok(!listed.stdout.includes(key) && !listed.stdout.includes(hashApiKey(key)));
    assert.equal(keys.length, 2, 'the bootstrap key and this one, not another company’s');
    const text = await kontor('admin', 'api-key', 'list', '--company', t.company.companyId);
    assert.match(text.stdout, new RegExp(`${id}  ${key.slice(0, 8)}…  active  partner:invoices:read,partner:customers:write  by ${t.company.adminEmail}`));

    const byMember = await kontor('admin', 'api-key', 'create', '--company', t.company.companyId, '--by', memberEmail);
    assert.equal(byMember.code, 1);
    assert.match(byMember.stderr, /^kontor: cli\.mitglied@example\.com is not an admin/);
    const noCreator = await kontor('admin', 'api-key', 'create', '--company', t.company.companyId);
    assert.equal(noCreator.code, 2);
    assert.match(noCreator.stderr, /--creator is required/);
    const foreign = await kontor('admin', 'api-key', 'revoke', id, '--by', other.adminEmail);
    assert.equal(foreign.code, 1);
    assert.match(foreign.stderr, /is no active member with access to company/);

    const revoked = await kontor('admin', 'api-key', 'revoke', id, '--by', t.company.adminEmail, '--json');
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.equal((await t.request('GET', '/v1/customers/by-ref/crm/nobody', { key })).json().detail.code, 'api_key_invalid');
    assert.deepEqual(
      (await auditOf(id)).map((a) => a.action),
      ['api_key.created', 'api_key.revoked'],
    );
    const after = JSON.parse((await kontor('admin', 'api-key', 'list', '--company', t.company.companyId, '--json')).stdout);
    assert.equal(after.keys.find((k: { id: string }) => k.id === id).status, 'revoked');
    // Without --by as before: no audit row.
    const plain = JSON.parse(
      (await kontor('admin', 'api-key', 'create', '--company', t.company.companyId, '--creator', t.company.adminEmail, '--json')).stdout,
    );
    assert.deepEqual(await auditOf(plain.id), []);
    const unknown = await kontor('admin', 'api-key', 'list', '--company', 'cmp_nope');
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no company cmp_nope/);
  });

  test('webhook add --by, deliveries ENDPOINT_ID --status, resend --by end to end, remove --by', async () => {
    const added = await kontor(
      'admin',
      'webhook',
      'add',
      '--company',
      t.company.companyId,
      '--url',
      receiver.url(),
      '--events',
      'invoice.paid',
      '--by',
      t.company.adminEmail,
      '--json',
    );
    assert.equal(added.code, 0, added.stderr);
    const { id: endpointId, secret } = JSON.parse(added.stdout);
    const addAudit = await auditOf(endpointId);
    assert.deepEqual(
      addAudit.map((a) => a.action),
      ['webhook.endpoint_added'],
    );
    assert.ok(!JSON.stringify(addAudit).includes(secret));
    const byMember = await kontor('admin', 'webhook', 'add', '--company', t.company.companyId, '--url', 'https://x.example/', '--by', memberEmail);
    assert.equal(byMember.code, 1);
    assert.match(byMember.stderr, /is not an admin/);

    const listed = JSON.parse((await kontor('admin', 'webhook', 'list', '--company', t.company.companyId, '--json')).stdout);
    assert.deepEqual(
      listed.endpoints.map((e: { id: string; events: string[] }) => [e.id, e.events]),
      [[endpointId, ['invoice.paid']]],
    );
    assert.ok(!JSON.stringify(listed).includes(secret));

    const eventId = await record(t.handle.db, t.company.companyId, 'invoice.paid', { id: 'inv_cli' });
    answer = 500;
    const tally = await webhookDelivery({ db: t.handle.db, sealer }, { log: () => {}, retryWindowMs: 0 }).drain({ companyId: t.company.companyId });
    assert.deepEqual(tally, { delivered: 0, retried: 0, failed: 1 });

    const failed = await kontor('admin', 'webhook', 'deliveries', endpointId, '--status', 'failed', '--json');
    assert.equal(failed.code, 0, failed.stderr);
    const [delivery] = JSON.parse(failed.stdout).deliveries;
    assert.equal(delivery.event_id, eventId);
    assert.equal(delivery.status, 'failed');
    assert.equal(delivery.attempt_count, 1);
    assert.equal(delivery.last_response_status, 500);
    assert.deepEqual(JSON.parse((await kontor('admin', 'webhook', 'deliveries', endpointId, '--status', 'delivered', '--json')).stdout).deliveries, []);
    const badStatus = await kontor('admin', 'webhook', 'deliveries', endpointId, '--status', 'dead');
    assert.equal(badStatus.code, 2);
    assert.match(badStatus.stderr, /--status must be one of pending, delivering, delivered, failed, cancelled/);
    const twice = await kontor('admin', 'webhook', 'deliveries', endpointId, '--endpoint', endpointId);
    assert.equal(twice.code, 2);

    const noBy = await kontor('admin', 'webhook', 'resend', String(delivery.id));
    assert.equal(noBy.code, 2);
    assert.match(noBy.stderr, /--by is required/);
    const foreign = await kontor('admin', 'webhook', 'resend', String(delivery.id), '--by', other.adminEmail);
    assert.equal(foreign.code, 1);
    const before = await countRows(t.handle, 'audit_log');
    const notANumber = await kontor('admin', 'webhook', 'resend', 'whd_1', '--by', t.company.adminEmail);
    assert.equal(notANumber.code, 2);
    assert.equal(await countRows(t.handle, 'audit_log'), before);

    answer = 204;
    const resent = await kontor('admin', 'webhook', 'resend', String(delivery.id), '--by', t.company.adminEmail, '--json');
    assert.equal(resent.code, 0, resent.stderr);
    const result = JSON.parse(resent.stdout);
    assert.deepEqual([result.id, result.event_id, result.status, result.attempts_before], [delivery.id, eventId, 'pending', 1]);
    assert.deepEqual(
      (await auditOf(String(delivery.id))).map((a) => [a.action, a.user_id]),
      [['webhook.delivery_resent', t.company.userId]],
    );
    // `jobs run` sends it with the rest of the due work.
    const jobs = await kontor('jobs', 'run', '--company', t.company.companyId, '--json');
    assert.equal(jobs.code, 0, jobs.stderr);
    assert.equal(receiver.received.length, 2);
    const last = receiver.received[1];
    assert.equal((new Webhook(secret).verify(last?.body as string, last?.headers as Record<string, string>) as { id: string }).id, eventId);
    const delivered = JSON.parse((await kontor('admin', 'webhook', 'deliveries', endpointId, '--json')).stdout).deliveries[0];
    assert.equal(delivered.status, 'delivered');
    assert.deepEqual(
      delivered.attempts.map((a: { attempt: number; response_status: number }) => [a.attempt, a.response_status]),
      [
        [1, 500],
        [2, 204],
      ],
    );
    const again = await kontor('admin', 'webhook', 'resend', String(delivery.id), '--by', t.company.adminEmail);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /^kontor: webhook delivery \d+ is delivered; only a failed one is sent again/);

    const removed = await kontor('admin', 'webhook', 'remove', endpointId, '--by', t.company.adminEmail, '--json');
    assert.equal(removed.code, 0, removed.stderr);
    assert.deepEqual(
      (await auditOf(endpointId)).map((a) => a.action),
      ['webhook.endpoint_added', 'webhook.endpoint_removed'],
    );
    const gone = await kontor('admin', 'webhook', 'resend', String(delivery.id), '--by', t.company.adminEmail);
    assert.equal(gone.code, 1);
    assert.match(gone.stderr, /is removed/);
  });
});
