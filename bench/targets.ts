// The two databases a standalone bench script measures on: an embedded PGlite data folder
// in a scratch folder, and a fresh database on the PostgreSQL server (dropped after).
// KONTOR_BENCH_KEEP=1 keeps both (printed on stderr) to measure again by hand.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freshServerDatabase } from '../test/helpers/database.ts';

export type Target = { kind: 'pglite'; dataDir: string } | { kind: 'postgres'; url: string };

/** The `--only` flag's value: one database, or both when not given. */
export function onlyFlag(value: string | undefined): 'pglite' | 'postgres' | undefined {
  if (value !== undefined && value !== 'pglite' && value !== 'postgres') throw new Error('--only must be pglite or postgres');
  return value;
}

/** Runs `measure` on PGlite, then on PostgreSQL (unless `only` says otherwise), with a scratch folder `work` removed after. */
export async function onEachTarget<T>(
  name: string,
  only: 'pglite' | 'postgres' | undefined,
  measure: (target: Target, work: string) => Promise<T>,
): Promise<T[]> {
  const work = mkdtempSync(path.join(tmpdir(), `kontor-bench-${name}-`));
  const keep = process.env.KONTOR_BENCH_KEEP === '1';
  const results: T[] = [];
  try {
    if (only !== 'postgres') results.push(await measure({ kind: 'pglite', dataDir: path.join(work, 'data') }, work));
    if (only !== 'pglite') {
      const server = await freshServerDatabase('kontor_bench');
      try {
        results.push(await measure({ kind: 'postgres', url: server.url }, work));
      } finally {
        if (keep) process.stderr.write(`kept: the database ${server.url}\n`);
        else await server.drop();
      }
    }
  } finally {
    if (keep) process.stderr.write(`kept: the folder ${work}\n`);
    else rmSync(work, { recursive: true, force: true });
  }
  return results;
}
