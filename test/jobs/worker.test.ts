import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CompiledQuery, sql } from 'kysely';
import type { DatabaseHandle } from '../../src/db/connection.ts';
import { type Liveness, localLiveness, serverLiveness } from '../../src/db/liveness.ts';
import {
  backoffDelayMs,
  claimJobs,
  createJobRegistry,
  drainDueJobs,
  PermanentJobError,
  releaseJobsOfEndedProcesses,
  runJob,
  startWorker,
} from '../../src/jobs/index.ts';
import { fixedClock } from '../../src/shared/clock.ts';
import { serverUrl, testDatabase } from '../helpers/database.ts';
import { enqueue, jobById, seedCompany, sleep, waitFor } from './fixtures.ts';

const START = '2026-11-21T10:00:00Z';

describe('claiming and running jobs', () => {
  let handle: DatabaseHandle;
  before(async () => {
    handle = await testDatabase();
  });
  after(() => handle.close());

  /** A company, a clock and a registry of its own for each test. */
  async function setup() {
    const companyId = await seedCompany(handle.db);
    const clock = fixedClock(START);
    const registry = createJobRegistry();
    const drain = (options: { maxJobs?: number; concurrency?: number } = {}) =>
      drainDueJobs({ db: handle.db, clock, jobs: registry }, { companyId, ...options });
    return { companyId, clock, registry, drain };
  }

  test('a due job runs once and is marked done', async () => {
    const { companyId, clock, registry, drain } = await setup();
    const seen: unknown[] = [];
    registry.define<{ n: number }>({
      name: 'test.once',
      handler: async ({ job }) => {
        seen.push(job.payload);
      },
    });
    const id = await enqueue(handle.db, { name: 'test.once', companyId, payload: { n: 1 }, runAt: clock.now() }, registry);
    assert.deepEqual(await drain(), { done: 1, failed: 0, retried: 0, lost: 0 });
    assert.deepEqual(await drain(), { done: 0, failed: 0, retried: 0, lost: 0 });
    assert.deepEqual(seen, [{ n: 1 }]);
    const job = await jobById(handle.db, id!);
    assert.equal(job.status, 'done');
    assert.equal(job.attempts, 1);
    assert.equal(job.locked_by, null);
    assert.equal(job.finished_at?.toISOString(), clock.now().toISOString(), 'finished_at is business time');
  });

  test('a job is not due before its run_at by the injected clock', async () => {
    const { companyId, clock, registry, drain } = await setup();
    let runs = 0;
    registry.define({ name: 'test.later', handler: async () => void runs++ });
    await enqueue(handle.db, { name: 'test.later', companyId, payload: {}, runAt: new Date('2026-11-22T00:00:00Z') }, registry);
    assert.equal((await drain()).done, 0);
    clock.set('2026-11-22T00:00:00Z');
    assert.equal((await drain()).done, 1);
    assert.equal(runs, 1);
  });

  test('a failing job is retried with exponential backoff and ends failed after max attempts with last_error', async () => {
    const { companyId, clock, registry, drain } = await setup();
    let calls = 0;
    registry.define({
      name: 'test.flaky',
      maxAttempts: 3,
      handler: async () => {
        calls += 1;
        throw new Error(`mail server down (call ${calls})`);
      },
    });
    const id = (await enqueue(handle.db, { name: 'test.flaky', companyId, payload: {}, runAt: clock.now() }, registry))!;

    assert.deepEqual(await drain(), { done: 0, failed: 0, retried: 1, lost: 0 });
    let job = await jobById(handle.db, id);
    assert.equal(job.status, 'pending');
    assert.equal(job.attempts, 1);
    assert.equal(job.last_error, 'mail server down (call 1)');
    assert.equal(job.locked_by, null);
    let delay = job.run_at.getTime() - clock.now().getTime();
    assert.ok(delay >= 8_000 && delay <= 12_000, `first retry after 10 s ± 20 %, got ${delay} ms`);
    assert.equal((await drain()).retried, 0, 'not due again within the same instant');

    clock.set(job.run_at);
    assert.equal((await drain()).retried, 1);
    job = await jobById(handle.db, id);
    delay = job.run_at.getTime() - clock.now().getTime();
    assert.ok(delay >= 16_000 && delay <= 24_000, `second retry after 20 s ± 20 %, got ${delay} ms`);

    clock.set(job.run_at);
    assert.deepEqual(await drain(), { done: 0, failed: 1, retried: 0, lost: 0 });
    job = await jobById(handle.db, id);
    assert.equal(job.status, 'failed');
    assert.equal(job.attempts, 3);
    assert.equal(job.last_error, 'mail server down (call 3)');
    assert.equal(job.finished_at?.toISOString(), clock.now().toISOString());
    assert.equal(calls, 3);
  });

  test('backoff doubles from 10 s, stays within ±20 % and stops growing at 6 h', () => {
    assert.equal(
      backoffDelayMs(1, {}, () => 0.5),
      10_000,
    );
    assert.equal(
      backoffDelayMs(2, {}, () => 0.5),
      20_000,
    );
    assert.equal(
      backoffDelayMs(4, {}, () => 0.5),
      80_000,
    );
    assert.equal(
      backoffDelayMs(1, {}, () => 0),
      8_000,
    );
    assert.equal(
      backoffDelayMs(1, {}, () => 0.999999),
      12_000,
    );
    assert.equal(
      backoffDelayMs(20, {}, () => 0.5),
      6 * 3600_000,
    );
    assert.equal(
      backoffDelayMs(200, {}, () => 1),
      6 * 3600_000,
    );
    assert.equal(
      backoffDelayMs(3, (attempts) => attempts * 1000),
      3000,
      'a kind may bring its own schedule',
    );
  });

  test('last_error keeps the message only, cut at 2000 characters', async () => {
    const { companyId, clock, registry, drain } = await setup();
    registry.define({
      name: 'test.long_error',
      handler: async () => {
        throw new Error('x'.repeat(5000));
      },
    });
    const id = (await enqueue(handle.db, { name: 'test.long_error', companyId, payload: {}, runAt: clock.now() }, registry))!;
    await drain();
    assert.equal((await jobById(handle.db, id)).last_error, 'x'.repeat(2000));
  });

  test('a PermanentJobError fails the job at once, without retries', async () => {
    const { companyId, clock, registry, drain } = await setup();
    registry.define({
      name: 'test.permanent',
      handler: async () => {
        throw new PermanentJobError('webhook endpoint answered 410 Gone');
      },
    });
    const id = (await enqueue(handle.db, { name: 'test.permanent', companyId, payload: {}, runAt: clock.now() }, registry))!;
    assert.deepEqual(await drain(), { done: 0, failed: 1, retried: 0, lost: 0 });
    const job = await jobById(handle.db, id);
    assert.equal(job.status, 'failed');
    assert.equal(job.attempts, 1);
    assert.equal(job.last_error, 'webhook endpoint answered 410 Gone');
  });

  test('a job of an unknown kind is marked failed with a clear error', async () => {
    const { companyId, clock, drain } = await setup();
    const id = (await enqueue(handle.db, { name: 'test.nobody_defines_this', companyId, payload: {}, runAt: clock.now() }))!;
    assert.deepEqual(await drain(), { done: 0, failed: 1, retried: 0, lost: 0 });
    const job = await jobById(handle.db, id);
    assert.equal(job.status, 'failed');
    assert.match(job.last_error ?? '', /unknown job "test\.nobody_defines_this"/);
  });

  test('a stored payload that no longer fits the schema fails the job without running it', async () => {
    const { companyId, clock, registry, drain } = await setup();
    let runs = 0;
    registry.define({ name: 'test.schema_at_run', schema: { type: 'object', required: ['id'] }, handler: async () => void runs++ });
    const id = (await enqueue(handle.db, { name: 'test.schema_at_run', companyId, payload: {}, runAt: clock.now() }))!; // enqueued unchecked
    assert.equal((await drain()).failed, 1);
    assert.equal(runs, 0);
    assert.match((await jobById(handle.db, id)).last_error ?? '', /payload does not fit/);
  });

  test('a job whose handler throws does not stop the other jobs', async () => {
    const { companyId, clock, registry, drain } = await setup();
    const ran: number[] = [];
    registry.define<{ n: number }>({
      name: 'test.mixed',
      handler: async ({ job }) => {
        if (job.payload.n % 3 === 0) throw new Error(`job ${job.payload.n} breaks`);
        ran.push(job.payload.n);
      },
    });
    for (let n = 1; n <= 9; n++) await enqueue(handle.db, { name: 'test.mixed', companyId, payload: { n }, runAt: clock.now() }, registry);
    assert.deepEqual(await drain({ concurrency: 2 }), { done: 6, failed: 0, retried: 3, lost: 0 });
    assert.deepEqual(
      ran.sort((a, b) => a - b),
      [1, 2, 4, 5, 7, 8],
    );
  });

  test('two workers claiming at the same time never get the same job (SKIP LOCKED)', async () => {
    const { companyId, clock } = await setup();
    const total = 120;
    await handle.db
      .insertInto('jobs')
      .values(
        Array.from({ length: total }, (_, i) => ({ name: 'test.claim_race', company_id: companyId, payload: JSON.stringify({ i }), run_at: clock.now() })),
      )
      .execute();
    const claimedBy = new Map<number, string>();
    const duplicates: number[] = [];
    const claimer = async (workerId: string) => {
      for (;;) {
        const jobs = await claimJobs(handle.db, { workerId, now: clock.now(), limit: 3, leaseMs: 60_000, companyId });
        if (jobs.length === 0) return;
        for (const job of jobs) {
          if (claimedBy.has(job.id)) duplicates.push(job.id);
          claimedBy.set(job.id, workerId);
          assert.equal(job.status, 'running');
          assert.equal(job.locked_by, workerId);
          assert.equal(job.attempts, 1);
        }
      }
    };
    // On PostgreSQL each claimer runs its statements on its own pooled connection.
    await Promise.all(Array.from({ length: 8 }, (_, i) => claimer(`worker-${i}`)));
    assert.deepEqual(duplicates, []);
    assert.equal(claimedBy.size, total);
    const rows = await handle.db.selectFrom('jobs').select(['status', 'attempts']).where('company_id', '=', companyId).execute();
    assert.ok(rows.every((r) => r.status === 'running' && r.attempts === 1));
    if (handle.kind === 'postgres') assert.ok(new Set(claimedBy.values()).size > 1, 'the work was spread over several workers');
  });

  test('a job whose lease expired (crashed worker) is claimed again, and the late result of the first worker is dropped', async () => {
    const { companyId, clock, registry } = await setup();
    let runs = 0;
    registry.define({ name: 'test.crashed', handler: async () => void runs++ });
    const id = (await enqueue(handle.db, { name: 'test.crashed', companyId, payload: {}, runAt: clock.now() }, registry))!;
    const [first] = await claimJobs(handle.db, { workerId: 'crashed', now: clock.now(), limit: 5, leaseMs: 50, companyId });
    assert.equal(first?.id, id);
    assert.deepEqual(
      await claimJobs(handle.db, { workerId: 'other', now: clock.now(), limit: 5, leaseMs: 60_000, companyId }),
      [],
      'locked while the lease holds',
    );
    await sleep(120);
    const [again] = await claimJobs(handle.db, { workerId: 'other', now: clock.now(), limit: 5, leaseMs: 60_000, companyId });
    assert.equal(again?.id, id);
    assert.equal(again?.attempts, 2);
    assert.equal(again?.locked_by, 'other');
    assert.match(again?.last_error ?? '', /lease expired during attempt 1/);

    // The first worker was only slow, not dead: its late result must not overwrite the claim of the second.
    assert.equal(await runJob({ db: handle.db, clock, registry }, first!), 'lost');
    assert.equal(await runJob({ db: handle.db, clock, registry }, again!), 'done');
    assert.equal(runs, 2, 'at least once: both ran the handler');
    const job = await jobById(handle.db, id);
    assert.equal(job.status, 'done');
    assert.equal(job.attempts, 2);
  });

  test('an expired lease on the last attempt ends the job failed', async () => {
    const { companyId, clock } = await setup();
    const id = (await enqueue(handle.db, { name: 'test.crash_loop', companyId, payload: {}, runAt: clock.now(), maxAttempts: 1 }))!;
    assert.equal((await claimJobs(handle.db, { workerId: 'w1', now: clock.now(), limit: 1, leaseMs: 20, companyId })).length, 1);
    await sleep(80);
    assert.deepEqual(await claimJobs(handle.db, { workerId: 'w2', now: clock.now(), limit: 1, leaseMs: 60_000, companyId }), []);
    const job = await jobById(handle.db, id);
    assert.equal(job.status, 'failed');
    assert.match(job.last_error ?? '', /lease expired during attempt 1/);
  });

  /**
   * The liveness of another process on this database: on PostgreSQL a real one (its own
   * connection holding its advisory lock, which closing ends as a kill would); embedded, a
   * token that is not this handle's — whoever else claimed on it has ended.
   */
  async function otherProcess(): Promise<Liveness> {
    if (handle.kind !== 'postgres') return localLiveness();
    const { rows } = await sql<{ name: string }>`select current_database() as name`.execute(handle.db);
    const url = new URL(serverUrl);
    url.pathname = `/${rows[0]!.name}`;
    return serverLiveness(url.toString(), async (text, values) => handle.db.executeQuery(CompiledQuery.raw(text, values)));
  }

  test('issue 24: a job claimed by a process that has ended is due again at once, not after its lease; a live one’s stays with it', async () => {
    const { companyId, clock, registry } = await setup();
    let runs = 0;
    registry.define({ name: 'test.owned', handler: async () => void runs++ });
    const id = (await enqueue(handle.db, { name: 'test.owned', companyId, payload: {}, runAt: clock.now() }, registry))!;
    const other = await otherProcess();
    const [first] = await claimJobs(handle.db, { workerId: 'elsewhere', now: clock.now(), limit: 1, leaseMs: 300_000, companyId, owner: await other.token() });
    assert.equal(first?.id, id);
    assert.equal((await jobById(handle.db, id)).locked_owner, await other.token(), 'the claim names its process');
    const own = handle.liveness;
    if (handle.kind === 'postgres') {
      // The other process lives: its job stays with it, whatever this process looks for.
      assert.equal(await releaseJobsOfEndedProcesses(handle.db, own, clock.now()), 0);
      assert.deepEqual(await claimJobs(handle.db, { workerId: 'here', now: clock.now(), limit: 1, leaseMs: 60_000, companyId, owner: await own.token() }), []);
      await other.close(); // its connection ends, as with kill -9
    }
    assert.equal(await releaseJobsOfEndedProcesses(handle.db, own, clock.now()), 1);
    const released = await jobById(handle.db, id);
    assert.equal(released.status, 'pending');
    assert.equal(released.locked_owner, null);
    assert.match(released.last_error ?? '', /the process that ran attempt 1 has ended/);
    const [again] = await claimJobs(handle.db, { workerId: 'here', now: clock.now(), limit: 1, leaseMs: 60_000, companyId, owner: await own.token() });
    assert.equal(again?.id, id);
    assert.equal(again?.attempts, 2);
    assert.equal(again?.locked_owner, await own.token());
    // This process's own running job is never taken back, nor one claimed without a token.
    assert.equal(await releaseJobsOfEndedProcesses(handle.db, own, clock.now()), 0);
    assert.equal(await runJob({ db: handle.db, clock, registry }, first!), 'lost', 'a late result of the ended claim is dropped');
    assert.equal(await runJob({ db: handle.db, clock, registry }, again!), 'done');
    assert.equal((await jobById(handle.db, id)).locked_owner, null);
    const unowned = (await enqueue(handle.db, { name: 'test.owned', companyId, payload: {}, runAt: clock.now() }, registry))!;
    await claimJobs(handle.db, { workerId: 'no-token', now: clock.now(), limit: 1, leaseMs: 300_000, companyId });
    assert.equal(await releaseJobsOfEndedProcesses(handle.db, own, clock.now()), 0, 'without a token only the lease frees it');
    assert.equal((await jobById(handle.db, unowned)).status, 'running');
    await other.close();
  });

  test('issue 24: an ended process’s claim on the last attempt ends the job failed', async () => {
    const { companyId, clock } = await setup();
    const id = (await enqueue(handle.db, { name: 'test.crash_loop', companyId, payload: {}, runAt: clock.now(), maxAttempts: 1 }))!;
    const other = await otherProcess();
    await claimJobs(handle.db, { workerId: 'elsewhere', now: clock.now(), limit: 1, leaseMs: 300_000, companyId, owner: await other.token() });
    await other.close();
    assert.equal(await releaseJobsOfEndedProcesses(handle.db, handle.liveness, clock.now()), 1);
    const job = await jobById(handle.db, id);
    assert.equal(job.status, 'failed');
    assert.equal(job.finished_at?.toISOString(), clock.now().toISOString());
    assert.match(job.last_error ?? '', /the process that ran attempt 1 has ended/);
  });

  test('a running handler keeps extending its lease, so a long job is not taken over', async () => {
    const { companyId, clock, registry } = await setup();
    let concurrentClaims = -1;
    registry.define({
      name: 'test.slow',
      handler: async () => {
        await sleep(350);
        concurrentClaims = (await claimJobs(handle.db, { workerId: 'thief', now: clock.now(), limit: 5, leaseMs: 60_000, companyId })).length;
      },
    });
    await enqueue(handle.db, { name: 'test.slow', companyId, payload: {}, runAt: clock.now() }, registry);
    const [job] = await claimJobs(handle.db, { workerId: 'owner', now: clock.now(), limit: 1, leaseMs: 150, companyId });
    assert.equal(await runJob({ db: handle.db, clock, registry, leaseMs: 150 }, job!), 'done');
    assert.equal(concurrentClaims, 0);
  });

  test('the worker loop runs due jobs as they come and stop() waits for running jobs', async () => {
    // A database of its own: the loop claims every company's due jobs.
    const own = await testDatabase();
    const db = own.db;
    const companyId = await seedCompany(db);
    const clock = fixedClock(START);
    const registry = createJobRegistry();
    const finished: number[] = [];
    registry.define<{ n: number }>({
      name: 'test.loop',
      handler: async ({ job }) => {
        await sleep(job.payload.n === 99 ? 200 : 5);
        finished.push(job.payload.n);
      },
    });
    const logs: string[] = [];
    const worker = startWorker({ db, clock, jobs: registry }, { pollMs: 20, concurrency: 3, schedulerIntervalMs: 0, log: (m) => logs.push(m) });
    try {
      for (let n = 1; n <= 5; n++) await enqueue(db, { name: 'test.loop', companyId, payload: { n }, runAt: clock.now() }, registry);
      await waitFor(() => finished.length >= 5, 10_000);
      assert.deepEqual(
        [...finished].sort((a, b) => a - b),
        [1, 2, 3, 4, 5],
      );
      const slow = (await enqueue(db, { name: 'test.loop', companyId, payload: { n: 99 }, runAt: clock.now() }, registry))!;
      // Job 99's own row: a row of jobs 1–5 may still be `running` while its outcome is written.
      await waitFor(async () => (await jobById(db, slow)).status === 'running', 10_000);
      assert.ok(!finished.includes(99), 'job 99 is still running');
      await worker.stop();
      assert.ok(finished.includes(99), 'stop() returned only after the running job finished');
      assert.deepEqual(worker.tally, { done: 6, failed: 0, retried: 0, lost: 0 }, logs.join('\n'));
      const left = await db.selectFrom('jobs').select('status').where('company_id', '=', companyId).where('status', '!=', 'done').execute();
      assert.deepEqual(left, [], logs.join('\n'));
    } finally {
      await worker.stop();
      await own.close();
    }
  });
});
