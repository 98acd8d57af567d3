import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newId } from '../../src/shared/ids.ts';

test('ids are the prefix and 26 Crockford base32 characters, all different, also across pool refills', () => {
  // 10,000 ids draw 160,000 random bytes: the 4 KiB pool is refilled ~39 times.
  const ids = Array.from({ length: 10_000 }, () => newId('rev'));
  for (const id of ids) assert.match(id, /^rev_[0-9a-hjkmnp-tv-z]{26}$/);
  assert.equal(new Set(ids).size, ids.length);
  // The random part is not the same bytes again after a refill.
  assert.equal(new Set(ids.map((id) => id.slice(14))).size, ids.length);
});

test('ids sort by the millisecond they were made in', async () => {
  const first = newId('cen');
  await new Promise((resolve) => setTimeout(resolve, 3));
  const second = newId('cen');
  assert.ok(first.slice(0, 14) < second.slice(0, 14), `${first} sorts before ${second}`);
});
