import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { CommandContext } from '../../src/cli/command-kit.ts';
import { runCommand } from '../../src/cli/commands.ts';
import { bufferIo } from '../../src/cli/io.ts';
import { countRows, sealer, type TestApp, testApp } from '../helpers/app.ts';
import { putCustomer } from '../invoicing/helpers.ts';
import { camt, importFile, issueInvoice } from '../payments/helpers.ts';

// The app's invoice steps on the command line (design §2): write a draft from a file with
// the body of POST /invoices (invisible to the API), mail an invoice (again with --resend),
// cancel it — for the person --by names, a member will do, audited as in the app; --json
// prints one JSON document, a refusal exits 1 with one sentence.

const BODY = {
  customer: { source: 'crm', external_ref: 'kunde-1' },
  external_ref: 'hand-2026-001',
  lines: [
    { description: 'Einrichtung', quantity: '1', unit: 'Pauschale', unit_price_net: '500.00', vat_rate: 19 },
    { description: 'Handbuch', quantity: 2, unit: 'Stück', unit_price_net: '24.50', vat_rate: 7 },
  ],
  service_period: { start: '2026-11-01', end: '2026-11-15' },
  note: 'Vielen Dank für Ihren Auftrag.',
};

describe('kontor admin invoice draft | send | cancel', () => {
  let t: TestApp;
  let ctx: CommandContext;
  let dir: string;
  let memberEmail: string;
  const kontor = async (...args: string[]) => {
    const io = bufferIo();
    const code = await runCommand(args, io, ctx);
    return { code, stdout: io.stdout, stderr: io.stderr };
  };
  const file = (name: string, content: unknown) => {
    writeFileSync(path.join(dir, name), typeof content === 'string' ? content : JSON.stringify(content));
    return name;
  };
  const outbox = (number: string) => readdirSync(path.join(t.dataDir, 'outbox', t.company.companyId)).filter((name) => name.includes(number));
  const actions = async (id: string) =>
    (await t.handle.db.selectFrom('audit_log').select(['action', 'user_id']).where('subject_id', '=', id).orderBy('seq').execute()).map((a) => a.action);

  before(async () => {
    t = await testApp();
    dir = mkdtempSync(path.join(tmpdir(), 'kontor-cli-invoices-'));
    ctx = { db: t.handle.db, clock: t.clock, sealer, cwd: dir, dataDir: t.dataDir, invoicing: t.invoicing };
    await putCustomer(t, 'kunde-1');
    const colleague = await t.newCompany('cli-kollege');
    await t.handle.db.insertInto('company_access').values({ company_id: t.company.companyId, user_id: colleague.userId }).execute();
    await t.handle.db
      .insertInto('memberships')
      .values({ organization_id: t.company.organizationId, user_id: colleague.userId, role: 'member', active: true })
      .execute();
    memberEmail = colleague.adminEmail;
  });
  after(async () => {
    rmSync(dir, { recursive: true, force: true });
    await t.close();
  });

  test('draft: the body of POST /invoices becomes an app draft the API does not see; refusals are one sentence', async () => {
    const written = await kontor(
      'admin',
      'invoice',
      'draft',
      '--company',
      t.company.companyId,
      '--file',
      file('draft.json', BODY),
      '--by',
      memberEmail,
      '--json',
    );
    assert.equal(written.code, 0, written.stderr);
    const draft = JSON.parse(written.stdout);
    assert.equal(draft.status, 'draft');
    assert.equal(draft.number, null);
    assert.equal(draft.origin, 'app');
    assert.equal(draft.external_ref, 'hand-2026-001');
    assert.equal(draft.external_source, null);
    // 500,00 at 19 % (95,00) and 49,00 at 7 % (3,43).
    assert.deepEqual([draft.total_net, draft.total_tax, draft.total_gross], ['549.00', '98.43', '647.43']);
    assert.deepEqual(await actions(draft.id), ['invoice.draft_created']);
    assert.equal((await t.request('GET', `/v1/invoices/${draft.id}`)).statusCode, 404);

    const before = await countRows(t.handle, 'invoices');
    const refusals: [unknown, RegExp][] = [
      [
        { ...BODY, external_ref: 'x-1', lines: [{ ...BODY.lines[0], vat_rate: 5 }] },
        /the draft was not written: lines\.0\.vat_rate: Input should be one of: 0, 7, 19/,
      ],
      [{ ...BODY, external_ref: 'x-2', issue: true }, /the draft was not written: issue: Input should be one of: false/],
      [{ ...BODY, external_ref: 'x-3', customer: { source: 'crm', external_ref: 'gibt-es-nicht' } }, /Den Kunden gibt es in dieser Firma nicht\./],
      [BODY, /Die Referenz hand-2026-001 trägt schon die Rechnung inv_/],
      ['{"customer": ', /is no readable JSON file/],
    ];
    for (const [content, expected] of refusals) {
      const res = await kontor(
        'admin',
        'invoice',
        'draft',
        '--company',
        t.company.companyId,
        '--file',
        file('bad.json', content),
        '--by',
        t.company.adminEmail,
      );
      assert.equal(res.code, 1, res.stdout);
      assert.match(res.stderr, expected);
      assert.equal(res.stderr.trim().split('\n').length, 1, 'one sentence');
    }
    const stranger = await kontor('admin', 'invoice', 'draft', '--company', t.company.companyId, '--file', 'draft.json', '--by', 'niemand@example.com');
    assert.equal(stranger.code, 1);
    assert.match(stranger.stderr, /niemand@example.com is no active member with access to company/);
    assert.equal(await countRows(t.handle, 'invoices'), before);
    const usage = await kontor('admin', 'invoice', 'draft', '--company', t.company.companyId, '--by', t.company.adminEmail);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /--file is required/);
  });

  test('send: mails an issued invoice once; again only with --resend; a draft is refused', async () => {
    const written = JSON.parse(
      (
        await kontor(
          'admin',
          'invoice',
          'draft',
          '--company',
          t.company.companyId,
          '--file',
          file('send.json', { ...BODY, external_ref: 'send-1' }),
          '--by',
          t.company.adminEmail,
          '--json',
        )
      ).stdout,
    );
    const draftSend = await kontor('admin', 'invoice', 'send', written.id, '--by', t.company.adminEmail);
    assert.equal(draftSend.code, 1);
    assert.match(draftSend.stderr, /is a draft; issue it first/);
    const issued = await kontor('admin', 'invoice', 'issue', written.id, '--by', t.company.adminEmail, '--json');
    assert.equal(issued.code, 0, issued.stderr);
    const number = JSON.parse(issued.stdout).number as string;
    const sent = await kontor('admin', 'invoice', 'send', written.id, '--by', memberEmail, '--json');
    assert.equal(sent.code, 0, sent.stderr);
    const view = JSON.parse(sent.stdout);
    assert.equal(view.status, 'sent');
    assert.equal(view.mailed, true);
    assert.equal(outbox(number).length, 1);
    const twice = await kontor('admin', 'invoice', 'send', written.id, '--by', memberEmail);
    assert.equal(twice.code, 0);
    assert.match(twice.stdout, /was mailed before .*nothing mailed — --resend mails it once more/);
    assert.equal(outbox(number).length, 1);
    const resent = await kontor('admin', 'invoice', 'send', written.id, '--by', memberEmail, '--resend', '--json');
    assert.equal(resent.code, 0, resent.stderr);
    assert.equal(JSON.parse(resent.stdout).mailed, true);
    assert.equal(outbox(number).length, 2);
    assert.deepEqual(await actions(written.id), ['invoice.draft_created', 'invoice.issued', 'invoice.sent', 'invoice.sent']);
  });

  test('cancel: prints the Stornorechnung, a repeat changes nothing, a paid invoice is refused', async () => {
    const invoice = await issueInvoice(t, 'cli-cancel');
    const cancelled = await kontor('admin', 'invoice', 'cancel', invoice.id, '--by', memberEmail, '--json');
    assert.equal(cancelled.code, 0, cancelled.stderr);
    const storno = JSON.parse(cancelled.stdout);
    assert.equal(storno.type, 'storno');
    assert.equal(storno.created, true);
    assert.equal(storno.total_gross, `-${invoice.total_gross}`);
    assert.deepEqual(storno.cancels_invoice, { id: invoice.id, number: invoice.number, external_ref: 'cli-cancel' });
    assert.deepEqual(await actions(invoice.id), ['invoice.cancelled']);
    const again = await kontor('admin', 'invoice', 'cancel', invoice.id, '--by', memberEmail);
    assert.equal(again.code, 0);
    assert.match(again.stdout, new RegExp(`was cancelled before by ${storno.number}; nothing changed`));
    assert.deepEqual(await actions(invoice.id), ['invoice.cancelled']);

    const paid = await issueInvoice(t, 'cli-paid');
    await importFile(t, camt([{ amount: paid.total_gross, text: paid.number }], { id: 'CLI' }));
    const refused = await kontor('admin', 'invoice', 'cancel', paid.id, '--by', memberEmail);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /was not cancelled: Die Rechnung ist bezahlt und kann nicht storniert werden/);
    const unknown = await kontor('admin', 'invoice', 'cancel', 'inv_00000000000000000000000000', '--by', memberEmail);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no invoice inv_0+/);
  });
});
