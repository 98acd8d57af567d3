import { parseArgs } from 'node:util';
import type { BinaryCopy, Database } from '../db/connection.ts';
import type { Liveness } from '../db/liveness.ts';
import type { InvoicingDeps } from '../modules/invoicing/index.ts';
import type { Mailer } from '../modules/mail/index.ts';
import type { Clock } from '../shared/clock.ts';
import { isCalendarDate } from '../shared/dates.ts';
import type { Sealer } from '../shared/secrets.ts';
import { type CommandIo, UsageError } from './io.ts';

// What every command handler shares: its context, argument parsing and printing.
// Output on stdout is the result only (with --json, one JSON document); everything
// else goes to stderr.

/** `dataDir`: the data folder (mail outbox of `jobs run`). */
export type CommandContext = {
  db: Database;
  clock: Clock;
  sealer: Sealer;
  cwd: string;
  onKeyRevoked?: () => void;
  dataDir?: string;
  /** The server's mailer, when a running server carries out the command. */
  mailer?: Mailer;
  /** Which processes live (mail attempts of `jobs run`). */
  liveness?: Liveness;
  /** On a PostgreSQL server: bulk reads of stored bytes as binary COPYs (the GoBD export). */
  copyRows?: BinaryCopy;
  /** The server's renderers, booking and mailboxes, when a running server carries out the command. */
  invoicing?: Omit<InvoicingDeps, 'db' | 'clock'>;
};

/**
 * A command a module adds (registered in module-commands.ts). `run` gets the arguments
 * after the command's words and returns the exit code: 0 done, 1 refused (message on
 * stderr via io.err), or throws UsageError for 2.
 */
export type ModuleCommand = {
  /** The command's words, e.g. `bank import`. */
  name: string;
  /** One or more usage lines for `kontor --help`, without the leading two spaces. */
  usage: string[];
  run(args: string[], io: CommandIo, ctx: CommandContext): Promise<number>;
};

export type CommandOptions = Record<string, { type: 'string' | 'boolean' }>;
export type ParsedArgs = { values: Record<string, string | boolean | undefined>; positionals: string[] };

/** Parses flags strictly (plus --json and --data); exactly `positionals` positional arguments. */
export function parseCommandArgs(args: string[], options: CommandOptions, positionals: number): ParsedArgs {
  try {
    const parsed = parseArgs({ args, options: { ...options, json: { type: 'boolean' }, data: { type: 'string' } }, allowPositionals: true, strict: true });
    if (parsed.positionals.length !== positionals) throw new UsageError(`expected ${positionals} argument(s), got ${parsed.positionals.length}`);
    return parsed as ParsedArgs;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

export function requiredFlag(values: ParsedArgs['values'], name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

/** Prints the result: one JSON document with --json, else the human text. */
export function printResult(io: CommandIo, json: boolean, result: unknown, text: string): void {
  io.out(json ? JSON.stringify(result) : text);
}

export function dateFlag(value: string, name: string): string {
  if (!isCalendarDate(value)) throw new UsageError(`--${name} must be a date YYYY-MM-DD, got ${value}`);
  return value;
}

/** An instant as commands print it: "2026-11-24 06:36:56Z" ("-" for none). */
export function when(iso: string | null): string {
  return iso === null ? '-' : iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}
