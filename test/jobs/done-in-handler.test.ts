import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { DatabaseHandle } from '../../src/db/connection.ts';
import { inTransaction } from '../../src/db/transaction.ts';
import { claimJobs, createJobRegistry, type JobDone, recordEvent, runJob } from '../../src/jobs/index.ts';
import { fixedClock } from '../../src/shared/clock.ts';
import { testDatabase } from '../helpers/database.ts';
import { recording } from '../helpers/recording.ts';
import { enqueue, jobById, seedCompany, sleep } from './fixtures.ts';

// Issue 26: a handler may mark its job done in its own last transaction (JobContext.done),
// so that the change that completes the job and the job's end are one commit. The runner
// then writes nothing more; when that transaction did not commit, the runner marks the job
// as before.

const START = '2026-11-28T10:00:00Z';

describe('a job marked done in the handler’s transaction', () => {
  let handle: DatabaseHandle;
  before(async () => {
    handle = await testDatabase();
  });
  after(() => handle.close());

  async function setup() {
    const companyId = await seedCompany(handle.db);
    return { companyId, clock: fixedClock(START), registry: createJobRegistry() };
  }
  /** Enqueues one job of `name` and claims it for worker `w` (the job's id and its claim). */
  async function enqueueAndClaim({ companyId, clock, registry }: Awaited<ReturnType<typeof setup>>, name: string) {
    const id = (await enqueue(handle.db, { name, companyId, payload: {}, runAt: clock.now() }, registry))!;
    const [job] = await claimJobs(handle.db, { workerId: 'w', now: clock.now(), limit: 1, leaseMs: 60_000, companyId });
    return { id, job: job! };
  }
  const eventsOf = (companyId: string) => handle.db.selectFrom('events').select('type').where('company_id', '=', companyId).execute();

  test('the change and the job’s end commit together; the runner writes nothing after the handler', async () => {
    const { companyId, clock, registry } = await setup();
    registry.define({
      name: 'test.done_in_trx',
      handler: ({ db, done }) =>
        inTransaction(db, async (trx) => {
          await recordEvent(trx, { companyId, type: 'test.changed', data: {} });
          return done(trx);
        }),
    });
    const { id, job } = await enqueueAndClaim({ companyId, clock, registry }, 'test.done_in_trx');
    const { db, statements } = recording(handle.db);
    assert.equal(await runJob({ db, clock, registry }, job), 'done');
    assert.deepEqual(statements, ['insert events', 'update jobs'], 'one transaction: the change, then the job marked done; nothing after it');
    const row = await jobById(handle.db, id);
    assert.equal(row.status, 'done');
    assert.equal(row.locked_by, null);
    assert.equal(row.finished_at?.toISOString(), clock.now().toISOString());
    assert.deepEqual(await eventsOf(companyId), [{ type: 'test.changed' }]);
  });

  test('a transaction that marked the job done but rolled back: the runner marks it done itself', async () => {
    const { companyId, clock, registry } = await setup();
    registry.define({
      name: 'test.rolled_back',
      handler: async ({ db, done }) => {
        await inTransaction(db, async (trx) => {
          await recordEvent(trx, { companyId, type: 'test.changed', data: {} });
          await done(trx);
          throw new Error('changed my mind');
        }).catch(() => undefined);
        // Nothing committed: the handler returns nothing, as a handler that never called done.
      },
    });
    const { id, job } = await enqueueAndClaim({ companyId, clock, registry }, 'test.rolled_back');
    const { db, statements } = recording(handle.db);
    assert.equal(await runJob({ db, clock, registry }, job), 'done');
    assert.deepEqual(statements, ['insert events', 'update jobs', 'update jobs'], 'the rolled back mark, then the runner’s');
    assert.equal((await jobById(handle.db, id)).status, 'done');
    assert.deepEqual(await eventsOf(companyId), [], 'the change rolled back with the mark');
  });

  test('a handler that throws after its end committed: the job is done, not retried, and the log says so', async () => {
    const { companyId, clock, registry } = await setup();
    registry.define({
      name: 'test.throws_after',
      handler: async ({ db, done }) => {
        await inTransaction(db, async (trx) => {
          await recordEvent(trx, { companyId, type: 'test.changed', data: {} });
          return done(trx);
        });
        throw new Error('a step after the commit failed');
      },
    });
    const { id, job } = await enqueueAndClaim({ companyId, clock, registry }, 'test.throws_after');
    const lines: string[] = [];
    assert.equal(await runJob({ db: handle.db, clock, registry, log: (line) => lines.push(line) }, job), 'done');
    const row = await jobById(handle.db, id);
    assert.equal(row.status, 'done');
    assert.equal(row.attempts, 1);
    assert.equal(row.last_error, null, 'no error recorded on a job that is done');
    assert.deepEqual(await eventsOf(companyId), [{ type: 'test.changed' }]);
    assert.equal(lines.length, 1);
    assert.match(lines[0]!, /threw after its end had committed; the job is done: a step after the commit failed/);
    assert.doesNotMatch(lines[0]!, /retry/);
  });

  test('a JobDone of another job’s run does not end this job', async () => {
    const { companyId, clock, registry } = await setup();
    let kept: JobDone | undefined;
    registry.define({
      name: 'test.keeps',
      handler: async ({ db, done }) => {
        kept = await inTransaction(db, (trx) => done(trx));
        return kept;
      },
    });
    registry.define({ name: 'test.borrows', handler: async () => kept });
    await enqueue(handle.db, { name: 'test.keeps', companyId, payload: {}, runAt: clock.now(), priority: 1 }, registry);
    const borrowing = (await enqueue(handle.db, { name: 'test.borrows', companyId, payload: {}, runAt: clock.now() }, registry))!;
    const [first, second] = await claimJobs(handle.db, { workerId: 'w', now: clock.now(), limit: 2, leaseMs: 60_000, companyId });
    assert.equal(first?.name, 'test.keeps');
    assert.equal(await runJob({ db: handle.db, clock, registry }, first!), 'done');
    assert.equal(second?.id, borrowing);
    const { db, statements } = recording(handle.db);
    assert.equal(await runJob({ db, clock, registry }, second!), 'done');
    assert.deepEqual(statements, ['update jobs'], 'the runner marked it done: the borrowed JobDone was not taken');
    assert.equal((await jobById(handle.db, borrowing)).status, 'done');
  });

  test('a claim lost while the handler ran: the mark finds no row, the runner answers lost and leaves the new claim alone', async () => {
    const { companyId, clock, registry } = await setup();
    registry.define({
      name: 'test.slow_done',
      handler: async ({ db, done }) => {
        await sleep(120);
        return inTransaction(db, async (trx) => {
          await recordEvent(trx, { companyId, type: 'test.changed', data: {} });
          return done(trx);
        });
      },
    });
    const id = (await enqueue(handle.db, { name: 'test.slow_done', companyId, payload: {}, runAt: clock.now() }, registry))!;
    const [slow] = await claimJobs(handle.db, { workerId: 'slow', now: clock.now(), limit: 1, leaseMs: 50, companyId });
    const running = runJob({ db: handle.db, clock, registry }, slow!);
    await sleep(80);
    const [again] = await claimJobs(handle.db, { workerId: 'other', now: clock.now(), limit: 1, leaseMs: 60_000, companyId });
    assert.equal(again?.id, id);
    assert.equal(await running, 'lost');
    const row = await jobById(handle.db, id);
    assert.equal(row.status, 'running');
    assert.equal(row.locked_by, 'other');
    assert.equal(row.attempts, 2);
  });
});
