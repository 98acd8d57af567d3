import { ConfigError, instanceSecret, loadConfig } from '../config.ts';
import { createClock } from '../shared/clock.ts';
import { createSealer } from '../shared/secrets.ts';
import { runCommand, USAGE } from './commands.ts';
import { forwardToServer } from './control-socket.ts';
import { DataFolderBusyError } from './data-folder.ts';
import { type CommandIo, processIo } from './io.ts';
import { openConfiguredDatabase } from './open-database.ts';
import { serve } from './serve.ts';

function flag(argv: string[], name: string): string | undefined {
  const i = argv.indexOf(`--${name}`);
  if (i >= 0) return argv[i + 1];
  return argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
}

export async function runCli(argv: string[], io: CommandIo = processIo): Promise<number> {
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === 'help' || argv[0] === '-h') {
    io.out(USAGE);
    return argv.length === 0 ? 2 : 0;
  }
  try {
    const config = loadConfig(process.env, { data: flag(argv, 'data'), port: flag(argv, 'port'), host: flag(argv, 'host') });
    if (argv[0] === 'serve' || argv[0] === 'worker' || argv[0] === 'jobs') {
      // The processes that dun take the operator's Basiszinssatz additions now; a bad file
      // refuses the start (BaseRateFileError is a ConfigError). Loaded lazily: the module
      // brings the PDF renderers.
      const dunning = await import('../modules/dunning/index.ts');
      dunning.useBaseRates(await dunning.loadBaseRates({ dataDir: config.dataDir, file: config.baseRatesFile }));
    }
    if (argv[0] === 'serve' || argv[0] === 'worker') return await serve(argv, config, io);

    if (!config.databaseUrl) {
      const forwarded = await forwardToServer(config.dataDir, { argv, cwd: process.cwd() });
      if (forwarded) {
        if (forwarded.stdout) process.stdout.write(forwarded.stdout);
        if (forwarded.stderr) process.stderr.write(forwarded.stderr);
        return forwarded.code;
      }
    }
    const handle = await openConfiguredDatabase(config, { migrate: true });
    try {
      const clock = createClock(config.now);
      return await runCommand(argv, io, { db: handle.db, clock, sealer: createSealer(instanceSecret(config)), cwd: process.cwd(), dataDir: config.dataDir });
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (error instanceof ConfigError || error instanceof DataFolderBusyError) {
      io.err(`kontor: ${error.message}`);
      return 1;
    }
    throw error;
  }
}
