import { type RawBuilder, sql } from 'kysely';

// Stored documents (PDFs, XML) travel as base64 and the database decodes and encodes them:
// PGlite's own bytea handling took a 58 KB parameter apart in ~8 ms, base64 in ~1.4 ms
// (measured before db/pglite-query.ts, which serialises bytea faster; reads still parse
// bytea results in JavaScript). The same text works with the PostgreSQL driver.

/** A bytea value to write. */
export function byteaValue(bytes: Buffer): RawBuilder<Buffer> {
  return sql<Buffer>`decode(${bytes.toString('base64')}, 'base64')`;
}

/** A bytea column to read, as base64 text (turn it back with `Buffer.from(value, 'base64')`); null stays null. */
export function byteaAsBase64<T extends string | null = string>(column: string): RawBuilder<T> {
  return sql<T>`encode(${sql.ref(column)}, 'base64')`;
}
