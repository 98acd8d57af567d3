// CPU time spent per operation, by process: the load generator or SQL client (this
// process), the `kontor serve` process, and the PostgreSQL backends serving the bench
// database (found by their process title). On a 2-core machine shared by all of them this
// says where a request's cost goes, and it stays meaningful when other work slows the run.
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // getconf CLK_TCK on Linux

export type CpuWatch = { serverPid?: number; database?: string };
/** Microseconds of CPU per operation. */
export type CpuPerOp = { client: number; server?: number; database?: number };

function processSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
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
