import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type CommandContext, runCommand } from '../../src/cli/commands.ts';
import { bufferIo } from '../../src/cli/io.ts';
import { sealer, type TestApp, testApp } from '../helpers/app.ts';
import { type CliWorkspace, cliWorkspace } from '../helpers/cli.ts';
import { BUSINESS_CUSTOMER, putCustomer } from '../invoicing/helpers.ts';
import { putAgreement, putAttribution, putPartner } from './helpers.ts';

// `kontor admin attribution confirm|reject ID [--json]` (design §2): a person decides on a
// proposed attribution. The company file's attributions_need_confirmation makes API
// attributions proposed. First in process against the test app, then through the real
// command while `kontor serve` runs (it carries out the command over its socket). The
// test clock stands at 2026-11-21 (Berlin).

const TIERS = [{ from_month: 1, to_month: null, percent: 10 }];

describe('kontor admin attribution confirm|reject', () => {
  let t: TestApp;
  let ctx: CommandContext;
  const run = async (...args: string[]) => {
    const io = bufferIo();
    const code = await runCommand(['admin', ...args], io, ctx);
    return { code, stdout: io.stdout, stderr: io.stderr };
  };
  const attribute = (ref: string, agreementRef: string, customerRef: string, dates: Record<string, string> = {}) =>
    putAttribution(t, ref, { agreement_ref: agreementRef, customer: { source: 'crm', external_ref: customerRef }, ...dates });
  const stored = (id: string) => t.handle.db.selectFrom('commission_attributions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const viewOf = async (ref: string) => (await t.request('GET', `/v1/commission-attributions/by-ref/crm/${ref}`)).json();

  before(async () => {
    t = await testApp();
    ctx = { db: t.handle.db, clock: t.clock, sealer, cwd: t.dataDir };
    await putPartner(t, 'p1', { name: 'Vertriebspartner Nord GmbH' });
    await putPartner(t, 'p2', { name: 'Entwicklerin Ada' });
    await putAgreement(t, 'a1', { partner_ref: 'p1', name: 'Nord 2026', start_date: '2026-01-01', tiers: TIERS });
    await putAgreement(t, 'a2', { partner_ref: 'p2', start_date: '2026-01-01', tiers: TIERS });
    for (const ref of ['kunde-1', 'kunde-2', 'kunde-3', 'kunde-4']) await putCustomer(t, ref);
  });
  after(() => t.close());

  test('company update takes attributions_need_confirmation and statements_need_review; API attributions are proposed from then on', async () => {
    const before = await attribute('before-1', 'a1', 'kunde-4', { start_date: '2025-01-01', end_date: '2025-12-31' });
    assert.equal((await stored(before.id)).status, 'active', 'active at once before the setting (shown as ended now)');
    writeFileSync(path.join(t.dataDir, 'settings.json'), JSON.stringify({ attributions_need_confirmation: true, statements_need_review: true }));
    const update = await run('company', 'update', '--company', t.company.companyId, '--company-file', 'settings.json', '--json');
    assert.equal(update.code, 0, update.stderr);
    assert.deepEqual(JSON.parse(update.stdout).updated, ['attributions_need_confirmation', 'statements_need_review']);
    const company = await t.handle.db
      .selectFrom('companies')
      .select(['attributions_need_confirmation', 'statements_need_review'])
      .where('id', '=', t.company.companyId)
      .executeTakeFirstOrThrow();
    assert.deepEqual(company, { attributions_need_confirmation: true, statements_need_review: true });
    const proposed = await attribute('prop-1', 'a1', 'kunde-1');
    assert.deepEqual([proposed.status, proposed.confirmed_at], ['proposed', null]);
    writeFileSync(path.join(t.dataDir, 'bad.json'), JSON.stringify({ attributions_need_confirmation: 'yes' }));
    const bad = await run('company', 'update', '--company', t.company.companyId, '--company-file', 'bad.json');
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /attributions_need_confirmation: type_error/);
  });

  test('confirm: proposed → active, confirmed_at and decided_* set; --json prints the attribution as the API shows it and nothing else', async () => {
    const { id } = await viewOf('prop-1');
    t.clock.set('2026-11-21T11:00:00Z');
    const res = await run('attribution', 'confirm', id, '--json');
    assert.equal(res.code, 0, res.stderr);
    assert.equal(res.stderr, '');
    const printed = JSON.parse(res.stdout);
    assert.deepEqual(printed, await viewOf('prop-1'));
    assert.deepEqual([printed.status, printed.confirmed_at], ['active', '2026-11-21T11:00:00.000Z']);
    const row = await stored(id);
    assert.deepEqual([row.status, row.decided_by, row.decided_at?.toISOString()], ['active', 'cli', '2026-11-21T11:00:00.000Z']);
    // Confirming again prints it unchanged.
    t.clock.set('2026-11-21T12:00:00Z');
    const again = await run('attribution', 'confirm', id, '--json');
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(JSON.parse(again.stdout), printed);
    assert.deepEqual(await stored(id), row);
    const text = await run('attribution', 'confirm', id);
    assert.equal(text.stdout, `attribution ${id} is active; nothing changed\n`);
    t.clock.set('2026-11-21T10:00:00Z');
  });

  test('reject: proposed → rejected (a no-op the second time); an active one is refused; a rejected one cannot be confirmed and stays rejected on a PUT', async () => {
    const proposed = await attribute('prop-2', 'a1', 'kunde-2');
    assert.equal(proposed.status, 'proposed');
    const text = await run('attribution', 'reject', proposed.id);
    assert.equal(text.code, 0, text.stderr);
    assert.match(
      text.stdout,
      new RegExp(`^attribution ${proposed.id} rejected: Beispiel AG to Vertriebspartner Nord GmbH \\(Nord 2026\\) from 2026-11-21\\n$`),
    );
    const row = await stored(proposed.id);
    assert.deepEqual([row.status, row.confirmed_at, row.decided_by], ['rejected', null, 'cli']);
    const again = await run('attribution', 'reject', proposed.id, '--json');
    assert.equal(again.code, 0, again.stderr);
    assert.equal(JSON.parse(again.stdout).status, 'rejected');
    assert.deepEqual(await stored(proposed.id), row);

    const confirm = await run('attribution', 'confirm', proposed.id, '--json');
    assert.equal(confirm.code, 1);
    assert.equal(confirm.stdout, '');
    assert.equal(confirm.stderr, `kontor: attribution ${proposed.id} was rejected and cannot be confirmed\n`);

    const active = await viewOf('prop-1');
    const refused = await run('attribution', 'reject', active.id, '--json');
    assert.equal(refused.code, 1);
    assert.equal(refused.stdout, '');
    assert.match(refused.stderr, /^kontor: attribution cat_\w+ is confirmed and cannot be rejected; end it with end_date instead\n$/);
    assert.equal((await stored(active.id)).status, 'active');

    // A PUT may still move a rejected attribution's dates; it stays rejected.
    const moved = await attribute('prop-2', 'a1', 'kunde-2', { start_date: '2026-12-01' });
    assert.deepEqual([moved.status, moved.start_date], ['rejected', '2026-12-01']);
  });

  test('confirm is refused while another partner holds the customer with an overlapping active attribution, naming it; a rejected one holds nothing', async () => {
    // Both proposed (p2's marked as conflicting with p1's); p2's is confirmed first.
    const first = await attribute('duel-p1', 'a1', 'kunde-3', { start_date: '2026-11-01' });
    const second = await attribute('duel-p2', 'a2', 'kunde-3', { start_date: '2026-12-01', end_date: '2027-05-31' });
    assert.deepEqual([second.status, second.conflicts_with_id], ['proposed', first.id]);
    assert.equal((await run('attribution', 'confirm', second.id)).code, 0);
    const refused = await run('attribution', 'confirm', first.id, '--json');
    assert.equal(refused.code, 1);
    assert.equal(refused.stdout, '');
    assert.match(refused.stderr, new RegExp(`^kontor: attribution ${first.id} cannot be confirmed: .*attribution ${second.id}; end that one first\\n$`));
    assert.equal((await stored(first.id)).status, 'proposed');
    // Once p2's attribution ends before p1's starts, p1's can be confirmed.
    await attribute('duel-p2', 'a2', 'kunde-3', { start_date: '2026-10-01', end_date: '2026-10-31' });
    assert.equal((await run('attribution', 'confirm', first.id)).code, 0);
    // A rejected attribution of another partner neither refuses a PUT nor a confirmation.
    const rejectedOne = await attribute('rej-p2', 'a2', 'kunde-2', { start_date: '2026-11-01' });
    assert.equal((await run('attribution', 'reject', rejectedOne.id)).code, 0);
    const other = await attribute('rej-p1', 'a1', 'kunde-2', { start_date: '2026-11-01' });
    assert.deepEqual([other.status, other.conflicts_with_id], ['proposed', null]);
    assert.equal((await run('attribution', 'confirm', other.id)).code, 0);
  });

  test('a confirmation racing another partner’s PUT for the same customer: never both active', async () => {
    const setting = (value: boolean) =>
      t.handle.db.updateTable('companies').set({ attributions_need_confirmation: value }).where('id', '=', t.company.companyId).execute();
    try {
      for (let round = 0; round < 30; round++) {
        const ref = `kunde-race-${round}`;
        const customerId = (await putCustomer(t, ref)).id;
        await setting(true);
        const proposed = await attribute(`race-${round}-p1`, 'a1', ref, { start_date: '2026-11-01' });
        await setting(false);
        const [confirm, put] = await Promise.all([
          run('attribution', 'confirm', proposed.id),
          t.request('PUT', `/v1/commission-attributions/by-ref/crm/race-${round}-p2`, {
            body: { agreement_ref: 'a2', customer: { source: 'crm', external_ref: ref }, start_date: '2026-11-15' },
          }),
        ]);
        const outcome = `${confirm.code}/${put.statusCode}`;
        assert.ok(outcome === '0/409' || outcome === '1/201', `${outcome}: ${confirm.stderr} ${put.body}`);
        const active = await t.handle.db
          .selectFrom('commission_attributions')
          .select('id')
          .where('customer_id', '=', customerId)
          .where('status', '=', 'active')
          .execute();
        assert.equal(active.length, 1, `round ${round}`);
      }
    } finally {
      await setting(true);
    }
  });

  test('an unknown id exits 1 with "no attribution …"; a missing id is a usage error (2)', async () => {
    for (const step of ['confirm', 'reject']) {
      const res = await run('attribution', step, 'cat_nope', '--json');
      assert.equal(res.code, 1);
      assert.equal(res.stdout, '');
      assert.equal(res.stderr, 'kontor: no attribution cat_nope\n');
      const usage = await run('attribution', step);
      assert.equal(usage.code, 2);
      assert.match(usage.stderr, /expected 1 argument\(s\), got 0/);
    }
  });
});

describe('kontor admin attribution through a running server', () => {
  let w: CliWorkspace;
  before(async () => {
    w = await cliWorkspace();
  });
  after(() => w.cleanup());

  test('company update and confirm|reject are carried out by the server; the API shows the outcome at once', async () => {
    const boot = await w.bootstrap('attr');
    const server = await w.spawnServer();
    const api = (method: string, url: string, body?: unknown) =>
      fetch(`http://127.0.0.1:${server.port}/v1${url}`, {
        method,
        headers: { authorization: `Bearer ${boot.api_key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
    const update = await w.run([
      'admin',
      'company',
      'update',
      '--company',
      boot.company_id,
      '--company-file',
      w.writeFile('settings.json', { attributions_need_confirmation: true }),
      '--json',
    ]);
    assert.equal(update.code, 0, update.stderr);
    for (const [url, body] of [
      ['/customers/by-ref/crm/kunde-1', BUSINESS_CUSTOMER],
      ['/commission-partners/by-ref/crm/p1', { name: 'Partner Eins' }],
      ['/commission-agreements/by-ref/crm/a1', { partner_ref: 'p1', start_date: '2026-01-01', tiers: TIERS }],
    ] as const) {
      const res = await api('PUT', url, body);
      assert.ok(res.status < 300, `${url}: ${res.status} ${await res.text()}`);
    }
    const put = await api('PUT', '/commission-attributions/by-ref/crm/att-1', { agreement_ref: 'a1', customer: { source: 'crm', external_ref: 'kunde-1' } });
    assert.equal(put.status, 201);
    const proposed = (await put.json()) as { id: string; status: string };
    assert.equal(proposed.status, 'proposed');

    const confirm = await w.run(['admin', 'attribution', 'confirm', proposed.id, '--json']);
    assert.equal(confirm.code, 0, confirm.stderr);
    const printed = JSON.parse(confirm.stdout);
    assert.equal(printed.status, 'active');
    const read = await api('GET', '/commission-attributions/by-ref/crm/att-1');
    assert.deepEqual(await read.json(), printed);

    const reject = await w.run(['admin', 'attribution', 'reject', proposed.id, '--json']);
    assert.equal(reject.code, 1);
    assert.equal(reject.stdout, '');
    assert.match(reject.stderr, /is confirmed and cannot be rejected; end it with end_date instead/);
    const unknown = await w.run(['admin', 'attribution', 'confirm', 'cat_nope']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /^kontor: no attribution cat_nope/);
    server.child.kill('SIGTERM');
  });
});
