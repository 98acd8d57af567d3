import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { Database } from '../../db/connection.ts';
import { pauseAt } from '../../shared/pause-at.ts';

// The pain.001 file of a payout run on disk (issue 24, point 5). The run stores its file in
// the database in the transaction that pays the statements (`payout_runs.file`); writing it
// to the person's file comes after that commit, so a crash in between must leave either no
// file or the whole file, never a partial one under the name the person gave — and the
// stored file can be written again (`kontor admin payout file RUN_ID --out FILE`).

export type StoredPayoutFile = {
  runId: string;
  companyId: string;
  messageId: string;
  executionDate: string;
  paymentCount: number;
  totalCents: bigint;
  file: string;
};

/** The stored file of a payout run (any company: the caller checks who may have it), or null. */
export async function storedPayoutFile(db: Database, runId: string): Promise<StoredPayoutFile | null> {
  const row = await db
    .selectFrom('payout_runs')
    .select(['id', 'company_id', 'message_id', 'execution_date', 'payment_count', 'total_cents', 'file'])
    .where('id', '=', runId)
    .executeTakeFirst();
  if (!row) return null;
  return {
    runId: row.id,
    companyId: row.company_id,
    messageId: row.message_id,
    executionDate: row.execution_date,
    paymentCount: row.payment_count,
    totalCents: BigInt(row.total_cents),
    file: row.file,
  };
}

/**
 * Writes `content` to `target` so that `target` is either absent, its old content, or the
 * whole new content: first a temporary file beside it (`<target>.<random>.tmp`, created
 * new), flushed to disk, then renamed over `target`, then the folder flushed, so the rename
 * survives a power cut too. A failure removes the temporary file.
 */
export async function writeFileAtomically(target: string, content: string | Buffer): Promise<void> {
  const dir = path.dirname(target);
  const temporary = path.join(dir, `.${path.basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
  let renamed = false;
  try {
    const fd = openSync(temporary, 'wx', 0o600);
    try {
      const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
      for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    // Crash tests stop here: the whole file under the temporary name, the target untouched.
    await pauseAt('payout-file.before-rename');
    renameSync(temporary, target);
    renamed = true;
    syncFolder(dir);
  } finally {
    if (!renamed) rmSync(temporary, { force: true });
  }
}

function syncFolder(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Some file systems cannot flush a folder; the rename itself is still atomic.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
