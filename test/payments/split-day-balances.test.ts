import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestApp, testApp } from '../helpers/app.ts';
import { camt, importCounts, importFile } from './helpers.ts';

// Issue 24, point 3 (last bullet): a day's MT940 statement split into parts, each part
// closed by :62M: and the next opened by :60M:, all under the same :28C: (as N26 writes
// it). Two equal bookings, one in each part, are two payments when the balances say so
// (0 → 12 → 12 → 24); a part is a repeat of an earlier one only when its balances are the
// same too.

const ACCOUNT = 'DE12100110012620012345';

const amount = (cents: number) => `${Math.floor(cents / 100)},${String(cents % 100).padStart(2, '0')}`;

/** One part of the day: `open`/`close` F (first/final) or M (intermediate), the same :28C: in every part. */
function part(open: { mark: 'F' | 'M'; cents: number }, creditCents: number, close: 'F' | 'M'): { text: string; closing: number } {
  const closing = open.cents + creditCents;
  return {
    text: [
      ':20:N26EXPORT',
      `:25:${ACCOUNT}`,
      ':28C:1',
      `:60${open.mark}:C261120EUR${amount(open.cents)}`,
      `:61:2611201120C${amount(creditCents)}NTRFNONREF`,
      ':86:166?00Gutschrift?20SVWZ+Mitgliedsbeitrag?32Erika Musterfrau',
      `:62${close}:C261120EUR${amount(closing)}`,
      '-',
    ].join('\r\n'),
    closing,
  };
}

describe('MT940 day split into parts under one :28C:', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp();
  });
  after(() => t.close());

  test('two equal bookings in two parts (balances 0 → 12 → 12 → 24) are both imported; the same file again imports neither', async () => {
    // Part 1: opening 0.00 + 12.00 = closing 12.00 (:62M:); part 2: opening 12.00 (:60M:) + 12.00 = 24.00.
    const first = part({ mark: 'F', cents: 0 }, 1200, 'M');
    const second = part({ mark: 'M', cents: first.closing }, 1200, 'F');
    assert.equal(second.closing, 2400);
    const file = `${first.text}\r\n${second.text}\r\n`;
    const before = await importCounts(t);
    const result = await importFile(t, file, 'n26-split.sta');
    assert.deepEqual(
      result.entries.map((e) => [e.position, e.status, e.amount]),
      [
        [1, 'unmatched', '12.00'],
        [2, 'unmatched', '12.00'],
      ],
    );
    // Both are waiting for a person: 2 × 12.00 = 24.00 EUR received, 24.00 unassigned.
    assert.equal(result.totals.received, '24.00');
    assert.equal(result.totals.unassigned, '24.00');
    assert.equal((await importCounts(t)).entries, before.entries + 2);

    // The same statements again, in other bytes (a trailing line): each recognised.
    const again = await importFile(t, `${file}\r\n`, 'n26-split-again.sta');
    assert.deepEqual(
      again.entries.map((e) => e.status),
      ['duplicate', 'duplicate'],
    );
    assert.equal((await importCounts(t)).entries, before.entries + 2);
  });

  test('a part the file repeats with the same balances is a repeat: imported once', async () => {
    // 100.00 + 7.50 = 107.50, written twice with the same :28C:, the same balances and the same booking.
    const once = part({ mark: 'F', cents: 10_000 }, 750, 'F').text.replace('261120', '261118').replace('2611201120', '2611181118');
    const before = await importCounts(t);
    const result = await importFile(t, `${once}\r\n${once}\r\n`, 'n26-twice.sta');
    assert.deepEqual(
      result.entries.map((e) => [e.status, e.note]),
      [
        ['unmatched', 'no invoice number found in the remittance text'],
        ['duplicate', 'its statement appears twice in this file; imported once'],
      ],
    );
    assert.equal((await importCounts(t)).entries, before.entries + 1);
  });

  test('camt: two statements with the same Id and one equal entry each are two when their balances follow on', async () => {
    // Statement "DAY" 0.00 → 12.00 and again "DAY" 12.00 → 24.00, each with the same 12.00 credit (no AcctSvcrRef).
    const statement = (open: string, close: string) =>
      camt([{ amount: '12.00', text: 'Mitgliedsbeitrag', name: 'Erika Musterfrau', date: '2026-11-19', ref: null }], { id: 'DAY', msgId: 'SPLIT' })
        .replace(
          '<Ntry>',
          `<Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">${open}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-11-19</Dt></Dt></Bal><Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">${close}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-11-19</Dt></Dt></Bal><Ntry>`,
        )
        .match(/<Stmt>[\s\S]*<\/Stmt>/)![0];
    const file = camt([], { msgId: 'SPLIT' }).replace(/<Stmt>[\s\S]*<\/Stmt>/, `${statement('0.00', '12.00')}${statement('12.00', '24.00')}`);
    const result = await importFile(t, file, 'camt-split.xml');
    assert.deepEqual(
      result.entries.map((e) => e.status),
      ['unmatched', 'unmatched'],
    );
  });
});
