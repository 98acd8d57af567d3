import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

// PGlite's initdb takes 2–4 s of WebAssembly work. `npm install` (postinstall) runs it
// once per machine, applies the migrations and keeps that cluster as a tarball; a new
// data folder (and every test file's in-memory database) is unpacked from it in a
// fraction of a second. Without the tarball PGlite runs initdb; migrations run at every
// start either way, so a template older than the code is only slower, never wrong.

const migrationsDir = path.join(import.meta.dirname, 'migrations');

function pgliteVersion(): string {
  // The package exports no ./package.json: walk up from its entry point.
  let dir = path.dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
  while (!existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
  return (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string }).version;
}

function migrationSetHash(): string {
  const hash = createHash('sha256');
  for (const file of readdirSync(migrationsDir)
    .filter((f) => f.endsWith('.sql'))
    .sort()) {
    hash.update(file).update(readFileSync(path.join(migrationsDir, file)));
  }
  return hash.digest('hex').slice(0, 12);
}

export function templateFile(): string {
  return path.resolve(import.meta.dirname, '../../node_modules/.cache/kontor', `pglite-${pgliteVersion()}-${migrationSetHash()}.tar`);
}

/** The template to start a new data folder from, or undefined (folder in use already, or no template). */
export function templateFor(dataDir: string): Blob | undefined {
  const fresh = !existsSync(dataDir) || readdirSync(dataDir).length === 0;
  if (!fresh) return undefined;
  const file = templateFile();
  return existsSync(file) ? new Blob([readFileSync(file)]) : undefined;
}
