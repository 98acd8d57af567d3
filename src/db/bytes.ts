import { type RawBuilder, sql } from 'kysely';

// Stored documents (PDFs, XML) are written as Buffers: both drivers send them as bytea hex
// text ('\x…'; db/pglite-query.ts for PGlite, node-postgres for a server), which measured
// faster than base64 decoded by the database (58 KB: PGlite 0.8 vs 0.9–1.2 ms, PostgreSQL
// 0.6 vs 0.9–1.1 ms, 2026-11-23). They are read as base64 text: PGlite's parser takes a
// bytea result apart in JavaScript, far slower than Buffer.from(text, 'base64').

/** A bytea column to read, as base64 text (turn it back with `Buffer.from(value, 'base64')`); null stays null. */
export function byteaAsBase64<T extends string | null = string>(column: string): RawBuilder<T> {
  return sql<T>`encode(${sql.ref(column)}, 'base64')`;
}
