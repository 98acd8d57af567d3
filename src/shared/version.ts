import { readFileSync } from 'node:fs';
import path from 'node:path';

// Kontor's version from its package.json: two folders up from src/shared, three from the
// build in dist/src/shared.

let cached: string | undefined;

export function kontorVersion(): string {
  if (cached !== undefined) return cached;
  cached = 'unknown';
  for (const up of ['../..', '../../..']) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(import.meta.dirname, up, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'kontor' && pkg.version) {
        cached = pkg.version;
        break;
      }
    } catch {}
  }
  return cached;
}
