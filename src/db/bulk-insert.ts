import { type Insertable, type RawBuilder, sql } from 'kysely';
import type { DB } from './schema.ts';
import type { Trx } from './transaction.ts';

// Many rows in one statement: `insert … select * from unnest($1::text[], $2::bigint[], …)`
// sends one array per column instead of one parameter per value, so 10,000 rows are a few
// statements with a handful of parameters (a VALUES list of that size builds a query tree
// of 100,000+ nodes in Kysely and is several times slower on both drivers).
//
// The arrays go as array literals written here, not as JS arrays: node-postgres escapes
// each element with two regular expressions and writes Dates in local time by hand, which
// was a fifth of the revenue-event writer's JavaScript (issue 26). A column whose value is
// the same in every row (the company, a status, the time of writing, nulls) goes as one
// scalar parameter instead of an array: less to write, and less for PostgreSQL to parse.

export type PgArrayType = 'text' | 'integer' | 'bigint' | 'date' | 'boolean' | 'numeric' | 'timestamptz' | 'jsonb';

/** The column types of a table's rows, as PostgreSQL casts them. */
export type ColumnTypes<T extends keyof DB> = Partial<Record<keyof DB[T] & string, PgArrayType>>;

const CHUNK = 1000;
const ESCAPED = /["\\]/g;

/** A value as PostgreSQL text input (Dates as UTC ISO instants, objects as JSON), null for SQL NULL. */
function textOf(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (value instanceof Date) return value.toISOString(); // an invalid Date throws
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** The values as a PostgreSQL array literal: every element quoted (backslash and quote escaped), NULL for null. */
export function arrayLiteral(values: readonly unknown[]): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    if (i > 0) out += ',';
    const text = textOf(values[i]);
    if (text === null) out += 'NULL';
    else if (text.indexOf('"') === -1 && text.indexOf('\\') === -1) out += `"${text}"`;
    else out += `"${text.replace(ESCAPED, '\\$&')}"`;
  }
  return `${out}}`;
}

/** Whether two column values are the same value for the database (primitives, Dates by instant). */
function same(a: unknown, b: unknown): boolean {
  if (a === b || ((a === null || a === undefined) && (b === null || b === undefined))) return true;
  return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
}

/** A column with one value in all rows (objects never: they are compared by identity only). */
function constantColumn(rows: readonly Record<string, unknown>[], name: string): boolean {
  const first = rows[0]![name];
  if (first !== null && typeof first === 'object' && !(first instanceof Date)) return false;
  for (let i = 1; i < rows.length; i++) if (!same(rows[i]![name], first)) return false;
  return true;
}

/**
 * `select <scalars and unnest columns in the order of columns>`: columns with one value in
 * every row are scalar parameters, the others arrays unnested side by side. At least one
 * column stays an array when there is more than one row (unnest gives the row count).
 */
function rowsSelect(columns: [string, PgArrayType][], rows: readonly Record<string, unknown>[]): RawBuilder<unknown> {
  const constant = columns.map(([name]) => rows.length > 1 && constantColumn(rows, name));
  if (rows.length > 1 && constant.every(Boolean)) constant[0] = false;
  const arrays = columns.filter((_, i) => !constant[i]);
  const items = columns.map(([name, type], i) => (constant[i] ? sql`${textOf(rows[0]![name])}::${sql.raw(type)}` : sql.ref(`u.${name}`)));
  const unnest = sql.join(arrays.map(([name, type]) => sql`${arrayLiteral(rows.map((row) => row[name]))}::${sql.raw(type)}[]`));
  return sql`select ${sql.join(items)} from unnest(${unnest}) as u(${sql.join(arrays.map(([name]) => sql.ref(name)))})`;
}

/**
 * Inserts the rows (each with exactly the columns in `types`) in chunks of 1,000. With
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
    >`insert into ${sql.table(table)} (${sql.join(columns.map(([name]) => sql.ref(name)))}) ${rowsSelect(columns, part)}${
      options.onConflictDoNothing ? sql` on conflict do nothing` : sql``
    }${options.returning ? sql` returning ${sql.ref(options.returning)}` : sql``}`.execute(trx);
    if (options.returning) for (const row of result.rows) returned.push(row[options.returning]!);
  }
  return returned;
}
