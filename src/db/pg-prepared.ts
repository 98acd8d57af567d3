import type pg from 'pg';
import { isGoneStatement, isStalePlan, mayChangeSchema } from './prepared-statements.ts';

// node-postgres sends every statement unnamed: PostgreSQL parses and analyses the text
// anew each time. Kysely's statements repeat (the same text, other values), so this pool
// adapter names each parameterised text once per connection: the server keeps it
// prepared, and later runs only bind and execute (the PostgreSQL side of an issued invoice's
// ~17 statements: ~20 % less CPU, measured 2026-11-23). The PGlite path does the same
// (pglite-query.ts). Plans are still made per execution with the actual values
// (plan_cache_mode = force_custom_plan, set per connection in connection.ts), as before.
//
// Prepared statements live in the server session, outside transactions, and a schema
// change can make one unusable. So a parameterless statement that may change the schema
// (migrations, DDL) makes the connection drop them all first; a statement that fails as
// gone or stale (26000; 0A000 "cached plan must not change result type") is forgotten and,
// outside a transaction, run once more unnamed (inside one, the transaction has failed and
// inTransaction runs it again). At most `size` are kept per connection; the least
// recently used one is deallocated to make room.

type Prepared = { names: Map<string, string>; pending: string[] };

let counter = 0;

type Client = pg.PoolClient;

/** Forgets the client-side record of a named statement (node-postgres keeps one per name). */
function forgetParsed(client: Client, name: string) {
  const parsed = (client as unknown as { connection?: { parsedStatements?: Record<string, string> } }).connection?.parsedStatements;
  if (parsed) delete parsed[name];
}

export function preparedPool(pool: pg.Pool, size = 200) {
  const sessions = new WeakMap<Client, Prepared>();

  async function query(client: Client, sql: string, parameters: readonly unknown[]) {
    let session = sessions.get(client);
    if (!session) {
      session = { names: new Map(), pending: [] };
      sessions.set(client, session);
    }
    // In a failed transaction every statement fails until ROLLBACK: keep the housekeeping for later.
    const failed = transactionStatus(client) === 'E';
    if (parameters.length === 0) {
      if (!failed && mayChangeSchema(sql) && (session.names.size > 0 || session.pending.length > 0)) {
        for (const name of [...session.names.values(), ...session.pending]) forgetParsed(client, name);
        session.names.clear();
        session.pending = [];
        await client.query('DEALLOCATE ALL');
      }
      return client.query(sql);
    }
    // Statements evicted to make room (or gone stale) are deallocated before the next one.
    if (!failed && session.pending.length > 0) {
      const gone = session.pending;
      session.pending = [];
      for (const name of gone) {
        forgetParsed(client, name);
        await client.query(`DEALLOCATE ${name}`);
      }
    }
    let name = session.names.get(sql);
    if (name !== undefined) {
      session.names.delete(sql); // most recently used goes last
    } else {
      name = `kontor_${++counter}`;
      if (session.names.size >= size) {
        const [oldSql, oldName] = session.names.entries().next().value!;
        session.names.delete(oldSql);
        session.pending.push(oldName);
      }
    }
    session.names.set(sql, name);
    try {
      return await client.query({ name, text: sql, values: parameters as unknown[] });
    } catch (error) {
      const stale = isStalePlan(error);
      if (!stale && !isGoneStatement(error)) throw error;
      session.names.delete(sql);
      // A stale statement still exists on the server: deallocate it with the next one.
      if (stale) session.pending.push(name);
      else forgetParsed(client, name);
      // Inside a transaction the failure has aborted it: the caller sees the error.
      if (transactionStatus(client) !== 'I') throw error;
      return client.query(sql, parameters as unknown[]);
    }
  }

  return {
    async connect() {
      const client = await pool.connect();
      return {
        query: (sql: string, parameters: readonly unknown[]) => query(client, sql, parameters),
        release: (error?: Error | boolean) => client.release(error),
      };
    },
    end: () => pool.end(),
  };
}

/** 'I' outside a transaction, 'T' inside one, 'E' in a failed one (the last ReadyForQuery). */
function transactionStatus(client: Client): string | null {
  return (client as unknown as { getTransactionStatus(): string | null }).getTransactionStatus();
}
