import type { InsertQueryBuilder, InsertResult } from 'kysely';
import type { DB } from './schema.ts';

// Writes that become parts of another statement's data-modifying WITH: one statement, one
// round trip (issue 26: what runs under a number's row lock). A part may refer to a row
// another part inserts by foreign key: checked at the statement's end.

/** An insert not yet run, of any table. */
// biome-ignore lint/suspicious/noExplicitAny: any table of the database
export type WriteInStatement = InsertQueryBuilder<DB, any, InsertResult>;

/** `query` with each write as one more part of its WITH, named `${prefix}_${i}`. */
export function withWrites<Q>(query: Q, writes: readonly WriteInStatement[], prefix: string): Q {
  let statement = query;
  writes.forEach((write, i) => {
    // Each part changes the builder's type (one more named part); the caller's select does not read them.
    statement = (statement as unknown as { with(name: string, part: () => WriteInStatement): Q }).with(`${prefix}_${i}`, () => write);
  });
  return statement;
}
