import assert from 'node:assert/strict';
import type net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { countRows, type TestApp, testApp } from '../helpers/app.ts';
import { exchange, type RawAnswer, sendBody, write } from './raw-socket.ts';

// Issue 24, point 5: bodies over 1 MiB often got a dropped connection instead of the
// documented 413 (4–6 of 20 tries at 2 MB and 20 MB). The answer left while the client was
// still sending, and the connection was closed with the rest unread: a reset, which lost the
// answer for a client that sends its whole request before it reads. Now the rest of a refused
// body is read and dropped (up to 64 MiB, for at most half the request timeout), then the
// answer leaves and the connection closes cleanly.

const MB = 1_000_000;
const ID = /^req_[0-9a-f]{16}$/;

function assertComplete413(answer: RawAnswer, label: string) {
  assert.equal(answer.error, undefined, `${label}: the client saw ${answer.error}; answer so far: ${answer.text.slice(0, 200)}`);
  assert.equal(answer.status, 413, `${label}: ${answer.text.slice(0, 200)}`);
  assert.match(answer.headers['x-request-id'] ?? '', ID, label);
  assert.match(answer.headers.connection ?? '', /close/i, label);
  assert.equal(answer.body.length, Number(answer.headers['content-length']), `${label}: the whole body arrived`);
  assert.deepEqual(JSON.parse(answer.body), { detail: { code: 'payload_too_large', message: 'The request body is larger than 1 MiB.' } }, label);
}

describe('a body over 1 MiB gets a complete 413 on a real connection', () => {
  let t: TestApp;
  let port: number;
  before(async () => {
    t = await testApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as net.AddressInfo).port;
  });
  after(() => t.close());

  const head = (framing: string, ref = 'gross') =>
    `PUT /v1/customers/by-ref/crm/${ref} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${t.company.apiKey}\r\nContent-Type: application/json\r\n${framing}\r\n`;

  for (const size of [2 * MB, 20 * MB]) {
    for (const chunked of [false, true]) {
      const label = `${size / MB} MB ${chunked ? 'chunked' : 'with Content-Length'}`;
      test(`${label}, sent whole before the answer is read, 20 times: 20 complete 413 answers`, async () => {
        for (let i = 0; i < 20; i++) {
          const answer = await exchange(
            port,
            async (socket) => {
              await write(socket, head(chunked ? 'Transfer-Encoding: chunked\r\n' : `Content-Length: ${size}\r\n`));
              await sendBody(socket, size, { chunked });
            },
            { readAfterSending: true },
          );
          assertComplete413(answer, `${label}, try ${i + 1}`);
        }
        assert.equal((await t.request('GET', '/v1/customers/by-ref/crm/gross')).statusCode, 404, 'nothing stored');
      });
    }
  }

  test('a real HTTP client (fetch) sending 20 MB, with Content-Length and as a stream: 413 with the error body, 5 times each', async () => {
    const body = Buffer.alloc(20 * MB, 'x');
    for (let i = 0; i < 5; i++) {
      for (const stream of [false, true]) {
        const res = await fetch(`http://127.0.0.1:${port}/v1/customers/by-ref/crm/gross`, {
          method: 'PUT',
          headers: { authorization: `Bearer ${t.company.apiKey}`, 'content-type': 'application/json' },
          body: stream
            ? new ReadableStream({
                start(controller) {
                  for (let at = 0; at < body.length; at += 256 * 1024) controller.enqueue(body.subarray(at, at + 256 * 1024));
                  controller.close();
                },
              })
            : body,
          ...(stream ? { duplex: 'half' } : {}),
        } as RequestInit);
        assert.equal(res.status, 413, `try ${i + 1}, stream ${stream}`);
        assert.match(res.headers.get('x-request-id') ?? '', ID);
        assert.equal((await res.json()).detail.code, 'payload_too_large');
      }
    }
  });

  test('a slow sender (2 MB in 64 KiB pieces every 20 ms, about 0.7 s) gets the complete 413, with Content-Length and chunked', async () => {
    for (const chunked of [false, true]) {
      const answer = await exchange(
        port,
        async (socket) => {
          await write(socket, head(chunked ? 'Transfer-Encoding: chunked\r\n' : `Content-Length: ${2 * MB}\r\n`));
          await sendBody(socket, 2 * MB, { chunked, pauseMs: 20 });
        },
        { readAfterSending: true },
      );
      assertComplete413(answer, `slow, ${chunked ? 'chunked' : 'Content-Length'}`);
    }
  });

  test('other answers before the body is read wait for it too: 415 for 5 MB of text/plain, 401 for 20 MB without a key', async () => {
    const media = await exchange(
      port,
      async (socket) => {
        await write(socket, head(`Connection: close\r\nContent-Length: ${5 * MB}\r\n`).replace('application/json', 'text/plain'));
        await sendBody(socket, 5 * MB, { chunked: false });
      },
      { readAfterSending: true },
    );
    assert.equal(media.error, undefined, media.text.slice(0, 200));
    assert.equal(media.status, 415, media.text.slice(0, 200));
    assert.equal(JSON.parse(media.body).detail.code, 'unsupported_media_type');
    const unauthorised = await exchange(
      port,
      async (socket) => {
        await write(
          socket,
          `PUT /v1/customers/by-ref/crm/gross HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: ${20 * MB}\r\n\r\n`,
        );
        await sendBody(socket, 20 * MB, { chunked: false });
      },
      { readAfterSending: true },
    );
    assert.equal(unauthorised.error, undefined, unauthorised.text.slice(0, 200));
    assert.equal(unauthorised.status, 401, unauthorised.text.slice(0, 200));
    assert.equal(JSON.parse(unauthorised.body).detail.code, 'api_key_missing');
    assert.equal(await countRows(t.handle, 'customers'), 0, 'nothing stored');
  });

  test('answers to requests that arrived whole do not wait: injected (as the tests send them) and over the port', async () => {
    // Half the request timeout is 15 s: any wait for a body that has already ended would show.
    const started = Date.now();
    for (let i = 0; i < 5; i++) {
      const put = await t.request('PUT', `/v1/customers/by-ref/crm/schnell-${i}`, { body: { name: 'Schnell GmbH' } });
      assert.equal(put.statusCode, 201, put.body);
      assert.equal((await t.request('GET', `/v1/customers/by-ref/crm/schnell-${i}`)).statusCode, 200);
      const refused = await t.request('PUT', `/v1/customers/by-ref/crm/x-${i}`, { body: { name: 42 } });
      assert.equal(refused.statusCode, 422);
      const res = await fetch(`http://127.0.0.1:${port}/v1/customers/by-ref/crm/schnell-${i}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${t.company.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Schnell GmbH' }),
      });
      assert.equal(res.status, 200);
    }
    assert.ok(Date.now() - started < 10_000, `20 requests took ${Date.now() - started} ms`);
  });

  test('a keep-alive connection that sent an acceptable body stays usable for the next request', async () => {
    const body = JSON.stringify({ name: 'Klein GmbH' });
    const answer = await exchange(port, async (socket) => {
      await write(socket, head(`Content-Length: ${body.length}\r\n`, 'klein') + body);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await write(socket, 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    });
    assert.match(answer.text, /^HTTP\/1\.1 201 [\s\S]*HTTP\/1\.1 200 /, answer.text.slice(0, 300));
  });
});

describe('a sender that stops after going over the limit (short timeouts)', () => {
  let t: TestApp;
  let port: number;
  before(async () => {
    t = await testApp({ app: { timeouts: { requestMs: 2000, headersMs: 1000 } } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as net.AddressInfo).port;
  });
  after(() => t.close());

  test('gets the 413 after half the request timeout (1 s of 2 s), not a 408, and the connection is closed', async () => {
    const answer = await exchange(port, async (socket) => {
      await write(
        socket,
        `PUT /v1/customers/by-ref/crm/stockt HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${t.company.apiKey}\r\nContent-Type: application/json\r\nContent-Length: ${3 * MB}\r\n\r\n`,
      );
      await sendBody(socket, 1.5 * MB, { chunked: false });
      // … and nothing more: the client waits for an answer.
    });
    assert.equal(answer.status, 413, answer.text.slice(0, 200));
    assert.equal(JSON.parse(answer.body).detail.code, 'payload_too_large');
    assert.ok(answer.closedAfterMs >= 900 && answer.closedAfterMs < 1900, `closed after ${answer.closedAfterMs} ms`);
  });
});
