import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type CommandContext, runCommand } from '../../src/cli/commands.ts';
import { bufferIo } from '../../src/cli/io.ts';
import { runDueWork } from '../../src/jobs/index.ts';
import { partnerBalance, partnerWithOctoberGutschrift, postEvent } from '../commissions/helpers.ts';
import { sealer, type TestApp, testApp } from '../helpers/app.ts';

// `kontor admin statement issue|send|cancel|objection|mark-paid ID --json` (design §2): the
// person-side steps on the command line; --json prints the statement as the API shows it;
// refusals exit 1 with one sentence on stderr.

describe('kontor admin statement', () => {
  let t: TestApp;
  let ctx: CommandContext;
  const run = async (...args: string[]) => {
    const io = bufferIo();
    const code = await runCommand(['admin', 'statement', ...args], io, ctx);
    return { code, stdout: io.stdout, stderr: io.stderr };
  };
  const draftOf = async (partnerId: string) =>
    (
      await t.handle.db
        .selectFrom('commission_statements')
        .select('id')
        .where('partner_id', '=', partnerId)
        .where('status', '=', 'draft')
        .executeTakeFirstOrThrow()
    ).id;

  let gsPartner: string;
  before(async () => {
    t = await testApp({ now: '2026-11-21T10:00:00Z' });
    ctx = { db: t.handle.db, clock: t.clock, sealer, cwd: process.cwd(), dataDir: t.dataDir };
    await t.handle.db.updateTable('companies').set({ statements_need_review: true }).where('id', '=', t.company.companyId).execute();
    gsPartner = await partnerWithOctoberGutschrift(t, 'gs', { netAmount: '500.00', endAt: '2026-11-01T12:00:00Z', partner: { email: 'gs@partner.example' } });
  });
  after(() => t.close());

  test('issue a draft, send it, mark it paid — each printed as the API shows it', async () => {
    const id = await draftOf(gsPartner);
    const paidEarly = await run('mark-paid', id);
    assert.equal(paidEarly.code, 1);
    assert.match(paidEarly.stderr, /draft and cannot be paid/);
    const issued = await run('issue', id, '--json');
    assert.equal(issued.code, 0, issued.stderr);
    const view = JSON.parse(issued.stdout);
    assert.deepEqual([view.id, view.status, view.number, view.gross_cents], [id, 'issued', 'GS-2026-00001', 5950]);
    const again = await run('issue', id);
    assert.equal(again.code, 0);
    assert.match(again.stdout, /nothing changed/);
    const sent = await run('send', id, '--json');
    assert.equal(sent.code, 0, sent.stderr);
    assert.equal(JSON.parse(sent.stdout).status, 'sent');
    assert.equal(JSON.parse(sent.stdout).sent_to, 'gs@partner.example');
    const outbox = readdirSync(path.join(t.dataDir, 'outbox', t.company.companyId));
    assert.equal(outbox.length, 1);
    await run('send', id);
    assert.equal(readdirSync(path.join(t.dataDir, 'outbox', t.company.companyId)).length, 1, 'mailed once');
    const paid = await run('mark-paid', id);
    assert.equal(paid.code, 0, paid.stderr);
    assert.match(paid.stdout, /GS-2026-00001 paid/);
    assert.deepEqual(await partnerBalance(t, 'gs'), { open: 0, statemented: 0, paid: 5000 });
  });

  test('cancel and objection refuse what they cannot do; unknown ids exit 1', async () => {
    await postEvent(t, { external_ref: 'e-2', occurred_at: '2026-11-10T10:00:00Z', net_amount: '100.00' });
    t.clock.set('2026-12-01T12:00:00Z');
    await runDueWork(
      { db: t.handle.db, clock: t.clock, services: { invoicing: t.invoicing } },
      { asOf: '2026-12-01', companyId: t.company.companyId, log: () => {} },
    );
    const id = await draftOf(gsPartner);
    assert.equal((await run('issue', id)).code, 0);
    const objected = await run('objection', id, '--json');
    assert.equal(objected.code, 0, objected.stderr);
    assert.equal(JSON.parse(objected.stdout).status, 'objected');
    const cancel = await run('cancel', id);
    assert.equal(cancel.code, 0);
    assert.match(cancel.stdout, /nothing changed/);
    const unknown = await run('cancel', 'cst_00000000000000000000000000');
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no statement/);
    const usage = await run('cancel');
    assert.equal(usage.code, 2);
  });
});
