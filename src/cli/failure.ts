import { ConfigError } from '../config.ts';
import { messageForLog } from '../shared/error-for-log.ts';
import { AppError } from '../shared/errors.ts';
import { DataFolderBusyError } from './data-folder.ts';

// What a command line says when a command fails for a reason other than a refusal it
// reports itself: one sentence on stderr, never a stack trace (KONTOR_DEBUG=1 adds it).

/** A failure the command line explains in its own words (its message is the sentence). */
export class CommandFailure extends Error {}

type Errno = Error & { code?: unknown; address?: unknown; port?: unknown; syscall?: unknown; path?: unknown };

const CONNECTION_LOST = /^Connection terminated|^terminating connection|server closed the connection|Client has encountered a connection error/;

// PostgreSQL codes (SQLSTATE) a server sends when it goes away or refuses the session.
const SERVER_GONE = new Set(['57P01', '57P02', '57P03']);

/** Where DATABASE_URL points, without user and password. */
function serverOf(databaseUrl: string | undefined): string {
  try {
    const url = new URL(databaseUrl ?? '');
    return `${url.hostname}${url.port ? `:${url.port}` : ''}`;
  } catch {
    return 'DATABASE_URL';
  }
}

/** One sentence for `error`, without the `kontor: ` prefix. */
export function describeFailure(error: unknown, context: { databaseUrl?: string | undefined } = {}): string {
  if (error instanceof CommandFailure || error instanceof ConfigError || error instanceof DataFolderBusyError) return error.message;
  if (error instanceof AppError) return `${error.message} (${error.code})`;
  const e = (error instanceof Error ? error : new Error(String(error))) as Errno;
  const code = typeof e.code === 'string' ? e.code : undefined;
  const server = context.databaseUrl ? `the database server ${serverOf(context.databaseUrl)}` : 'the database';
  if (code === 'EADDRINUSE' && e.port !== undefined) return `port ${String(e.port)} is in use by another program; choose another with --port or PORT`;
  if (code === 'ECONNREFUSED' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH' || code === 'ETIMEDOUT' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return `cannot reach ${server} (${code}); is it running, and is DATABASE_URL right?`;
  }
  if (code === '28P01' || code === '28000') return `${server} refused the login (${e.message})`;
  if (code === '3D000') return `${server} has no such database (${e.message})`;
  if ((code && SERVER_GONE.has(code)) || code === 'ECONNRESET' || code === 'EPIPE' || CONNECTION_LOST.test(e.message)) {
    return `the connection to ${server} broke off (${e.message}); whether the command took effect is unknown — check, then run it again`;
  }
  if (typeof e.path === 'string' && code?.startsWith('E'))
    return `cannot ${e.syscall === 'open' || !e.syscall ? 'open' : String(e.syscall)} ${e.path} (${code})`;
  return `unexpected error: ${messageForLog(e) || e.name}${process.env.KONTOR_DEBUG === '1' ? '' : ' (KONTOR_DEBUG=1 shows the details)'}`;
}

/** The text for stderr: `kontor: <sentence>`, with the stack when KONTOR_DEBUG=1. */
export function failureText(error: unknown, context: { databaseUrl?: string | undefined } = {}): string {
  const sentence = `kontor: ${describeFailure(error, context)}`;
  return process.env.KONTOR_DEBUG === '1' && error instanceof Error && error.stack ? `${sentence}\n${error.stack}` : sentence;
}
