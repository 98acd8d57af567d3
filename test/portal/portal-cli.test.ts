import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type CommandContext, runCommand } from '../../src/cli/commands.ts';
import { bufferIo } from '../../src/cli/io.ts';
import { cliPortalUrl } from '../../src/cli/portal-commands.ts';
import { acceptPartnerInvitation, verifyPartnerPassword } from '../../src/modules/portal/index.ts';
import { putPartner } from '../commissions/helpers.ts';
import { sealer, type TestApp, testApp } from '../helpers/app.ts';

// Issue 27 §1: `kontor admin partner invite` and `deactivate-portal`.

describe('kontor admin partner invite / deactivate-portal', () => {
  let t: TestApp;
  let ctx: CommandContext;
  const run = async (...args: string[]) => {
    const io = bufferIo();
    const code = await runCommand(['admin', 'partner', ...args], io, ctx);
    return { code, stdout: io.stdout, stderr: io.stderr };
  };
  let partnerId: string;
  before(async () => {
    t = await testApp();
    ctx = { db: t.handle.db, clock: t.clock, sealer, cwd: process.cwd(), dataDir: t.dataDir };
    partnerId = await putPartner(t, 'cli-portal');
  });
  after(() => t.close());

  test('--json prints the account, the portal and the invitation link (valid 7 days); the link opens the account once', async () => {
    const invited = await run(
      'invite',
      '--company',
      t.company.companyId,
      '--partner',
      'crm/cli-portal',
      '--email',
      'Greta@Partner.Example',
      '--by',
      t.company.adminEmail,
      '--portal-url',
      'https://kontor.example.de/portal/',
      '--json',
    );
    assert.equal(invited.code, 0, invited.stderr);
    const result = JSON.parse(invited.stdout);
    assert.deepEqual(Object.keys(result).sort(), ['account_id', 'email', 'expires_at', 'invitation_url', 'partner_id', 'portal_url']);
    assert.equal(result.partner_id, partnerId);
    assert.equal(result.email, 'greta@partner.example');
    assert.equal(result.portal_url, 'https://kontor.example.de/portal');
    assert.equal(result.expires_at, '2026-11-28T10:00:00.000Z');
    const token = (result.invitation_url as string).replace('https://kontor.example.de/portal/invitation/', '');
    assert.match(token, /^[A-Za-z0-9_-]{43}$/);
    await acceptPartnerInvitation({ db: t.handle.db, clock: t.clock }, { token, password: 'Gretas Passwort', repeat: 'Gretas Passwort' });
    assert.equal((await verifyPartnerPassword(t.handle.db, 'greta@partner.example', 'Gretas Passwort'))?.id, result.account_id);

    const byId = await run(
      'invite',
      '--company',
      t.company.companyId,
      '--partner',
      partnerId,
      '--email',
      'greta@partner.example',
      '--by',
      t.company.adminEmail,
    );
    assert.equal(byId.code, 1);
    assert.match(byId.stderr, /set up and active already/);

    const off = await run('deactivate-portal', result.account_id, '--company', t.company.companyId, '--by', t.company.adminEmail, '--json');
    assert.equal(off.code, 0, off.stderr);
    assert.deepEqual(JSON.parse(off.stdout), { account_id: result.account_id, active: false, changed: true });
    assert.equal(await verifyPartnerPassword(t.handle.db, 'greta@partner.example', 'Gretas Passwort'), null);
  });

  test('refusals: unknown partner, another company, a person without access, missing flags; nothing is written', async () => {
    const before = await t.handle.db.selectFrom('partner_accounts').select('id').execute();
    const other = await t.newCompany('cli-other');
    const base = ['--email', 'hans@partner.example', '--by', t.company.adminEmail];
    const unknown = await run('invite', '--company', t.company.companyId, '--partner', 'crm/nobody', ...base);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no partner crm\/nobody/);
    const elsewhere = await run('invite', '--company', other.companyId, '--partner', partnerId, ...base);
    assert.equal(elsewhere.code, 1);
    assert.match(elsewhere.stderr, /is no active member with access/);
    const missing = await run('invite', '--company', t.company.companyId, '--partner', partnerId, '--email', 'hans@partner.example');
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--by is required/);
    const badUrl = await run('invite', '--company', t.company.companyId, '--partner', partnerId, ...base, '--portal-url', 'ftp://x');
    assert.equal(badUrl.code, 2);
    assert.deepEqual(await t.handle.db.selectFrom('partner_accounts').select('id').execute(), before);
  });

  test('the portal address: --portal-url, else KONTOR_PUBLIC_URL, else the local port', async () => {
    assert.equal(await cliPortalUrl(undefined, { KONTOR_PUBLIC_URL: 'https://kontor.example.de/' }), 'https://kontor.example.de/portal');
    assert.equal(await cliPortalUrl('http://x.example/p/', { KONTOR_PUBLIC_URL: 'https://kontor.example.de/' }), 'http://x.example/p');
    assert.equal(await cliPortalUrl(undefined, { PORT: '9000' }), 'http://127.0.0.1:9000/portal');
    assert.equal(await cliPortalUrl(undefined, {}), 'http://127.0.0.1:8080/portal');
  });
});
