import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { type DatabaseHandle, openDatabase } from '../../src/db/connection.ts';
import { inTransaction } from '../../src/db/transaction.ts';
import { freshServerDatabase, usePostgres } from '../helpers/database.ts';

// The PostgreSQL server mode prepares each parameterised statement once per connection
// (src/db/pg-prepared.ts). Only `npm run test:pg` has a server to run these against.

describe('prepared statements on a PostgreSQL server', { skip: usePostgres ? false : 'needs the PostgreSQL server (npm run test:pg)' }, () => {
  let server: Awaited<ReturnType<typeof freshServerDatabase>>;
  let handle: DatabaseHandle;

  before(async () => {
    server = await freshServerDatabase();
    // One connection: every statement below runs in the same session.
    handle = await openDatabase({ kind: 'postgres', url: server.url, poolSize: 1 });
    await sql`create table t (id int primary key, name text)`.execute(handle.db);
    await sql`insert into t values (${1}, ${'eins'}), (${2}, ${'zwei'})`.execute(handle.db);
  });
  after(async () => {
    await handle?.close();
    await server?.drop();
  });

  /** A schema change made by another session, unknown to the pool's connection. */
  async function alterElsewhere(statement: string) {
    const other = new pg.Client({ connectionString: server.url });
    await other.connect();
    try {
      await other.query(statement);
    } finally {
      await other.end();
    }
  }
  const byId = (id: number) => sql<{ id: number; name: string }>`select * from t where id = ${id}`.execute(handle.db);
  const prepared = async () =>
    (await sql<{ statement: string }>`select statement from pg_prepared_statements where statement like ${'select * from t%'}`.execute(handle.db)).rows;

  test('a statement is prepared once and reused with other values; plans stay per execution', async () => {
    assert.equal((await byId(1)).rows[0]?.name, 'eins');
    assert.equal((await byId(2)).rows[0]?.name, 'zwei');
    assert.equal((await byId(1)).rows[0]?.name, 'eins');
    assert.deepEqual(
      (await prepared()).map((r) => r.statement),
      ['select * from t where id = $1'],
    );
    const mode = await sql<{ plan_cache_mode: string }>`show plan_cache_mode`.execute(handle.db);
    assert.equal(mode.rows[0]?.plan_cache_mode, 'force_custom_plan');
  });

  test('a schema change in this session drops the prepared statements: the next run sees the new columns', async () => {
    await byId(1);
    await sql`alter table t add column note text default 'neu'`.execute(handle.db);
    assert.deepEqual(await prepared(), []);
    assert.deepEqual((await byId(1)).rows[0], { id: 1, name: 'eins', note: 'neu' });
  });

  test('a statement made stale by another session is run once more, unnamed, outside a transaction', async () => {
    await byId(2);
    await alterElsewhere('alter table t add column extra integer default 7');
    assert.deepEqual((await byId(2)).rows[0], { id: 2, name: 'zwei', note: 'neu', extra: 7 });
    assert.deepEqual((await byId(2)).rows[0], { id: 2, name: 'zwei', note: 'neu', extra: 7 }, 'and prepared afresh');
  });

  test('a statement made stale inside a transaction fails it, and inTransaction runs it again', async () => {
    await byId(1);
    await alterElsewhere('alter table t add column again integer default 8');
    let attempts = 0;
    const row = await inTransaction(handle.db, async (trx) => {
      attempts++;
      return (await sql<Record<string, unknown>>`select * from t where id = ${1}`.execute(trx)).rows[0];
    });
    assert.equal(attempts, 2);
    assert.equal(row?.again, 8);
  });

  test('at most 200 are kept per connection: the least recently used are deallocated', async () => {
    for (let i = 0; i < 205; i++) await sql`select * from t where id = ${1} and ${sql.raw(String(i))} >= 0`.execute(handle.db);
    const count = await sql<{ n: number }>`select count(*)::int as n from pg_prepared_statements`.execute(handle.db);
    assert.ok((count.rows[0]?.n ?? 0) <= 201, `${count.rows[0]?.n} prepared: 200 kept, one waiting to be deallocated`);
    assert.equal((await byId(1)).rows[0]?.name, 'eins');
  });
});
