import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Database } from '../../src/db/connection.ts';
import { inTransaction } from '../../src/db/transaction.ts';
import { recordEvent } from '../../src/jobs/index.ts';

// A real HTTP receiver on a free local port: it keeps every request (headers and raw
// body) and answers as the test says.

export type Received = { path: string; headers: Record<string, string>; body: string; at: number };
export type Answer = (request: Received, response: ServerResponse) => void;

export type Receiver = {
  url(path?: string): string;
  received: Received[];
  /** Requests whose answer is still open. */
  open: number;
  answer: Answer;
  close(): Promise<void>;
};

export const ok: Answer = (_request, response) => {
  response.writeHead(204).end();
};

export async function startReceiver(answer: Answer = ok): Promise<Receiver> {
  const receiver: Receiver = {
    url: (path = '/hook') => `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`,
    received: [],
    open: 0,
    answer,
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    receiver.open += 1;
    response.on('close', () => (receiver.open -= 1));
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) if (typeof value === 'string') headers[name] = value;
      const received = { path: request.url ?? '', headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      receiver.received.push(received);
      receiver.answer(received, response);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return receiver;
}

/** Records one event in a transaction of its own (as an operation does with its change). */
export function record(db: Database, companyId: string, type: string, data: unknown): Promise<string> {
  return inTransaction(db, (trx) => recordEvent(trx, { companyId, type, data }));
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls until `condition` holds; fails after `timeoutMs`. */
export async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 20_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await sleep(10);
  }
}
