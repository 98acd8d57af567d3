// Writes the test groups `npm test` runs: test/.groups/NN.ts, each importing a share of
// the test files, so that one process runs many files. A test file in a process of its own
// pays ~2 s of CPU before its first test (Node's start, ~1,500 modules, the e-invoice
// library and its schema, fonts, a render thread); in a group that is paid once per group.
// The files are dealt to the groups by their last measured duration (test/timings.json,
// longest first, each to the group with the least so far), so the groups end together.
//
//   node scripts/test-groups.ts [--groups N]
//
// A single file still runs alone: node --liftoff-only --test --test-global-setup=test/global-setup.ts FILE
import { globSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const groupsDir = path.join(root, 'test/.groups');

function option(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : process.argv[at + 1];
}

/** Seconds per test file from the last measurement; a file not measured yet counts as the median. */
function durations(files: string[]): Map<string, number> {
  let known: Record<string, number> = {};
  try {
    known = JSON.parse(readFileSync(path.join(root, 'test/timings.json'), 'utf8')) as Record<string, number>;
  } catch {
    // no timings: every file counts the same
  }
  const measured = Object.values(known).sort((a, b) => a - b);
  const median = measured.length ? measured[Math.floor(measured.length / 2)]! : 1;
  return new Map(files.map((file) => [file, known[file] ?? median]));
}

/** Longest first, each to the group with the least time so far. */
function deal(files: string[], seconds: Map<string, number>, groups: number): string[][] {
  const bins = Array.from({ length: groups }, () => ({ total: 0, files: [] as string[] }));
  const order = [...files].sort((a, b) => seconds.get(b)! - seconds.get(a)! || a.localeCompare(b));
  for (const file of order) {
    const bin = bins.reduce((least, b) => (b.total < least.total ? b : least));
    bin.files.push(file);
    bin.total += seconds.get(file)!;
  }
  return bins.filter((b) => b.files.length > 0).map((b) => b.files.sort());
}

const files = globSync('test/**/*.test.ts', { cwd: root }).sort();
const groups = Number(option('--groups') ?? 2 * availableParallelism());
const dealt = deal(files, durations(files), groups);

rmSync(groupsDir, { recursive: true, force: true });
mkdirSync(groupsDir, { recursive: true });
dealt.forEach((group, i) => {
  const lines = group.map((file) => `import '../${path.relative('test', file)}';`);
  writeFileSync(path.join(groupsDir, `${String(i + 1).padStart(2, '0')}.ts`), `// Made by scripts/test-groups.ts; do not edit.\n${lines.join('\n')}\n`);
});
