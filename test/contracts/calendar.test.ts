import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { addMonthsClamped, cycleAt, cycleContaining, cycleStart, daysBetween, prorate, proratedAmount } from '../../src/modules/contracts/calendar.ts';

// The billing calendar of issue 13 (design §6): cycles from the anchor, month ends clamped
// without drift, and proration by days.

describe('billing cycles', () => {
  test('monthly from 31 January: the end of each month, back to the 31st where the month has one', () => {
    const starts = Array.from({ length: 6 }, (_, i) => cycleStart('2026-01-31', 'month', i));
    assert.deepEqual(starts, ['2026-01-31', '2026-02-28', '2026-03-31', '2026-04-30', '2026-05-31', '2026-06-30']);
    assert.equal(cycleStart('2028-01-31', 'month', 1), '2028-02-29', 'leap year');
    assert.deepEqual(cycleAt('2026-01-31', 'month', 1), { index: 1, start: '2026-02-28', end: '2026-03-30' });
  });

  test('quarterly from 30 November and yearly from 29 February', () => {
    assert.deepEqual(
      [0, 1, 2, 3, 4].map((i) => cycleStart('2026-11-30', 'quarter', i)),
      ['2026-11-30', '2027-02-28', '2027-05-30', '2027-08-30', '2027-11-30'],
    );
    assert.deepEqual(
      [0, 1, 2, 3, 4].map((i) => cycleStart('2024-02-29', 'year', i)),
      ['2024-02-29', '2025-02-28', '2026-02-28', '2027-02-28', '2028-02-29'],
    );
  });

  test('the cycle containing a date, also before the anchor', () => {
    assert.deepEqual(cycleContaining('2026-01-31', 'month', '2026-03-15'), { index: 1, start: '2026-02-28', end: '2026-03-30' });
    assert.deepEqual(cycleContaining('2026-01-31', 'month', '2026-03-31'), { index: 2, start: '2026-03-31', end: '2026-04-29' });
    assert.deepEqual(cycleContaining('2026-01-01', 'month', '2025-12-31'), { index: -1, start: '2025-12-01', end: '2025-12-31' });
    assert.deepEqual(cycleContaining('2026-01-01', 'year', '2026-12-31'), { index: 0, start: '2026-01-01', end: '2026-12-31' });
    assert.equal(addMonthsClamped('2026-01-15', -13), '2024-12-15');
  });

  test('every date of four years lies in exactly one monthly cycle, and cycles join without gaps', () => {
    for (const anchor of ['2026-01-31', '2026-02-28', '2026-03-30', '2026-01-01']) {
      let previous = cycleAt(anchor, 'month', 0);
      for (let i = 1; i < 48; i += 1) {
        const cycle = cycleAt(anchor, 'month', i);
        assert.equal(daysBetween(previous.end, cycle.start), 2, `${anchor}: cycle ${i} starts the day after cycle ${i - 1} ends`);
        assert.deepEqual(cycleContaining(anchor, 'month', cycle.start), cycle);
        assert.deepEqual(cycleContaining(anchor, 'month', cycle.end), cycle);
        previous = cycle;
      }
    }
  });
});

describe('proration by days', () => {
  const november = { start: '2026-11-01', end: '2026-11-30' };

  test('an item added or ended inside a cycle bills its days of the cycle', () => {
    assert.deepEqual(prorate(november, '2026-11-21', null), { start: '2026-11-21', end: '2026-11-30', days: 10, cycleDays: 30 });
    assert.deepEqual(prorate(november, '2026-01-01', '2026-11-10'), { start: '2026-11-01', end: '2026-11-10', days: 10, cycleDays: 30 });
    assert.deepEqual(prorate(november, '2026-01-01', null), { start: '2026-11-01', end: '2026-11-30', days: 30, cycleDays: 30 });
    assert.equal(prorate(november, '2026-12-01', null), null, 'starts after the cycle');
    assert.equal(prorate(november, '2026-01-01', '2026-10-31'), null, 'ended before the cycle');
  });

  test('amount × days / cycle days, rounded half up once', () => {
    assert.equal(proratedAmount('99.00', { days: 10, cycleDays: 30 }), '33.00');
    assert.equal(proratedAmount('100.00', { days: 10, cycleDays: 31 }), '32.26');
    assert.equal(proratedAmount('0.05', { days: 1, cycleDays: 10 }), '0.01', '0.005 rounds up');
    assert.equal(proratedAmount('49.99', { days: 31, cycleDays: 31 }), '49.99');
    assert.equal(proratedAmount('999999999.99', { days: 365, cycleDays: 366 }), '997267759.55');
  });
});
