import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startOfDay } from '../../src/modules/payments/booking-instant.ts';
import { calendarDate } from '../../src/shared/clock.ts';

test('paid_at is 00:00 of the booking date in the company time zone, also on daylight-saving days', () => {
  const cases: [string, string, string][] = [
    ['2026-11-20', 'Europe/Berlin', '2026-11-19T23:00:00.000Z'],
    ['2026-07-01', 'Europe/Berlin', '2026-06-30T22:00:00.000Z'],
    ['2026-03-29', 'Europe/Berlin', '2026-03-28T23:00:00.000Z'],
    ['2026-10-25', 'Europe/Berlin', '2026-10-24T22:00:00.000Z'],
    ['2026-11-20', 'UTC', '2026-11-20T00:00:00.000Z'],
    ['2026-11-20', 'America/New_York', '2026-11-20T05:00:00.000Z'],
  ];
  for (const [date, zone, expected] of cases) {
    const instant = startOfDay(date, zone);
    assert.equal(instant.toISOString(), expected, `${date} ${zone}`);
    assert.equal(calendarDate(instant, zone), date, 'back in the zone it is the booking date');
  }
});
