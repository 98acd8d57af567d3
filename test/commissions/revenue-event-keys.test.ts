// A payment allocation and a debit's reversal each give at most one revenue event per
// company (migration 0044 keeps the rule with partial unique indexes, which leave out the
// nulls every API event has). Tried with SQL that goes around the operations, on both
// databases: a second event for the same allocation or reversal fails with 23505 and
// writes nothing; another company may use the same ids; events without either stay free.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { DatabaseHandle } from '../../src/db/connection.ts';
import { testDatabase } from '../helpers/database.ts';
import { seedCompany } from '../jobs/fixtures.ts';

let n = 0;
/** Inserts one revenue event of the kind with the given allocation or reversal id. */
function insertEvent(handle: DatabaseHandle, companyId: string, kind: 'api' | 'invoice_payment' | 'invoice_payment_reversal', key: string | null) {
  n += 1;
  const invoiceFacts = kind === 'api' ? sql`null, null, null, null` : sql`'inv_probe', 0, 1000, 1190`;
  return sql`insert into revenue_events (company_id, id, kind, external_source, external_ref, occurred_at, paid_on, net_cents, created_at,
                                         invoice_id, paid_before_cents, paid_cents, gross_cents, allocation_id, reversal_id)
             values (${companyId}, ${`rev_probe_${n}`}, ${kind}, ${kind === 'api' ? 'crm' : null}, ${kind === 'api' ? `ref-${n}` : null},
                     '2026-11-02T10:00:00Z', '2026-11-02', ${kind === 'invoice_payment_reversal' ? -1000 : 1000}, now(),
                     ${invoiceFacts}, ${kind === 'invoice_payment' ? key : null}, ${kind === 'invoice_payment_reversal' ? key : null})`.execute(handle.db);
}

describe('revenue events: one per payment allocation and per reversal', () => {
  let handle: DatabaseHandle;
  let company: string;
  let other: string;
  before(async () => {
    handle = await testDatabase();
    company = await seedCompany(handle.db);
    other = await seedCompany(handle.db);
  });
  after(() => handle.close());

  const count = async (companyId: string) =>
    Number((await sql<{ n: string }>`select count(*) as n from revenue_events where company_id = ${companyId}`.execute(handle.db)).rows[0]!.n);

  for (const kind of ['invoice_payment', 'invoice_payment_reversal'] as const)
    test(`${kind}: a second event for the same id is refused (23505), another company's is not`, async () => {
      const key = `${kind}_key`;
      await insertEvent(handle, company, kind, key);
      const before = await count(company);
      await assert.rejects(insertEvent(handle, company, kind, key), (error: { code?: string }) => error.code === '23505');
      assert.equal(await count(company), before, 'nothing written');
      await insertEvent(handle, other, kind, key);
      await insertEvent(handle, company, kind, `${key}_2`);
      assert.equal(await count(company), before + 1);
    });

  test('events without an allocation or reversal (the API’s) are not in each other’s way', async () => {
    const before = await count(company);
    for (let i = 0; i < 3; i++) await insertEvent(handle, company, 'api', null);
    assert.equal(await count(company), before + 3);
  });
});
