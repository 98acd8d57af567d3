import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { bulkInsert, type ColumnTypes } from '../../src/db/bulk-insert.ts';
import type { DatabaseHandle } from '../../src/db/connection.ts';
import { inTransaction } from '../../src/db/transaction.ts';
import { testDatabase } from '../helpers/database.ts';

// bulkInsert writes its own array literals and sends a column that has one value in every
// row as a scalar (src/db/bulk-insert.ts): every value must arrive exactly as given, on both
// databases, whichever way its column travels.

const TABLE = 'bulk_probe' as never;
const COLUMNS = {
  id: 'integer',
  label: 'text',
  amount: 'bigint',
  ratio: 'numeric',
  flag: 'boolean',
  day: 'date',
  at: 'timestamptz',
  doc: 'jsonb',
} as unknown as ColumnTypes<never>;

type Probe = {
  id: number;
  label: string | null;
  amount: number | null;
  ratio: string | null;
  flag: boolean | null;
  day: string | null;
  at: Date | null;
  doc: unknown;
};

const TRICKY = ['', 'NULL', 'null', 'a"b', 'a\\b', '\\"', '{x,y}', ' spaced ', 'comma,inside', "it's", 'zeile\nzwei', 'äöü € 😀', '"', '\\'];

describe('bulkInsert', () => {
  let handle: DatabaseHandle;
  before(async () => {
    handle = await testDatabase();
    await sql`create table bulk_probe (id integer primary key, label text, amount bigint, ratio numeric, flag boolean, day date, at timestamptz, doc jsonb)`.execute(
      handle.db,
    );
  });
  after(async () => handle?.close());

  const insert = (rows: Probe[], options: { onConflictDoNothing?: boolean; returning?: never } = {}) =>
    inTransaction(handle.db, (trx) => bulkInsert(trx, TABLE, COLUMNS, rows as never, options));
  const read = async () =>
    (await sql<Probe>`select id, label, amount, ratio::text as ratio, flag, day, at, doc from bulk_probe order by id`.execute(handle.db)).rows;
  const clear = () => sql`delete from bulk_probe`.execute(handle.db);

  test('text with quotes, backslashes, braces, commas, newlines, "NULL" and non-ASCII arrives as sent, row by row and as one value for all rows', async () => {
    await clear();
    const distinct = TRICKY.map((label, i) => ({ id: i, label, amount: null, ratio: null, flag: null, day: null, at: null, doc: null }));
    await insert(distinct);
    assert.deepEqual(
      (await read()).map((r) => r.label),
      TRICKY,
    );
    for (const [offset, label] of TRICKY.entries()) {
      await clear();
      await insert([0, 1, 2].map((i) => ({ id: 100 * offset + i, label, amount: null, ratio: null, flag: null, day: null, at: null, doc: null })));
      assert.deepEqual(
        (await read()).map((r) => r.label),
        [label, label, label],
        JSON.stringify(label),
      );
    }
  });

  test('numbers, decimals, booleans, dates, instants and JSON arrive as sent; null and undefined are NULL', async () => {
    await clear();
    const at = new Date('2026-11-21T10:00:00.123Z');
    const rows: Probe[] = [
      {
        id: 1,
        label: 'a',
        amount: 9_007_199_254_740_991,
        ratio: '2.5',
        flag: true,
        day: '2026-11-01',
        at,
        doc: { text: 'a "quoted" \\ word', list: [1, null] },
      },
      { id: 2, label: null, amount: -15, ratio: '0.000001', flag: false, day: '1999-12-31', at: new Date('1970-01-01T00:00:00Z'), doc: ['x'] },
      { id: 3, label: 'c', amount: 0, ratio: '-10', flag: null, day: null, at: null, doc: null },
      {
        id: 4,
        label: undefined as never,
        amount: undefined as never,
        ratio: undefined as never,
        flag: undefined as never,
        day: undefined as never,
        at: undefined as never,
        doc: undefined,
      },
    ];
    await insert(rows);
    assert.deepEqual(await read(), [
      { ...rows[0], amount: 9_007_199_254_740_991 },
      rows[1],
      rows[2],
      { id: 4, label: null, amount: null, ratio: null, flag: null, day: null, at: null, doc: null },
    ]);
  });

  test('columns with one value in every row (the same instant in two Date objects, nulls) arrive in every row', async () => {
    await clear();
    const rows = [1, 2, 3].map((id) => ({
      id,
      label: 'gleich',
      amount: 7,
      ratio: '1.5',
      flag: false,
      day: '2026-02-28',
      at: new Date('2026-11-21T10:00:00Z'),
      doc: { same: true },
    }));
    await insert(rows);
    assert.deepEqual(await read(), rows);
  });

  test('one row; several chunks; conflicts skipped and the inserted rows returned', async () => {
    await clear();
    await insert([{ id: 1, label: 'eins', amount: 1, ratio: '1', flag: true, day: '2026-01-01', at: new Date(0), doc: { n: 1 } }]);
    assert.equal((await read()).length, 1);
    const many = Array.from({ length: 2_500 }, (_, i) => ({
      id: i + 1,
      label: `r-${i}`,
      amount: i,
      ratio: null,
      flag: null,
      day: null,
      at: null,
      doc: null,
    }));
    const ids = await insert(many, { onConflictDoNothing: true, returning: 'id' as never });
    assert.equal(ids.length, 2_499);
    assert.equal(ids.includes(1 as never), false);
    const stored = await read();
    assert.equal(stored.length, 2_500);
    assert.equal(stored[0]?.label, 'eins');
    assert.equal(stored[2_499]?.label, 'r-2499');
  });

  test('an invalid Date is refused, not stored', async () => {
    await clear();
    await assert.rejects(insert([{ id: 1, label: null, amount: null, ratio: null, flag: null, day: null, at: new Date(Number.NaN), doc: null }]), RangeError);
    assert.equal((await read()).length, 0);
  });
});
