import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import type { DatabaseHandle } from '../../src/db/connection.ts';
import { testDatabase } from '../helpers/database.ts';

// Stored documents (PDF, XML) are kept as issued, out of line and uncompressed: a PDF is
// deflated already, and TOAST's default compression only cost CPU on every insert
// (migrations 0006, 0007, 0045, 0048: a partner's uploaded invoice). Every bytea column of the schema holds such a document.

let handle: DatabaseHandle;
before(async () => {
  handle = await testDatabase();
});
after(async () => {
  await handle.close();
});

test('every stored-document column is stored out of line without compression', async () => {
  const { rows } = await sql<{ table_name: string; column_name: string; storage: string }>`
    select c.relname as table_name, a.attname as column_name, a.attstorage as storage
    from pg_attribute a
    join pg_class c on c.oid = a.attrelid
    join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = current_schema() and c.relkind = 'r' and a.atttypid = 'bytea'::regtype and a.attnum > 0 and not a.attisdropped
    order by 1, 2`.execute(handle.db);
  assert.deepEqual(
    rows.map((row) => `${row.table_name}.${row.column_name}`),
    ['commission_statement_files.content', 'dunning_notices.pdf', 'invoice_files.content', 'partner_invoice_uploads.content'],
  );
  for (const row of rows) assert.equal(row.storage, 'e', `${row.table_name}.${row.column_name} is stored '${row.storage}', not external`);
});
