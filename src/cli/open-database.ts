import type { Config } from '../config.ts';
import { type DatabaseHandle, openDatabase } from '../db/connection.ts';
import { migrate } from '../db/migrate.ts';
import { lockDataFolder } from './data-folder.ts';

/** Opens the configured database (locking an embedded data folder) and brings its schema up to date. */
export async function openConfiguredDatabase(config: Config, options: { migrate?: boolean } = {}): Promise<DatabaseHandle> {
  if (config.databaseUrl) {
    const handle = await openDatabase({
      kind: 'postgres',
      url: config.databaseUrl,
      onIdleError: (error) => process.stderr.write(`kontor: an idle database connection closed (${error.message}); it will be reopened\n`),
    });
    if (options.migrate !== false) await migrate(handle.db);
    return handle;
  }
  const unlock = lockDataFolder(config.dataDir);
  try {
    const handle = await openDatabase({ kind: 'pglite', dataDir: `${config.dataDir}/pg` });
    if (options.migrate !== false) await migrate(handle.db);
    return {
      ...handle,
      close: async () => {
        await handle.close();
        unlock();
      },
    };
  } catch (error) {
    unlock();
    throw error;
  }
}
