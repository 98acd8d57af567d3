import assert from 'node:assert/strict';
import { test } from 'node:test';
import { filingOf, lastEndedPeriod, nationwideHolidays, nextWorkingDay, taxPeriod } from '../../src/modules/tax/index.ts';
import { addDays } from '../../src/shared/dates.ts';

// When the company files (issue 28 §1): the period a return is due for, by the company's
// rhythm, and its deadline — the 10th day after the period for the Voranmeldung (a month
// later with a Dauerfristverlängerung), the 25th for the Zusammenfassende Meldung, moved
// past Saturdays, Sundays and public holidays (§ 108 Abs. 3 AO). Dates checked by hand
// against a calendar.

test('the public holidays of every Land, Easter-dependent ones included', () => {
  // Easter Sunday: 5 April 2026, 28 March 2027, 20 April 2025.
  assert.deepEqual(nationwideHolidays(2026), [
    '2026-01-01',
    '2026-04-03',
    '2026-04-06',
    '2026-05-01',
    '2026-05-14',
    '2026-05-25',
    '2026-10-03',
    '2026-12-25',
    '2026-12-26',
  ]);
  assert.deepEqual(nationwideHolidays(2027).slice(1, 6), ['2027-03-26', '2027-03-29', '2027-05-01', '2027-05-06', '2027-05-17']);
  assert.deepEqual(nationwideHolidays(2025).slice(1, 3), ['2025-04-18', '2025-04-21']);
});

test('deadlines: the 10th and the 25th after the period, a month later with the extension, moved to the next working day', () => {
  // November 2026, monthly: Thursday 10 December.
  assert.deepEqual(filingOf(taxPeriod('2026-11'), 'monthly', false), {
    rhythm: 'monthly',
    extension: false,
    is_filing_period: true,
    ustva_due: '2026-12-10',
    // 25 December is a holiday (Friday), the 26th too, the 27th a Sunday.
    zm_due: '2026-12-28',
  });
  // The fourth quarter: 10 January 2027 is a Sunday; with the extension Wednesday 10 February.
  assert.equal(filingOf(taxPeriod('2026-Q4'), 'quarterly', false).ustva_due, '2027-01-11');
  assert.equal(filingOf(taxPeriod('2026-Q4'), 'quarterly', true).ustva_due, '2027-02-10');
  assert.equal(filingOf(taxPeriod('2026-Q4'), 'quarterly', true).zm_due, '2027-01-25', 'the extension does not move the ZM');
  // March 2027: 10 April is a Saturday.
  assert.equal(filingOf(taxPeriod('2027-03'), 'monthly', false).ustva_due, '2027-04-12');
  // A month of a quarterly filer is no filing period; a year has no advance-return deadline.
  assert.equal(filingOf(taxPeriod('2026-11'), 'quarterly', false).is_filing_period, false);
  assert.deepEqual(filingOf(taxPeriod('2026'), 'annual', false), {
    rhythm: 'annual',
    extension: false,
    is_filing_period: true,
    ustva_due: null,
    zm_due: null,
  });
});

test('every day of 2026–2030 moves to the first later day that is no weekend and no holiday', () => {
  const free = (day: string) => {
    const weekday = new Date(`${day}T12:00:00Z`).getUTCDay();
    return weekday === 0 || weekday === 6 || nationwideHolidays(Number(day.slice(0, 4))).includes(day);
  };
  for (let day = '2026-01-01'; day <= '2030-12-31'; day = addDays(day, 1)) {
    const due = nextWorkingDay(day);
    assert.ok(due >= day && !free(due), `${day} → ${due}`);
    for (let between = day; between < due; between = addDays(between, 1)) assert.ok(free(between), `${between} lies between ${day} and ${due}`);
  }
});

test('the last period that has ended, by the rhythm: previous month, quarter or year', () => {
  const labels = (today: string) => (['monthly', 'quarterly', 'annual'] as const).map((rhythm) => lastEndedPeriod(rhythm, today).label);
  assert.deepEqual(labels('2027-01-04'), ['2026-12', '2026-Q4', '2026']);
  assert.deepEqual(labels('2026-11-29'), ['2026-10', '2026-Q3', '2025']);
  assert.deepEqual(labels('2026-04-01'), ['2026-03', '2026-Q1', '2025']);
  assert.deepEqual(labels('2026-03-31'), ['2026-02', '2025-Q4', '2025']);
});

test('a year is a period: 1 January to 31 December', () => {
  assert.deepEqual(taxPeriod('2026'), { kind: 'year', label: '2026', from: '2026-01-01', to: '2026-12-31' });
  assert.throws(() => taxPeriod('26'), /not a filing period: 26 \(a month like 2026-11, a quarter like 2026-Q4 or a year like 2026\)/);
});
