import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Database, openDatabase } from '../../src/db/connection.ts';
import { COMPANY_FILE } from './company.ts';
import { freshServerDatabase, usePostgres } from './database.ts';

// Runs the real `kontor` command in child processes against a fresh data folder (PGlite)
// or a fresh database on the PostgreSQL server (KONTOR_TEST_DB=postgres).

export const BIN = path.resolve(import.meta.dirname, '../../bin/kontor.js');

/**
 * V8 flags for the `kontor` processes of the tests: WebAssembly (PGlite) compiled by
 * Liftoff only, as the test processes themselves run (package.json). A short command then
 * spends about half the CPU of a TurboFan-compiled PGlite start (measured 5.1 s → 2.9 s on
 * a second open); the service in production keeps V8's defaults.
 */
export const NODE_FLAGS = ['--liftoff-only'];

export type CliResult = { code: number | null; stdout: string; stderr: string };
/** What `kontor admin bootstrap --json` prints. */
export type Booted = { organization_id: string; company_id: string; user_id: string; user_password: string; api_key: string };

export type CliWorkspace = {
  dir: string;
  dataDir: string;
  env: NodeJS.ProcessEnv;
  run(args: string[], extraEnv?: NodeJS.ProcessEnv): Promise<CliResult>;
  spawnServer(args?: string[], extraEnv?: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; port: number; output(): string }>;
  writeFile(name: string, content: unknown): string;
  /** `kontor admin bootstrap --json` for "<label> GmbH" (COMPANY_FILE with `extra`), admin <label>@example.com. */
  bootstrap(label: string, extra?: object): Promise<Booted>;
  /** Opens the workspace's database while no command holds it. */
  withDatabase<T>(work: (db: Database) => Promise<T>): Promise<T>;
  cleanup(): Promise<void>;
};

export async function cliWorkspace(): Promise<CliWorkspace> {
  const dir = mkdtempSync(path.join(tmpdir(), 'kontor-cli-'));
  const dataDir = path.join(dir, 'data');
  const server = usePostgres ? await freshServerDatabase() : undefined;
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn', KONTOR_DATA: dataDir, KONTOR_SECRET_KEY: 'cli-test-secret' };
  delete env.DATABASE_URL;
  if (server) env.DATABASE_URL = server.url;
  const children: ChildProcess[] = [];

  const run = (args: string[], extraEnv: NodeJS.ProcessEnv = {}) =>
    new Promise<CliResult>((resolve, reject) => {
      const child = spawn(process.execPath, [...NODE_FLAGS, BIN, ...args], { cwd: dir, env: { ...env, ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });

  return {
    dir,
    dataDir,
    env,
    run,
    async spawnServer(args = [], extraEnv = {}) {
      const child = spawn(process.execPath, [...NODE_FLAGS, BIN, 'serve', '--port', '0', ...args], {
        cwd: dir,
        env: { ...env, KONTOR_WORKER: 'off', ...extraEnv },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(child);
      let output = '';
      child.stdout!.on('data', (d) => (output += d));
      child.stderr!.on('data', (d) => (output += d));
      const port = await new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 30_000);
        const check = () => {
          const match = /listens on http:\/\/[^:]+:(\d+)/.exec(output);
          if (match) {
            clearTimeout(timer);
            resolve(Number(match[1]));
          }
        };
        child.stdout!.on('data', check);
        child.on('exit', () => reject(new Error(`server exited:\n${output}`)));
      });
      return { child, port, output: () => output };
    },
    writeFile(name, content) {
      const file = path.join(dir, name);
      writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
      return file;
    },
    async bootstrap(label, extra = {}) {
      const file = path.join(dir, `company-${label}.json`);
      writeFileSync(file, JSON.stringify({ ...COMPANY_FILE, ...extra }));
      const res = await run(['admin', 'bootstrap', '--org', `${label} GmbH`, '--company-file', file, '--admin-email', `${label}@example.com`, '--json']);
      if (res.code !== 0) throw new Error(`bootstrap ${label} failed (${res.code}): ${res.stderr}`);
      return JSON.parse(res.stdout) as Booted;
    },
    async withDatabase(work) {
      const handle = env.DATABASE_URL
        ? await openDatabase({ kind: 'postgres', url: env.DATABASE_URL })
        : await openDatabase({ kind: 'pglite', dataDir: path.join(dataDir, 'pg') });
      try {
        return await work(handle.db);
      } finally {
        await handle.close();
      }
    },
    async cleanup() {
      for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
      await server?.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
