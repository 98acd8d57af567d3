import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type CommandContext, runCommand } from '../../src/cli/commands.ts';
import { bufferIo } from '../../src/cli/io.ts';
import { countRows, sealer, type TestApp, testApp } from '../helpers/app.ts';
import { invoiceBody, postInvoice, putCustomer } from '../invoicing/helpers.ts';

// `kontor admin period lock|list` (GoBD "Festschreibung"): a lock is final, only moves
// forward, never past today; nothing is booked on or before the lock date any more.

describe('accounting period locks', () => {
  let t: TestApp;
  let ctx: CommandContext;
  const run = async (...args: string[]) => {
    const io = bufferIo();
    const code = await runCommand(['admin', 'period', ...args], io, ctx);
    return { code, stdout: io.stdout, stderr: io.stderr };
  };
  const companyArgs = () => ['--company', t.company.companyId];

  before(async () => {
    // Today is Saturday 21 November 2026 in Berlin.
    t = await testApp({ now: '2026-11-21T10:00:00Z' });
    ctx = { db: t.handle.db, clock: t.clock, sealer, cwd: process.cwd() };
    await putCustomer(t, 'kunde-1');
  });
  after(() => t.close());

  test('period list says when nothing is locked', async () => {
    const res = await run('list', ...companyArgs(), '--json');
    assert.equal(res.code, 0, res.stderr);
    assert.deepEqual(JSON.parse(res.stdout), { company_id: t.company.companyId, locked_until: null, history: [] });
  });

  test('refuses a lock date after today and writes nothing', async () => {
    const res = await run('lock', ...companyArgs(), '--until', '2026-11-22', '--json');
    assert.equal(res.code, 1);
    assert.equal(res.stdout, '');
    assert.match(res.stderr, /cannot lock up to 2026-11-22: that day lies in the future \(today is 2026-11-21\)/);
    assert.equal(await countRows(t.handle, 'period_lock_history'), 0);
  });

  test('refuses malformed dates and unknown companies', async () => {
    assert.equal((await run('lock', ...companyArgs(), '--until', '2026-02-30')).code, 2, 'not a date: usage error');
    const unknown = await run('lock', '--company', 'cmp_unknown', '--until', '2026-10-31');
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no company cmp_unknown/);
  });

  test('locks October: invoices and stornos dated in it are refused, the open period still works', async () => {
    // An invoice issued on 31 October, before the lock.
    t.clock.set('2026-10-31T10:00:00Z');
    const october = await postInvoice(t, invoiceBody('okt-1', { issue: true }));
    assert.equal(october.statusCode, 201);
    t.clock.set('2026-11-21T10:00:00Z');

    const res = await run('lock', ...companyArgs(), '--until', '2026-10-31', '--json');
    assert.equal(res.code, 0, res.stderr);
    const lock = JSON.parse(res.stdout);
    assert.deepEqual(
      { ...lock, locked_at: undefined },
      { company_id: t.company.companyId, locked_until: '2026-10-31', previous_until: null, changed: true, locked_at: undefined },
    );

    t.clock.set('2026-10-31T10:00:00Z');
    const refused = await postInvoice(t, invoiceBody('okt-2', { issue: true }));
    assert.equal(refused.statusCode, 409);
    assert.equal(refused.json().detail.code, 'period_locked');
    t.clock.set('2026-11-21T10:00:00Z');
    // A storno is dated today, in the open period: the October invoice can still be cancelled.
    const cancel = await t.request('POST', `/v1/invoices/${october.json().id}/cancel`);
    assert.equal(cancel.statusCode, 201);
    assert.equal((await postInvoice(t, invoiceBody('nov-1', { issue: true }))).statusCode, 201);
  });

  test('a lock only moves forward: an earlier date is refused, the same date changes nothing, a later one moves it', async () => {
    const back = await run('lock', ...companyArgs(), '--until', '2026-09-30');
    assert.equal(back.code, 1);
    assert.match(back.stderr, /locked up to 2026-10-31 already; a lock is final and only moves forward/);

    const same = await run('lock', ...companyArgs(), '--until', '2026-10-31');
    assert.equal(same.code, 0, same.stderr);
    assert.match(same.stdout, /was locked up to 31\.10\.2026 already; nothing changed/);

    const forward = await run('lock', ...companyArgs(), '--until', '2026-11-15');
    assert.equal(forward.code, 0, forward.stderr);
    assert.match(forward.stdout, /locked up to 15\.11\.2026 \(before: 31\.10\.2026\)/);

    const list = JSON.parse((await run('list', ...companyArgs(), '--json')).stdout);
    assert.equal(list.locked_until, '2026-11-15');
    assert.deepEqual(
      list.history.map((h: { locked_until: string; previous_until: string | null }) => [h.locked_until, h.previous_until]),
      [
        ['2026-10-31', null],
        ['2026-11-15', '2026-10-31'],
      ],
    );
    const text = (await run('list', ...companyArgs())).stdout;
    assert.match(text, /^locked up to 15\.11\.2026\n {2}31\.10\.2026 {2}set 2026-11-21 10:00:00Z\n {2}15\.11\.2026 {2}set/);
  });

  test('another company is not touched by the lock', async () => {
    const other = await t.newCompany('andere');
    const res = await run('list', '--company', other.companyId, '--json');
    assert.equal(JSON.parse(res.stdout).locked_until, null);
  });
});
