import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { BIN, type CliWorkspace, cliWorkspace } from '../helpers/cli.ts';
import { usePostgres } from '../helpers/database.ts';
import { answers, childrenOf, ended, hasProc, poll, processStart, processState, type Watched, watch } from '../helpers/processes.ts';
import { camt } from '../payments/helpers.ts';

// kill -9 at the worst moments: a dead holder of the data folder never blocks a restart,
// and a `kontor` that runs its work in a child process takes the child with it.

const SYSTEM_NODE = '/usr/bin/node';
const systemNodeMajor = existsSync(SYSTEM_NODE)
  ? Number(execFileSync(SYSTEM_NODE, ['-p', 'process.versions.node'], { encoding: 'utf8' }).split('.')[0])
  : undefined;
const noOldSystemNode =
  systemNodeMajor === undefined
    ? `${SYSTEM_NODE} is missing: the launcher's hand-over to the pinned Node 24 cannot be tried`
    : systemNodeMajor >= 24 && `${SYSTEM_NODE} is Node ${systemNodeMajor}: the launcher starts no child`;

/** A process's arguments (/proc/PID/cmdline). */
const commandLine = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');

const bootId = () => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();

describe('restart after kill -9', () => {
  let w: CliWorkspace;
  const started: Watched[] = [];
  const kontor = (runtime: string, args: string[], env: NodeJS.ProcessEnv = {}) => {
    const p = watch(runtime, [BIN, ...args], { cwd: w.dir, env: { ...w.env, KONTOR_WORKER: 'off', ...env } });
    started.push(p);
    return p;
  };
  const bootstrap = () => w.bootstrap('crash');
  beforeEach(async () => {
    w = await cliWorkspace();
  });
  const orphans: number[] = [];
  /** The launcher's child; killed after the test should it outlive the launcher. */
  const childOf = (launcher: Watched) => {
    const [child] = childrenOf(launcher.child.pid!);
    if (child) orphans.push(child);
    return child;
  };
  afterEach(async () => {
    for (const p of started.splice(0)) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    for (const pid of orphans.splice(0)) if (!ended(pid)) process.kill(pid, 'SIGKILL');
    await w.cleanup();
  });

  test('a server killed with kill -9 and not yet reaped (a zombie) does not block an immediate restart; the new lock names pid, start time and boot id', {
    skip: (usePostgres && 'embedded data folder only') || (!hasProc && 'needs /proc to hold a zombie'),
  }, async () => {
    // The server runs under a shell that is then stopped: nobody reaps the killed server,
    // which stays a zombie — signal 0 still reaches it.
    const shell = watch('/bin/sh', ['-c', '"$0" "$@" & echo "server pid $!"; wait', process.execPath, BIN, 'serve', '--port', '0'], {
      cwd: w.dir,
      env: { ...w.env, KONTOR_WORKER: 'off' },
    });
    started.push(shell);
    const pid = Number((await shell.waitFor(/server pid (\d+)/))[1]);
    await shell.waitFor(/listens on/);
    process.kill(shell.child.pid!, 'SIGSTOP');
    process.kill(pid, 'SIGKILL');
    await poll('the killed server to be a zombie', () => processState(pid) === 'Z');

    const again = await w.spawnServer();
    assert.equal((await fetch(`http://127.0.0.1:${again.port}/health`)).status, 200);
    const holder = again.child.pid!;
    assert.deepEqual(JSON.parse(readFileSync(path.join(w.dataDir, 'kontor.lock'), 'utf8')), {
      pid: holder,
      start: processStart(holder),
      boot: bootId(),
    });
    again.child.kill('SIGTERM');
    await once(again.child, 'exit');
    assert.equal(existsSync(path.join(w.dataDir, 'kontor.lock')), false, 'a clean stop removes the lock');
  });

  test('a lock of a live process refuses the start; one whose pid now belongs to another process, of an earlier boot or of a dead pid is taken over', {
    skip: (usePostgres && 'embedded data folder only') || (!hasProc && 'Linux /proc only'),
  }, async () => {
    // Each case on a data folder of its own, all at once.
    const lockedBy = async (name: string, holder: object | number) => {
      const dataDir = path.join(w.dir, name);
      mkdirSync(dataDir);
      writeFileSync(path.join(dataDir, 'kontor.lock'), JSON.stringify(holder));
      return { dataDir, res: await w.run(['migrate', '--data', dataDir]) };
    };
    const me = { pid: process.pid, start: processStart(process.pid), boot: bootId() };
    const gone = spawn(process.execPath, ['-e', '']);
    await once(gone, 'exit');
    const [busy, busyOldForm, reused, rebooted, dead] = await Promise.all([
      // This test process is alive: as the recorded holder (also in the bare-pid form of older versions) it keeps others out.
      lockedBy('busy', me),
      lockedBy('busy-old-form', process.pid),
      // A live process with the recorded pid but another start time: the pid was reused.
      lockedBy('reused', { ...me, start: '1' }),
      lockedBy('rebooted', { ...me, boot: '00000000-0000-0000-0000-000000000000' }),
      lockedBy('dead', { pid: gone.pid, start: '1', boot: bootId() }),
    ]);
    for (const { dataDir, res } of [busy!, busyOldForm!]) {
      assert.equal(res.code, 1);
      assert.equal(res.stderr, `kontor: the data folder ${dataDir} is in use by process ${process.pid}\n`);
    }
    for (const { dataDir, res } of [reused!, rebooted!, dead!]) {
      assert.equal(res.code, 0, `${dataDir}: ${res.stderr}`);
      assert.equal(existsSync(path.join(dataDir, 'kontor.lock')), false, 'the taken-over lock is released at the end');
    }
  });

  test('kill -9 of the launcher (system Node older than 24) ends its child: the port closes and a restart works at once', {
    skip: noOldSystemNode || (!hasProc && 'Linux /proc only'),
  }, async () => {
    const launcher = kontor(SYSTEM_NODE, ['serve', '--port', '0']);
    const port = Number((await launcher.waitFor(/listens on http:\/\/[^:]+:(\d+)/))[1]);
    const child = childOf(launcher);
    assert.ok(child, 'the launcher runs the server in a child process');
    assert.ok(commandLine(child).includes('--max-semi-space-size=8'), 'the server runs with the flags of bin/node-flags.json');
    assert.ok(await answers(port));

    launcher.child.kill('SIGKILL');
    await poll('the child to end', () => ended(child), 3000);
    assert.equal(await answers(port), false, 'nothing answers on the port any more');

    const again = await w.spawnServer();
    assert.equal((await fetch(`http://127.0.0.1:${again.port}/health`)).status, 200);
    again.child.kill('SIGTERM');
    await once(again.child, 'exit');
  });

  test('Ctrl-C of a launcher-started serve (SIGINT to the whole process group) stops the child cleanly', {
    skip: (usePostgres && 'embedded data folder only') || noOldSystemNode,
  }, async () => {
    const launcher = watch(SYSTEM_NODE, [BIN, 'serve', '--port', '0'], { cwd: w.dir, env: { ...w.env, KONTOR_WORKER: 'off' }, detached: true });
    started.push(launcher);
    await launcher.waitFor(/listens on/);
    // The terminal signals the launcher and its child; the launcher forwards one more.
    process.kill(-launcher.child.pid!, 'SIGINT');
    await once(launcher.child, 'close');
    // The exit code may still tell SIGINT: the forwarded signal can land while the stopped
    // child exits. What counts is that the stop ran to its end.
    for (const file of ['kontor.lock', 'kontor.sock']) assert.equal(existsSync(path.join(w.dataDir, file)), false, `the clean stop removed ${file}`);
  });

  test('kill -9 of `kontor bank import` just before its commit: the child ends, nothing is imported, the data survives', async () => {
    const { company_id } = await bootstrap();
    w.writeFile('auszug.xml', camt([{ amount: '42.00', text: 'Rechnung RE-2026-09999', name: 'Niemand AG' }], { id: 'crash' }));
    // bank import always runs in a child (the lean flags), on any system node.
    const launcher = kontor(process.execPath, ['bank', 'import', 'auszug.xml', '--company', company_id, '--json'], {
      KONTOR_PAUSE_AT: 'bank-import.before-commit',
    });
    await launcher.waitFor(/kontor: paused at bank-import.before-commit/);
    const child = childOf(launcher);
    assert.ok(child, 'the import runs in a child process');
    assert.ok(commandLine(child).includes('--max-semi-space-size=4'), 'with the lean flag');

    launcher.child.kill('SIGKILL');
    await poll('the child to end', () => ended(child), 3000);

    const again = await w.run(['bank', 'import', 'auszug.xml', '--company', company_id, '--json']);
    assert.equal(again.code, 0, again.stderr);
    const result = JSON.parse(again.stdout) as { already_imported: boolean; entries: { status: string }[] };
    assert.equal(result.already_imported, false, 'the killed import committed nothing');
    assert.equal(result.entries[0]!.status, 'unmatched');
  });

  test('a `kontor bank import` started with its own --max-semi-space-size keeps it: no child with the lean flag', {
    skip: !hasProc && 'Linux /proc only',
  }, async () => {
    const { company_id } = await bootstrap();
    w.writeFile('auszug.xml', camt([{ amount: '42.00', text: 'Rechnung RE-2026-09999', name: 'Niemand AG' }], { id: 'own-flag' }));
    const p = watch(process.execPath, ['--max-semi-space-size=6', BIN, 'bank', 'import', 'auszug.xml', '--company', company_id, '--json'], {
      cwd: w.dir,
      env: { ...w.env, KONTOR_WORKER: 'off', KONTOR_PAUSE_AT: 'bank-import.before-commit' },
    });
    started.push(p);
    await p.waitFor(/kontor: paused at bank-import.before-commit/);
    assert.equal(childOf(p), undefined, 'the import runs in the started process');
    assert.ok(commandLine(p.child.pid!).includes('--max-semi-space-size=6'));
    p.child.kill('SIGKILL');
    await once(p.child, 'exit');
  });
});
