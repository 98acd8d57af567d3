import type { Database } from '../../src/db/connection.ts';
import { inTransaction } from '../../src/db/transaction.ts';
import { type EnqueueJobInput, enqueueJob, type JobRegistry } from '../../src/jobs/index.ts';
import { newId } from '../../src/shared/ids.ts';

// A company per test keeps tests of one file (one database) out of each other's way:
// they claim and drain with companyId.

export async function seedCompany(db: Database, options: { timezone?: string } = {}): Promise<string> {
  const organizationId = newId('org');
  const companyId = newId('com');
  await db.insertInto('organizations').values({ id: organizationId, name: 'Jobs test org' }).execute();
  await db
    .insertInto('companies')
    .values({ id: companyId, organization_id: organizationId, name: 'Jobs Test GmbH', ...(options.timezone ? { timezone: options.timezone } : {}) })
    .execute();
  return companyId;
}

/** Enqueues in a transaction of its own (as an operation would, with its state change). */
export function enqueue(db: Database, input: EnqueueJobInput, registry?: JobRegistry): Promise<number | null> {
  return inTransaction(db, (trx) => enqueueJob(trx, input, registry));
}

export async function jobById(db: Database, id: number) {
  return db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls until `condition` holds; fails the test after `timeoutMs`. */
export async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(10);
  }
}
