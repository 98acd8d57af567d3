import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { DatabaseHandle } from '../../src/db/connection.ts';
import { createJobRegistry, drainDueJobs } from '../../src/jobs/index.ts';
import { fixedClock } from '../../src/shared/clock.ts';
import { errorForLog, messageForLog } from '../../src/shared/error-for-log.ts';
import { testDatabase } from '../helpers/database.ts';
import { enqueue, jobById, seedCompany } from './fixtures.ts';

// A job that fails on a database statement logs and keeps (last_error) the error's
// message, but PostgreSQL quotes the value it could not take in that message: the log
// and the jobs table keep the names PostgreSQL reports, not the values.

const PERSON = 'Erika Mustermann';

describe('database errors in logs and last_error', () => {
  let handle: DatabaseHandle;
  before(async () => {
    handle = await testDatabase();
  });
  after(() => handle.close());

  const failure = async (statement: ReturnType<typeof sql>): Promise<unknown> =>
    statement.execute(handle.db).then(
      () => assert.fail('the statement ran'),
      (error: unknown) => error,
    );

  test('a failed job records and logs the database error without the value it quoted', async () => {
    const companyId = await seedCompany(handle.db);
    const clock = fixedClock('2026-11-21T10:00:00Z');
    const registry = createJobRegistry();
    registry.define({
      name: 'test.bad-number',
      maxAttempts: 1,
      handler: async ({ db }) => {
        await sql`select ${PERSON}::int`.execute(db);
      },
    });
    const id = await enqueue(handle.db, { name: 'test.bad-number', companyId, payload: {}, runAt: clock.now() }, registry);
    const log: string[] = [];
    const result = await drainDueJobs({ db: handle.db, clock, jobs: registry }, { companyId, log: (line) => log.push(line) });
    assert.equal(result.failed, 1);
    const job = await jobById(handle.db, id!);
    assert.equal(job.last_error, 'invalid input syntax for type integer: "…"');
    assert.ok(
      log.some((line) => line.includes('invalid input syntax for type integer')),
      log.join('\n'),
    );
    assert.ok(!log.join('\n').includes('Erika'), log.join('\n'));
  });

  test('messageForLog keeps the quoted names PostgreSQL reports and drops quoted values', async () => {
    await sql`create table probe_people (id int primary key, name text constraint probe_people_name check (name <> 'x'), born date)`.execute(handle.db);
    const check = await failure(sql`insert into probe_people (id, name) values (1, 'x')`);
    assert.equal(messageForLog(check), 'new row for relation "probe_people" violates check constraint "probe_people_name"');
    const date = await failure(sql`insert into probe_people (id, born) values (2, ${'0000-01-01'})`);
    assert.equal(messageForLog(date), 'date/time field value out of range: "…"');
    const duplicate = await failure(sql`insert into probe_people (id, name) values (3, ${PERSON}), (3, ${PERSON})`);
    assert.equal(messageForLog(duplicate), 'duplicate key value violates unique constraint "probe_people_pkey"');
    const logged = JSON.stringify(errorForLog(duplicate));
    assert.ok(!logged.includes('Erika'), logged);
    assert.deepEqual(
      { type: 'DatabaseError', code: '23505', constraint: 'probe_people_pkey', table: 'probe_people' },
      Object.fromEntries(Object.entries(errorForLog(duplicate)).filter(([key]) => ['type', 'code', 'constraint', 'table'].includes(key))),
    );
    // Other errors keep their message; the thrower answers for it.
    assert.equal(messageForLog(new TypeError('x is "not" a function')), 'x is "not" a function');
  });
});
