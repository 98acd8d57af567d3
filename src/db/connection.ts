import { PGlite, types } from '@electric-sql/pglite';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { pgliteDialect } from './pglite-dialect.ts';
import type { DB } from './schema.ts';

export type Database = Kysely<DB>;

export type DatabaseHandle = {
  db: Database;
  kind: 'pglite' | 'postgres';
  close(): Promise<void>;
  /** The PGlite instance in embedded mode (snapshots in tests), else undefined. */
  pglite?: PGlite;
};

// Calendar dates stay 'YYYY-MM-DD' strings, numerics stay exact strings, bigints become
// numbers (counters and cents stay far below 2^53), timestamps become Date.
const parseInt8 = (v: string) => Number(v);
const keepString = (v: string) => v;

export type DatabaseOptions =
  | { kind: 'postgres'; url: string; poolSize?: number; searchPath?: string }
  | { kind: 'pglite'; dataDir?: string; loadDataDir?: Blob };

export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  if (options.kind === 'postgres') {
    const pool = new pg.Pool({
      connectionString: options.url,
      max: options.poolSize ?? 10,
      ...(options.searchPath ? { options: `-c search_path=${options.searchPath}` } : {}),
      types: {
        getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
          if (oid === 20) return parseInt8;
          if (oid === 1700 || oid === 1082) return keepString;
          return pg.types.getTypeParser(oid, format);
        }) as typeof pg.types.getTypeParser,
      },
    });
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    return { db, kind: 'postgres', close: () => db.destroy() };
  }
  const pglite = new PGlite({
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
    parsers: { [types.INT8]: parseInt8, [types.NUMERIC]: keepString, [types.DATE]: keepString },
  });
  await pglite.waitReady;
  const db = new Kysely<DB>({ dialect: pgliteDialect(pglite) });
  return {
    db,
    kind: 'pglite',
    pglite,
    close: async () => {
      await db.destroy();
      await pglite.close();
    },
  };
}
