import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { type DatabaseHandle, openDatabase } from '../../src/db/connection.ts';
import { listMigrations, migrate } from '../../src/db/migrate.ts';

// One database per test file: on PGlite an in-memory instance loaded from a migrated
// snapshot (made once per migration set by test/global-setup.ts), on PostgreSQL
// (KONTOR_TEST_DB=postgres) a fresh database created on the server and dropped after.

export const usePostgres = process.env.KONTOR_TEST_DB === 'postgres';
export const serverUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function snapshotPath(): Promise<string> {
  const hash = createHash('sha256');
  for (const m of await listMigrations()) hash.update(m.version).update(m.sql);
  return path.join(tmpdir(), `kontor-test-snapshot-${hash.digest('hex').slice(0, 16)}.tar`);
}

/** Makes the migrated PGlite snapshot unless it exists. */
export async function ensureSnapshot(): Promise<string> {
  const file = await snapshotPath();
  if (existsSync(file)) return file;
  const handle = await openDatabase({ kind: 'pglite' });
  await migrate(handle.db);
  const dump = await handle.pglite!.dumpDataDir('none');
  await handle.close();
  const partial = `${file}.${process.pid}.part`;
  writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
  renameSync(partial, file);
  return file;
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

export async function testDatabase(): Promise<DatabaseHandle> {
  if (usePostgres) {
    const name = `kontor_test_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    const handle = await openDatabase({ kind: 'postgres', url: withDatabase(serverUrl, name), poolSize: 20 });
    await migrate(handle.db);
    return {
      ...handle,
      close: async () => {
        await handle.close();
        const dropper = new pg.Client({ connectionString: serverUrl });
        await dropper.connect();
        await dropper.query(`drop database if exists ${name} with (force)`);
        await dropper.end();
      },
    };
  }
  const file = await ensureSnapshot();
  return openDatabase({ kind: 'pglite', loadDataDir: new Blob([readFileSync(file)]) });
}
