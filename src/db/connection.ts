import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { PGlite, types } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { copyRows } from './binary-copy.ts';
import { type Liveness, localLiveness, serverLiveness } from './liveness.ts';
import { preparedPool } from './pg-prepared.ts';
import { pgliteDialect } from './pglite-dialect.ts';
import { templateFor } from './pglite-template.ts';
import type { DB } from './schema.ts';

export type Database = Kysely<DB>;

export type DatabaseHandle = {
  db: Database;
  kind: 'pglite' | 'postgres';
  /** Which processes are alive (liveness.ts): owners of work that runs after a commit. */
  liveness: Liveness;
  close(): Promise<void>;
  /** The PGlite instance in embedded mode (snapshots in tests), else undefined. */
  pglite?: PGlite;
  /**
   * On a server: the rows of a query (SQL text, its values written in as literals) as a
   * binary COPY, every field as bytes (binary-copy.ts) — for reading stored documents in bulk.
   */
  copyRows?: BinaryCopy;
  /** On a server: the pool's connections (the operator's metrics). */
  poolStats?: () => { total: number; idle: number; waiting: number };
};

export type BinaryCopy = (select: string) => AsyncGenerator<(Buffer | null)[]>;

// Calendar dates stay 'YYYY-MM-DD' strings, numerics stay exact strings, bigints become
// numbers (counters and cents stay far below 2^53: amounts are bounded by MAX_AMOUNT in
// shared/money.ts), timestamps become Date. A bigint a number cannot hold exactly fails
// the read rather than come back rounded.
const parseInt8 = (v: string) => {
  const n = Number(v);
  if (!Number.isSafeInteger(n)) throw new RangeError(`bigint ${v} is beyond the exact range of a number`);
  return n;
};
const keepString = (v: string) => v;

/** Type parsers for pg (also used by bench/ceiling.ts, so both read rows alike). */
export const pgTypes = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === 20) return parseInt8;
    if (oid === 1700 || oid === 1082) return keepString;
    return pg.types.getTypeParser(oid, format);
  }) as typeof pg.types.getTypeParser,
};

/** The extensions the schema uses (migration 0025: trigram indexes for the app's searches); a server has them as contrib. */
export const pgliteExtensions = { pg_trgm };

/** Type parsers for PGlite, the same as pgTypes. */
export const pgliteParsers = { [types.INT8]: parseInt8, [types.NUMERIC]: keepString, [types.DATE]: keepString };

// PGlite's WebAssembly compiled and its file bundle read once per process, not at every
// open (a process that opens several databases: a test group, `kontor` commands in tests).
let pgliteArtifacts: Promise<{ pgliteWasmModule: WebAssembly.Module; fsBundle: Blob }> | undefined;
function loadPgliteArtifacts() {
  pgliteArtifacts ??= (async () => {
    const dist = path.dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
    const [wasm, data] = await Promise.all([readFile(path.join(dist, 'pglite.wasm')), readFile(path.join(dist, 'pglite.data'))]);
    return { pgliteWasmModule: await WebAssembly.compile(wasm), fsBundle: new Blob([data]) };
  })();
  return pgliteArtifacts;
}

export type DatabaseOptions =
  | { kind: 'postgres'; url: string; poolSize?: number; onIdleError?: (error: Error) => void }
  | { kind: 'pglite'; dataDir?: string; loadDataDir?: Blob };

export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  if (options.kind === 'postgres') {
    const pool = new pg.Pool({
      connectionString: options.url,
      max: options.poolSize ?? 10,
      types: pgTypes,
    });
    // Statements are prepared once per connection (pg-prepared.ts); each execution is
    // still planned with its values, as PGlite does below. (A connection runs its queries
    // in order: this comes first.)
    pool.on('connect', (client) => {
      client.query('set plan_cache_mode = force_custom_plan').catch(() => {});
    });
    // An idle pooled connection can be closed by the server (restart, admin command). pg
    // reports that as an 'error' event, which would crash the process unhandled; the pool
    // drops the client and the next query opens a new connection.
    pool.on('error', (error) => options.onIdleError?.(error));
    // biome-ignore lint/suspicious/noExplicitAny: the pool type of PostgresDialect is pg's; the adapter fits its used surface.
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: preparedPool(pool) as any }) });
    const liveness = serverLiveness(options.url, (sql, values) => pool.query(sql, values));
    return {
      db,
      kind: 'postgres',
      liveness,
      copyRows: (select) => copyRows(pool, select),
      poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
      close: async () => {
        await liveness.close();
        await db.destroy();
      },
    };
  }
  const loadDataDir = options.loadDataDir ?? (options.dataDir ? templateFor(options.dataDir) : undefined);
  const pglite = new PGlite({
    ...(await loadPgliteArtifacts()),
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    ...(loadDataDir ? { loadDataDir } : {}),
    parsers: pgliteParsers,
    extensions: pgliteExtensions,
  });
  await pglite.waitReady;
  // Statements are prepared once per SQL text (pglite-query.ts). Plan each execution with
  // its actual values, as the server mode does (node-postgres sends unnamed statements):
  // PostgreSQL's generic plans after five runs made by-reference reads 2-3x slower.
  await pglite.exec('set plan_cache_mode = force_custom_plan');
  const db = new Kysely<DB>({ dialect: pgliteDialect(pglite) });
  return {
    db,
    kind: 'pglite',
    pglite,
    liveness: localLiveness(),
    close: async () => {
      await db.destroy();
      await pglite.close();
    },
  };
}
