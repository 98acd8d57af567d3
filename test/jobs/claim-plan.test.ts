// Claiming from a large backlog reads the first due jobs in claim order and stops
// (migrations 0042 and 0043, issue 26): the plan of claimJobs' selection walks the partial
// index in (priority desc, run_at, id) order — no sort over every due job — and the claims
// come out in that order.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { DatabaseHandle } from '../../src/db/connection.ts';
import { claimJobs } from '../../src/jobs/claim.ts';
import { testDatabase } from '../helpers/database.ts';
import { seedCompany } from './fixtures.ts';

const BACKLOG = 3_000;
const due = new Date('2026-12-01T12:00:00Z');

describe('claiming from a backlog of due jobs', () => {
  let handle: DatabaseHandle;
  let companyId: string;
  before(async () => {
    handle = await testDatabase();
    companyId = await seedCompany(handle.db);
    // A billing run's render jobs: all due at the same instant.
    await sql`insert into jobs (name, company_id, payload, run_at)
              select 'test.backlog', ${companyId}, '{}'::jsonb, ${due}::timestamptz from generate_series(1, ${BACKLOG}::int)`.execute(handle.db);
    await sql`analyze jobs`.execute(handle.db);
  });
  after(() => handle.close());

  test('the selection reads the due index in (priority desc, run_at, id) order, with no sort', async () => {
    const plan = await sql<{ 'QUERY PLAN': string }>`explain
      select id from jobs where status = 'pending' and run_at <= ${due}::timestamptz
      order by priority desc, run_at, id limit 4 for update skip locked`.execute(handle.db);
    const text = plan.rows.map((row) => row['QUERY PLAN']).join('\n');
    assert.match(text, /jobs_due_by_priority/, text);
    assert.doesNotMatch(text, /Sort/, text);
  });

  test('claims come in run_at, then id order, each job once', async () => {
    const first = await claimJobs(handle.db, { workerId: 'w1', now: due, limit: 5, leaseMs: 60_000, companyId });
    const second = await claimJobs(handle.db, { workerId: 'w2', now: due, limit: 5, leaseMs: 60_000, companyId });
    const ids = [...first, ...second].map((job) => job.id);
    assert.equal(new Set(ids).size, 10);
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => a - b),
    );
    const lowest = await sql<{ id: number }>`select min(id)::int as id from jobs where name = 'test.backlog'`.execute(handle.db);
    assert.equal(ids[0], lowest.rows[0]!.id);
  });
});
