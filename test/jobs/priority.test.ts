// Follow-up work first (migration 0043, issue 26): among due jobs a higher priority is
// claimed first, so the documents of invoices a bill job issued (priority 1) are rendered
// before the next bill job runs, while the run goes on. A drain claims a pool's worth of
// jobs at a time and looks for expired leases once a second instead of before every claim;
// neither may lose a job, run one twice or leave a crashed worker's job behind.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { DatabaseHandle } from '../../src/db/connection.ts';
import { claimJobs, createJobRegistry, drainDueJobs, enqueueJob, handBackUnstarted } from '../../src/jobs/index.ts';
import { fixedClock } from '../../src/shared/clock.ts';
import { testDatabase } from '../helpers/database.ts';
import { enqueue, jobById, seedCompany, sleep } from './fixtures.ts';

const NOW = '2026-12-01T12:00:00Z';

describe('job priority and claiming in batches', () => {
  let handle: DatabaseHandle;
  before(async () => {
    handle = await testDatabase();
  });
  after(() => handle.close());

  test('a due job of higher priority is claimed before older ones; one not yet due is not', async () => {
    const companyId = await seedCompany(handle.db);
    const clock = fixedClock(NOW);
    const at = (minutes: number) => new Date(clock.now().getTime() + minutes * 60_000);
    const old1 = await enqueue(handle.db, { name: 'test.p', companyId, payload: {}, runAt: at(-30) });
    const old2 = await enqueue(handle.db, { name: 'test.p', companyId, payload: {}, runAt: at(-20) });
    const urgentLater = await enqueue(handle.db, { name: 'test.p', companyId, payload: {}, runAt: at(-1), priority: 1 });
    const urgentEarlier = await enqueue(handle.db, { name: 'test.p', companyId, payload: {}, runAt: at(-5), priority: 1 });
    const urgentFuture = await enqueue(handle.db, { name: 'test.p', companyId, payload: {}, runAt: at(10), priority: 5 });
    const claimed = await claimJobs(handle.db, { workerId: 'w', now: clock.now(), limit: 10, leaseMs: 60_000, companyId });
    assert.deepEqual(
      claimed.map((job) => job.id),
      [urgentEarlier, urgentLater, old1, old2],
    );
    assert.equal((await jobById(handle.db, urgentFuture!)).status, 'pending');
  });

  test('a drain runs a follow-up of higher priority before the older jobs still waiting', async () => {
    const companyId = await seedCompany(handle.db);
    const clock = fixedClock(NOW);
    const registry = createJobRegistry();
    const ran: string[] = [];
    registry.define<{ n: number }>({
      name: 'test.bill',
      handler: async ({ job, db }) => {
        ran.push(`bill ${job.payload.n}`);
        await db
          .transaction()
          .execute((trx) => enqueueJob(trx, { name: 'test.render', companyId, payload: { n: job.payload.n }, runAt: clock.now(), priority: 1 }, registry));
      },
    });
    registry.define<{ n: number }>({
      name: 'test.render',
      handler: async ({ job }) => {
        ran.push(`render ${job.payload.n}`);
      },
    });
    for (const n of [1, 2, 3]) await enqueue(handle.db, { name: 'test.bill', companyId, payload: { n }, runAt: clock.now() }, registry);
    const tally = await drainDueJobs({ db: handle.db, clock, jobs: registry }, { companyId, concurrency: 1 });
    assert.deepEqual(tally, { done: 6, failed: 0, retried: 0, lost: 0 });
    assert.deepEqual(ran, ['bill 1', 'render 1', 'bill 2', 'render 2', 'bill 3', 'render 3']);
  });

  test('a drain with several slots claims in batches and runs every job exactly once', async () => {
    const companyId = await seedCompany(handle.db);
    const clock = fixedClock(NOW);
    const registry = createJobRegistry();
    const runs = new Map<number, number>();
    let inFlight = 0;
    let most = 0;
    registry.define<{ n: number }>({
      name: 'test.short',
      handler: async ({ job }) => {
        inFlight++;
        most = Math.max(most, inFlight);
        await sleep(job.payload.n % 3);
        runs.set(job.payload.n, (runs.get(job.payload.n) ?? 0) + 1);
        inFlight--;
      },
    });
    for (let n = 0; n < 60; n++) await enqueue(handle.db, { name: 'test.short', companyId, payload: { n }, runAt: clock.now() }, registry);
    const tally = await drainDueJobs({ db: handle.db, clock, jobs: registry }, { companyId, concurrency: 4 });
    assert.deepEqual(tally, { done: 60, failed: 0, retried: 0, lost: 0 });
    assert.equal(runs.size, 60);
    assert.ok([...runs.values()].every((count) => count === 1));
    assert.ok(most <= 4, `at most 4 at a time, saw ${most}`);
    const left = await handle.db.selectFrom('jobs').select('status').where('company_id', '=', companyId).where('status', '<>', 'done').execute();
    assert.deepEqual(left, []);
  });

  test('maxJobs still bounds a drain that claims in batches', async () => {
    const companyId = await seedCompany(handle.db);
    const clock = fixedClock(NOW);
    const registry = createJobRegistry();
    registry.define({ name: 'test.bounded', handler: async () => {} });
    for (let n = 0; n < 10; n++) await enqueue(handle.db, { name: 'test.bounded', companyId, payload: {}, runAt: clock.now() }, registry);
    const tally = await drainDueJobs({ db: handle.db, clock, jobs: registry }, { companyId, concurrency: 4, maxJobs: 6 });
    assert.equal(tally.done, 6);
    const pending = await handle.db.selectFrom('jobs').select('id').where('company_id', '=', companyId).where('status', '=', 'pending').execute();
    assert.equal(pending.length, 4, 'the rest stays pending, none claimed and left running');
  });

  test('a lease that expires during a long drain is still taken back in that drain', async () => {
    const companyId = await seedCompany(handle.db);
    const clock = fixedClock(NOW);
    const registry = createJobRegistry();
    const ran: string[] = [];
    registry.define<{ name: string }>({
      name: 'test.lease',
      handler: async ({ job }) => {
        ran.push(job.payload.name);
        if (job.payload.name === 'slow') await sleep(1_300);
      },
    });
    const orphan = await enqueue(handle.db, { name: 'test.lease', companyId, payload: { name: 'orphan' }, runAt: clock.now() }, registry);
    // A worker that claims it and dies: its lease (300 ms) runs out while the drain is busy.
    const [taken] = await claimJobs(handle.db, { workerId: 'crashed', now: clock.now(), limit: 1, leaseMs: 300, companyId });
    assert.equal(taken?.id, orphan);
    await enqueue(handle.db, { name: 'test.lease', companyId, payload: { name: 'slow' }, runAt: clock.now() }, registry);
    const tally = await drainDueJobs({ db: handle.db, clock, jobs: registry }, { companyId, concurrency: 1 });
    assert.deepEqual(ran, ['slow', 'orphan']);
    assert.equal(tally.done, 2);
    const job = await jobById(handle.db, orphan!);
    assert.equal(job.status, 'done');
    assert.equal(job.attempts, 2, 'the crashed attempt counts');
  });

  test('jobs claimed and not started go back to the queue with their attempt unspent; others’ claims stay', async () => {
    const companyId = await seedCompany(handle.db);
    const clock = fixedClock(NOW);
    const ids: number[] = [];
    for (let n = 0; n < 3; n++) ids.push((await enqueue(handle.db, { name: 'test.back', companyId, payload: {}, runAt: clock.now() }))!);
    const mine = await claimJobs(handle.db, { workerId: 'mine', now: clock.now(), limit: 2, leaseMs: 60_000, companyId });
    const theirs = await claimJobs(handle.db, { workerId: 'theirs', now: clock.now(), limit: 1, leaseMs: 60_000, companyId });
    await handBackUnstarted(
      handle.db,
      'mine',
      [...mine, ...theirs].map((job) => job.id),
    );
    for (const job of mine) {
      const row = await jobById(handle.db, job.id);
      assert.equal(row.status, 'pending');
      assert.equal(row.attempts, 0);
      assert.equal(row.locked_by, null);
    }
    const other = await jobById(handle.db, theirs[0]!.id);
    assert.equal(other.status, 'running');
    assert.equal(other.locked_by, 'theirs');
  });
});
