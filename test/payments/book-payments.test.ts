import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BookkeepingError, paymentJournalLines } from '../../src/modules/bookkeeping/index.ts';

test('a payment books Soll bank against Haben debtor: 1200 in SKR03, 1800 in SKR04', () => {
  assert.deepEqual(paymentJournalLines('SKR03', { customerNumber: '10042', amountCents: 8506 }), [
    { account: '1200', side: 'S', amountCents: 8506, taxKey: null },
    { account: '10042', side: 'H', amountCents: 8506, taxKey: null },
  ]);
  assert.deepEqual(
    paymentJournalLines('SKR04', { customerNumber: '10042', amountCents: 10000 }).map((l) => [l.account, l.side, l.amountCents]),
    [
      ['1800', 'S', 10000],
      ['10042', 'H', 10000],
    ],
  );
});

test('a payment without a debtor account or with no amount is refused', () => {
  assert.throws(() => paymentJournalLines('SKR03', { customerNumber: '70001', amountCents: 100 }), BookkeepingError);
  assert.throws(() => paymentJournalLines('SKR03', { customerNumber: '10042', amountCents: 0 }), BookkeepingError);
});
