import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { type DatabaseHandle, openDatabase } from '../../src/db/connection.ts';
import { migrate } from '../../src/db/migrate.ts';
import { writeTemplate } from '../../src/db/write-template.ts';

// One database per test file: on PGlite an in-memory instance loaded from the migrated
// template of src/db/pglite-template.ts (made by npm install or test/global-setup.ts), on PostgreSQL
// (KONTOR_TEST_DB=postgres) a fresh database created on the server and dropped after.

export const usePostgres = process.env.KONTOR_TEST_DB === 'postgres';
export const serverUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** The migrated PGlite snapshot every test file loads (made by npm install, or here). */
export const ensureSnapshot = writeTemplate;

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

async function onServer(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** An empty database on the PostgreSQL server, dropped by `drop()` (also used by bench/). */
export async function freshServerDatabase(prefix = 'kontor_test'): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await onServer(`create database ${name}`);
  return { url: withDatabase(serverUrl, name), drop: () => onServer(`drop database if exists ${name} with (force)`) };
}

export async function testDatabase(): Promise<DatabaseHandle> {
  if (usePostgres) {
    const server = await freshServerDatabase();
    const handle = await openDatabase({ kind: 'postgres', url: server.url, poolSize: 20 });
    await migrate(handle.db);
    return {
      ...handle,
      close: async () => {
        await handle.close();
        await server.drop();
      },
    };
  }
  const file = await ensureSnapshot();
  return openDatabase({ kind: 'pglite', loadDataDir: new Blob([readFileSync(file)]) });
}
