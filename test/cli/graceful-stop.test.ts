import assert from 'node:assert/strict';
import { once } from 'node:events';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { type Booted, type CliWorkspace, cliWorkspace } from '../helpers/cli.ts';

// Issue 29 §1: SIGTERM stops `kontor serve` gracefully — no new connections, the request
// in flight finished and answered, then exit 0 — and within KONTOR_STOP_TIMEOUT: a request
// that never completes is cut off at the deadline and the process ends with 1 and says why.

const BODY = JSON.stringify({ name: 'Abschluss GmbH', customer_type: 'business', country_code: 'DE' });

/** A PUT whose head and first half of the body are sent now; `finish()` sends the rest and resolves with the raw answer. */
async function halfSent(port: number, key: string, ref: string) {
  const socket = net.connect(port, '127.0.0.1');
  await once(socket, 'connect');
  let answer = '';
  socket.on('data', (chunk) => (answer += chunk));
  const closed = once(socket, 'close');
  socket.write(
    `PUT /v1/customers/by-ref/crm/${ref} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(BODY)}\r\nConnection: close\r\n\r\n${BODY.slice(0, 10)}`,
  );
  return {
    async finish() {
      socket.write(BODY.slice(10));
      await closed;
      return answer;
    },
    async closed() {
      await closed;
      return answer;
    },
  };
}

const refused = (port: number) =>
  new Promise<string>((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.on('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
  });

describe('stopping kontor serve', () => {
  let w: CliWorkspace;
  let boot: Booted;
  before(async () => {
    w = await cliWorkspace();
    boot = await w.bootstrap('stopp');
  });
  after(() => w.cleanup());

  test('SIGTERM with a request in flight: no new connections, the request is answered, exit 0', async () => {
    const server = await w.spawnServer();
    const inFlight = await halfSent(server.port, boot.api_key, 'im-flug');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const exited = once(server.child, 'exit');
    server.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(await refused(server.port), 'ECONNREFUSED', 'the server takes no new connections while it stops');
    const answer = await inFlight.finish();
    assert.match(answer, /^HTTP\/1\.1 201 /, answer);
    const [code] = await exited;
    assert.equal(code, 0, server.output());
    // The customer was stored: the next server has it.
    const again = await w.spawnServer();
    const res = await fetch(`http://127.0.0.1:${again.port}/v1/customers/by-ref/crm/im-flug`, { headers: { authorization: `Bearer ${boot.api_key}` } });
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as { name: string }).name, 'Abschluss GmbH');
    again.child.kill('SIGTERM');
    assert.deepEqual(await once(again.child, 'exit'), [0, null]);
  });

  test('a request that never completes is cut off at KONTOR_STOP_TIMEOUT: exit 1, and the reason on stderr', async () => {
    const server = await w.spawnServer([], { KONTOR_STOP_TIMEOUT: '1' });
    const stalled = await halfSent(server.port, boot.api_key, 'haengt');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = Date.now();
    const exited = once(server.child, 'exit');
    server.child.kill('SIGTERM');
    const [code] = await exited;
    const took = Date.now() - started;
    assert.equal(code, 1);
    assert.ok(took >= 900 && took < 10_000, `stopped after ${took} ms`);
    assert.match(server.output(), /kontor: stopped after 1 s with requests or jobs still running \(KONTOR_STOP_TIMEOUT\); they are cut off/);
    assert.doesNotMatch(await stalled.closed(), /^HTTP\/1\.1 201/, 'the cut-off request was not answered as done');
  });

  test('KONTOR_STOP_TIMEOUT must be whole seconds from 1', async () => {
    const res = await w.run(['serve', '--port', '0'], { KONTOR_STOP_TIMEOUT: '0' });
    assert.equal(res.code, 1);
    assert.match(res.stderr, /KONTOR_STOP_TIMEOUT must be 1–3600 seconds, got 0/);
  });
});
