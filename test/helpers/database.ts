import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import pg from 'pg';
import { type DatabaseHandle, openDatabase } from '../../src/db/connection.ts';
import { migrate } from '../../src/db/migrate.ts';
import { writeSnapshot, writeTemplate } from '../../src/db/write-template.ts';

// One database per test file: on PGlite an in-memory instance loaded from a snapshot of the
// migrated template of src/db/pglite-template.ts (made by npm install or test/global-setup.ts),
// on PostgreSQL (KONTOR_TEST_DB=postgres) a fresh database created on the server and dropped after.

export const usePostgres = process.env.KONTOR_TEST_DB === 'postgres';
export const serverUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * The PGlite snapshot every test database loads: the migrated template (made by npm
 * install, or here) with a 16 MB buffer cache instead of 128 MB and without the databases
 * template0 and template1, which no test uses. A test database is a few MB; each open
 * then costs about half the CPU (~0.5 s → ~0.25 s: less memory to set up, 29 MB instead
 * of 44 MB to unpack). The service's own data folders keep PostgreSQL's defaults.
 */
export async function ensureSnapshot(): Promise<string> {
  const template = await writeTemplate();
  const file = template.replace(/\.tar$/, '-test.tar');
  if (existsSync(file)) return file;
  const handle = await openDatabase({ kind: 'pglite', loadDataDir: new Blob([readFileSync(template)]) });
  const pglite = handle.pglite!;
  await pglite.exec(`alter system set shared_buffers = '16MB'`);
  for (const name of ['template0', 'template1']) {
    await pglite.exec(`alter database ${name} with is_template false allow_connections false`);
    await pglite.exec(`drop database ${name}`);
  }
  await pglite.exec('checkpoint');
  await writeSnapshot(handle, file);
  return file;
}

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

// The snapshot read once per process (a Blob is immutable: every database loads from the same one).
let template: Promise<Blob> | undefined;

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
  template ??= ensureSnapshot().then((file) => new Blob([readFileSync(file)]));
  return openDatabase({ kind: 'pglite', loadDataDir: await template });
}
