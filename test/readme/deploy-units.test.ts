import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import NODE_FLAGS from '../../bin/node-flags.json' with { type: 'json' };
import { loadConfig } from '../../src/config.ts';

// The systemd units and the settings file of docs/deploy/ (issue 29 §1): systemd itself
// reads each unit (`systemd-analyze verify`, with /opt/kontor pointed at this checkout) and
// has nothing to say; each starts its command with the V8 flags Kontor gives it; systemd
// waits longer than Kontor's own stop deadline before it kills; and Kontor reads the
// settings file without a complaint.

const ROOT = path.resolve(import.meta.dirname, '../..');
const DEPLOY = path.join(ROOT, 'docs/deploy');
const hasSystemd = spawnSync('systemd-analyze', ['--version']).status === 0;

const env = Object.fromEntries(
  readFileSync(path.join(DEPLOY, 'kontor.env'), 'utf8')
    .split('\n')
    .filter((line) => /^[A-Z_]+=/.test(line))
    .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
);

test('kontor.env: Kontor reads it as it stands', () => {
  const config = loadConfig(env);
  assert.equal(config.databaseUrl, 'postgres://kontor:change-me@127.0.0.1:5432/kontor');
  assert.deepEqual(config.trustProxy, ['127.0.0.1', '::1']);
  assert.equal(config.metricsPort, 9464);
  assert.equal(config.stopTimeoutSeconds, 30);
});

for (const [unit, command] of [
  ['kontor.service', 'serve'],
  ['kontor-worker.service', 'worker'],
] as const) {
  test(`${unit}: systemd reads it without a word; ${command} with its flags; stopped after Kontor's own deadline`, () => {
    const text = readFileSync(path.join(DEPLOY, unit), 'utf8');
    const exec = /^ExecStart=(.+)$/m.exec(text)?.[1] ?? assert.fail('no ExecStart');
    assert.equal(exec, `/opt/kontor/node_modules/.bin/node ${NODE_FLAGS[command].join(' ')} /opt/kontor/bin/kontor.js ${command}`);
    const stopAfter = Number(/^TimeoutStopSec=(\d+)$/m.exec(text)?.[1]);
    assert.ok(stopAfter > Number(env.KONTOR_STOP_TIMEOUT), 'systemd kills only after Kontor has given up itself');
    assert.match(text, /^KillSignal=SIGTERM$/m);
    if (!hasSystemd) return;
    const dir = mkdtempSync(path.join(tmpdir(), 'kontor-unit-'));
    try {
      const here = text
        .replaceAll('/opt/kontor', ROOT)
        .replaceAll('/etc/kontor/kontor.env', path.join(DEPLOY, 'kontor.env'))
        .replaceAll('/var/lib/kontor', dir);
      const file = path.join(dir, unit);
      writeFileSync(file, here);
      const verified = spawnSync('systemd-analyze', ['verify', file], { encoding: 'utf8' });
      assert.equal(verified.status, 0, verified.stderr);
      assert.equal(verified.stderr.trim(), '', 'no warning');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
