import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

// docs/decisions.md opens with its contents grouped by module (issue 29 §2). Every decision
// (a `## ` heading) is listed there exactly once, and every entry links to its heading by
// the anchor GitHub gives it — so a new decision without an entry, or a renamed one, fails.

const DECISIONS = readFileSync(path.resolve(import.meta.dirname, '../../docs/decisions.md'), 'utf8');
const CONTENTS = 'Contents, by module';

/** GitHub's heading anchor: lower case, punctuation dropped (letters, digits, `_`, `-` and spaces kept), spaces as `-`. */
const anchor = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, '')
    .replaceAll(' ', '-');

test('decisions.md lists every decision once in its contents, each linked to its heading', () => {
  const headings = DECISIONS.split('\n')
    .filter((line) => line.startsWith('## '))
    .map((line) => line.slice(3));
  assert.equal(headings[0], CONTENTS, 'the contents come first');
  const decisions = headings.slice(1);
  assert.equal(new Set(decisions.map(anchor)).size, decisions.length, 'no two decisions share an anchor');
  const contents = DECISIONS.slice(DECISIONS.indexOf(`## ${CONTENTS}`), DECISIONS.indexOf(`## ${decisions[0]}`));
  const entries = [...contents.matchAll(/^- \[(.+)\]\(#([^)]+)\)$/gm)].map((m) => ({ text: m[1] as string, target: m[2] as string }));
  assert.deepEqual(entries.map((e) => e.text).sort(), [...decisions].sort(), 'every decision listed, once');
  for (const entry of entries) assert.equal(entry.target, anchor(entry.text), entry.text);
  assert.ok((contents.match(/^\*\*[^*]+\*\*$/gm) ?? []).length >= 10, 'grouped by module');
});
