import { randomBytes } from 'node:crypto';
import { chmod, type FileHandle, link, mkdir, open, readdir, unlink } from 'node:fs/promises';
import path from 'node:path';

// The embedded default without SMTP (design §1): each mail is a complete .eml file under
// <data>/outbox/<company_id>/, owner-only, and counts as sent. Written to a hidden temp
// file, flushed, then hard-linked to its final name: a reader never sees half a file, a
// crash leaves at most a stray `.tmp`, and an existing file is never replaced.

const COMPANY_ID = /^[A-Za-z0-9_-]{1,100}$/;

export async function writeToOutbox(dataDir: string, companyId: string, messageId: string, raw: Buffer, at: Date): Promise<string> {
  if (!COMPANY_ID.test(companyId)) throw new TypeError(`company id not usable as a folder name: ${JSON.stringify(companyId)}`);
  const folder = await preparedFolder(dataDir, companyId);
  const base = `${stamp(at)}-${fileSafe(messageId)}`;
  const temp = path.join(folder, `.${base}.${randomBytes(6).toString('hex')}.tmp`);
  let file: FileHandle;
  try {
    file = await open(temp, 'wx', 0o600);
  } catch (error) {
    // The folder went away while the process ran (removed by hand): make it again, once.
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    prepared.delete(folder);
    await preparedFolder(dataDir, companyId);
    file = await open(temp, 'wx', 0o600);
  }
  try {
    await file.writeFile(raw);
    await file.sync();
  } finally {
    await file.close();
  }
  try {
    for (let n = 1; ; n++) {
      const target = path.join(folder, n === 1 ? `${base}.eml` : `${base}-${n}.eml`);
      try {
        await link(temp, target);
        await syncFolder(folder);
        return target;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || n >= 1000) throw error;
      }
    }
  } finally {
    await unlink(temp).catch(() => {});
  }
}

/** Folders this process has made or tightened already: a mail run writes thousands of mails into one. */
const prepared = new Set<string>();

/**
 * The company's outbox folder, made owner-only. mkdir's mode applies only to folders it
 * creates; folders that already exist are tightened here, once per process (three calls
 * per mail were ~1 ms of a statement run's main thread per mail, issue 26).
 */
async function preparedFolder(dataDir: string, companyId: string): Promise<string> {
  const outbox = path.join(dataDir, 'outbox');
  const folder = path.join(outbox, companyId);
  if (prepared.has(folder)) return folder;
  await mkdir(folder, { recursive: true, mode: 0o700 });
  await chmod(outbox, 0o700);
  await chmod(folder, 0o700);
  prepared.add(folder);
  return folder;
}

/**
 * Whether the company's outbox holds a mail with this Message-ID (a file linked under its
 * final name: the mail counts as sent). Read after a crash, to learn whether a mail left.
 */
export async function outboxHolds(dataDir: string, companyId: string, messageId: string): Promise<boolean> {
  if (!COMPANY_ID.test(companyId)) return false;
  let names: string[];
  try {
    names = await readdir(path.join(dataDir, 'outbox', companyId));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  const id = fileSafe(messageId);
  // `<stamp>-<id>.eml` or, when that name was taken, `<stamp>-<id>-<n>.eml` (writeToOutbox).
  return names.some((name) => {
    const match = /^\d{8}-\d{6}-(.+)\.eml$/.exec(name);
    const rest = match?.[1];
    return rest !== undefined && (rest === id || (rest.startsWith(`${id}-`) && /^\d+$/.test(rest.slice(id.length + 1))));
  });
}

/** `yyyymmdd-hhmmss` in UTC: a transport timestamp, so real time and no zone ambiguity. */
function stamp(at: Date): string {
  const iso = at.toISOString();
  return `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}-${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}`;
}

function fileSafe(messageId: string): string {
  return (
    messageId
      .replace(/^<|>$/g, '')
      .replace(/[^A-Za-z0-9._-]+/g, '_')
      .replace(/^\.+/, '')
      .slice(0, 150) || 'mail'
  );
}

async function syncFolder(folder: string): Promise<void> {
  // Makes the new directory entry durable; not every platform lets a folder be opened for that.
  try {
    const handle = await open(folder, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {}
}
