import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { bufferIo } from '../../src/cli/io.ts';
import { runCli } from '../../src/cli/run-cli.ts';
import { BIN, type CliResult, type CliWorkspace, cliWorkspace } from '../helpers/cli.ts';
import { usePostgres } from '../helpers/database.ts';
import { watch } from '../helpers/processes.ts';
import { camt } from '../payments/helpers.ts';

// What someone new to Kontor meets first: --version, --help on every command, one clear
// sentence instead of a stack trace, the first-run hint, the ignored files, the Node version.

const ROOT = path.resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
const STACK_LINE = /\n\s+at /;

describe('the kontor command for a newcomer', () => {
  let w: CliWorkspace;
  before(async () => {
    w = await cliWorkspace();
  });
  after(() => w.cleanup());

  /** Runs kontor with an environment of its own; killed (code null) after `timeoutMs`. */
  const run = (args: string[], env: NodeJS.ProcessEnv, timeoutMs = 20_000): Promise<CliResult> => {
    const p = watch(process.execPath, [BIN, ...args], { cwd: w.dir, env });
    const timer = setTimeout(() => p.child.kill('SIGKILL'), timeoutMs);
    return once(p.child, 'close').then(([code]) => {
      clearTimeout(timer);
      const output = p.output();
      return { code: code as number | null, stdout: output, stderr: output };
    });
  };
  /** Separate stdout and stderr. */
  const runSplit = (args: string[], extraEnv: NodeJS.ProcessEnv = {}) => w.run(args, extraEnv);

  test('kontor --version and -v print the package version and exit 0', async () => {
    for (const flag of ['--version', '-v']) {
      const res = await runSplit([flag]);
      assert.equal(res.code, 0, res.stderr);
      assert.equal(res.stdout, `kontor ${pkg.version}\n`);
    }
  });

  test('every command and command group answers --help with its usage and exit 0, touching neither data folder nor database', async () => {
    const all = bufferIo();
    assert.equal(await runCli(['--help'], all), 0);
    const commands = [...all.stdout.matchAll(/^ {2}kontor ((?:[a-z][a-z-]*)(?: [a-z][a-z-]*)*)/gm)].map((m) => m[1]!.split(' '));
    assert.ok(commands.length >= 15, all.stdout);
    // Every command and every group of commands (`admin`, `admin api-key`, …).
    const asked = new Map<string, string[]>();
    for (const words of commands) for (let n = 1; n <= words.length; n++) asked.set(words.slice(0, n).join(' '), words.slice(0, n));
    const lists = (output: string, words: string[]) => {
      const listed = commands.filter((c) => words.every((word, i) => c[i] === word)).map((c) => c.join(' '));
      for (const line of listed) assert.match(output, new RegExp(`^ {2}kontor ${line}\\b`, 'm'), `kontor ${words.join(' ')} --help lists ${line}`);
    };
    // In this process: every command but serve and worker (those would start, were --help ignored).
    const untouched = path.join(w.dir, 'never-created');
    const saved = { KONTOR_DATA: process.env.KONTOR_DATA, DATABASE_URL: process.env.DATABASE_URL };
    Object.assign(process.env, { KONTOR_DATA: untouched, DATABASE_URL: 'postgres://kontor@127.0.0.1:9/none' });
    try {
      for (const words of asked.values()) {
        if (words[0] === 'serve' || words[0] === 'worker') continue;
        const io = bufferIo();
        assert.equal(await runCli([...words, '--help'], io), 0, `kontor ${words.join(' ')} --help: ${io.stderr}`);
        lists(io.stdout, words);
      }
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }

    // As real processes: a data folder that must stay absent, a database nobody answers.
    const env = { ...w.env, KONTOR_DATA: untouched, DATABASE_URL: 'postgres://kontor@127.0.0.1:9/none' };
    const samples = [['serve'], ['worker'], ['admin'], ['admin', 'api-key'], ['bank', 'import'], ['export', 'datev']];
    const results = await Promise.all(samples.map(async (words) => ({ words, res: await run([...words, '--help'], env) })));
    for (const { words, res } of results) {
      assert.equal(res.code, 0, `kontor ${words.join(' ')} --help:\n${res.stdout}`);
      lists(res.stdout, words);
      assert.doesNotMatch(res.stdout, /listens on|kontor: /, `kontor ${words.join(' ')} --help does nothing else`);
    }
    const help = await runSplit(['help', 'bank', 'import'], env);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^ {2}kontor bank import FILE --company ID/m);
    assert.equal(existsSync(untouched), false, 'no data folder was created');
  });

  test('a command line that names no command says so, exit 2, and touches nothing', async () => {
    const untouched = path.join(w.dir, 'never-created-2');
    const env = { ...w.env, KONTOR_DATA: untouched };
    const group = await runSplit(['admin'], env);
    assert.equal(group.code, 2);
    assert.match(group.stderr, /^kontor: admin needs one of these commands:/);
    assert.match(group.stderr, /^ {2}kontor admin api-key create /m);
    const unknown = await runSplit(['rechnungen', '--help'], env);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /^kontor: unknown command: rechnungen\n/);
    assert.equal(existsSync(untouched), false);
  });

  test('a database server that cannot be reached or hangs up, or a port in use, gives one sentence on stderr, exit 1, no stack trace and no password', async () => {
    const free = net.createServer();
    await new Promise<void>((resolve) => free.listen(0, '127.0.0.1', resolve));
    const closedPort = (free.address() as net.AddressInfo).port;
    await new Promise((resolve) => free.close(resolve));
    const hangUp = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => hangUp.listen(0, '127.0.0.1', resolve));
    const hangUpPort = (hangUp.address() as net.AddressInfo).port;
    try {
      const url = (port: number) => `postgres://kontor:geheim@127.0.0.1:${port}/kontor`;
      const refused = await runSplit(['migrate'], { DATABASE_URL: url(closedPort) });
      assert.equal(refused.code, 1);
      assert.equal(refused.stdout, '');
      assert.match(refused.stderr, new RegExp(`^kontor: cannot reach the database server 127\\.0\\.0\\.1:${closedPort} \\(ECONNREFUSED\\)[^\\n]*\\n$`));

      const gone = await runSplit(['admin', 'api-key', 'revoke', 'key_1'], { DATABASE_URL: url(hangUpPort) });
      assert.equal(gone.code, 1);
      assert.match(gone.stderr, /^kontor: the connection to the database server 127\.0\.0\.1:\d+ broke off \([^)]+\)[^\n]*\n$/);
      for (const res of [refused, gone]) assert.doesNotMatch(res.stderr, /geheim/);

      const taken = await run(['serve', '--port', String(hangUpPort)], { ...w.env, KONTOR_DATA: path.join(w.dir, 'port-taken') });
      assert.equal(taken.code, 1, taken.stderr);
      assert.match(taken.stderr, new RegExp(`^kontor: port ${hangUpPort} is in use by another program; choose another with --port or PORT\n$`));

      const debug = await runSplit(['migrate'], { DATABASE_URL: url(closedPort), KONTOR_DEBUG: '1' });
      assert.equal(debug.code, 1);
      assert.match(debug.stderr, /^kontor: cannot reach the database server/);
      assert.match(debug.stderr, STACK_LINE, 'KONTOR_DEBUG=1 adds the stack trace');
    } finally {
      hangUp.close();
    }
  });

  test('a command whose server dies while it carries the command out ends with one sentence, exit 1', {
    skip: usePostgres && 'commands reach a server only on the embedded data folder',
  }, async () => {
    const { company_id } = await w.bootstrap('neu');
    const server = watch(process.execPath, [BIN, 'serve', '--port', '0'], {
      cwd: w.dir,
      env: { ...w.env, KONTOR_WORKER: 'off', KONTOR_PAUSE_AT: 'bank-import.before-commit' },
    });
    try {
      await server.waitFor(/listens on/);
      w.writeFile('auszug.xml', camt([{ amount: '10.00', text: 'Spende' }], { id: 'newcomer' }));
      const command = runSplit(['bank', 'import', 'auszug.xml', '--company', company_id]);
      await server.waitFor(/kontor: paused at bank-import.before-commit/);
      server.child.kill('SIGKILL');
      const res = await command;
      assert.equal(res.code, 1);
      assert.equal(res.stdout, '');
      assert.match(res.stderr, /^kontor: the server on \S+ ended before it answered; whether the command took effect is unknown[^\n]*\n$/);
    } finally {
      server.child.kill('SIGKILL');
    }
  });

  test("the first start on an empty database prints the README's first steps", async () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const copy = /^cp docs\/company\.example\.json company\.json\b/m.exec(readme);
    const bootstrap = /^npx kontor admin bootstrap .*$/m.exec(readme);
    assert.ok(copy && bootstrap, 'the README shows both steps');
    const data = path.join(w.dir, 'fresh');
    const server = watch(process.execPath, [BIN, 'serve', '--port', '0', '--data', data], {
      cwd: w.dir,
      env: { ...w.env, KONTOR_WORKER: 'off' },
    });
    try {
      await server.waitFor(/npx kontor admin bootstrap[^\n]*\n/);
      const hint = server.output();
      const cp = /^ {2}cp (\S+) company\.json\b/m.exec(hint);
      assert.ok(cp, hint);
      assert.equal(path.resolve(w.dir, cp[1]!), path.join(ROOT, 'docs/company.example.json'), 'the copy names the example file as seen from here');
      const dataFlag = usePostgres ? '' : ` --data ${data}`;
      assert.match(hint, new RegExp(`^ {2}${escapeRegExp(bootstrap[0].replace(/ --json$/, `${dataFlag} --json`))}$`, 'm'));
    } finally {
      server.child.kill('SIGKILL');
    }
  });

  test('company.json and data/ are ignored by git', { skip: !existsSync(path.join(ROOT, '.git')) && 'not a git checkout' }, () => {
    const check = spawnSync('git', ['check-ignore', 'company.json', 'data/pg', 'docs/company.example.json'], { cwd: ROOT, encoding: 'utf8' });
    assert.deepEqual(check.stdout.split('\n').filter(Boolean), ['company.json', 'data/pg']);
  });

  test("the README's minimum Node version satisfies the engines of every locked dependency", () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const stated = /Needs Node\.js ≥ (\d+(?:\.\d+){0,2})/.exec(readme);
    assert.ok(stated, 'the README states the minimum Node version');
    // semver comes with npm's dependency tree (fastify uses it).
    const semver = createRequire(import.meta.url)('semver') as {
      coerce(v: string): { version: string } | null;
      satisfies(v: string, range: string): boolean;
    };
    const minimum = semver.coerce(stated[1]!)!.version;
    const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { version?: string; engines?: { node?: string } }>;
    };
    const refusing = Object.entries(lock.packages)
      .filter(([, entry]) => entry.engines?.node && !semver.satisfies(minimum, entry.engines.node))
      .map(([name, entry]) => `${name.replace(/^.*node_modules\//, '')}@${entry.version} needs node ${entry.engines!.node}`);
    assert.deepEqual(refusing, [], `npm install on Node ${minimum} would warn`);
  });
});

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
