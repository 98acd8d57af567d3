// A/B of the rendering alone (issue 26, point 1): `bench/render-alone.ts` of two source
// trees, run in turns (A, B, A, B, …) so both see the same minutes of this machine, whose
// speed drifts by tens of percent. Prints the CPU µs per document of each turn and the
// median ratio B/A.
//
//   node bench/render-ab.ts --base DIR [--rounds 4] [--duration 6] [--warmup 2] [--prof DIR]
//
// DIR is a checkout of the code to compare against, with node_modules (e.g.
// `git worktree add /tmp/kontor-base <commit> && ln -s $PWD/node_modules /tmp/kontor-base/`).
// B is this tree. `--prof DIR` also writes one CPU profile per side (last round) into DIR/a and DIR/b.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { RenderOutput } from './render-alone.ts';

const { values } = parseArgs({
  options: {
    base: { type: 'string' },
    rounds: { type: 'string', default: '4' },
    duration: { type: 'string', default: '6' },
    warmup: { type: 'string', default: '2' },
    prof: { type: 'string' },
  },
});
if (!values.base) throw new Error('--base DIR is required');
const here = path.resolve(import.meta.dirname, '..');
const rounds = Number(values.rounds);
const input = JSON.stringify({ duration: Number(values.duration), warmup: Number(values.warmup) });

function run(tree: string, prof?: string): RenderOutput {
  const flags = prof ? ['--cpu-prof', `--cpu-prof-dir=${prof}`] : [];
  const out = execFileSync(process.execPath, [...flags, path.join(tree, 'bench/render-alone.ts'), input], { cwd: tree, stdio: ['ignore', 'pipe', 'ignore'] });
  return JSON.parse(out.toString().trim().split('\n').at(-1)!) as RenderOutput;
}

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
const a: RenderOutput[] = [];
const b: RenderOutput[] = [];
for (let round = 0; round < rounds; round++) {
  const last = round === rounds - 1 && values.prof;
  a.push(run(values.base, last ? path.join(values.prof!, 'a') : undefined));
  b.push(run(here, last ? path.join(values.prof!, 'b') : undefined));
  const [ra, rb] = [a.at(-1)!, b.at(-1)!];
  process.stderr.write(
    `round ${round + 1}: A ${ra.cpuUs.toFixed(0)} µs/doc (p50 ${ra.p50.toFixed(2)} ms), B ${rb.cpuUs.toFixed(0)} µs/doc (p50 ${rb.p50.toFixed(2)} ms), B/A ${(rb.cpuUs / ra.cpuUs).toFixed(3)}\n`,
  );
}
const ratios = a.map((ra, i) => b[i]!.cpuUs / ra.cpuUs);
const result = {
  aCpuUs: Math.round(median(a.map((r) => r.cpuUs))),
  bCpuUs: Math.round(median(b.map((r) => r.cpuUs))),
  ratio: Math.round(median(ratios) * 1000) / 1000,
  aP50: median(a.map((r) => r.p50)),
  bP50: median(b.map((r) => r.p50)),
  aPdfBytes: a[0]!.pdfBytes,
  bPdfBytes: b[0]!.pdfBytes,
  rounds,
};
process.stderr.write(`median: A ${result.aCpuUs} µs/doc, B ${result.bCpuUs} µs/doc, B/A ${result.ratio}\n`);
process.stdout.write(`${JSON.stringify(result)}\n`);
