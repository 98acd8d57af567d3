import { type RawBuilder, sql } from 'kysely';

// Stored documents (PDFs, XML) are written as Buffers: both drivers send them as binary
// parameters (db/pglite-query.ts for PGlite, node-postgres for a server), the bytes as
// they are. That measured faster than base64 text the database decodes (an invoice's PDF
// and XML, 58 KB: PGlite 0.43 vs 0.72–0.80 ms, PostgreSQL 0.56–0.69 vs 0.93–1.08 ms,
// 2026-11-23). They are read as base64 text: PGlite's parser takes a bytea result apart in
// JavaScript, far slower than Buffer.from(text, 'base64').

/** A bytea column to read, as base64 text (turn it back with `Buffer.from(value, 'base64')`); null stays null. */
export function byteaAsBase64<T extends string | null = string>(column: string): RawBuilder<T> {
  return sql<T>`encode(${sql.ref(column)}, 'base64')`;
}
