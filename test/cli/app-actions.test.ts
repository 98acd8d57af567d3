import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { CommandContext } from '../../src/cli/command-kit.ts';
import { runCommand } from '../../src/cli/commands.ts';
import { bufferIo } from '../../src/cli/io.ts';
import { partnerWithOctoberGutschrift } from '../commissions/helpers.ts';
import { countRows, sealer, type TestApp, testApp } from '../helpers/app.ts';
import { AT_BUSINESS_CUSTOMER, invoiceBody, postInvoice, putCustomer } from '../invoicing/helpers.ts';
import { camt, importFile, issueInvoice } from '../payments/helpers.ts';
import { sepaSchemaErrors } from '../payouts/sepa-schema.ts';

// The app's actions on the command line (design §2): issue a draft (with the VAT
// confirmation), a payout account, a payout run writing its pain.001 file, and assigning a
// bank credit by hand — each for a person named with --by, in the audit trail as in the app.

describe('kontor: the back-office actions on the command line', () => {
  let t: TestApp;
  let ctx: CommandContext;
  let out: string;
  const kontor = async (...args: string[]) => {
    const io = bufferIo();
    const code = await runCommand(args, io, ctx);
    return { code, stdout: io.stdout, stderr: io.stderr };
  };

  before(async () => {
    t = await testApp();
    out = mkdtempSync(path.join(tmpdir(), 'kontor-cli-out-'));
    ctx = { db: t.handle.db, clock: t.clock, sealer, cwd: out, dataDir: t.dataDir, invoicing: t.invoicing };
  });
  after(async () => {
    rmSync(out, { recursive: true, force: true });
    await t.close();
  });

  test('admin invoice issue: refused with the German warning, issued when confirmed; --by must reach the company', async () => {
    await putCustomer(t, 'wien', AT_BUSINESS_CUSTOMER);
    const draft = (await postInvoice(t, invoiceBody('cli-wien', { customer: { source: 'crm', external_ref: 'wien' } }))).json();
    const stranger = await kontor('admin', 'invoice', 'issue', draft.id, '--by', 'nobody@example.com');
    assert.equal(stranger.code, 1);
    assert.match(stranger.stderr, /nobody@example.com is no active member with access to company/);
    const refused = await kontor('admin', 'invoice', 'issue', draft.id, '--by', t.company.adminEmail);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /the invoice was not issued: Position 1 hat 19 % Umsatzsteuer/);
    const issued = await kontor('admin', 'invoice', 'issue', draft.id, '--by', t.company.adminEmail, '--confirm-domestic-supply', '--json');
    assert.equal(issued.code, 0, issued.stderr);
    const view = JSON.parse(issued.stdout);
    assert.equal(view.status, 'issued');
    assert.match(view.number, /^RE-2026-\d{5}$/);
    const audit = await t.handle.db.selectFrom('audit_log').select(['action', 'user_id']).where('subject_id', '=', draft.id).execute();
    assert.deepEqual(audit, [{ action: 'invoice.issued', user_id: t.company.userId }]);
  });

  test('payout account and payout run: admins only, the file passes the EPC schema', async () => {
    const partnerId = await partnerWithOctoberGutschrift(t, 'gs', { name: 'Partner Süd GmbH', netAmount: '1000.00' });
    const bad = await kontor('admin', 'partner', 'payout-account', partnerId, '--by', t.company.adminEmail, '--iban', 'DE02120300000000202052');
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /Die IBAN ist ungültig/);
    const set = await kontor('admin', 'partner', 'payout-account', partnerId, '--by', t.company.adminEmail, '--iban', 'DE02 1203 0000 0000 2020 51', '--json');
    assert.equal(set.code, 0, set.stderr);
    assert.deepEqual(JSON.parse(set.stdout), { partner_id: partnerId, iban_masked: 'DE02 •••• 2051', bic: null, changed: true });
    const statement = await t.handle.db.selectFrom('commission_statements').select('id').where('partner_id', '=', partnerId).executeTakeFirstOrThrow();
    const args = [
      'admin',
      'payout',
      'run',
      '--company',
      t.company.companyId,
      '--statements',
      statement.id,
      '--execution-date',
      '2026-11-25',
      '--out',
      'payout.xml',
      '--by',
      t.company.adminEmail,
      '--json',
    ];
    // A member may not.
    const member = await t.newCompany('cli-member');
    await t.handle.db.insertInto('company_access').values({ company_id: t.company.companyId, user_id: member.userId }).execute();
    await t.handle.db
      .insertInto('memberships')
      .values({ organization_id: t.company.organizationId, user_id: member.userId, role: 'member', active: true })
      .execute();
    const refused = await kontor(...args.slice(0, -3), '--by', member.adminEmail);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /is not an admin/);
    assert.equal(await countRows(t.handle, 'payout_runs'), 0);
    const ran = await kontor(...args);
    assert.equal(ran.code, 0, ran.stderr);
    const result = JSON.parse(ran.stdout);
    assert.equal(result.payments, 1);
    assert.equal(result.total, '119.00');
    const file = readFileSync(path.join(out, 'payout.xml'), 'utf8');
    assert.deepEqual(await sepaSchemaErrors(file), []);
    assert.match(file, /<Nm>Partner Sued GmbH<\/Nm>/);
  });

  test('admin user invite prints the one-time password once; a member may not invite', async () => {
    const invited = await kontor(
      'admin',
      'user',
      'invite',
      'cli.kollege@example.com',
      '--company',
      t.company.companyId,
      '--by',
      t.company.adminEmail,
      '--json',
    );
    assert.equal(invited.code, 0, invited.stderr);
    const body = JSON.parse(invited.stdout);
    assert.equal(body.role, 'member');
    assert.match(body.one_time_password, /^[0-9A-Za-z]{20}$/);
    const refused = await kontor('admin', 'user', 'invite', 'noch.einer@example.com', '--company', t.company.companyId, '--by', 'cli.kollege@example.com');
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /is not an admin/);
    const again = await kontor('admin', 'user', 'invite', 'cli.kollege@example.com', '--company', t.company.companyId, '--by', t.company.adminEmail);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /gehört bereits zur Organisation/);
  });

  test('admin user invite refuses what is no e-mail address, as the API and the app do', async () => {
    const before = await countRows(t.handle, 'users');
    const refused = await kontor(
      'admin',
      'user',
      'invite',
      '"><img/src=x/onerror=alert(1)>@example.com',
      '--company',
      t.company.companyId,
      '--by',
      t.company.adminEmail,
    );
    assert.equal(refused.code, 1);
    assert.equal(refused.stderr, 'kontor: Bitte geben Sie eine gültige E-Mail-Adresse an (z. B. name@firma.de).\n');
    assert.equal(await countRows(t.handle, 'users'), before);
  });

  test('admin user reset-password: a one-time password printed once, sessions ended; --by an admin, or the operator without --by', async () => {
    const { signIn } = await import('../../src/web/session/sign-in.ts');
    const { findSession } = await import('../../src/web/session/sessions.ts');
    const invited = JSON.parse(
      (await kontor('admin', 'user', 'invite', 'cli.vergesslich@example.com', '--company', t.company.companyId, '--by', t.company.adminEmail, '--json')).stdout,
    );
    const session = await signIn(t.handle.db, t.clock, { email: invited.email, password: invited.one_time_password, address: '192.0.2.1' });
    assert.ok(session.ok);
    const byAdmin = await kontor('admin', 'user', 'reset-password', '--email', 'CLI.Vergesslich@example.com', '--by', t.company.adminEmail);
    assert.equal(byAdmin.code, 0, byAdmin.stderr);
    const password = /one-time password \(shown once, to be changed at the next sign-in\): ([0-9A-Za-z]{20})\n$/.exec(byAdmin.stdout)?.[1] as string;
    assert.match(byAdmin.stdout, /^password of cli\.vergesslich@example\.com reset; 1 session\(s\) ended;/);
    assert.equal(await findSession(t.handle.db, t.clock, session.ok ? session.token : ''), null, 'the session ended');
    assert.equal((await signIn(t.handle.db, t.clock, { email: invited.email, password: invited.one_time_password, address: '192.0.2.1' })).ok, false);
    const next = await signIn(t.handle.db, t.clock, { email: invited.email, password, address: '192.0.2.1' });
    assert.ok(next.ok && next.passwordChangeRequired, 'the new one-time password must be replaced at sign-in');
    // Refusals: a member may not, nobody resets themselves with --by, an unknown address.
    const byMember = await kontor('admin', 'user', 'reset-password', '--email', t.company.adminEmail, '--by', invited.email);
    assert.equal(byMember.code, 1);
    assert.match(byMember.stderr, /is not an admin/);
    const self = await kontor('admin', 'user', 'reset-password', '--email', t.company.adminEmail, '--by', t.company.adminEmail);
    assert.equal(self.code, 1);
    assert.match(self.stderr, /Ihr eigenes Passwort setzen Sie nicht zurück/);
    assert.equal((await kontor('admin', 'user', 'reset-password', '--email', 'niemand@example.com')).code, 1);
    // The last admin has lost the password: the operator on the server gives a new one-time password.
    const server = await kontor('admin', 'user', 'reset-password', '--email', t.company.adminEmail, '--json');
    assert.equal(server.code, 0, server.stderr);
    const body = JSON.parse(server.stdout);
    assert.match(body.one_time_password, /^[0-9A-Za-z]{20}$/);
    const back = await signIn(t.handle.db, t.clock, { email: t.company.adminEmail, password: body.one_time_password, address: '192.0.2.1' });
    assert.ok(back.ok && back.passwordChangeRequired);
    const audit = await t.handle.db
      .selectFrom('audit_log')
      .select(['action', 'user_id', 'after'])
      .where('subject_id', '=', t.company.userId)
      .where('action', '=', 'person.password_reset')
      .executeTakeFirstOrThrow();
    assert.equal(audit.user_id, t.company.userId);
    assert.match(JSON.stringify(audit.after), /server/);
  });

  test('bank unassigned and bank assign: a credit booked to an invoice by hand', async () => {
    await putCustomer(t, 'kunde-1');
    const invoice = await issueInvoice(t, 'cli-bank');
    await importFile(t, camt([{ amount: '85.06', text: 'ohne Nummer', name: 'Beispiel AG', date: '2026-11-20' }]));
    const list = await kontor('bank', 'unassigned', '--company', t.company.companyId, '--json');
    assert.equal(list.code, 0);
    const credits = JSON.parse(list.stdout) as { entry_id: string; position: number; amount: string }[];
    assert.equal(credits.length, 1);
    assert.equal(credits[0]?.amount, '85.06');
    const assign = (...extra: string[]) =>
      kontor('bank', 'assign', credits[0]?.entry_id as string, '1', invoice.number, '--company', t.company.companyId, '--by', t.company.adminEmail, ...extra);
    const assigned = await assign('--json');
    assert.equal(assigned.code, 0, assigned.stderr);
    assert.deepEqual(JSON.parse(assigned.stdout).invoice_paid, true);
    const again = await assign();
    assert.equal(again.code, 1);
    assert.match(again.stderr, /bereits vollständig zugeordnet/);
    assert.equal((await kontor('bank', 'assign', 'x', 'zero', 'RE-1', '--company', t.company.companyId, '--by', t.company.adminEmail)).code, 2);
  });

  test('bank unassigned lists the entries of one statement in the order of the file', async () => {
    // Imported together, the entries' ids share their millisecond; the list must not follow them.
    const amounts = Array.from({ length: 12 }, (_, i) => `${i + 1}.11`);
    await importFile(t, camt(amounts.map((amount, i) => ({ amount, text: `Spende ${i + 1}`, name: `Spender ${i + 1}`, date: '2026-11-21' }))));
    const list = await kontor('bank', 'unassigned', '--company', t.company.companyId, '--json');
    assert.equal(list.code, 0, list.stderr);
    const listed = (JSON.parse(list.stdout) as { booking_date: string; amount: string }[]).filter((r) => r.booking_date === '2026-11-21');
    assert.deepEqual(
      listed.map((r) => r.amount),
      amounts,
    );
  });
});
