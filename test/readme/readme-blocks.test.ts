import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fieldPatterns, linePattern, shellBlocks } from './readme-blocks.ts';

// How the README test reads the README's examples: commands over several lines, the
// answers written under them, the blocks marked as not runnable.

const FENCE = '```';

describe('reading the README examples', () => {
  test('a command runs on over \\ and open quotes; the comment right under it is what it answers', () => {
    const [block] = shellBlocks(
      [
        'Text.',
        '',
        `${FENCE}sh`,
        '# A note before the command, not an answer',
        "curl -X PUT http://127.0.0.1:8080/v1/x -d '{",
        '  "a": 1 }\'',
        '# 201 {"id":"cus_…","n":"10000",…}; the same again answers 200',
        'npx kontor admin period lock --until 2026-09-30',
        '# kontor: the period is locked up to 2026-10-31 already',
        'npx kontor bank unassigned \\',
        '  --company cmp_…',
        '# bke_… 1  2026-11-27  -40.00 EUR',
        FENCE,
      ].join('\n'),
    );
    assert.ok(block);
    assert.equal(block.line, 3);
    assert.deepEqual(
      block.commands.map((c) => [c.line, c.text.split('\n').length]),
      [
        [5, 2],
        [8, 1],
        [10, 2],
      ],
    );
    assert.deepEqual(block.commands[0]!.expect, { kind: 'answer', status: 201, json: '{"id":"cus_…","n":"10000",…}' });
    assert.deepEqual(block.commands[1]!.expect, { kind: 'refusal', text: 'kontor: the period is locked up to 2026-10-31 already' });
    assert.deepEqual(block.commands[2]!.expect, { kind: 'lines', lines: ['bke_… 1  2026-11-27  -40.00 EUR'] });
  });

  test('a bare block after an example is what its last command prints; a marked block is skipped with its reason', () => {
    const blocks = shellBlocks(
      [
        `${FENCE}sh`,
        'npx kontor bank import examples/a.xml',
        FENCE,
        '',
        FENCE,
        'Matched',
        '  #1  2026-11-27  +58.31 EUR',
        FENCE,
        '<!-- readme-examples: skip (needs a bank file) -->',
        `${FENCE}sh`,
        'npx kontor bank import mine.xml',
        FENCE,
        `${FENCE}json`,
        '{"not": "run"}',
        FENCE,
      ].join('\n'),
    );
    assert.equal(blocks.length, 2);
    assert.deepEqual(blocks[0]!.commands[0]!.expect, { kind: 'lines', lines: ['Matched', '  #1  2026-11-27  +58.31 EUR'] });
    assert.equal(blocks[0]!.skip, undefined);
    assert.equal(blocks[1]!.skip, 'needs a bank file');
  });

  test('shown fields and lines match the real answer, … standing for any text; other values do not', () => {
    const fields = fieldPatterns('{"id":"cus_…","kundennummer":"10000","overdue":false,…}');
    assert.deepEqual(
      fields.map((f) => f.shown),
      ['"id":"cus_…"', '"kundennummer":"10000"', '"overdue":false'],
    );
    const answer = '{"id":"cus_01m8","kundennummer":"10000","overdue":false}';
    for (const f of fields) assert.match(answer, f.pattern);
    assert.doesNotMatch('{"id":"inv_01m8"}', fields[0]!.pattern);
    assert.doesNotMatch('{"kundennummer":"10001"}', fields[1]!.pattern);
    assert.match('x\n  #1   2026-11-27  +58.31 EUR  Beispiel AG\ny', linePattern('#1  2026-11-27  +58.31 EUR  …'));
    assert.doesNotMatch('#1  2026-11-27  +58.30 EUR', linePattern('#1  2026-11-27  +58.31 EUR'));
  });
});
