import { type Insertable, sql } from 'kysely';
import type { DB } from './schema.ts';
import type { Trx } from './transaction.ts';

// Many rows in one statement: `insert … select * from unnest($1::text[], $2::bigint[], …)`
// sends one array per column instead of one parameter per value, so 10,000 rows are a few
// statements with a handful of parameters (a VALUES list of that size builds a query tree
// of 100,000+ nodes in Kysely and is several times slower on both drivers).

export type PgArrayType = 'text' | 'integer' | 'bigint' | 'date' | 'boolean' | 'numeric' | 'timestamptz' | 'jsonb';

/** The column types of a table's rows, as PostgreSQL casts them. */
export type ColumnTypes<T extends keyof DB> = Partial<Record<keyof DB[T] & string, PgArrayType>>;

const CHUNK = 1000;

function unnestSelect(columns: [string, PgArrayType][], rows: readonly Record<string, unknown>[]) {
  return sql`select * from unnest(${sql.join(columns.map(([name, type]) => sql`${rows.map((row) => row[name] ?? null)}::${sql.raw(type)}[]`))})`;
}

/**
 * Inserts the rows (each with exactly the columns in `types`) in chunks of 5,000. With
 * `onConflictDoNothing` rows that hit a unique key are skipped; returns the `returning`
 * column of the rows inserted, when asked for.
 */
export async function bulkInsert<T extends keyof DB & string>(
  trx: Trx,
  table: T,
  types: ColumnTypes<T>,
  rows: readonly Insertable<DB[T]>[],
  options: { onConflictDoNothing?: boolean; returning?: keyof DB[T] & string } = {},
): Promise<string[]> {
  const columns = Object.entries(types) as [string, PgArrayType][];
  // A column missing from `types` would be dropped without a word: refuse instead.
  const untyped = rows.length ? Object.keys(rows[0]!).filter((key) => !(key in types)) : [];
  if (untyped.length) throw new Error(`bulkInsert into ${table}: no type for ${untyped.join(', ')}`);
  const returned: string[] = [];
  for (let start = 0; start < rows.length; start += CHUNK) {
    const part = rows.slice(start, start + CHUNK) as unknown as Record<string, unknown>[];
    const result = await sql<
      Record<string, string>
    >`insert into ${sql.table(table)} (${sql.join(columns.map(([name]) => sql.ref(name)))}) ${unnestSelect(columns, part)}${
      options.onConflictDoNothing ? sql` on conflict do nothing` : sql``
    }${options.returning ? sql` returning ${sql.ref(options.returning)}` : sql``}`.execute(trx);
    if (options.returning) for (const row of result.rows) returned.push(row[options.returning]!);
  }
  return returned;
}
