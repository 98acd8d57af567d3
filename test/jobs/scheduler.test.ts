import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { DatabaseHandle } from '../../src/db/connection.ts';
import { createDailyTaskRegistry, type DailyTaskContext, runDailyTasks } from '../../src/jobs/index.ts';
import { fixedClock } from '../../src/shared/clock.ts';
import { testDatabase } from '../helpers/database.ts';
import { seedCompany } from './fixtures.ts';

describe('daily tasks', () => {
  let handle: DatabaseHandle;
  before(async () => {
    handle = await testDatabase();
  });
  after(() => handle.close());

  async function runsOf(companyId: string) {
    const rows = await handle.db
      .selectFrom('scheduler_runs')
      .select(['task', 'run_date', 'summary'])
      .where('company_id', '=', companyId)
      .orderBy('run_date')
      .orderBy('task')
      .execute();
    return rows.map((r) => [r.task, r.run_date, r.summary]);
  }

  test('a daily task runs once per company and date; a second run that day does nothing; the next day runs again', async () => {
    const berlin = await seedCompany(handle.db);
    const other = await seedCompany(handle.db);
    const clock = fixedClock('2026-11-21T10:00:00Z');
    const registry = createDailyTaskRegistry();
    const calls: string[] = [];
    registry.define('mark_overdue', async ({ companyId, date }) => {
      calls.push(`${companyId} ${date}`);
      return { marked: 0 };
    });
    const run = () => runDailyTasks(handle.db, clock, { registry, companyId: berlin });

    assert.deepEqual(await run(), { mark_overdue: { companies: 1, ran: 1, skipped: 0, failed: 0 } });
    assert.deepEqual(await run(), { mark_overdue: { companies: 1, ran: 0, skipped: 1, failed: 0 } });
    clock.set('2026-11-21T22:59:00Z'); // still the 21st in Berlin
    assert.deepEqual(await run(), { mark_overdue: { companies: 1, ran: 0, skipped: 1, failed: 0 } });
    clock.set('2026-11-21T23:00:00Z'); // midnight in Berlin: the 22nd
    assert.deepEqual(await run(), { mark_overdue: { companies: 1, ran: 1, skipped: 0, failed: 0 } });
    assert.deepEqual(calls, [`${berlin} 2026-11-21`, `${berlin} 2026-11-22`]);
    assert.deepEqual(await runsOf(berlin), [
      ['mark_overdue', '2026-11-21', { marked: 0 }],
      ['mark_overdue', '2026-11-22', { marked: 0 }],
    ]);
    assert.deepEqual(await runsOf(other), [], 'companyId limits the run to that company');
  });

  test('each company runs for its own local date, in its own time zone', async () => {
    const berlin = await seedCompany(handle.db, { timezone: 'Europe/Berlin' });
    const newYork = await seedCompany(handle.db, { timezone: 'America/New_York' });
    const clock = fixedClock('2026-11-21T23:30:00Z');
    const registry = createDailyTaskRegistry();
    const dates = new Map<string, string>();
    registry.define('note_date', async ({ companyId, date }) => {
      dates.set(companyId, date);
      return null;
    });
    const tally = await runDailyTasks(handle.db, clock, { registry });
    assert.ok(tally.note_date!.companies >= 2);
    assert.equal(dates.get(berlin), '2026-11-22');
    assert.equal(dates.get(newYork), '2026-11-21');
  });

  test('asOf runs every company for that date', async () => {
    const companyId = await seedCompany(handle.db, { timezone: 'America/New_York' });
    const registry = createDailyTaskRegistry();
    registry.define('as_of_task', async ({ date }) => ({ date }));
    await runDailyTasks(handle.db, fixedClock('2026-11-21T10:00:00Z'), { registry, companyId, asOf: '2026-12-01' });
    assert.deepEqual(await runsOf(companyId), [['as_of_task', '2026-12-01', { date: '2026-12-01' }]]);
    await assert.rejects(runDailyTasks(handle.db, fixedClock('2026-11-21T10:00:00Z'), { registry, asOf: '2026-13-45' }), /YYYY-MM-DD/);
  });

  test('a task that throws leaves no run and no work behind and runs again next time, without stopping the others', async () => {
    const companyId = await seedCompany(handle.db);
    const clock = fixedClock('2026-11-21T10:00:00Z');
    const registry = createDailyTaskRegistry();
    let fail = true;
    const logs: string[] = [];
    registry.define('fragile', async ({ db, companyId: id }: DailyTaskContext) => {
      // Work through the transaction: it commits with the run or not at all.
      await db
        .insertInto('events')
        .values({ company_id: id, id: `evt_fragile_${Date.now()}`, type: 'test.fragile', data: '{}' })
        .execute();
      if (fail) throw new Error('statement run broke');
      return { ok: true };
    });
    registry.define('after_fragile', async () => ({ ok: true }));
    const run = () => runDailyTasks(handle.db, clock, { registry, companyId, log: (m) => logs.push(m) });

    assert.deepEqual(await run(), {
      fragile: { companies: 1, ran: 0, skipped: 0, failed: 1 },
      after_fragile: { companies: 1, ran: 1, skipped: 0, failed: 0 },
    });
    assert.match(logs.join('\n'), /statement run broke/);
    assert.deepEqual(await runsOf(companyId), [['after_fragile', '2026-11-21', { ok: true }]]);
    const events = await handle.db.selectFrom('events').select('id').where('company_id', '=', companyId).execute();
    assert.deepEqual(events, [], 'the work rolled back with the run');

    fail = false;
    assert.deepEqual(await run(), {
      fragile: { companies: 1, ran: 1, skipped: 0, failed: 0 },
      after_fragile: { companies: 1, ran: 0, skipped: 1, failed: 0 },
    });
    const after = await handle.db.selectFrom('events').select('id').where('company_id', '=', companyId).execute();
    assert.equal(after.length, 1);
  });

  test('two runners at the same moment run a task once per company and date', async () => {
    const companies = [await seedCompany(handle.db), await seedCompany(handle.db), await seedCompany(handle.db)];
    const clock = fixedClock('2026-11-21T10:00:00Z');
    const registry = createDailyTaskRegistry();
    const calls: string[] = [];
    registry.define('raced', async ({ companyId }) => {
      calls.push(companyId);
      await new Promise((resolve) => setTimeout(resolve, 20));
      return null;
    });
    const results = await Promise.all(companies.flatMap((companyId) => [1, 2, 3].map(() => runDailyTasks(handle.db, clock, { registry, companyId }))));
    assert.deepEqual(calls.sort(), [...companies].sort());
    assert.equal(
      results.reduce((sum, r) => sum + r.raced!.ran, 0),
      3,
    );
    assert.equal(
      results.reduce((sum, r) => sum + r.raced!.skipped, 0),
      6,
    );
  });

  test('tasks run per company in the order they were defined', async () => {
    const companyId = await seedCompany(handle.db);
    const registry = createDailyTaskRegistry();
    const order: string[] = [];
    for (const name of ['contracts_bill', 'invoices_overdue', 'dunning_send']) {
      registry.define(name, async () => {
        order.push(name);
        return null;
      });
    }
    assert.throws(() => registry.define('dunning_send', async () => null), /defined twice/);
    await runDailyTasks(handle.db, fixedClock('2026-11-21T10:00:00Z'), { registry, companyId });
    assert.deepEqual(order, ['contracts_bill', 'invoices_overdue', 'dunning_send']);
  });
});
