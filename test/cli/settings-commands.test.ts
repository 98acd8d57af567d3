import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { CommandContext } from '../../src/cli/command-kit.ts';
import { runCommand } from '../../src/cli/commands.ts';
import { bufferIo } from '../../src/cli/io.ts';
import { countRows, sealer, type TestApp, testApp } from '../helpers/app.ts';
import { SMTP_PASSWORD, SMTP_USER, startSmtpServer, type TestSmtpServer } from '../mail/fixtures.ts';

// The settings on the command line (design §2): `admin company show` (no SMTP password),
// `admin mailbox test` through a real SMTP server, and --by on `admin company update` and
// `admin period lock`, which records the person in the audit trail as the app does.

describe('kontor: company settings, mailbox test and period lock on the command line', () => {
  let t: TestApp;
  let ctx: CommandContext;
  let dir: string;
  let smtp: TestSmtpServer;
  const kontor = async (...args: string[]) => {
    const io = bufferIo();
    const code = await runCommand(args, io, ctx);
    return { code, stdout: io.stdout, stderr: io.stderr };
  };
  const file = (name: string, content: unknown) => {
    writeFileSync(path.join(dir, name), JSON.stringify(content));
    return name;
  };
  const audit = (action: string) =>
    t.handle.db.selectFrom('audit_log').select(['user_id', 'before', 'after']).where('action', '=', action).orderBy('seq').execute();
  const json = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value) as Record<string, unknown>;

  before(async () => {
    t = await testApp();
    smtp = await startSmtpServer();
    dir = mkdtempSync(path.join(tmpdir(), 'kontor-cli-settings-'));
    ctx = { db: t.handle.db, clock: t.clock, sealer, cwd: dir, dataDir: t.dataDir };
  });
  after(async () => {
    rmSync(dir, { recursive: true, force: true });
    await smtp.close();
    await t.close();
  });

  test('admin company update --by records the changed keys; without --by it works as before, with a stranger it is refused', async () => {
    const smtpFile = file('smtp.json', {
      phone: '+49 30 999',
      smtp: { host: '127.0.0.1', port: smtp.port, user: SMTP_USER, password: SMTP_PASSWORD, from: 'rechnung@muster.example' },
    });
    const stranger = await kontor('admin', 'company', 'update', '--company', t.company.companyId, '--company-file', smtpFile, '--by', 'nobody@example.com');
    assert.equal(stranger.code, 1);
    assert.match(stranger.stderr, /nobody@example.com is no active member with access to company/);
    const updated = await kontor(
      'admin',
      'company',
      'update',
      '--company',
      t.company.companyId,
      '--company-file',
      smtpFile,
      '--by',
      t.company.adminEmail,
      '--json',
    );
    assert.equal(updated.code, 0, updated.stderr);
    assert.deepEqual(JSON.parse(updated.stdout).updated, ['phone', 'smtp']);
    const [row] = await audit('company.settings_changed');
    assert.equal(row?.user_id, t.company.userId);
    assert.deepEqual(json(row?.before), { phone: '+49 30 1234567', smtp: null });
    assert.deepEqual(json(row?.after), {
      phone: '+49 30 999',
      smtp: { host: '127.0.0.1', port: smtp.port, secure: false, user: SMTP_USER, from: 'rechnung@muster.example' },
      password_changed: true,
    });
    assert.doesNotMatch(JSON.stringify(row), new RegExp(SMTP_PASSWORD));
    const rows = await countRows(t.handle, 'audit_log');
    const plain = await kontor('admin', 'company', 'update', '--company', t.company.companyId, '--company-file', file('p.json', { phone: '+49 30 1' }));
    assert.equal(plain.code, 0, plain.stderr);
    assert.equal(await countRows(t.handle, 'audit_log'), rows, 'without --by no audit row');
    const refused = await kontor(
      'admin',
      'company',
      'update',
      '--company',
      t.company.companyId,
      '--company-file',
      file('bad.json', { iban: 'DE00' }),
      '--by',
      t.company.adminEmail,
    );
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /iban: not a valid IBAN/);
  });

  test('admin company show prints the settings as the company file has them, without the SMTP password', async () => {
    const shown = await kontor('admin', 'company', 'show', '--company', t.company.companyId, '--json');
    assert.equal(shown.code, 0, shown.stderr);
    const settings = JSON.parse(shown.stdout);
    assert.equal(settings.name, 'main GmbH');
    assert.equal(settings.register_number, 'HRB 123456 B');
    assert.deepEqual(settings.managing_directors, ['Erika Mustermann', 'Max Mustermann']);
    assert.equal(settings.eu_distance_sales_threshold_exceeded, false);
    assert.deepEqual(settings.smtp, {
      host: '127.0.0.1',
      port: smtp.port,
      secure: false,
      user: SMTP_USER,
      from: 'rechnung@muster.example',
      password_stored: true,
    });
    assert.doesNotMatch(shown.stdout, new RegExp(SMTP_PASSWORD));
    assert.doesNotMatch(shown.stdout, /password_sealed/);
    const text = await kontor('admin', 'company', 'show', '--company', t.company.companyId);
    assert.match(text.stdout, /^name: main GmbH$/m);
    assert.match(text.stdout, /^smtp: 127\.0\.0\.1:\d+, user rechnung@muster-software\.de, from rechnung@muster\.example, password stored \(not shown\)$/m);
    const unknown = await kontor('admin', 'company', 'show', '--company', 'cmp_unknown');
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no company cmp_unknown/);
  });

  test('admin mailbox test sends through the mailbox; a refused recipient exits 1 with the German reason', async () => {
    const before = smtp.received.length;
    const sent = await kontor(
      'admin',
      'mailbox',
      'test',
      '--company',
      t.company.companyId,
      '--by',
      t.company.adminEmail,
      '--to',
      'pruefung@example.com',
      '--json',
    );
    assert.equal(sent.code, 0, sent.stderr);
    const result = JSON.parse(sent.stdout);
    assert.deepEqual([result.ok, result.to, result.via, result.server], [true, 'pruefung@example.com', 'smtp', `127.0.0.1:${smtp.port}`]);
    const mail = await smtp.parsed(before);
    assert.equal(mail.subject, 'Testmail von Kontor für main GmbH');
    assert.deepEqual(mail.from?.value, [{ address: 'rechnung@muster.example', name: 'main GmbH' }]);

    const refused = await kontor('admin', 'mailbox', 'test', '--company', t.company.companyId, '--by', t.company.adminEmail, '--to', 'x@rejected.example');
    assert.equal(refused.code, 1);
    assert.equal(refused.stdout, '');
    assert.match(
      refused.stderr,
      /the test mail was not sent \(mail_rejected\): Der Mailserver 127\.0\.0\.1:\d+ hat die Empfängeradresse x@rejected\.example abgelehnt/,
    );
    const usage = await kontor('admin', 'mailbox', 'test', '--company', t.company.companyId);
    assert.equal(usage.code, 2);
    const rows = await audit('company.test_mail_sent');
    assert.deepEqual(
      rows.map((r) => [r.user_id, json(r.after).delivered]),
      [
        [t.company.userId, true],
        [t.company.userId, false],
      ],
    );
  });

  test('admin period lock --by records who locked, in the history and the audit trail', async () => {
    const locked = await kontor('admin', 'period', 'lock', '--company', t.company.companyId, '--until', '2026-10-31', '--by', t.company.adminEmail, '--json');
    assert.equal(locked.code, 0, locked.stderr);
    assert.equal(JSON.parse(locked.stdout).changed, true);
    const [row] = await audit('period.locked');
    assert.deepEqual([row?.user_id, json(row?.before), json(row?.after)], [t.company.userId, { locked_until: null }, { locked_until: '2026-10-31' }]);
    const list = await kontor('admin', 'period', 'list', '--company', t.company.companyId);
    assert.match(list.stdout, new RegExp(`31\\.10\\.2026 {2}set 2026-11-21 10:00:00Z by ${t.company.adminEmail.replace(/[.]/g, '\\.')}`));
    const stranger = await kontor('admin', 'period', 'lock', '--company', t.company.companyId, '--until', '2026-11-01', '--by', 'nobody@example.com');
    assert.equal(stranger.code, 1);
    assert.match(stranger.stderr, /nobody@example.com is no active member/);
    const plain = await kontor('admin', 'period', 'lock', '--company', t.company.companyId, '--until', '2026-11-01');
    assert.equal(plain.code, 0, plain.stderr);
    assert.equal((await audit('period.locked')).length, 1, 'without --by no audit row');
  });
});
