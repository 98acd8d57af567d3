import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { DatabaseHandle } from '../../src/db/connection.ts';
import { inTransaction } from '../../src/db/transaction.ts';
import { createJobRegistry, defineJob, enqueueJob, recordEvent } from '../../src/jobs/index.ts';
import { fixedClock } from '../../src/shared/clock.ts';
import { testDatabase } from '../helpers/database.ts';
import { enqueue, jobById, seedCompany } from './fixtures.ts';

const clock = fixedClock('2026-11-21T10:00:00Z');

describe('enqueueJob and recordEvent', () => {
  let handle: DatabaseHandle;
  let companyId: string;
  before(async () => {
    handle = await testDatabase();
    companyId = await seedCompany(handle.db);
  });
  after(() => handle.close());

  test('a job enqueued in a transaction that rolls back leaves no job', async () => {
    const rollback = new Error('the state change failed');
    await assert.rejects(
      inTransaction(handle.db, async (trx) => {
        await enqueueJob(trx, { name: 'test.rolled_back', companyId, payload: { n: 1 }, runAt: clock.now() });
        await recordEvent(trx, { companyId, type: 'test.rolled_back', data: { n: 1 } });
        throw rollback;
      }),
      rollback,
    );
    const jobs = await handle.db.selectFrom('jobs').select('id').where('name', '=', 'test.rolled_back').execute();
    const events = await handle.db.selectFrom('events').select('id').where('type', '=', 'test.rolled_back').execute();
    assert.deepEqual(jobs, []);
    assert.deepEqual(events, []);
  });

  test('a committed job is pending with its company, payload and run_at', async () => {
    const runAt = new Date('2026-11-22T08:00:00Z');
    const id = await enqueue(handle.db, { name: 'test.stored', companyId, payload: { invoice_id: 'inv_1', amounts: ['1.10'] }, runAt });
    assert.ok(typeof id === 'number');
    const job = await jobById(handle.db, id);
    assert.equal(job.status, 'pending');
    assert.equal(job.company_id, companyId);
    assert.deepEqual(job.payload, { invoice_id: 'inv_1', amounts: ['1.10'] });
    assert.equal(job.run_at.toISOString(), runAt.toISOString());
    assert.equal(job.attempts, 0);
    assert.equal(job.max_attempts, 10, 'the default when the kind does not say');
  });

  test('a second enqueue with the same dedupe key is a no-op, also after the first ran', async () => {
    const key = `test.dedupe:${companyId}:inv_7`;
    const first = await enqueue(handle.db, { name: 'test.dedupe', companyId, payload: { n: 1 }, runAt: clock.now(), dedupeKey: key });
    const second = await enqueue(handle.db, { name: 'test.dedupe', companyId, payload: { n: 2 }, runAt: clock.now(), dedupeKey: key });
    assert.ok(first !== null);
    assert.equal(second, null);
    await handle.db.updateTable('jobs').set({ status: 'done' }).where('id', '=', first).execute();
    const third = await enqueue(handle.db, { name: 'test.dedupe', companyId, payload: { n: 3 }, runAt: clock.now(), dedupeKey: key });
    assert.equal(third, null);
    const rows = await handle.db.selectFrom('jobs').select(['id', 'payload']).where('dedupe_key', '=', key).execute();
    assert.deepEqual(rows, [{ id: first, payload: { n: 1 } }]);
  });

  test('concurrent enqueues with one dedupe key give one job', async () => {
    const key = `test.dedupe-race:${companyId}`;
    const ids = await Promise.all(
      Array.from({ length: 8 }, (_, i) => enqueue(handle.db, { name: 'test.dedupe_race', companyId, payload: { i }, runAt: clock.now(), dedupeKey: key })),
    );
    assert.equal(ids.filter((id) => id !== null).length, 1);
    const rows = await handle.db.selectFrom('jobs').select('id').where('dedupe_key', '=', key).execute();
    assert.equal(rows.length, 1);
  });

  test('a payload that does not fit the kind schema is refused at enqueue', async () => {
    const registry = createJobRegistry();
    registry.define({
      name: 'test.schema',
      schema: { type: 'object', required: ['invoice_id'], additionalProperties: false, properties: { invoice_id: { type: 'string' } } },
      handler: async () => {},
      maxAttempts: 3,
    });
    await assert.rejects(
      enqueue(handle.db, { name: 'test.schema', companyId, payload: { invoice_id: 7 }, runAt: clock.now() }, registry),
      /payload does not fit/,
    );
    await assert.rejects(enqueue(handle.db, { name: 'test.schema', companyId, payload: { invoice_id: 'x', extra: 1 }, runAt: clock.now() }, registry));
    const id = await enqueue(handle.db, { name: 'test.schema', companyId, payload: { invoice_id: 'inv_1' }, runAt: clock.now() }, registry);
    assert.equal((await jobById(handle.db, id!)).max_attempts, 3, "the kind's maxAttempts is written to the row");
  });

  test('defineJob registers into the process-wide registry that enqueueJob checks', async () => {
    defineJob<{ n: number }>({
      name: 'test.global_kind',
      validate: (payload): payload is { n: number } => typeof (payload as { n?: unknown })?.n === 'number',
      handler: async () => {},
      maxAttempts: 2,
    });
    assert.throws(() => defineJob({ name: 'test.global_kind', handler: async () => {} }), /defined twice/);
    await assert.rejects(enqueue(handle.db, { name: 'test.global_kind', payload: { n: 'one' }, runAt: clock.now() }), /refused by the validator/);
    const id = await enqueue(handle.db, { name: 'test.global_kind', payload: { n: 1 }, runAt: clock.now() });
    assert.equal((await jobById(handle.db, id!)).max_attempts, 2);
  });

  test('recordEvent writes the outbox row with an evt_ id, in order', async () => {
    const createdAt = new Date('2026-11-21T10:00:00Z');
    const ids = await inTransaction(handle.db, async (trx) => [
      await recordEvent(trx, { companyId, type: 'invoice.overdue', subjectId: 'inv_1', data: { id: 'inv_1', status: 'overdue' }, createdAt }),
      await recordEvent(trx, { companyId, type: 'invoice.paid', data: { id: 'inv_2' } }),
    ]);
    assert.match(ids[0]!, /^evt_[0-9a-z]{26}$/);
    const rows = await handle.db.selectFrom('events').selectAll().where('company_id', '=', companyId).orderBy('seq').execute();
    assert.deepEqual(
      rows.map((r) => [r.id, r.type, r.subject_id, r.data]),
      [
        [ids[0], 'invoice.overdue', 'inv_1', { id: 'inv_1', status: 'overdue' }],
        [ids[1], 'invoice.paid', null, { id: 'inv_2' }],
      ],
    );
    assert.equal(rows[0]!.created_at.toISOString(), createdAt.toISOString());
  });

  test('recordEvent refuses a type that is not resource.action', async () => {
    await assert.rejects(
      inTransaction(handle.db, (trx) => recordEvent(trx, { companyId, type: 'Overdue', data: {} })),
      /resource\.action/,
    );
  });
});
