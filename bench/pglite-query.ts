// `node bench/pglite-query.ts [N]`: per-statement cost on an in-memory PGlite of
// `pglite.query` against the one-call path of src/db/pglite-query.ts, with prepared
// statements (the default) and without (cacheSize 0). A diagnostic, not part of `npm run bench`.
import { readFileSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { pgliteParsers } from '../src/db/connection.ts';
import { pgliteQuery } from '../src/db/pglite-query.ts';
import { writeTemplate } from '../src/db/write-template.ts';

const N = Number(process.argv[2] ?? 2000);
const pglite = new PGlite({ loadDataDir: new Blob([readFileSync(await writeTemplate())]), parsers: pgliteParsers });
await pglite.exec(`
  create table bench_t (id text primary key, company_id text not null, n integer not null, doc jsonb, at timestamptz, content bytea);
  insert into bench_t select 'k' || i, 'c' || (i % 10), i, '{"a": 1}', now(), null from generate_series(1, 5000) i;
`);
const prepared = pgliteQuery(pglite);
const unnamed = pgliteQuery(pglite, { cacheSize: 0 });
const pdf = Buffer.alloc(30_000, 7);

let i = 0;
const statements: [string, string, () => unknown[]][] = [
  ['select by key', 'select * from bench_t where id = $1', () => [`k${(i % 5000) + 1}`]],
  ['select 20 rows', 'select id, n, doc, at from bench_t where company_id = $1 order by n limit 20', () => [`c${i % 10}`]],
  ['= any(text[])', 'select id from bench_t where id = any($1::text[])', () => [['k1', 'k2', `k${(i % 5000) + 1}`]]],
  ['update returning', 'update bench_t set n = n + $1 where id = $2 returning n', () => [1, `k${(i % 5000) + 1}`]],
  ['insert 30 kB bytea', 'insert into bench_t (id, company_id, n, content) values ($1, $2, $3, $4)', () => [`new${i}`, 'c0', i, pdf]],
];

const time = async (run: () => Promise<unknown>): Promise<string> => {
  for (let w = 0; w < 300; w++, i++) await run();
  const t0 = performance.now();
  for (let k = 0; k < N; k++, i++) await run();
  return `${(((performance.now() - t0) / N) * 1000).toFixed(0).padStart(6)} µs`;
};

console.log('statement'.padEnd(20), 'pglite.query'.padStart(12), 'unnamed'.padStart(12), 'prepared'.padStart(12));
for (const [label, sql, params] of statements) {
  const a = await time(() => pglite.query(sql, params()));
  const b = await time(() => unnamed.query(sql, params()));
  const c = await time(() => prepared.query(sql, params()));
  console.log(label.padEnd(20), a.padStart(12), b.padStart(12), c.padStart(12));
}
await pglite.close();
