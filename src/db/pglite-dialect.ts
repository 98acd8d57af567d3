import type { PGlite } from '@electric-sql/pglite';
import { PostgresDialect } from 'kysely';
import { pgliteQuery } from './pglite-query.ts';
import { mayChangeSchema } from './prepared-statements.ts';

// Kysely's PostgresDialect talks to a pg-style pool. PGlite is a single in-process
// connection, so this adapter hands it out exclusively: a transaction holds it from
// BEGIN to COMMIT and every other query waits its turn (the maintained
// kysely-pglite-dialect does not support PGlite 0.5; see docs/decisions.md).
// Parameterised statements take the one-call, prepared-statement path of pglite-query.ts
// instead of `pglite.query` (same results and errors, a fraction of the cost).

type QueryResult = { command: 'UPDATE' | 'DELETE' | 'INSERT' | 'SELECT' | 'MERGE'; rowCount: number; rows: unknown[] };

function commandOf(sql: string): QueryResult['command'] {
  const word = /^\s*(?:with\b[\s\S]*?\)\s*)?(\w+)/i.exec(sql)?.[1]?.toUpperCase() ?? 'SELECT';
  return (['UPDATE', 'DELETE', 'INSERT', 'MERGE'].includes(word) ? word : 'SELECT') as QueryResult['command'];
}

export function pgliteDialect(pglite: PGlite): PostgresDialect {
  const fast = pgliteQuery(pglite);
  let tail: Promise<void> = Promise.resolve();
  const acquire = async (): Promise<() => void> => {
    let release!: () => void;
    const next = new Promise<void>((resolve) => {
      release = resolve;
    });
    const previous = tail;
    tail = previous.then(() => next);
    await previous;
    return release;
  };

  const pool = {
    async connect() {
      const release = await acquire();
      return {
        async query(sql: string, parameters: readonly unknown[]): Promise<QueryResult> {
          if (parameters.length === 0) {
            // Parameterless text may hold several statements (migrations): simple protocol.
            if (mayChangeSchema(sql)) fast.forget();
            const results = await pglite.exec(sql);
            const last = results[results.length - 1];
            return { command: commandOf(sql), rowCount: last?.affectedRows ?? 0, rows: last?.rows ?? [] };
          }
          const result = await fast.query(sql, parameters);
          return { command: commandOf(sql), rowCount: result.affectedRows ?? result.rows.length, rows: result.rows };
        },
        release,
      };
    },
    async end() {},
  };
  // biome-ignore lint/suspicious/noExplicitAny: the pool type of PostgresDialect is pg's; our adapter fits its used surface.
  return new PostgresDialect({ pool: pool as any });
}
