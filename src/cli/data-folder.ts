import { closeSync, linkSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';

// The embedded database belongs to one process: a lock file names the holder. Node has no
// flock, so the file records who holds it and a starter decides whether that holder
// still lives. A pid alone is not enough: a process killed with kill -9 stays a zombie
// until its parent reaps it (signal 0 still reaches it), and after a reboot or a long
// run the pid may belong to someone else. On Linux the record is pid, the process's
// start time (field 22 of /proc/<pid>/stat, in clock ticks since boot) and the boot id;
// the holder is alive only if a process with that pid, that start time and this boot id
// exists and is not a zombie. Without /proc (macOS) only the pid is checked.

export class DataFolderBusyError extends Error {}

type Holder = { pid: number; start?: string; boot?: string };

const BOOT_ID = '/proc/sys/kernel/random/boot_id';

function readOr(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** State (field 3) and start time (field 22) of a process; undefined when there is no such process. */
function procStat(pid: number): { state: string; start: string } | undefined {
  const stat = readOr(`/proc/${pid}/stat`);
  if (stat === undefined) return undefined;
  // The command name (field 2) is in parentheses and may hold spaces and parentheses.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0] ?? '', start: fields[19] ?? '' };
}

const hasProc = () => readOr('/proc/self/stat') !== undefined;

function self(): Holder {
  const start = procStat(process.pid)?.start;
  const boot = readOr(BOOT_ID)?.trim();
  return { pid: process.pid, ...(start ? { start } : {}), ...(boot ? { boot } : {}) };
}

function parseHolder(text: string): Holder | undefined {
  // Older versions wrote the bare pid.
  if (/^\d+$/.test(text.trim())) return { pid: Number(text.trim()) };
  try {
    const record = JSON.parse(text) as Holder;
    return Number.isInteger(record.pid) && record.pid > 0 ? record : undefined;
  } catch {
    return undefined;
  }
}

function signalReaches(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether the process the lock names still runs (a zombie, an ended process or a reused pid does not). */
export function holderAlive(holder: Holder): boolean {
  if (!hasProc()) return signalReaches(holder.pid);
  const boot = readOr(BOOT_ID)?.trim();
  if (holder.boot && boot && holder.boot !== boot) return false;
  const stat = procStat(holder.pid);
  if (!stat || stat.state === 'Z' || stat.state === 'X' || stat.state === 'x') return false;
  return holder.start === undefined || holder.start === stat.start;
}

/** Takes the data folder's lock (a lock of a process that has ended is taken over). Returns the release function. */
export function lockDataFolder(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(dataDir, 'kontor.lock');
  const record = JSON.stringify(self());
  // The record is written in full under a name of its own, then linked into place: the
  // lock appears complete or not at all, and linking fails if a lock exists.
  const mine = `${file}.${process.pid}`;
  const fd = openSync(mine, 'w', 0o600);
  try {
    writeSync(fd, record);
  } finally {
    closeSync(fd);
  }
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      if (place(mine, file, record)) {
        return () => {
          try {
            if (readFileSync(file, 'utf8') === record) unlinkSync(file);
          } catch {}
        };
      }
      const found = readOr(file);
      if (found === undefined) continue;
      const holder = parseHolder(found);
      if (holder && holder.pid !== process.pid && holderAlive(holder)) {
        throw new DataFolderBusyError(`the data folder ${dataDir} is in use by process ${holder.pid}`);
      }
      takeOver(file, found);
    }
  } finally {
    try {
      unlinkSync(mine);
    } catch {}
  }
  throw new DataFolderBusyError(`could not lock the data folder ${dataDir}`);
}

/** Puts the lock in place; false when one exists. */
function place(mine: string, file: string, record: string): boolean {
  try {
    linkSync(mine, file);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw error;
  }
  // A file system without hard links: create exclusively, then write (a starter that
  // reads it half-written finds it changed in takeOver and leaves it).
  let fd: number;
  try {
    fd = openSync(file, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(fd, record);
  } finally {
    closeSync(fd);
  }
  return true;
}

/**
 * Removes a stale lock whose content was `stale`. Moved aside first and compared: if
 * another starter replaced it in between, its fresh lock is put back.
 */
function takeOver(file: string, stale: string): void {
  const aside = `${file}.stale.${process.pid}`;
  try {
    renameSync(file, aside);
  } catch {
    return; // gone already: someone else took it over
  }
  try {
    if (readOr(aside) !== stale) linkSync(aside, file);
  } catch {
    // a third starter holds it now; the next attempt sees that
  } finally {
    try {
      unlinkSync(aside);
    } catch {}
  }
}
