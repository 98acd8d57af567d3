import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestApp, testApp } from '../helpers/app.ts';
import { fixture, importCounts, importFile } from './helpers.ts';

// Real bank files (fixtures/real/README.md names each one's origin and licence).

describe('bank files as German banks write them', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp();
  });
  after(() => t.close());

  test('an Entgeltabschluss dated 30 February is booked on the last day of February, with a note', async () => {
    const before = await importCounts(t);
    const result = await importFile(t, fixture('real/mt940-rs-february_30.sta'), 'february_30.sta');
    assert.equal(result.already_imported, false);
    assert.deepEqual(
      result.entries.map((e) => [e.position, e.status, e.amount]),
      [[1, 'ignored', '6.00']],
    );
    assert.ok(
      result.warnings.some((w) => w.includes('30.02.2016') && w.includes('29.02.2016')),
      `a note names the date written and the date taken: ${result.warnings.join(' | ')}`,
    );
    const stored = await t.handle.db.selectFrom('bank_entries').select(['booking_date', 'value_date']).where('company_id', '=', t.company.companyId).execute();
    assert.deepEqual(
      stored.map((e) => [e.booking_date, e.value_date]),
      [['2016-03-01', '2016-02-29']],
    );
    assert.equal((await importCounts(t)).entries, before.entries + 1);
    const again = await importFile(t, fixture('real/mt940-rs-february_30.sta'), 'february_30.sta');
    assert.equal(again.already_imported, true);
    assert.equal((await importCounts(t)).entries, before.entries + 1, 'imported once');
  });
});
