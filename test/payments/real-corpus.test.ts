import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { BankImportError, type BankImportResult, importBankFile, StatementError } from '../../src/modules/payments/index.ts';
import { D, type DecimalValue } from '../../src/shared/decimal.ts';
import { type TestApp, testApp } from '../helpers/app.ts';
import { REAL_FILES, readManifest } from './real-manifest.ts';

// Issue 12, point 6: the import over every real bank file of fixtures/real/ (README.md
// names each one's origin and licence; manifest.json says what a person reading the file
// expects of it). Each file is imported for a company of its own: it imports with every
// entry and balances that add up, and is recognised entry by entry when it comes again in
// other bytes — or it is refused with a message a person can act on, writing nothing.

const manifest = readManifest();

/** What no message may show: a JavaScript error, an SQL text, a stack. */
const RAW = /Cannot read|undefined|is not a function|\bnull\b|TypeError|RangeError|SyntaxError|\bselect\b|\binsert\b|\bat [\w.]+ \(/i;

/** The same file in other bytes: one more line end (MT940) or trailing white space (XML). */
const otherBytes = (bytes: Buffer) => Buffer.concat([bytes, Buffer.from('\r\n')]);

describe('real bank files', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp();
  });
  after(() => t.close());

  for (const expected of manifest) {
    test(`${expected.file} (${expected.bank}): ${expected.expect}`, async () => {
      const bytes = readFileSync(path.join(REAL_FILES, expected.file));
      const company = await t.newCompany(expected.file.slice(0, 30));
      // One result per file, also for a ZIP archive (its files in the order imported).
      const runAll = async (content: Buffer) => {
        const outcome = await importBankFile(t.handle.db, t.clock, company.companyId, content, { fileName: expected.file });
        assert.deepEqual(outcome.refused, [], 'no file of an archive refused');
        return outcome.imports;
      };
      const run = async (content: Buffer): Promise<BankImportResult> => {
        const results = await runAll(content);
        if (results.length === 1) return results[0]!;
        return {
          ...results[0]!,
          already_imported: results.every((r) => r.already_imported),
          statements: results.flatMap((r) => r.statements),
          warnings: results.flatMap((r) => r.warnings),
          entries: results.flatMap((r) => r.entries),
        };
      };
      const stored = () => t.handle.db.selectFrom('bank_entries').select(['direction', 'amount']).where('company_id', '=', company.companyId).execute();

      if (expected.expect === 'refuse') {
        await assert.rejects(run(bytes), (error: unknown) => {
          assert.ok(error instanceof StatementError || error instanceof BankImportError, `a refusal, got ${String(error)}`);
          assert.doesNotMatch(error.message, RAW, 'no raw error text');
          if (expected.refusal) assert.ok(error.message.includes(expected.refusal), `"${error.message}" says "${expected.refusal}"`);
          return true;
        });
        assert.equal((await stored()).length, 0, 'nothing written');
        return;
      }

      const result = await run(bytes);
      assert.equal(result.already_imported, false);
      if (expected.format !== 'zip') assert.equal(result.format.startsWith(expected.format), true, `format ${result.format}`);
      assert.equal(result.statements.length, expected.statements, 'statements');
      assert.equal(result.entries.length, expected.entries, 'entries');
      for (const warning of result.warnings) assert.doesNotMatch(warning, RAW, 'no raw error text in a warning');
      const sums = (rows: { direction: string; amount: string }[]) => {
        const total = { credit: new D(0) as DecimalValue, debit: new D(0) as DecimalValue };
        for (const row of rows) total[row.direction as 'credit' | 'debit'] = total[row.direction as 'credit' | 'debit'].plus(row.amount);
        return [total.credit.toFixed(2), total.debit.toFixed(2)];
      };
      assert.deepEqual(sums(result.entries), [expected.credits, expected.debits], 'credits and debits of the file');
      for (const [position, remittance, endToEnd, party] of expected.texts ?? []) {
        const tx = result.entries[position - 1]!.transactions[0]!;
        assert.deepEqual([tx.remittance_text, tx.end_to_end_id, tx.payer_name], [remittance, endToEnd, party], `entry ${position} reads as the bank meant it`);
      }
      // What Kontor holds: every entry once (a statement the file repeats counts once).
      const repeats = result.entries.filter((e) => e.status === 'duplicate');
      assert.deepEqual(sums(await stored()), sums(result.entries.filter((e) => e.status !== 'duplicate')), 'stored bookings');
      assert.equal((await stored()).length, expected.entries - repeats.length);

      assert.equal((await run(bytes)).already_imported, true, 'the same file again');
      // An archive is recognised file by file (each file's bytes); a statement file entry by entry in other bytes.
      const again = await run(expected.format === 'zip' ? bytes : otherBytes(bytes));
      assert.deepEqual(
        again.entries.filter((e) => e.status !== 'duplicate').map((e) => e.position),
        [],
        'the same entries in other bytes are all recognised',
      );
      assert.equal((await stored()).length, expected.entries - repeats.length, 'nothing stored twice');
    });
  }
});
