import module from 'node:module';
import path from 'node:path';
import { ensureSnapshot, usePostgres } from './helpers/database.ts';

// Runs once before the test files: the migrated PGlite snapshot they all load, and Node's
// compile cache for every process the suite starts (each test file, each `kontor` child):
// the type-stripped and compiled modules are kept on disk instead of being made again in
// each of those ~500 processes (about 0.5 s of CPU each). Node checks every entry against
// the source, so a changed file is compiled afresh. The cache is filled here first with
// the modules every test file loads, so that on a fresh clone the first files, which
// start together, find it filled too.
export async function globalSetup() {
  process.env.NODE_COMPILE_CACHE ??= path.resolve(import.meta.dirname, '../node_modules/.cache/node-compile');
  module.enableCompileCache?.(process.env.NODE_COMPILE_CACHE);
  await import('./helpers/app.ts');
  module.flushCompileCache?.();
  if (!usePostgres) await ensureSnapshot();
}
