// The V8 flags `kontor <command>` runs with (bin/node-flags.json, applied by bin/kontor.js).
// A bench that does a command's work in its own process runs with the same flags, so that
// it measures what the command does.
import { spawnSync } from 'node:child_process';
import NODE_FLAGS from '../bin/node-flags.json' with { type: 'json' };

export type FlaggedCommand = keyof typeof NODE_FLAGS;

/** The command's flags. */
export function flagsOf(command: FlaggedCommand): string[] {
  return NODE_FLAGS[command];
}

const flagName = (flag: string) => flag.split('=')[0];

/**
 * Runs this script again, with the command's flags, unless the process was started with
 * them (a flag given in any value stands, as in bin/kontor.js); returns only in the process
 * that has them, else exits with the rerun's exit code.
 */
export function runAsCommand(command: FlaggedCommand): void {
  const missing = flagsOf(command).filter((flag) => !process.execArgv.some((given) => flagName(given) === flagName(flag)));
  if (missing.length === 0) return;
  const rerun = spawnSync(process.execPath, [...process.execArgv, ...missing, ...process.argv.slice(1)], { stdio: 'inherit' });
  process.exit(rerun.status ?? 1);
}
