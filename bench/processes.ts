// The child processes a bench run starts: `kontor` commands, `kontor serve`, and the bench
// workers (load.ts, ceiling.ts, auth-overhead.ts). Every one is tracked so that an
// interrupted run ends them.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { flagsOf } from './node-flags.ts';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const KONTOR = `${ROOT}bin/kontor.js`;
const running = new Set<ChildProcess>();

/** Ends every child still running (SIGKILL: used when the run itself is interrupted). */
export function killChildren() {
  for (const child of running) child.kill('SIGKILL');
}

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

function track(args: string[], env: NodeJS.ProcessEnv, stderr: 'pipe' | 'inherit') {
  // process.execPath is the pinned Node 24, so bin/kontor.js runs in this very process
  // and does not hand over to a second one: the pid is the server's.
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', stderr] });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let stdout = '';
  let errors = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout = (stdout + chunk.toString()).slice(-1_000_000);
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    errors = (errors + chunk.toString()).slice(-20_000);
  });
  return { child, output: () => ({ stdout, stderr: errors }) };
}

/** Runs a Node script or `kontor` command to its end (killed after timeoutMs); returns its stdout. */
export async function runNode(args: string[], env: NodeJS.ProcessEnv, timeoutMs: number, stderr: 'pipe' | 'inherit' = 'pipe'): Promise<string> {
  const { child, output } = track(args, env, stderr);
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await exited(child);
  clearTimeout(timer);
  const { stdout, stderr: errors } = output();
  if (code !== 0) throw new Error(`${args.slice(0, 3).join(' ')} failed (exit ${code ?? child.signalCode}):\n${errors || stdout}`);
  return stdout;
}

export const kontor = (args: string[], env: NodeJS.ProcessEnv, timeoutMs = 120_000) => runNode([KONTOR, ...args], env, timeoutMs);

export type BootstrapResult = { organization_id: string; company_id: string; user_id: string; user_password: string; api_key: string };

export async function bootstrap(env: NodeJS.ProcessEnv, dataDir: string): Promise<BootstrapResult> {
  const stdout = await kontor(
    [
      'admin',
      'bootstrap',
      '--org',
      'Bench GmbH',
      '--company-file',
      'docs/company.example.json',
      '--admin-email',
      'bench@example.com',
      '--json',
      '--data',
      dataDir,
    ],
    env,
  );
  return JSON.parse(stdout.trim().split('\n').pop() ?? '') as BootstrapResult;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === 'string') throw new Error('no free port');
  return address.port;
}

export type Server = { url: string; pid: number; startupMs: number; stop(): Promise<number | null> };

/** Starts `kontor serve` and waits until GET /health answers; startupMs is spawn → first answer. */
export async function startServer(env: NodeJS.ProcessEnv, dataDir: string, timeoutMs = 60_000): Promise<Server> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const t0 = performance.now();
  // With the flags `npm start` gives it (bin/node-flags.json).
  const { child, output } = track([...flagsOf('serve'), KONTOR, 'serve', '--data', dataDir, '--port', String(port)], env, 'pipe');
  const stop = async () => {
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    const code = await exited(child);
    clearTimeout(timer);
    return code;
  };
  while (performance.now() - t0 < timeoutMs) {
    if (child.exitCode !== null) throw new Error(`kontor serve exited with ${child.exitCode}:\n${output().stderr}`);
    try {
      const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1000) });
      await response.arrayBuffer();
      if (response.ok) return { url, pid: child.pid as number, startupMs: performance.now() - t0, stop };
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await stop();
  throw new Error(`kontor serve did not answer /health within ${timeoutMs} ms:\n${output().stderr}`);
}

/** Resident memory of a process in MiB (VmRSS of /proc/<pid>/status). */
export function residentMiB(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmRSS for process ${pid}`);
  return Number(match[1]) / 1024;
}
