import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { messages, PGlite } from '@electric-sql/pglite';
import { pgliteExtensions, pgliteParsers } from '../../src/db/connection.ts';
import { type PgliteQuery, pgliteQuery } from '../../src/db/pglite-query.ts';
import { writeTemplate } from '../../src/db/write-template.ts';

// The fast path of src/db/pglite-query.ts must answer exactly as `pglite.query` does. Two
// PGlite instances start from the same migrated snapshot and get the same statements:
// `reference` through pglite.query, `subject` through the fast path; every result (rows,
// fields, counts) and every error (class, code, message, detail, constraint, …) must match.

const SETUP = `
  create table qt (
    id text primary key,
    n integer not null check (n >= 0),
    big bigint,
    amount numeric(12, 2),
    flag boolean,
    day date,
    at timestamptz,
    doc jsonb,
    raw json,
    bytes bytea,
    tags text[],
    ratio double precision
  );
  create table qt_child (id text primary key, parent text not null references qt (id));
`;

type Outcome = { ok: unknown } | { error: Record<string, unknown> };

async function settle(run: () => Promise<unknown>): Promise<Outcome> {
  try {
    return { ok: await run() };
  } catch (error) {
    const e = error as Error;
    // file/line/routine name the backend function that raised the error and `length` the
    // size of its message: a cached statement is refused in Bind where a fresh one is
    // refused in Parse, with the same code and text.
    const { file: _f, line: _l, routine: _r, length: _n, ...fields } = Object.fromEntries(Object.entries(e));
    return { error: { databaseError: e instanceof messages.DatabaseError, class: e.constructor.name, message: e.message, ...fields } };
  }
}

const blob = Uint8Array.from({ length: 70_000 }, (_, i) => (i * 7919) % 256);
const at = new Date('2026-03-04T05:06:07.089Z');
const tricky = 'quote " backslash \\ comma , braces {} NULL ü € 😀 \t tab';

// [label, sql, params]
const cases: [string, string, unknown[]][] = [
  [
    'every parameter kind, cast',
    'select $1::text as t, $2::int as i, $3::bigint as b, $4::numeric as n, $5::boolean as bo, $6::date as d, $7::timestamptz as ts, $8::jsonb as j, $9::json as js, $10::bytea as by, $11::float8 as f, $12::bigint as b2',
    [
      tricky,
      42,
      9007199254740991n,
      '12345.67',
      true,
      '2026-02-28',
      at,
      { a: 1, b: [1, 'x'], c: tricky },
      '{"k": [1, 2]}',
      Buffer.from('bytes\0here'),
      1.5,
      123,
    ],
  ],
  [
    'nulls and undefined',
    'select $1::text as t, $2::int as i, $3::jsonb as j, $4::bytea as b, $5::text[] as a, $6::timestamptz as ts',
    [null, undefined, null, null, null, undefined],
  ],
  [
    'false, empty string, zero, negative, NaN',
    'select $1::boolean as f, $2::text as e, $3::int as z, $4::numeric as neg, $5::float8 as nan',
    [false, '', 0, '-0.01', Number.NaN],
  ],
  ['boolean and Date into text', 'select $1::text as b, $2::text as d', [true, at]],
  ['Date into date', 'select $1::date as d', [new Date('2026-12-31T00:00:00Z')]],
  ['Uint8Array (not Buffer) into bytea', 'select $1::bytea as b, length($1::bytea) as n', [new Uint8Array([0, 1, 254, 255])]],
  ['large bytea', 'select $1::bytea as b', [blob]],
  ['large text parameter', 'select length($1::text) as n, md5($1) as h', ['x€'.repeat(600_000)]],
  ['text array with special elements', 'select $1::text[] as a', [['a', 'b"c', 'd\\e', null, '', 'NULL', 'x,y', '{z}', tricky]]],
  ['array of nulls', 'select $1::text[] as a, $2::int[] as b', [[null, null], [undefined]]],
  ['empty array', 'select $1::text[] as a, cardinality($1::text[]) as n', [[]]],
  [
    'number arrays',
    'select $1::int[] as i, $2::bigint[] as b, $3::numeric[] as n, $4::float8[] as f',
    [
      [1, 2, null, -3],
      [1n, 2],
      ['1.10', null],
      [0.5, 1e21],
    ],
  ],
  [
    'boolean, date, timestamptz arrays',
    'select $1::boolean[] as b, $2::date[] as d, $3::timestamptz[] as t',
    [
      [true, false, null],
      ['2026-01-01', null],
      [at, null],
    ],
  ],
  ['jsonb array from strings and objects', 'select $1::jsonb[] as j', [['{"a":1}', '"s"', 'null', { x: tricky }, null]]],
  ['bytea array', 'select $1::bytea[] as b', [[Buffer.from([1, 2]), null, new Uint8Array([255])]]],
  [
    'nested array',
    'select $1::int[][] as m',
    [
      [
        [1, 2],
        [3, 4],
      ],
    ],
  ],
  ['= any(text[])', "select x from unnest(array['a', 'b', 'c']) as x where x = any($1::text[]) order by x", [['c', 'a', 'zz']]],
  ['no rows', 'select * from qt where id = $1', ['missing']],
  [
    'insert returning, inferred types',
    'insert into qt (id, n, big, amount, flag, day, at, doc, raw, bytes, tags, ratio) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) returning *',
    ['a', 1, 5_000_000_000, '10.50', true, '2026-05-01', at, JSON.stringify({ k: 'v' }), '[1,2]', Buffer.from('abc'), ['x', 'y"'], 0.25],
  ],
  ['insert without returning', 'insert into qt (id, n, big) values ($1, $2, $3), ($4, $5, $6)', ['b', 2, '7', 'c', 3, null]],
  [
    'bulk insert via unnest',
    'insert into qt (id, n, doc, at, amount, flag, day) select * from unnest($1::text[], $2::integer[], $3::jsonb[], $4::timestamptz[], $5::numeric[], $6::boolean[], $7::date[]) returning id, n, doc, at, amount, flag, day',
    [
      ['d', 'e'],
      [4, 5],
      [JSON.stringify({ q: tricky }), null],
      [at, null],
      ['1.00', null],
      [false, null],
      ['2026-01-02', null],
    ],
  ],
  ['select back', 'select * from qt order by id', []],
  ['update row count', 'update qt set n = n + $1 where id = any($2::text[])', [10, ['a', 'b', 'zz']]],
  ['update nothing', 'update qt set n = 0 where id = $1', ['missing']],
  ['update returning', 'update qt set doc = $1 where id = $2 returning doc, amount, big', [{ updated: true }, 'c']],
  ['delete row count', 'delete from qt where id = $1', ['e']],
  ['aggregate types', 'select count(*) as c, sum(n) as s, avg(amount) as a, max(at) as m from qt where n >= $1', [0]],
  ['unique violation', 'insert into qt (id, n) values ($1, $2)', ['a', 1]],
  ['not null violation', 'insert into qt (id, n) values ($1, $2)', ['z', null]],
  ['check violation', 'insert into qt (id, n) values ($1, $2)', ['z', -1]],
  ['foreign key violation', 'insert into qt_child (id, parent) values ($1, $2)', ['c1', 'nope']],
  ['syntax error', 'selec $1', [1]],
  ['undefined table', 'select * from nowhere where id = $1', [1]],
  ['invalid input at bind', 'select $1::int as i', ['abc']],
  ['error at execution', 'select 1 / $1::int as x', [0]],
  ['invalid json', 'select $1::jsonb as j', ['{nope']],
];

describe('pglite fast query path equals pglite.query', () => {
  let reference: PGlite;
  let subject: PGlite;
  let fast: PgliteQuery;

  before(async () => {
    const file = await writeTemplate();
    const open = async () => {
      const pglite = new PGlite({ loadDataDir: new Blob([readFileSync(file)]), parsers: pgliteParsers, extensions: pgliteExtensions });
      await pglite.exec(SETUP);
      return pglite;
    };
    [reference, subject] = await Promise.all([open(), open()]);
    fast = pgliteQuery(subject);
  });
  after(async () => {
    await Promise.all([reference.close(), subject.close()]);
  });

  const same = async (sql: string, params: unknown[], via: PgliteQuery = fast) => {
    const expected = await settle(() => reference.query(sql, params));
    const actual = await settle(() => via.query(sql, params));
    assert.deepEqual(actual, expected);
    return actual;
  };
  const exec = async (sql: string) => {
    await reference.exec(sql);
    await subject.exec(sql);
  };

  test('each statement, first (prepared) and second (cached) run', async (t) => {
    for (const [label, sql, params] of cases) {
      // Runs the statement twice: a write is applied twice on both sides alike.
      await t.test(label, async () => {
        await same(sql, params);
        await same(sql, params);
      });
    }
    const errors = cases.filter(([label]) => /violation|error|undefined|invalid/.test(label)).length;
    assert.ok(errors >= 10);
    assert.equal(fast.stats().fallbacks, 0);
  });

  test('a wrong number of parameters: same error, but naming the prepared statement', async () => {
    const sql = 'select $1::int as a, $2::int as b';
    const expected = await settle(() => reference.query(sql, [1]));
    const actual = await settle(() => fast.query(sql, [1]));
    assert.ok('error' in expected && 'error' in actual);
    assert.equal(actual.error.code, '08P01');
    assert.equal(actual.error.code, expected.error.code);
    assert.equal(String(actual.error.message).replace(/"kontor_\d+"/, '""'), expected.error.message);
  });

  test('error codes and constraint names reach the caller', async () => {
    const outcome = await same('insert into qt (id, n) values ($1, $2)', ['a', 1]);
    assert.ok('error' in outcome);
    assert.equal(outcome.error.code, '23505');
    assert.equal(outcome.error.constraint, 'qt_pkey');
    assert.equal(outcome.error.table, 'qt');
    assert.match(String(outcome.error.detail), /Key \(id\)=\(a\) already exists/);
    assert.equal(outcome.error.databaseError, true);
    assert.deepEqual(outcome.error.params, ['a', 1]);
  });

  test('a transaction with an error: aborted until ROLLBACK, the statements usable after', async () => {
    await exec('begin');
    await same('insert into qt (id, n) values ($1, $2)', ['t1', 1]);
    const failed = await same('insert into qt (id, n) values ($1, $2)', ['t1', 1]);
    assert.ok('error' in failed && failed.error.code === '23505');
    // A cached statement, and one parsed for the first time in the aborted transaction.
    const aborted = await same('select * from qt where id = $1', ['t1']);
    assert.ok('error' in aborted && aborted.error.code === '25P02');
    await same('select $1::text as never_seen_before', ['x']);
    await exec('rollback');
    await same('select $1::text as never_seen_before', ['x']);
    await same('select * from qt where id = $1', ['t1']);
    await same('insert into qt (id, n) values ($1, $2) returning id', ['t1', 1]);
  });

  test('a committed transaction', async () => {
    await exec('begin');
    await same('insert into qt (id, n) values ($1, $2) returning *', ['t2', 2]);
    await same('update qt set n = n + $1 where id = $2', [1, 't2']);
    await exec('commit');
    await same('select id, n from qt where id = any($1::text[]) order by id', [['t1', 't2']]);
  });

  test('a small cache evicts and closes statements, results unchanged', async () => {
    const count = async () =>
      (await subject.query<{ n: number }>("select count(*)::int as n from pg_prepared_statements where name like 'kontor\\_%'")).rows[0]!.n;
    const before = await count();
    const small = pgliteQuery(subject, { cacheSize: 2 });
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 5; i++) await same(`select $1::int + ${i} as v`, [round], small);
    }
    assert.equal(small.stats().prepared, 2);
    assert.equal(await count(), before + 2, 'evicted statements are deallocated');
  });

  test('unnamed statements only (cacheSize 0)', async () => {
    const unnamed = pgliteQuery(subject, { cacheSize: 0 });
    for (const [, sql, params] of cases.slice(0, 8)) await same(sql, params, unnamed);
    assert.equal(unnamed.stats().prepared, 0);
  });

  test('a schema change under a cached statement: prepared afresh outside a transaction', async () => {
    await same('select * from qt where id = $1', ['a']);
    await exec('alter table qt add column extra text');
    await same('select * from qt where id = $1', ['a']);
    await exec('alter table qt drop column extra');
    // Inside a transaction the statement cannot be retried; forget() (which the dialect calls
    // for every parameterless statement that may change the schema) prevents the error.
    fast.forget();
    await exec('begin');
    await same('select * from qt where id = $1', ['a']);
    await exec('rollback');
  });

  test('statements deallocated behind its back are prepared again', async () => {
    await same('select n from qt where id = $1', ['a']);
    await subject.exec('deallocate all');
    await same('select n from qt where id = $1', ['a']);
    await same('select n from qt where id = $1', ['b']);
  });

  test('values it does not serialise go to pglite.query', async () => {
    const before = fast.stats().fallbacks;
    await same('select $1::text as t', [{ toPostgres: () => 'x', toString: () => 'custom' }]);
    await same('select $1::text as t', [new Date(Number.NaN)]);
    assert.equal(fast.stats().fallbacks, before + 2);
  });
});
