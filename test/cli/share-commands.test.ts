import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { CommandContext } from '../../src/cli/command-kit.ts';
import { runCommand } from '../../src/cli/commands.ts';
import { bufferIo } from '../../src/cli/io.ts';
import { invitePerson } from '../../src/modules/access/people.ts';
import { partnerWithOctoberGutschrift, putAgreement, putAttribution, putPartner } from '../commissions/helpers.ts';
import { sealer, type TestApp, testApp } from '../helpers/app.ts';
import { putCustomer } from '../invoicing/helpers.ts';

// The revenue-share steps on the command line with --by (design §2: every person-side action
// of the app is scriptable): the person named must be an active member with access to the
// company (mark-paid an admin, as in the app), and the step is in the audit trail as the app
// records it; without --by the commands work as before. `statement list` and
// `attribution list` show what waits.

describe('kontor admin statement|attribution with --by, and their lists', () => {
  let t: TestApp;
  let ctx: CommandContext;
  let statementId: string;
  let memberId: string;
  const memberEmail = 'mitglied@example.com';
  const kontor = async (...args: string[]) => {
    const io = bufferIo();
    const code = await runCommand(['admin', ...args], io, ctx);
    return { code, stdout: io.stdout, stderr: io.stderr };
  };
  const audit = (id: string) => t.handle.db.selectFrom('audit_log').select(['action', 'user_id']).where('subject_id', '=', id).orderBy('seq').execute();

  before(async () => {
    t = await testApp({ now: '2026-10-20T10:00:00Z' });
    ctx = { db: t.handle.db, clock: t.clock, sealer, cwd: t.dataDir, dataDir: t.dataDir };
    await t.handle.db
      .updateTable('companies')
      .set({ statements_need_review: true, attributions_need_confirmation: true })
      .where('id', '=', t.company.companyId)
      .execute();
    const partnerId = await partnerWithOctoberGutschrift(t, 'gs', { netAmount: '500.00', partner: { email: 'gs@partner.example' } });
    statementId = (await t.handle.db.selectFrom('commission_statements').select('id').where('partner_id', '=', partnerId).executeTakeFirstOrThrow()).id;
    const invited = await invitePerson(
      { db: t.handle.db, clock: t.clock },
      { userId: t.company.userId, organizationId: t.company.organizationId, companyId: t.company.companyId },
      { email: memberEmail, role: 'member', companyIds: [t.company.companyId] },
    );
    memberId = invited.userId;
  });
  after(() => t.close());

  test('statement list, then issue and mark-paid --by: who may, and the audit rows', async () => {
    const listed = await kontor('statement', 'list', '--company', t.company.companyId, '--json');
    assert.equal(listed.code, 0, listed.stderr);
    const views = JSON.parse(listed.stdout);
    assert.deepEqual(
      views.map((v: { id: string; status: string; number: string | null }) => [v.id, v.status, v.number]),
      [[statementId, 'draft', null]],
    );
    const text = await kontor('statement', 'list', '--company', t.company.companyId);
    assert.match(text.stdout, new RegExp(`^${statementId}  \\(draft\\)  self_billing  draft  59\\.50 EUR  Partner gs  until 2026-10-31\\n$`));
    assert.deepEqual(JSON.parse((await kontor('statement', 'list', '--company', t.company.companyId, '--status', 'issued', '--json')).stdout), []);
    assert.equal((await kontor('statement', 'list', '--company', t.company.companyId, '--status', 'offen')).code, 2);
    const noCompany = await kontor('statement', 'list', '--company', 'com_nope');
    assert.equal(noCompany.code, 1);
    assert.match(noCompany.stderr, /no company com_nope/);

    const stranger = await kontor('statement', 'issue', statementId, '--by', 'nobody@example.com');
    assert.equal(stranger.code, 1);
    assert.match(stranger.stderr, /^kontor: nobody@example.com is no active member with access to company /);
    const issued = await kontor('statement', 'issue', statementId, '--by', memberEmail, '--json');
    assert.equal(issued.code, 0, issued.stderr);
    assert.deepEqual([JSON.parse(issued.stdout).status, JSON.parse(issued.stdout).number], ['issued', 'GS-2026-00001']);
    const notAdmin = await kontor('statement', 'mark-paid', statementId, '--by', memberEmail);
    assert.equal(notAdmin.code, 1);
    assert.match(notAdmin.stderr, /is not an admin; this needs the admin role/);
    const paid = await kontor('statement', 'mark-paid', statementId, '--by', t.company.adminEmail);
    assert.equal(paid.code, 0, paid.stderr);
    assert.match(paid.stdout, /GS-2026-00001 paid/);
    assert.deepEqual(await audit(statementId), [
      { action: 'statement.issued', user_id: memberId },
      { action: 'statement.paid', user_id: t.company.userId },
    ]);
    const row = await t.handle.db.selectFrom('commission_statements').select(['decided_by']).where('id', '=', statementId).executeTakeFirstOrThrow();
    assert.equal(row.decided_by, t.company.adminEmail);
    // A refusal with --by is one sentence and exit 1; without --by the commands work as before, with no audit row.
    const cancel = await kontor('statement', 'cancel', statementId, '--by', t.company.adminEmail);
    assert.equal(cancel.code, 1);
    assert.match(cancel.stderr, /is paid and cannot be cancelled/);
    const sent = await kontor('statement', 'send', statementId, '--json');
    assert.equal(sent.code, 0, sent.stderr);
    assert.equal(JSON.parse(sent.stdout).status, 'sent');
    assert.equal((await audit(statementId)).length, 2);
    assert.equal((await kontor('statement', 'issue', 'cst_00000000000000000000000000', '--by', t.company.adminEmail)).code, 1);
  });

  test('attribution list and confirm|reject --by: audit rows as in the app; without --by decided by cli', async () => {
    t.clock.set('2026-11-21T10:00:00Z');
    await putPartner(t, 'nord', { name: 'Vertriebspartner Nord GmbH' });
    await putAgreement(t, 'nord-ag', {
      partner_ref: 'nord',
      name: 'Nord 2026',
      start_date: '2026-01-01',
      tiers: [{ from_month: 1, to_month: null, percent: 10 }],
    });
    for (const ref of ['kunde-1', 'kunde-2']) await putCustomer(t, ref);
    const first = await putAttribution(t, 'att-1', { agreement_ref: 'nord-ag', customer: { source: 'crm', external_ref: 'kunde-1' } });
    const second = await putAttribution(t, 'att-2', { agreement_ref: 'nord-ag', customer: { source: 'crm', external_ref: 'kunde-2' } });
    const listed = await kontor('attribution', 'list', '--company', t.company.companyId, '--json');
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(JSON.parse(listed.stdout), [first, second]);
    const text = await kontor('attribution', 'list', '--company', t.company.companyId);
    assert.match(text.stdout, new RegExp(`^${first.id}  Beispiel AG to Vertriebspartner Nord GmbH \\(Nord 2026\\) from 2026-11-21\\n`));

    const confirmed = await kontor('attribution', 'confirm', first.id, '--by', memberEmail, '--json');
    assert.equal(confirmed.code, 0, confirmed.stderr);
    assert.equal(JSON.parse(confirmed.stdout).status, 'active');
    assert.deepEqual(await audit(first.id), [{ action: 'attribution.confirmed', user_id: memberId }]);
    const rejected = await kontor('attribution', 'reject', second.id);
    assert.equal(rejected.code, 0, rejected.stderr);
    assert.deepEqual(await audit(second.id), []);
    const rows = await t.handle.db
      .selectFrom('commission_attributions')
      .select(['id', 'decided_by'])
      .where('id', 'in', [first.id, second.id])
      .orderBy('id')
      .execute();
    assert.deepEqual(
      new Map(rows.map((r) => [r.id, r.decided_by])),
      new Map([
        [first.id, memberEmail],
        [second.id, 'cli'],
      ]),
    );
    assert.deepEqual(JSON.parse((await kontor('attribution', 'list', '--company', t.company.companyId, '--json')).stdout), []);

    const other = await t.newCompany('fremd');
    const stranger = await kontor('attribution', 'reject', first.id, '--by', other.adminEmail);
    assert.equal(stranger.code, 1);
    assert.match(stranger.stderr, /is no active member with access to company/);
    const unknown = await kontor('attribution', 'confirm', 'cat_nope', '--by', memberEmail);
    assert.equal(unknown.code, 1);
    assert.equal(unknown.stderr, 'kontor: no attribution cat_nope\n');
  });
});
