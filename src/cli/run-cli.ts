import { instanceSecret, loadConfig } from '../config.ts';
import { createClock } from '../shared/clock.ts';
import { createSealer } from '../shared/secrets.ts';
import { kontorVersion } from '../shared/version.ts';
import { answerUsage, runCommand, USAGE } from './commands.ts';
import { forwardToServer } from './control-socket.ts';
import { failureText } from './failure.ts';
import { type CommandIo, processIo } from './io.ts';
import { openConfiguredDatabase } from './open-database.ts';

function flag(argv: string[], name: string): string | undefined {
  const i = argv.indexOf(`--${name}`);
  if (i >= 0) return argv[i + 1];
  return argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
}

export async function runCli(argv: string[], io: CommandIo = processIo): Promise<number> {
  if (argv.length === 0) {
    io.out(USAGE);
    return 2;
  }
  if (argv[0] === '--version' || argv[0] === '-v') {
    io.out(`kontor ${kontorVersion()}`);
    return 0;
  }
  // Help and unknown commands touch neither the data folder nor the database.
  const answered = answerUsage(argv, io);
  if (answered !== undefined) return answered;
  let databaseUrl: string | undefined;
  try {
    const config = loadConfig(process.env, { data: flag(argv, 'data'), port: flag(argv, 'port'), host: flag(argv, 'host') });
    databaseUrl = config.databaseUrl;
    if (argv[0] === 'serve' || argv[0] === 'worker' || argv[0] === 'jobs') {
      // The processes that dun take the operator's Basiszinssatz additions now; a bad file
      // refuses the start (BaseRateFileError is a ConfigError). Loaded lazily: the module
      // brings the PDF renderers.
      const dunning = await import('../modules/dunning/index.ts');
      dunning.useBaseRates(await dunning.loadBaseRates({ dataDir: config.dataDir, file: config.baseRatesFile }));
    }
    // The server's modules (HTTP, renderers, every route) are loaded only to serve.
    if (argv[0] === 'serve' || argv[0] === 'worker') return await (await import('./serve.ts')).serve(argv, config, io);

    if (!config.databaseUrl) {
      const forwarded = await forwardToServer(config.dataDir, { argv, cwd: process.cwd() });
      if (forwarded) {
        if (forwarded.stdout) process.stdout.write(forwarded.stdout);
        if (forwarded.stderr) process.stderr.write(forwarded.stderr);
        return forwarded.code;
      }
    }
    // `migrate` migrates (or, with --dry-run, only says what it would do); every other command brings the schema up to date first.
    const handle = await openConfiguredDatabase(config, { migrate: argv[0] !== 'migrate' });
    try {
      const clock = createClock(config.now);
      return await runCommand(argv, io, {
        db: handle.db,
        clock,
        sealer: createSealer(instanceSecret(config)),
        cwd: process.cwd(),
        dataDir: config.dataDir,
        liveness: handle.liveness,
        ...(handle.copyRows ? { copyRows: handle.copyRows } : {}),
      });
    } finally {
      await handle.close();
    }
  } catch (error) {
    // Refusals a command reports itself never get here; this is the rest (a bad setting,
    // a busy data folder, a database server that went away, a bug): one sentence, exit 1.
    io.err(failureText(error, { databaseUrl }));
    return 1;
  }
}
