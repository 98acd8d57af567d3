import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { BIN, type CliWorkspace, cliWorkspace } from '../helpers/cli.ts';
import { type Watched, watch } from '../helpers/processes.ts';
import { type Block, type Command, fieldPatterns, linePattern, shellBlocks } from './readme-blocks.ts';

// Every ```sh example of README.md runs as written, in order, on a fresh company: a real
// `kontor serve` on a fresh data folder (or a fresh PostgreSQL database), the README's
// address rewritten to the server's port, each command in bash with `npx kontor` as the
// command of this checkout. Ids the README writes as `cmp_…`, `inv_…`, `kt_…` are what a
// reader copies from an earlier answer: the first id of that kind in the latest output that
// names one (the transcript is in artifacts/readme-examples.log). Every
// command must exit 0 and every HTTP answer be 2xx, unless the comment under it says what
// it answers: `# 201 {…}` (status and fields), `# kontor: …` (refused with that sentence),
// or lines of its output (each must appear, `…` standing for any text).

const ROOT = path.resolve(import.meta.dirname, '../..');
const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
/** The service clock the README's examples are written for (README, "First steps"). */
const README_NOW = '2026-11-27T09:00:00+01:00';
const STATUS = /^@@status (\d{3})$/gm;
const ID = /\b([a-z]{2,4})_([0-9A-Za-z]{20,})\b/g;

type Ran = { code: number | null; stdout: string; stderr: string; statuses: number[] };

describe('README examples on a fresh company', () => {
  let w: CliWorkspace;
  let port: number;
  let server: Watched | undefined;
  const ids = new Map<string, string>();
  const transcript: string[] = [];
  let vars: string;
  let prelude: string;

  before(async () => {
    w = await cliWorkspace();
    mkdirSync(path.join(w.dir, 'docs'));
    cpSync(path.join(ROOT, 'docs/company.example.json'), path.join(w.dir, 'docs/company.example.json'));
    cpSync(path.join(ROOT, 'examples'), path.join(w.dir, 'examples'), { recursive: true });
    // `npm start` as the README has it, on a free port (no worker: `kontor jobs run` does the daily work).
    server = watch(process.execPath, [BIN, 'serve', '--port', '0'], { cwd: w.dir, env: { ...w.env, KONTOR_NOW: README_NOW, KONTOR_WORKER: 'off' } });
    port = Number((await server.waitFor(/listens on http:\/\/[^:]+:(\d+)/, 120_000))[1]);
    vars = path.join(w.dir, '.readme-vars.sh');
    prelude = path.join(w.dir, '.readme-prelude.sh');
    writeFileSync(
      prelude,
      [
        'set -a',
        `[ -f '${vars}' ] && source '${vars}'`,
        // `npx kontor` is this checkout's command; nothing else is fetched from a registry.
        `npx() { if [ "$1" = kontor ]; then shift; '${process.execPath}' '${BIN}' "$@"; else echo "readme-examples: only npx kontor runs here" >&2; return 127; fi; }`,
        // curl as written, with its answer's status on a line of its own.
        `curl() { command curl -sS -w '\\n@@status %{http_code}\\n' "$@"; }`,
        '',
      ].join('\n'),
    );
  });
  after(async () => {
    mkdirSync(path.join(ROOT, 'artifacts'), { recursive: true });
    writeFileSync(path.join(ROOT, 'artifacts/readme-examples.log'), transcript.join('\n'));
    if (server && server.child.exitCode === null) {
      server.child.kill('SIGTERM');
      await once(server.child, 'close');
    }
    await w?.cleanup();
  });

  /** The command as the reader types it: their ids for the README's placeholders, the server's port. */
  const asTyped = (command: Command): string =>
    command.text
      .replace(/\b([a-z]{2,4})_…/g, (shown, kind: string) => {
        const id = ids.get(kind);
        assert.ok(id, `README line ${command.line}: ${shown} stands for an id that no earlier example printed`);
        return id;
      })
      .replaceAll('http://127.0.0.1:8080', `http://127.0.0.1:${port}`);

  const runBash = (script: string): Promise<Ran> =>
    new Promise((resolve, reject) => {
      const child = spawn('bash', ['-c', script], {
        cwd: w.dir,
        // Node's compile cache: the commands' processes load Kontor in half the time after the first.
        env: { ...w.env, KONTOR_NOW: README_NOW, NODE_COMPILE_CACHE: path.join(w.dir, '.node-compile-cache') },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        const statuses = [...stdout.matchAll(STATUS)].map((m) => Number(m[1]));
        resolve({ code, stdout: stdout.replace(STATUS, '').trim(), stderr, statuses });
      });
    });

  const check = (command: Command, typed: string, ran: Ran) => {
    const where = `README line ${command.line}: ${typed.split('\n')[0]}\n--- stdout\n${ran.stdout}\n--- stderr\n${ran.stderr}`;
    const expect = command.expect;
    if (expect?.kind === 'refusal') {
      assert.equal(ran.code, 1, `refused as the README shows (exit 1) — ${where}`);
      assert.match(ran.stderr, linePattern(expect.text), `the README's sentence — ${where}`);
      return;
    }
    assert.equal(ran.code, 0, `exit 0 — ${where}`);
    const shownStatus = expect?.kind === 'answer' ? expect.status : undefined;
    if (shownStatus) assert.equal(ran.statuses.at(-1), shownStatus, `HTTP status as the README shows — ${where}`);
    else for (const status of ran.statuses) assert.ok(status < 400, `HTTP ${status} — ${where}`);
    if (expect?.kind === 'answer' && expect.json) {
      let compact = ran.stdout;
      try {
        compact = JSON.stringify(JSON.parse(ran.stdout));
      } catch {}
      for (const field of fieldPatterns(expect.json)) assert.match(compact, field.pattern, `the answer has ${field.shown} — ${where}`);
    }
    if (expect?.kind === 'lines') for (const line of expect.lines) assert.match(ran.stdout, linePattern(line), `the output has the line "${line}" — ${where}`);
  };

  const runBlock = async (block: Block) => {
    for (const command of block.commands) {
      const typed = asTyped(command);
      const ran = await runBash(`source '${prelude}'\n${typed}\n__rc=$?\nexport -p | grep -Ev '^declare -x (_|SHLVL|PWD|OLDPWD)=' > '${vars}'\nexit $__rc\n`);
      transcript.push(`$ ${typed}\n${ran.stdout}\n${ran.stderr}[exit ${ran.code}; HTTP ${ran.statuses.join(', ') || '–'}]\n`);
      check(command, typed, ran);
      // What the reader copies into the next commands: the ids this output named.
      const named = new Set<string>();
      for (const [id, kind] of ran.stdout.matchAll(ID)) {
        if (named.has(kind!)) continue;
        named.add(kind!);
        ids.set(kind!, id);
      }
    }
  };

  const blocks = shellBlocks(README);
  test('the README has its examples, and only a few are marked as not runnable (each with its reason)', () => {
    assert.ok(blocks.length >= 15, `${blocks.length} sh blocks`);
    const skipped = blocks.filter((b) => b.skip);
    assert.ok(skipped.length <= 6, `skipped: ${skipped.map((b) => `line ${b.line} (${b.skip})`).join('; ')}`);
  });

  for (const block of blocks) {
    if (block.skip) {
      test(`README line ${block.line}: not run — ${block.skip}`, { skip: block.skip }, () => {});
      continue;
    }
    test(`README line ${block.line}: ${block.commands[0]?.text.split('\n')[0]?.slice(0, 70) ?? ''}`, () => runBlock(block));
  }
});
