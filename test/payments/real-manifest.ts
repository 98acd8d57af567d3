import { readFileSync } from 'node:fs';
import path from 'node:path';

// manifest.json of the real bank files (fixtures/real/README.md): what a person reading
// each file expects of it. Read by real-corpus.test.ts and scripts/bank-corpus-survey.ts.

export const REAL_FILES = path.join(import.meta.dirname, 'fixtures', 'real');

export type ManifestEntry = {
  file: string;
  origin: string;
  bank: string;
  format: 'mt940' | 'mt942' | 'camt.053' | 'camt.052' | 'camt.054' | 'zip' | 'other';
  layouts: string[];
  expect: 'import' | 'refuse';
  statements: number;
  entries: number;
  credits: string;
  debits: string;
  why: string;
  /** For a refusal: words the message must contain. */
  refusal?: string;
  /** Entries whose first transaction must read so: [position, remittance text, end-to-end id, payer or payee]. */
  texts?: [number, string, string | null, string | null][];
};

export function readManifest(dir = REAL_FILES): ManifestEntry[] {
  return JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as ManifestEntry[];
}
