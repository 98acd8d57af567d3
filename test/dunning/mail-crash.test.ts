import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { BIN, type CliWorkspace, cliWorkspace } from '../helpers/cli.ts';
import { watch } from '../helpers/processes.ts';
import { BUSINESS_CUSTOMER } from '../invoicing/helpers.ts';
import { SMTP_PASSWORD, SMTP_USER, startSmtpServer, type TestSmtpServer } from '../mail/fixtures.ts';

// A crash while mailing a dunning notice never mails it twice (issue 11): `kontor jobs
// run` is killed with SIGKILL after the reminder left (outbox file written, or accepted
// by the SMTP server) and before `sent` was committed. The job runs again once its lease
// has run out; it does not mail a second time.

const POLICY = { dunning: { reminder_days: 5, fees: ['0.00', '3.00', '6.00'] } };
type Boot = { company_id: string; api_key: string };

describe('a crash while mailing a dunning notice (kill -9 after the mail left)', () => {
  let w: CliWorkspace;
  let smtp: TestSmtpServer;
  let viaOutbox: Boot;
  let viaSmtp: Boot;

  /** `kontor jobs run` for one company, paused after the mail left, then killed. */
  async function killedAfterMail(boot: Boot) {
    const run = watch(process.execPath, [BIN, 'jobs', 'run', '--as-of', '2026-12-11', '--company', boot.company_id], {
      cwd: w.dir,
      env: { ...w.env, KONTOR_PAUSE_AT: 'dunning-mail.after-send' },
    });
    await run.waitFor(/paused at dunning-mail\.after-send/);
    run.child.kill('SIGKILL');
    await once(run.child, 'exit');
  }

  const outboxNotices = () =>
    readdirSync(path.join(w.dataDir, 'outbox', viaOutbox.company_id)).filter((name) => name.endsWith('.eml') && !name.includes('RE-'));

  before(async () => {
    w = await cliWorkspace();
    w.env.KONTOR_NOW = '2026-11-21T10:00:00Z';
    smtp = await startSmtpServer();
    const server = await w.spawnServer();
    const api = (boot: Boot, method: string, url: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(`http://127.0.0.1:${server.port}/v1${url}`, {
        method,
        headers: { authorization: `Bearer ${boot.api_key}`, 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    const boot = async (label: string, extra: object) => {
      const booted = await w.bootstrap(label, { ...POLICY, ...extra });
      assert.equal((await api(booted, 'PUT', '/customers/by-ref/crm/kunde-1', BUSINESS_CUSTOMER)).status, 201);
      const invoice = await api(
        booted,
        'POST',
        '/invoices',
        {
          customer: { source: 'crm', external_ref: 'kunde-1' },
          external_ref: 'mahn-1',
          lines: [{ description: 'Beratung', quantity: '1', unit_price_net: '1000.00', vat_rate: 19 }],
          service_period: { start: '2026-11-01', end: '2026-11-30' },
          payment_terms_days: 14,
          issue: true,
        },
        { 'idempotency-key': 'mahn-1' },
      );
      assert.equal(invoice.status, 201, await invoice.text());
      return booted;
    };
    viaOutbox = await boot('outbox', {});
    viaSmtp = await boot('smtp', { smtp: { host: '127.0.0.1', port: smtp.port, secure: false, user: SMTP_USER, password: SMTP_PASSWORD, from: SMTP_USER } });
    server.child.kill('SIGTERM');
    await once(server.child, 'exit');

    await killedAfterMail(viaOutbox);
    await killedAfterMail(viaSmtp);
    assert.equal(outboxNotices().length, 1, 'the reminder was written to the outbox before the kill');
    assert.equal(smtp.received.length, 1, 'the reminder reached the SMTP server before the kill');
    // The killed runs' leases would run out in minutes: let them run out now.
    await w.withDatabase((db) =>
      db
        .updateTable('jobs')
        .set({ locked_until: new Date(Date.now() - 1000) })
        .where('status', '=', 'running')
        .execute(),
    );
    const again = await w.run(['jobs', 'run', '--as-of', '2026-12-11', '--json']);
    assert.equal(again.code, 0, again.stderr);
  });
  after(async () => {
    await smtp?.close();
    await w?.cleanup();
  });

  const noticeOf = (boot: Boot) =>
    w.withDatabase((db) => db.selectFrom('dunning_notices').select(['status', 'reason', 'level']).where('company_id', '=', boot.company_id).execute());

  test('outbox: the file tells that the reminder left; it is recorded sent and not written again', async () => {
    assert.equal(outboxNotices().length, 1);
    const notices = await noticeOf(viaOutbox);
    assert.deepEqual(
      notices.map((n) => [n.level, n.status, n.reason]),
      [[0, 'sent', null]],
    );
  });

  test('SMTP: nobody can know whether the reminder left; it counts as sent, marked unconfirmed, and is not mailed again', async () => {
    assert.equal(smtp.received.length, 1);
    const notices = await noticeOf(viaSmtp);
    assert.equal(notices.length, 1);
    assert.equal(notices[0]!.status, 'sent');
    assert.match(notices[0]!.reason ?? '', /^mail_unconfirmed/);
  });
});
