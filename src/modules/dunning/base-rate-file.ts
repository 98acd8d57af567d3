import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '../../config.ts';
import { D } from '../../shared/decimal.ts';
import { BASE_RATES, type BaseRate, type BaseRateSetup, nextHalfYear } from './base-rates.ts';

// The operator's additions to the Basiszinssatz table, so that a new half-year needs no
// release: a JSON file `base-rates.json` in the data folder, or the file named by
// KONTOR_BASE_RATES_FILE, holding entries like the built-in ones:
//
//   [{ "from": "2026-07-01", "rate": "1.27" }]
//
// Checked strictly when a process that runs the dunning starts (serve, worker, jobs run):
// a mistake in it refuses the start, since a wrong rate would go out on every notice.
// Rates stay decimal strings (never parsed as floats), two decimals as published, and may
// be negative (2013–2022). A half-year the built-in table has must carry the same rate:
// a disagreement is refused rather than one side silently winning. The merged table has
// every half-year from its first to its last entry, so "after the last entry" is the only
// place a rate is carried forward (base-rates.ts, missingHalfYears).

export const BASE_RATE_FILE_NAME = 'base-rates.json';

/** The § 247 BGB base rate exists since 1 January 2002. */
const FIRST_HALF_YEAR = '2002-01-01';
const FROM = /^(\d{4})-(01|07)-01$/;
const RATE = /^-?(0|[1-9]\d?)\.\d{2}$/;

/** A base-rate file that cannot be used; refuses the start like any other bad setting. */
export class BaseRateFileError extends ConfigError {
  override name = 'BaseRateFileError';
}

/** The entries of a base-rate file's text, checked; `source` names the file in messages. */
export function parseBaseRateFile(text: string, source: string): BaseRate[] {
  const fail = (reason: string) => new BaseRateFileError(`base-rate file ${source}: ${reason}`);
  let data: unknown;
  try {
    data = JSON.parse(text.replace(/^\uFEFF/, '')); // an editor's byte-order mark is no mistake
  } catch (error) {
    throw fail(`not JSON (${(error as Error).message})`);
  }
  if (!Array.isArray(data)) throw fail('must be a JSON array of {"from": "YYYY-01-01" or "YYYY-07-01", "rate": "n.nn"}');
  const entries: BaseRate[] = [];
  for (const [i, item] of data.entries()) {
    const at = `entry ${i + 1}`;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) throw fail(`${at} must be an object {"from", "rate"}`);
    const keys = Object.keys(item).sort();
    if (keys.join() !== 'from,rate') throw fail(`${at} must have exactly the keys "from" and "rate", has ${JSON.stringify(keys)}`);
    const { from, rate } = item as Record<string, unknown>;
    if (typeof from !== 'string' || !FROM.test(from))
      throw fail(`${at}: "from" must be 1 January or 1 July written YYYY-01-01 or YYYY-07-01, got ${JSON.stringify(from)}`);
    if (from < FIRST_HALF_YEAR) throw fail(`${at}: "from" ${from} lies before the base rate began (${FIRST_HALF_YEAR})`);
    if (typeof rate !== 'string')
      throw fail(`${at}: "rate" must be a string with two decimals as published (e.g. "1.27" or "-0.88"), got ${JSON.stringify(rate)}`);
    if (!RATE.test(rate)) throw fail(`${at}: "rate" must be percent with two decimals (e.g. "1.27" or "-0.88"), got ${JSON.stringify(rate)}`);
    const before = entries.at(-1);
    if (before && from === before.from) throw fail(`${at}: ${from} is listed twice`);
    if (before && from < before.from) throw fail(`${at}: ${from} comes after ${before.from}; list the entries oldest first`);
    entries.push({ from, rate });
  }
  return entries;
}

/** The built-in table with the file's entries; refuses a disagreement and a half-year left out. */
export function mergeBaseRates(builtIn: readonly BaseRate[], added: readonly BaseRate[], source: string): BaseRate[] {
  const fail = (reason: string) => new BaseRateFileError(`base-rate file ${source}: ${reason}`);
  const byFrom = new Map(builtIn.map((entry) => [entry.from, entry]));
  for (const entry of added) {
    const known = byFrom.get(entry.from);
    if (known && !new D(known.rate).equals(entry.rate)) {
      throw fail(`${entry.from} has rate ${entry.rate}, but Kontor's built-in table has ${known.rate} for that half-year; correct or remove the entry`);
    }
    if (!known) byFrom.set(entry.from, entry);
  }
  const merged = [...byFrom.values()].sort((a, b) => (a.from < b.from ? -1 : 1));
  for (let i = 1; i < merged.length; i++) {
    const expected = nextHalfYear(merged[i - 1]!.from);
    if (merged[i]!.from !== expected) {
      throw fail(`no rate for ${expected} (between ${merged[i - 1]!.from} and ${merged[i]!.from}); add every half-year, also when the rate is unchanged`);
    }
  }
  return merged;
}

/**
 * The table for this process: the built-in one, merged with `file` (KONTOR_BASE_RATES_FILE,
 * which must exist) or else with `<dataDir>/base-rates.json` when that exists.
 */
export async function loadBaseRates(options: { dataDir: string; file?: string | undefined }): Promise<BaseRateSetup> {
  const file = options.file ?? path.join(options.dataDir, BASE_RATE_FILE_NAME);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && options.file === undefined) return { table: BASE_RATES, file };
    throw new BaseRateFileError(
      code === 'ENOENT'
        ? `KONTOR_BASE_RATES_FILE names ${file}, which does not exist`
        : `base-rate file ${file}: cannot read it (${code ?? (error as Error).message})`,
    );
  }
  return { table: mergeBaseRates(BASE_RATES, parseBaseRateFile(text, file), file), file };
}
