import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import iconv from 'iconv-lite';
import type { CommandContext } from '../../src/cli/command-kit.ts';
import { runCommand } from '../../src/cli/commands.ts';
import { bufferIo } from '../../src/cli/io.ts';
import { drainDueJobs } from '../../src/jobs/index.ts';
import { issueInvoice, putCustomerOf, runDay, type Scenario } from '../dunning/helpers.ts';
import { countRows, sealer, type TestApp, testApp } from '../helpers/app.ts';
import { BUSINESS_CUSTOMER } from '../invoicing/helpers.ts';

// The dunning page and the DATEV export on the command line (design §2): the notices that
// did not go out (--json), sending a failed one again for the person named with --by
// (audit row as in the app; refusals exit 1 with one sentence), and `export datev --by`
// recording the export in the audit trail.

const { email: _dropped, ...WITHOUT_EMAIL } = BUSINESS_CUSTOMER;

describe('kontor admin dunning and export datev --by', () => {
  let t: TestApp;
  let s: Scenario;
  let ctx: CommandContext;
  let out: string;
  let invoice: { id: string; number: string };
  let noticeId: string;
  const kontor = async (...args: string[]) => {
    const io = bufferIo();
    const code = await runCommand(args, io, ctx);
    return { code, stdout: io.stdout, stderr: io.stderr };
  };
  const notice = () => t.handle.db.selectFrom('dunning_notices').select(['status', 'reason']).where('id', '=', noticeId).executeTakeFirstOrThrow();

  before(async () => {
    t = await testApp();
    s = { company: t.company, mailer: t.mailer };
    out = mkdtempSync(path.join(tmpdir(), 'kontor-cli-out-'));
    ctx = { db: t.handle.db, clock: t.clock, sealer, cwd: out, dataDir: t.dataDir, invoicing: t.invoicing };
    await putCustomerOf(t, s, 'k');
    invoice = await issueInvoice(t, s, 'cli-1', 'k', '2026-11-21');
    await putCustomerOf(t, s, 'k', WITHOUT_EMAIL);
    await runDay(t, s, '2026-12-12');
    noticeId = (await t.handle.db.selectFrom('dunning_notices').select('id').where('invoice_id', '=', invoice.id).executeTakeFirstOrThrow()).id;
  });
  after(async () => {
    rmSync(out, { recursive: true, force: true });
    await t.close();
  });

  test('admin dunning failed lists the failed notice with its reason, as text and --json', async () => {
    const json = await kontor('admin', 'dunning', 'failed', '--company', t.company.companyId, '--json');
    assert.equal(json.code, 0, json.stderr);
    const list = JSON.parse(json.stdout);
    assert.equal(list.length, 1);
    assert.deepEqual(
      { ...list[0], reason: undefined },
      {
        notice_id: noticeId,
        invoice_id: invoice.id,
        invoice_number: invoice.number,
        invoice_status: 'issued',
        customer: 'Beispiel AG',
        level: 0,
        total: '1190.00',
        notice_date: '2026-12-12',
        deadline: '2026-12-22',
        status: 'failed',
        reason: undefined,
      },
    );
    assert.match(list[0].reason, /^recipient_missing: /);
    const text = await kontor('admin', 'dunning', 'failed', '--company', t.company.companyId);
    assert.match(
      text.stdout,
      new RegExp(`^${noticeId}  ${invoice.number}  Beispiel AG  Zahlungserinnerung  1190\\.00 EUR  2026-12-12  failed: recipient_missing: `),
    );
    const unknown = await kontor('admin', 'dunning', 'failed', '--company', 'cmp_nope');
    assert.equal(unknown.code, 1);
  });

  test('admin dunning retry: refused for strangers, without address and after the deadline; then queued, audited and sent', async () => {
    const audit = await countRows(t.handle, 'audit_log');
    const stranger = await kontor('admin', 'dunning', 'retry', noticeId, '--by', 'nobody@example.com');
    assert.equal(stranger.code, 1);
    assert.match(stranger.stderr, /nobody@example.com is no active member with access to company/);
    const noAddress = await kontor('admin', 'dunning', 'retry', noticeId, '--by', t.company.adminEmail);
    assert.equal(noAddress.code, 1);
    assert.equal(
      noAddress.stderr,
      'kontor: Für den Kunden Beispiel AG ist noch keine E-Mail-Adresse hinterlegt. Bitte ergänzen Sie sie in Ihrem eigenen System, aus dem Kontor die Kunden übernimmt (PUT /v1/customers/by-ref/…), und versuchen Sie es danach erneut.\n',
    );
    const missing = await kontor('admin', 'dunning', 'retry', 'dun_00000000000000000000000000', '--by', t.company.adminEmail);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /no dunning notice dun_0+/);
    await putCustomerOf(t, s, 'k', { ...BUSINESS_CUSTOMER, email: 'cli@beispiel.example' });
    // Past the notice's deadline (22.12.2026) a new notice is due instead.
    t.clock.set('2026-12-23T09:00:00Z');
    const late = await kontor('admin', 'dunning', 'retry', noticeId, '--by', t.company.adminEmail);
    assert.equal(late.code, 1);
    assert.match(late.stderr, /Die Zahlungsfrist dieser Mahnung \(22\.12\.2026\) ist bereits abgelaufen/);
    assert.equal((await notice()).status, 'failed');
    assert.equal(await countRows(t.handle, 'audit_log'), audit);

    t.clock.set('2026-12-14T09:00:00Z');
    const retried = await kontor('admin', 'dunning', 'retry', noticeId, '--by', t.company.adminEmail, '--json');
    assert.equal(retried.code, 0, retried.stderr);
    assert.deepEqual(JSON.parse(retried.stdout), {
      notice_id: noticeId,
      invoice_id: invoice.id,
      invoice_number: invoice.number,
      level: 0,
      status: 'pending',
      email: 'cli@beispiel.example',
    });
    const rows = await t.handle.db.selectFrom('audit_log').select(['action', 'user_id']).where('subject_id', '=', noticeId).execute();
    assert.deepEqual(rows, [{ action: 'dunning.notice_retried', user_id: t.company.userId }]);
    const again = await kontor('admin', 'dunning', 'retry', noticeId, '--by', t.company.adminEmail);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /nur fehlgeschlagene Mahnungen lassen sich erneut senden/);
    await drainDueJobs({ db: t.handle.db, clock: t.clock, mailer: t.mailer }, { companyId: t.company.companyId });
    assert.equal((await notice()).status, 'sent');
    const empty = await kontor('admin', 'dunning', 'failed', '--company', t.company.companyId);
    assert.equal(empty.stdout.trim(), 'no failed dunning notices');
  });

  test('export datev --by records the export in the audit trail; an unknown person is refused', async () => {
    const stranger = await kontor(
      'export',
      'datev',
      '--company',
      t.company.companyId,
      '--from',
      '2026-11-01',
      '--to',
      '2026-11-30',
      '--by',
      'nobody@example.com',
    );
    assert.equal(stranger.code, 1);
    assert.match(stranger.stderr, /nobody@example.com is no active member/);
    const done = await kontor(
      'export',
      'datev',
      '--company',
      t.company.companyId,
      '--from',
      '2026-11-01',
      '--to',
      '2026-11-30',
      '--by',
      t.company.adminEmail,
      '--json',
    );
    assert.equal(done.code, 0, done.stderr);
    const result = JSON.parse(done.stdout);
    assert.equal(result.bookings, 1);
    assert.match(iconv.decode(readFileSync(result.file), 'win1252'), new RegExp(`^1190,00;"S";"EUR";;;;10000;8400;.*"${invoice.number}"`, 'm'));
    const rows = await t.handle.db.selectFrom('audit_log').select(['action', 'user_id', 'after']).where('action', '=', 'datev.exported').execute();
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.user_id, t.company.userId);
    const recorded = typeof rows[0]?.after === 'string' ? JSON.parse(rows[0].after) : rows[0]?.after;
    assert.deepEqual([recorded.from, recorded.to, recorded.bookings, recorded.warning_codes], ['2026-11-01', '2026-11-30', 1, ['datev_test_numbers']]);
    // Without --by it exports as before, unrecorded.
    const plain = await kontor('export', 'datev', '--company', t.company.companyId, '--from', '2026-11-01', '--to', '2026-11-30');
    assert.equal(plain.code, 0);
    assert.equal((await t.handle.db.selectFrom('audit_log').select('seq').where('action', '=', 'datev.exported').execute()).length, 1);
  });

  test('admin dunning stop and lift (issue 25): a Mahnsperre for the customer, refused without a target or for strangers; the daily run skips it', async () => {
    const customer = await t.handle.db
      .selectFrom('customers')
      .select('id')
      .where('company_id', '=', t.company.companyId)
      .where('external_ref', '=', 'k')
      .executeTakeFirstOrThrow();
    const second = await issueInvoice(t, s, 'cli-2', 'k', '2026-12-01');
    const neither = await kontor('admin', 'dunning', 'stop', '--reason', 'x', '--by', t.company.adminEmail);
    assert.equal(neither.code, 1);
    assert.match(neither.stderr, /name either --invoice ID or --customer ID/);
    const stranger = await kontor('admin', 'dunning', 'stop', '--customer', customer.id, '--reason', 'Ratenzahlung', '--by', 'nobody@example.com');
    assert.equal(stranger.code, 1);
    const blank = await kontor('admin', 'dunning', 'stop', '--customer', customer.id, '--reason', '  ', '--by', t.company.adminEmail);
    assert.equal(blank.code, 1);
    assert.equal(blank.stderr, 'kontor: Bitte geben Sie einen Grund für die Mahnsperre an.\n');
    assert.equal(await countRows(t.handle, 'dunning_stops'), 0);

    const set = await kontor(
      'admin',
      'dunning',
      'stop',
      '--customer',
      customer.id,
      '--reason',
      'Ratenzahlung vereinbart',
      '--by',
      t.company.adminEmail,
      '--json',
    );
    assert.equal(set.code, 0, set.stderr);
    const stop = JSON.parse(set.stdout) as { stop_id: string; created: boolean };
    assert.equal(stop.created, true);
    assert.match(stop.stop_id, /^dst_[0-9a-z]{26}$/);
    const twice = await kontor('admin', 'dunning', 'stop', '--customer', customer.id, '--reason', 'noch einmal', '--by', t.company.adminEmail);
    assert.equal(twice.stdout.trim(), `a dunning stop (${stop.stop_id}) holds for all invoices of Beispiel AG already; nothing changed`);
    // Due 2026-12-15: no reminder while the stop holds (2026-12-22 would be its day).
    await runDay(t, s, '2026-12-22');
    assert.equal((await t.handle.db.selectFrom('dunning_notices').select('id').where('invoice_id', '=', second.id).execute()).length, 0);

    const lifted = await kontor('admin', 'dunning', 'lift', stop.stop_id, '--by', t.company.adminEmail);
    assert.equal(lifted.code, 0, lifted.stderr);
    assert.equal(lifted.stdout.trim(), `dunning stop ${stop.stop_id} for Beispiel AG lifted`);
    const again = await kontor('admin', 'dunning', 'lift', stop.stop_id, '--by', t.company.adminEmail);
    assert.equal(again.stdout.trim(), `dunning stop ${stop.stop_id} was lifted already; nothing changed`);
    assert.equal((await kontor('admin', 'dunning', 'lift', 'dst_kaputt', '--by', t.company.adminEmail)).code, 1);
    const audit = await t.handle.db.selectFrom('audit_log').select('action').where('subject_id', '=', customer.id).orderBy('at').orderBy('id').execute();
    assert.deepEqual(
      audit.map((a) => a.action),
      ['dunning.stop_set', 'dunning.stop_lifted'],
    );
    await runDay(t, s, '2026-12-23');
    assert.equal((await t.handle.db.selectFrom('dunning_notices').select('id').where('invoice_id', '=', second.id).execute()).length, 1);
  });
});
