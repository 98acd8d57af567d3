import { readdir, readFile } from 'node:fs/promises';
import { sql } from 'kysely';
import type { Database } from './connection.ts';

const migrationsDir = new URL('./migrations/', import.meta.url);

export async function listMigrations(): Promise<{ version: string; sql: string }[]> {
  const files = (await readdir(migrationsDir)).filter((f) => f.endsWith('.sql')).sort();
  return Promise.all(files.map(async (f) => ({ version: f.replace(/\.sql$/, ''), sql: await readFile(new URL(f, migrationsDir), 'utf8') })));
}

/** Applies the plain-SQL migrations not yet applied, each in its own transaction. Returns the versions applied. */
export async function migrate(db: Database): Promise<string[]> {
  await sql`create table if not exists schema_migrations (version text primary key, applied_at timestamptz not null default now())`.execute(db);
  const applied: string[] = [];
  for (const migration of await listMigrations()) {
    const done = await db.transaction().execute(async (trx) => {
      // Several processes may start at once against one server: one migrates, the others wait.
      await sql`select pg_advisory_xact_lock(4242)`.execute(trx);
      const row = await trx.selectFrom('schema_migrations').select('version').where('version', '=', migration.version).executeTakeFirst();
      if (row) return false;
      await sql.raw(migration.sql).execute(trx);
      await trx.insertInto('schema_migrations').values({ version: migration.version }).execute();
      return true;
    });
    if (done) applied.push(migration.version);
  }
  return applied;
}
