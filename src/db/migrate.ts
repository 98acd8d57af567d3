import { readdir, readFile } from 'node:fs/promises';
import { sql } from 'kysely';
import type { Database } from './connection.ts';

const migrationsDir = new URL('./migrations/', import.meta.url);

export async function listMigrations(): Promise<{ version: string; sql: string }[]> {
  const files = (await readdir(migrationsDir)).filter((f) => f.endsWith('.sql')).sort();
  return Promise.all(files.map(async (f) => ({ version: f.replace(/\.sql$/, ''), sql: await readFile(new URL(f, migrationsDir), 'utf8') })));
}

export type PendingMigration = { version: string; about: string; statements: string[] };

/**
 * What `migrate` would do, without doing it: the migrations not yet applied, each with the
 * comment it opens with and the first line of each of its statements.
 */
export async function pendingMigrations(db: Database): Promise<PendingMigration[]> {
  const exists = await sql<{ name: string | null }>`select to_regclass('schema_migrations')::text as name`.execute(db);
  const applied = new Set(exists.rows[0]?.name ? (await db.selectFrom('schema_migrations').select('version').execute()).map((row) => row.version) : []);
  return (await listMigrations()).filter((m) => !applied.has(m.version)).map((m) => ({ version: m.version, ...describeMigration(m.sql) }));
}

/** A migration's opening comment (joined) and the first line of each statement. */
export function describeMigration(text: string): { about: string; statements: string[] } {
  const lines = text.split('\n');
  const about: string[] = [];
  for (const line of lines) {
    const comment = /^--\s?(.*)$/.exec(line.trim());
    if (!comment) break;
    about.push((comment[1] ?? '').trim());
  }
  // Statements start at the line's beginning; the clauses of an `alter table` are indented under it.
  const statements = lines
    .filter((line) => /^(create|alter|drop|insert|update|delete|comment|do|grant|revoke)\b/i.test(line) || /^\s+(add|drop|alter|rename)\s/i.test(line))
    .map((line) => (/^\s/.test(line) ? `  ${line.trim()}` : line.trim()).replace(/\s*[(,;]$/, ''));
  return { about: about.join(' ').trim(), statements };
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
