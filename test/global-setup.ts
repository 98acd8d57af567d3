import { ensureSnapshot, usePostgres } from './helpers/database.ts';

// Runs once before the test files: the migrated PGlite snapshot they all load.
export async function globalSetup() {
  if (!usePostgres) await ensureSnapshot();
}
