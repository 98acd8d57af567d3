#!/usr/bin/env node
// The `kontor` command. Kontor runs on Node 24 (pinned through the npm package `node`);
// when started by an older system node, this launcher hands over to the pinned one.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const major = Number(process.versions.node.split('.')[0]);
const here = fileURLToPath(new URL('.', import.meta.url));

if (major < 24) {
  let pinned;
  try {
    pinned = createRequire(import.meta.url).resolve('node/bin/node');
  } catch {
    console.error(`kontor needs Node 24; this is ${process.version} and the pinned runtime is missing. Run npm install.`);
    process.exit(1);
  }
  const child = spawn(pinned, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} else {
  const built = `${here}../dist/src/main.js`;
  // Node strips TypeScript types itself, except inside node_modules: there the build runs.
  await import(here.includes('/node_modules/') && existsSync(built) ? built : `${here}../src/main.ts`);
}
