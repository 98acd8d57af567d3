import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

// Real processes for crash tests: start one, wait for a line of its output, find the
// child a launcher started, and tell when a process has ended (Linux: /proc).

export type Watched = { child: ChildProcess; output(): string; waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray> };

/** Spawns `command args` with stdout and stderr collected (stdin closed); `detached`: in a process group of its own. */
export function watch(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; detached?: boolean }): Watched {
  // Node processes of the tests compile WebAssembly with Liftoff only (see NODE_FLAGS in cli.ts).
  const flags = command === process.execPath && !args.includes('--liftoff-only') ? ['--liftoff-only'] : [];
  const child = spawn(command, [...flags, ...args], { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let closed = false;
  const waiters = new Set<() => void>();
  const take = (chunk: Buffer) => {
    output += chunk;
    for (const check of waiters) check();
  };
  child.stdout!.on('data', take);
  child.stderr!.on('data', take);
  // 'close': the process and every process that shares its output (a launcher's child) ended.
  child.on('close', () => {
    closed = true;
    for (const check of waiters) check();
  });
  return {
    child,
    output: () => output,
    waitFor(pattern, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const finish = () => {
          waiters.delete(check);
          clearTimeout(timer);
        };
        const check = () => {
          const match = pattern.exec(output);
          if (match) {
            finish();
            resolve(match);
          } else if (closed) {
            finish();
            reject(new Error(`ended without ${pattern}:\n${output}`));
          }
        };
        const timer = setTimeout(() => {
          finish();
          reject(new Error(`no ${pattern} within ${timeoutMs} ms:\n${output}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
  };
}

export const hasProc = (() => {
  try {
    readFileSync('/proc/self/stat');
    return true;
  } catch {
    return false;
  }
})();

/** The fields of /proc/<pid>/stat after the command name (field 3 first); undefined when there is no such process. */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** The state letter of a process (field 3 of /proc/<pid>/stat); undefined when there is none. */
export const processState = (pid: number): string | undefined => statFields(pid)?.[0];

/** The start time of a process (field 22 of /proc/<pid>/stat, clock ticks since boot). */
export const processStart = (pid: number): string | undefined => statFields(pid)?.[19];

/** Ended: no such process, or a zombie nobody has reaped yet. */
export const ended = (pid: number) => ['Z', 'X', undefined].includes(processState(pid));

/** The direct children of a process (Linux). */
export function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** Polls `check` every 20 ms until it returns a value other than undefined/false; throws after `timeoutMs`. */
export async function poll<T>(what: string, check: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 5000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Whether something answers HTTP on the port. */
export async function answers(port: number): Promise<boolean> {
  try {
    await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(1000) });
    return true;
  } catch {
    return false;
  }
}
