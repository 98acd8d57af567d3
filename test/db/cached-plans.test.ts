import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { Database, DatabaseHandle } from '../../src/db/connection.ts';
import { inTransaction, useCachedPlans } from '../../src/db/transaction.ts';
import { testDatabase } from '../helpers/database.ts';

// useCachedPlans (src/db/transaction.ts) lets one transaction reuse PostgreSQL's plans, the
// foreign-key checks' above all; the session's force_custom_plan must hold again right after,
// for every later statement on the same connection, whether the transaction commits or fails.

describe('useCachedPlans', () => {
  let handle: DatabaseHandle;
  before(async () => {
    handle = await testDatabase();
  });
  after(async () => handle?.close());

  const mode = async (db: Database) => (await sql<{ plan_cache_mode: string }>`show plan_cache_mode`.execute(db)).rows[0]?.plan_cache_mode;

  test('holds inside the transaction only; the connection is back to force_custom_plan after commit and after rollback', async () => {
    await handle.db.connection().execute(async (connection) => {
      assert.equal(await mode(connection), 'force_custom_plan');
      const inside = await inTransaction(connection, async (trx) => {
        await useCachedPlans(trx);
        return (await sql<{ plan_cache_mode: string }>`show plan_cache_mode`.execute(trx)).rows[0]?.plan_cache_mode;
      });
      assert.equal(inside, 'auto');
      assert.equal(await mode(connection), 'force_custom_plan');
      await assert.rejects(
        inTransaction(connection, async (trx) => {
          await useCachedPlans(trx);
          throw new Error('rolled back');
        }),
        /rolled back/,
      );
      assert.equal(await mode(connection), 'force_custom_plan');
    });
  });
});
