import assert from 'node:assert/strict';
import { test } from 'node:test';
import { localMoment } from '../../src/modules/tax/gobd/gobd-csv.ts';
import { zonedParts } from '../../src/shared/clock.ts';
import { mulberry32 } from '../helpers/random.ts';

// The GoBD tables give every moment as the company's wall-clock time. The export keeps each
// zone's offset per quarter hour instead of asking Intl for every one of its millions of
// moments; the result must be Intl's, second for second — across the changes to and from
// summer time and in zones whose offsets are not whole hours.

const byIntl = (instant: Date, timeZone: string) => {
  const p = zonedParts(instant, timeZone);
  return `${p.day}.${p.month}.${p.year} ${p.hour}:${p.minute}:${p.second}`;
};

const ZONES = ['Europe/Berlin', 'UTC', 'America/St_Johns', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'America/Sao_Paulo'];

test('every second around the changes of summer time in Berlin is the wall-clock time Intl gives', () => {
  for (const change of ['2026-03-29T01:00:00Z', '2026-10-25T01:00:00Z']) {
    const at = Date.parse(change);
    for (let s = -5400; s <= 5400; s++) {
      const instant = new Date(at + s * 1000 + (s % 7) * 100);
      assert.equal(localMoment(instant, 'Europe/Berlin'), byIntl(instant, 'Europe/Berlin'), instant.toISOString());
    }
  }
  assert.equal(localMoment(new Date('2026-10-25T00:59:59Z'), 'Europe/Berlin'), '25.10.2026 02:59:59');
  assert.equal(localMoment(new Date('2026-10-25T01:00:00Z'), 'Europe/Berlin'), '25.10.2026 02:00:00');
});

test('random moments of 1990–2040 in zones with half- and quarter-hour offsets and half-hour summer time', () => {
  const random = mulberry32(1904);
  const from = Date.parse('1990-01-01T00:00:00Z');
  const to = Date.parse('2040-12-31T23:59:59Z');
  for (let i = 0; i < 20_000; i++) {
    const instant = new Date(from + Math.floor(random() * (to - from)));
    const zone = ZONES[i % ZONES.length] as string;
    assert.equal(localMoment(instant, zone), byIntl(instant, zone), `${instant.toISOString()} in ${zone}`);
  }
  // Lord Howe Island moves its clocks by half an hour, at 02:00 local time.
  const change = Date.parse('2026-04-04T15:00:00Z');
  for (let s = -3600; s <= 3600; s += 1)
    assert.equal(localMoment(new Date(change + s * 1000), 'Australia/Lord_Howe'), byIntl(new Date(change + s * 1000), 'Australia/Lord_Howe'));
});
