import { chmodSync, existsSync, unlinkSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { CommandFailure, failureText } from './failure.ts';

// While `kontor serve` holds an embedded data folder, other `kontor` commands for that
// folder are carried out by the server: the command line sends its arguments over a
// Unix socket in the data folder (owner-only) and prints what comes back.

export type ForwardRequest = { argv: string[]; cwd: string };
export type ForwardResponse = { stdout: string; stderr: string; code: number };

export function socketPath(dataDir: string): string {
  return path.join(dataDir, 'kontor.sock');
}

export function startControlSocket(dataDir: string, handle: (request: ForwardRequest) => Promise<ForwardResponse>): Promise<net.Server> {
  const file = socketPath(dataDir);
  if (existsSync(file)) unlinkSync(file); // we hold the data folder lock: any socket here is stale
  const server = net.createServer((socket) => {
    let buffer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      const end = buffer.indexOf('\n');
      if (end < 0) return;
      let request: ForwardRequest;
      try {
        request = JSON.parse(buffer.slice(0, end)) as ForwardRequest;
      } catch {
        socket.end(`${JSON.stringify({ stdout: '', stderr: 'malformed request\n', code: 2 })}\n`);
        return;
      }
      handle(request).then(
        (response) => socket.end(`${JSON.stringify(response)}\n`),
        (error: unknown) => socket.end(`${JSON.stringify({ stdout: '', stderr: `${failureText(error)}\n`, code: 1 })}\n`),
      );
    });
    socket.on('error', () => {});
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(file, () => {
      chmodSync(file, 0o600);
      resolve(server);
    });
  });
}

/** Sends the command to a running server; undefined when none listens on this data folder. */
export function forwardToServer(dataDir: string, request: ForwardRequest): Promise<ForwardResponse | undefined> {
  const file = socketPath(dataDir);
  if (!existsSync(file)) return Promise.resolve(undefined);
  // The server ended while the command ran (killed, crashed): it may have committed or not.
  const gone = () =>
    new CommandFailure(`the server on ${dataDir} ended before it answered; whether the command took effect is unknown — check, then run it again`);
  return new Promise((resolve, reject) => {
    const socket = net.connect(file);
    let buffer = '';
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(`${JSON.stringify(request)}\n`));
    socket.on('data', (chunk: string) => {
      buffer += chunk;
    });
    socket.on('end', () => {
      try {
        resolve(JSON.parse(buffer) as ForwardResponse);
      } catch {
        reject(gone());
      }
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNREFUSED' || error.code === 'ENOENT') resolve(undefined);
      else if (error.code === 'ECONNRESET' || error.code === 'EPIPE') reject(gone());
      else reject(error);
    });
  });
}
