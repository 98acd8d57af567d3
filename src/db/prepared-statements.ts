// What the two prepared-statement paths (pglite-query.ts with pglite-dialect.ts for PGlite,
// pg-prepared.ts for a server) and inTransaction share: which statements may change the
// schema, and the errors of a prepared statement that a schema change or the server undid.

// Parameterless statements that cannot change the schema; any other (migrations, DDL,
// DISCARD, SET …, several statements in one text) makes the prepared statements be
// dropped, as a schema change can leave them unusable.
const SCHEMA_SAFE = /^\s*(?:begin|start\s+transaction|commit|end|rollback|savepoint|release|select|insert|update|delete|with|values|show)\b[^;]*;?\s*$/i;

/** Whether a parameterless statement may change the schema (then prepared statements are dropped first). */
export function mayChangeSchema(sql: string): boolean {
  return !SCHEMA_SAFE.test(sql);
}

type DatabaseError = { code?: unknown; message?: unknown } | null | undefined;

/** A prepared statement whose result columns a schema change altered (0A000). */
export function isStalePlan(error: unknown): boolean {
  const e = error as DatabaseError;
  return e?.code === '0A000' && e.message === 'cached plan must not change result type';
}

/** A prepared statement the session no longer has (26000). */
export function isGoneStatement(error: unknown): boolean {
  return (error as DatabaseError)?.code === '26000';
}
