import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The mails a company's outbox holds (a company without SMTP), in the order they were
 * written (file names `<stamp>-<id>.eml`), each as its raw text with quoted-printable soft
 * line breaks joined, so that a long line (a link) reads whole; none when the outbox does
 * not exist yet.
 */
export function outboxMails(dataDir: string, companyId: string): string[] {
  const dir = path.join(dataDir, 'outbox', companyId);
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return [];
  }
  return names.map((name) => readFileSync(path.join(dir, name), 'utf8').replace(/=\r?\n/g, ''));
}
