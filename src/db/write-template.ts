import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type DatabaseHandle, openDatabase } from './connection.ts';
import { migrate } from './migrate.ts';
import { templateFile } from './pglite-template.ts';

/** Makes the migrated PGlite template (see pglite-template.ts) unless it exists; returns its path. */
export async function writeTemplate(): Promise<string> {
  const file = templateFile();
  if (existsSync(file)) return file;
  const handle = await openDatabase({ kind: 'pglite' });
  await migrate(handle.db);
  await writeSnapshot(handle, file);
  return file;
}

/**
 * Dumps an open PGlite database into `file` (a tarball PGlite loads with `loadDataDir`) and
 * closes it. Written under a temporary name and renamed: a process that finds the file
 * finds it whole, also when several make it at once.
 */
export async function writeSnapshot(handle: DatabaseHandle, file: string): Promise<void> {
  const dump = await handle.pglite!.dumpDataDir('none');
  await handle.close();
  mkdirSync(path.dirname(file), { recursive: true });
  const partial = `${file}.${process.pid}.part`;
  writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
  renameSync(partial, file);
}
