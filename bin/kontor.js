#!/usr/bin/env node
// The `kontor` command. Kontor runs on Node 24 (pinned through the npm package `node`);
// when started by an older system node, this launcher hands over to the pinned one.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const major = Number(process.versions.node.split('.')[0]);
const here = fileURLToPath(new URL('.', import.meta.url));

// V8 flags per command (bin/node-flags.json; the benches read the same file):
// - `bank import` holds a whole statement in memory and makes garbage fast; with V8's
//   default young generation (semi-spaces of up to 16 MiB on 64-bit) a 10,000-entry
//   camt.053 peaked near 300 MiB of RSS, with 4 MiB semi-spaces at about 210 MiB (and ~1 s
//   slower). It always runs in a process started with its flag.
// - `serve`, `worker` and `jobs run` run the month-end: thousands of documents whose
//   short-lived garbage (query rows, mail parts, PDF buffers) fills the young generation.
//   With 8 MiB semi-spaces the young generation stays inside the processor's cache; the
//   statement run of 2,000 partners took ~10 % less time than with V8's 16 MiB, and with
//   64 MiB it took twice as long (bench/RESULTS.md, 2026-11-28 evening). These get their
//   flag when this launcher starts a child anyway (an older system node); started by
//   Node 24 directly (`npm start`, a systemd unit) the command line carries it.
// - `export gobd` streams 4.8 GiB of stored documents through 8 MiB semi-spaces: peak RSS
//   ~350 MiB instead of ~500 MiB with V8's default for the same time (100,000 invoices,
//   bench/RESULTS.md 2026-11-29). Like `bank import`, it always runs with its flag.
// A flag the process was started with, in any value, is the operator's choice and stays.
import NODE_FLAGS from './node-flags.json' with { type: 'json' };

const args = process.argv.slice(2);
const command = Object.keys(NODE_FLAGS).find((name) => name.split(' ').every((word, i) => args[i] === word));
const flagName = (flag) => flag.split('=')[0];
const tuned = (command ? NODE_FLAGS[command] : []).filter((flag) => !process.execArgv.some((given) => flagName(given) === flagName(flag)));
// Commands that always run with their flags, in a child when the process lacks them.
const LEAN = new Set(['bank import', 'export gobd']);
const lean = LEAN.has(command) && tuned.length > 0;

if (major < 24 || lean) {
  let runtime = process.execPath;
  if (major < 24) {
    try {
      runtime = createRequire(import.meta.url).resolve('node/bin/node');
    } catch {
      console.error(`kontor needs Node 24; this is ${process.version} and the pinned runtime is missing. Run npm install.`);
      process.exit(1);
    }
  }
  // The child must not outlive this process (a kill -9 here would leave it serving, or
  // committing an import nobody waits for). Node has no parent-death signal, so the child
  // gets one end of a pipe as fd 3 (KONTOR_LAUNCHER_FD): when this process ends, however
  // it ends, the kernel closes the other end and the child kills itself (src/main.ts).
  // The same runtime started again for a lean command keeps this process's flags; the
  // command's own flags come after them.
  const carried = runtime === process.execPath ? process.execArgv : [];
  const child = spawn(runtime, [...carried, ...tuned, fileURLToPath(import.meta.url), ...args], {
    stdio: ['inherit', 'inherit', 'inherit', 'pipe'],
    env: { ...process.env, KONTOR_LAUNCHER_FD: '3' },
  });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} else {
  const built = `${here}../dist/src/main.js`;
  // Node strips TypeScript types itself, except inside node_modules: there the build runs.
  await import(here.includes('/node_modules/') && existsSync(built) ? built : `${here}../src/main.ts`);
}
