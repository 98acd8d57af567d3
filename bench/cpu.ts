// CPU time spent per operation, by process: the load generator or SQL client (this
// process), the `kontor serve` process, and the PostgreSQL backends serving the bench
// database (found by their process title). On a 2-core machine shared by all of them this
// says where a request's cost goes, and it stays meaningful when other work slows the run.
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // getconf CLK_TCK on Linux

export type CpuWatch = { serverPid?: number; database?: string };
/** Microseconds of CPU per operation. */
export type CpuPerOp = { client: number; server?: number; database?: number };

/** Name and CPU seconds (user + system) of a /proc …/stat file: a process's or a thread's; undefined once it has ended. */
function readStat(file: string): { name: string; seconds: number } | undefined {
  try {
    const stat = readFileSync(file, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), seconds: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND };
  } catch {
    return undefined;
  }
}

function processSeconds(pid: number): number | undefined {
  return readStat(`/proc/${pid}/stat`)?.seconds;
}

/** PostgreSQL backends connected to `database` (title "postgres: 15/main: user database host(port) state"). */
function backends(database: string): Map<number, number> {
  const found = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const title = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (!title.startsWith('postgres: ') || !title.includes(` ${database} `)) continue;
      const seconds = processSeconds(Number(entry));
      if (seconds !== undefined) found.set(Number(entry), seconds);
    } catch {}
  }
  return found;
}

/** Starts counting; the returned function gives CPU µs per operation since then. */
export function cpuMeter(watch: CpuWatch): (operations: number) => CpuPerOp {
  const self = process.cpuUsage();
  const server = watch.serverPid === undefined ? undefined : processSeconds(watch.serverPid);
  const before = watch.database ? backends(watch.database) : undefined;
  return (operations) => {
    const perOp = (seconds: number) => (seconds * 1e6) / Math.max(1, operations);
    const used = process.cpuUsage(self);
    const result: CpuPerOp = { client: (used.user + used.system) / Math.max(1, operations) };
    if (watch.serverPid !== undefined && server !== undefined) result.server = perOp((processSeconds(watch.serverPid) ?? server) - server);
    if (watch.database && before) {
      let seconds = 0;
      for (const [pid, now] of backends(watch.database)) seconds += now - (before.get(pid) ?? 0);
      result.database = perOp(seconds);
    }
    return result;
  };
}

/** CPU seconds of this process's threads by kind, from /proc/self/task (Linux): Node names its threads. */
export type ThreadCpu = { main: number; workers: number; v8: number; other: number };

function threadSeconds(): Map<string, { name: string; seconds: number }> {
  const found = new Map<string, { name: string; seconds: number }>();
  for (const tid of readdirSync('/proc/self/task')) {
    const stat = readStat(`/proc/self/task/${tid}/stat`);
    if (stat) found.set(tid, stat);
  }
  return found;
}

/**
 * Starts counting per thread; the returned function gives the CPU seconds since then of the
 * main thread, the worker threads (render threads), V8's platform threads (garbage
 * collection and compilation for all of them) and the rest (libuv's pool, PGlite's none).
 * Call it while the worker threads still run: a thread that has ended is no longer listed.
 */
export function threadMeter(): () => ThreadCpu {
  const before = threadSeconds();
  return () => {
    const result: ThreadCpu = { main: 0, workers: 0, v8: 0, other: 0 };
    for (const [tid, { name, seconds }] of threadSeconds()) {
      const used = seconds - (before.get(tid)?.seconds ?? 0);
      if (name === 'MainThread') result.main += used;
      else if (name === 'WorkerThread') result.workers += used;
      else if (name === 'V8Worker') result.v8 += used;
      else result.other += used;
    }
    return result;
  };
}
