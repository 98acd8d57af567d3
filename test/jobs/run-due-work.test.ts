import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { DatabaseHandle } from '../../src/db/connection.ts';
import { createDailyTaskRegistry, createJobRegistry, enqueueJob, runDueWork } from '../../src/jobs/index.ts';
import { AdminError } from '../../src/modules/access/admin-error.ts';
import { fixedClock } from '../../src/shared/clock.ts';
import { testDatabase } from '../helpers/database.ts';
import { enqueue, seedCompany } from './fixtures.ts';

describe('runDueWork (kontor jobs run)', () => {
  let handle: DatabaseHandle;
  before(async () => {
    handle = await testDatabase();
  });
  after(() => handle.close());

  test('runs the daily tasks as of the date, then the jobs they enqueued and every other due job, and says so', async () => {
    const companyId = await seedCompany(handle.db);
    const elsewhere = await seedCompany(handle.db);
    const jobs = createJobRegistry();
    const tasks = createDailyTaskRegistry();
    const delivered: string[] = [];
    jobs.define<{ date: string }>({
      name: 'test.reminder',
      handler: async ({ job }) => {
        delivered.push(`${job.company_id} ${job.payload.date}`);
      },
    });
    jobs.define({
      name: 'test.broken',
      maxAttempts: 1,
      handler: async () => {
        throw new Error('broken');
      },
    });
    jobs.define({
      name: 'test.flaky',
      handler: async () => {
        throw new Error('try later');
      },
    });
    tasks.define('send_reminders', async ({ db, clock, companyId: id, date }) => {
      await enqueueJob(db, { name: 'test.reminder', companyId: id, payload: { date }, runAt: clock.now(), dedupeKey: `reminder:${id}:${date}` }, jobs);
      return { enqueued: 1 };
    });
    // --as-of runs as if it were noon UTC of that day (src/cli/commands.ts).
    const clock = fixedClock('2026-12-01T12:00:00Z');
    await enqueue(handle.db, { name: 'test.broken', companyId, payload: {}, runAt: new Date('2026-11-30T00:00:00Z') }, jobs);
    await enqueue(handle.db, { name: 'test.flaky', companyId, payload: {}, runAt: new Date('2026-11-30T00:00:00Z') }, jobs);
    await enqueue(handle.db, { name: 'test.reminder', companyId, payload: { date: 'future' }, runAt: new Date('2026-12-02T00:00:00Z') }, jobs);
    await enqueue(
      handle.db,
      { name: 'test.reminder', companyId: elsewhere, payload: { date: 'other company' }, runAt: new Date('2026-11-01T00:00:00Z') },
      jobs,
    );

    const summary = await runDueWork({ db: handle.db, clock, jobs, tasks }, { asOf: '2026-12-01', companyId });
    assert.deepEqual(summary, {
      as_of: '2026-12-01',
      tasks: { send_reminders: { companies: 1, ran: 1, skipped: 0, failed: 0 } },
      jobs: { done: 1, failed: 1, retried: 1 },
    });
    assert.deepEqual(JSON.parse(JSON.stringify(summary)), summary, 'JSON-able');
    assert.deepEqual(delivered, [`${companyId} 2026-12-01`], 'not the future job, not the other company');

    const again = await runDueWork({ db: handle.db, clock, jobs, tasks }, { asOf: '2026-12-01', companyId });
    assert.deepEqual(again, {
      as_of: '2026-12-01',
      tasks: { send_reminders: { companies: 1, ran: 0, skipped: 1, failed: 0 } },
      jobs: { done: 0, failed: 0, retried: 0 },
    });

    const nextDay = fixedClock('2026-12-02T12:00:00Z');
    const third = await runDueWork({ db: handle.db, clock: nextDay, jobs, tasks }, { asOf: '2026-12-02', companyId });
    assert.deepEqual(third.tasks, { send_reminders: { companies: 1, ran: 1, skipped: 0, failed: 0 } });
    assert.deepEqual(third.jobs, { done: 2, failed: 0, retried: 1 }, "the day's reminder, the one scheduled for the 2nd and the flaky one again");
    assert.deepEqual(delivered.sort(), [`${companyId} 2026-12-01`, `${companyId} 2026-12-02`, `${companyId} future`].sort());
  });

  test('without companyId every company runs, and without asOf each for its today by the clock', async () => {
    const companyId = await seedCompany(handle.db, { timezone: 'Asia/Tokyo' });
    const tasks = createDailyTaskRegistry();
    const seen = new Map<string, string>();
    tasks.define('note', async ({ companyId: id, date }) => {
      seen.set(id, date);
      return null;
    });
    const clock = fixedClock('2026-11-21T20:00:00Z');
    const summary = await runDueWork({ db: handle.db, clock, jobs: createJobRegistry(), tasks });
    assert.equal(summary.as_of, '2026-11-21T20:00:00.000Z');
    assert.equal(summary.tasks.note!.companies, seen.size);
    assert.equal(seen.get(companyId), '2026-11-22');
  });

  test('stops after maxJobs jobs in one call', async () => {
    const companyId = await seedCompany(handle.db);
    const jobs = createJobRegistry();
    jobs.define({ name: 'test.many', handler: async () => {} });
    const clock = fixedClock('2026-11-21T10:00:00Z');
    for (let i = 0; i < 7; i++) await enqueue(handle.db, { name: 'test.many', companyId, payload: { i }, runAt: clock.now() }, jobs);
    const deps = { db: handle.db, clock, jobs, tasks: createDailyTaskRegistry() };
    assert.equal((await runDueWork(deps, { companyId, maxJobs: 5 })).jobs.done, 5);
    assert.equal((await runDueWork(deps, { companyId, maxJobs: 5 })).jobs.done, 2);
  });

  test('an unknown company is refused', async () => {
    await assert.rejects(
      runDueWork({ db: handle.db, clock: fixedClock('2026-11-21T10:00:00Z'), tasks: createDailyTaskRegistry() }, { companyId: 'com_missing' }),
      (error: unknown) => error instanceof AdminError && /com_missing/.test(error.message),
    );
  });
});
