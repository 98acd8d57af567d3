import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';

// Which process is still alive. Work that runs after a commit and cannot be part of a
// transaction (a mail leaving) is recorded with the token of the process doing it; a later
// request that finds such a record asks whether its owner still lives. A dead owner's work
// is settled at once instead of waiting for a lease to run out (issue 11). Claimed jobs
// carry the token too: a dead process's jobs run again at once (jobs/claim.ts, issue 24).
//
// - Embedded (PGlite): one process holds the data folder (cli/data-folder.ts), so every
//   token but the own one belongs to a process that has ended.
// - PostgreSQL: each process holds a session advisory lock on a dedicated connection for
//   its whole life; its token names the lock. PostgreSQL releases the lock the moment the
//   connection ends (kill -9 closes the socket; a vanished host ends with TCP keepalive),
//   so `pg_locks` tells whether the owner lives, without any clock.

export type Liveness = {
  /** This process's token (opens the lock connection on first use on PostgreSQL). */
  token(): Promise<string>;
  /** Whether the process that holds `token` is alive (true for this process's own token). */
  isAlive(token: string): Promise<boolean>;
  close(): Promise<void>;
};

/** The embedded database: only this process can be alive. */
export function localLiveness(): Liveness {
  const own = `local:${randomUUID()}`;
  return {
    token: async () => own,
    isAlive: async (token) => token === own,
    close: async () => {},
  };
}

const TOKEN = /^pg:(-?\d{1,10}):(-?\d{1,10})$/;

/** PostgreSQL: a session advisory lock on the two int4 keys of the token. */
export function serverLiveness(url: string, query: (sql: string, values: unknown[]) => Promise<{ rows: unknown[] }>): Liveness {
  const keys = randomBytes(8);
  const own = { a: keys.readInt32BE(0), b: keys.readInt32BE(4) };
  const ownToken = `pg:${own.a}:${own.b}`;
  let holder: Promise<pg.Client> | null = null;
  let closed = false;

  const hold = (): Promise<pg.Client> => {
    holder ??= (async () => {
      const client = new pg.Client({ connectionString: url, keepAlive: true });
      // A dropped lock connection is opened again on the next use (the lock with it).
      client.on('error', () => {
        holder = null;
      });
      client.on('end', () => {
        holder = null;
      });
      await client.connect();
      await client.query('select pg_advisory_lock($1::int4, $2::int4)', [own.a, own.b]);
      return client;
    })().catch((error) => {
      holder = null;
      throw error;
    });
    return holder;
  };

  return {
    async token() {
      if (closed) throw new Error('liveness closed');
      await hold();
      return ownToken;
    },
    async isAlive(token) {
      if (token === ownToken) return !closed;
      const match = TOKEN.exec(token);
      if (!match) return false;
      // Two-key advisory locks show as classid = first key, objid = second key, objsubid = 2
      // (oids are unsigned: the int4 keys are compared as their unsigned form).
      const { rows } = await query(
        `select exists (select 1 from pg_locks where locktype = 'advisory' and granted and objsubid = 2
           and database = (select oid from pg_database where datname = current_database())
           and classid = ($1::int8 & 4294967295)::text::oid and objid = ($2::int8 & 4294967295)::text::oid) as alive`,
        [match[1], match[2]],
      );
      return (rows[0] as { alive: boolean }).alive;
    },
    async close() {
      closed = true;
      const client = await holder?.catch(() => null);
      holder = null;
      await client?.end().catch(() => {});
    },
  };
}
