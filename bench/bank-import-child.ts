// Child process of bench/bank-import.ts: opens the prepared database, reads the statement
// file and runs importBankStatement alone, then prints one JSON line with its time and the
// process's peak RSS. It imports only what the import needs, so the figure is the import's
// plus Node, the driver and (PGlite) the embedded database.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type DatabaseHandle, openDatabase } from '../src/db/connection.ts';
import { importBankStatement } from '../src/modules/payments/index.ts';
import { fixedClock } from '../src/shared/clock.ts';
import type { Target } from './targets.ts';

export type ChildInput = { target: Target; companyId: string; file: string; now: string };
export type ChildOutput = {
  seconds: number;
  maxRssMb: number;
  rssBeforeMb: number;
  matched: number;
  paid: number;
  partiallyPaid: number;
  credited: string;
  /** Debits (issue 24): taken back from invoices (EUR), invoices reached, left for a person (EUR), entries left unmatched. */
  reversed: string;
  invoicesReversed: number;
  debitsUnassigned: string;
  unmatched: number;
};

const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

export function open(target: Target): Promise<DatabaseHandle> {
  return target.kind === 'postgres'
    ? openDatabase({ kind: 'postgres', url: target.url, poolSize: 2 })
    : openDatabase({ kind: 'pglite', dataDir: target.dataDir });
}

if (import.meta.main) {
  const input = JSON.parse(process.argv[2]!) as ChildInput;
  const handle = await open(input.target);
  const bytes = readFileSync(input.file);
  const rssBefore = process.memoryUsage().rss;
  const started = performance.now();
  const result = await importBankStatement(handle.db, fixedClock(input.now), input.companyId, bytes, { fileName: path.basename(input.file) });
  const seconds = (performance.now() - started) / 1000;
  await handle.close();
  const output: ChildOutput = {
    seconds: Math.round(seconds * 100) / 100,
    // resourceUsage().maxRSS is in kilobytes.
    maxRssMb: mb(process.resourceUsage().maxRSS * 1024),
    rssBeforeMb: mb(rssBefore),
    matched: result.totals.matched,
    paid: result.totals.invoices_paid,
    partiallyPaid: result.totals.invoices_partially_paid,
    credited: result.totals.credited,
    reversed: result.totals.reversed,
    invoicesReversed: result.totals.invoices_reversed,
    debitsUnassigned: result.totals.debits_unassigned,
    unmatched: result.totals.unmatched,
  };
  process.stdout.write(`${JSON.stringify(output)}\n`);
}
