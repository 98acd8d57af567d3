import assert from 'node:assert/strict';
import type net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { type TestApp, testApp } from '../helpers/app.ts';
import { exchange, parseAnswer, type RawAnswer, write } from './raw-socket.ts';

// Issue 24, point 5: some answers carried no x-request-id — the 400 for a request that is no
// valid HTTP and the 408 time-outs, which Node's 'clientError' writes to the socket without a
// request object — and some were not even in the error envelope (Node's own 400 for a
// missing Host, its 417 for an unknown Expect, Fastify's 503 while closing) or no answer at
// all (CONNECT). Every answer now has an id, the envelope {detail: {code, message}}, and the
// log line of the refusal names the same id.

const ID = /^req_[0-9a-f]{16}$/;

/** The answer is the documented refusal `code` with `status`, with a fresh request id that the log names. */
function assertRefusal(answer: RawAnswer, status: number, code: string, label: string) {
  assert.equal(answer.status, status, `${label}: ${answer.text.slice(0, 300)}`);
  assert.match(answer.headers['x-request-id'] ?? '', ID, `${label}: x-request-id`);
  assert.equal(answer.headers['content-type'], 'application/json; charset=utf-8', label);
  assert.equal(JSON.parse(answer.body).detail.code, code, label);
  assert.equal(typeof JSON.parse(answer.body).detail.message, 'string', label);
}

describe('every answer carries an x-request-id (real port, raw sockets)', () => {
  let t: TestApp;
  let port: number;
  const lines: string[] = [];
  before(async () => {
    t = await testApp({
      app: {
        timeouts: { requestMs: 600, headersMs: 300 },
        logger: { level: 'info', stream: { write: (line: string) => lines.push(line) } },
      },
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as net.AddressInfo).port;
  });
  after(() => t.close());

  /** The log lines that name `id`. */
  const logged = (id: string) => lines.map((line) => JSON.parse(line)).filter((line) => line.reqId === id);

  test('requests that are no valid HTTP: 400 malformed_request with an id, logged under that id, nothing of the request repeated', async () => {
    const cases: [string, string][] = [
      ['a request line that is no HTTP', 'HELLO geheim\r\n\r\n'],
      ['an HTTP/2 preface on HTTP/1.1', 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'],
      ['an unknown HTTP version', 'GET /health HTTP/3.7\r\nHost: x\r\n\r\n'],
      ['a control character in a header', 'GET /health HTTP/1.1\r\nHost: x\r\nX-A: geheim\u0001\r\n\r\n'],
      [
        'Content-Length and Transfer-Encoding together',
        'POST /v1/invoices HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      ],
      ['headers over 16 KiB', `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'geheim'.repeat(4000)}\r\n\r\n`],
    ];
    const ids = new Set<string>();
    for (const [label, request] of cases) {
      const answer = await exchange(port, (socket) => write(socket, request));
      assertRefusal(answer, 400, 'malformed_request', label);
      assert.match(answer.headers.connection ?? '', /close/i, label);
      assert.ok(!answer.text.includes('geheim'), `${label}: nothing of the request is repeated`);
      const id = answer.headers['x-request-id']!;
      ids.add(id);
      const [line] = logged(id);
      assert.equal(line?.msg, 'unreadable request', `${label}: the log line carries the id`);
    }
    assert.equal(ids.size, cases.length, 'each answer has its own id');
  });

  test('time-outs: 408 request_timeout with an id, for stalled headers and for a stalled body', async () => {
    const headers = await exchange(port, (socket) => write(socket, 'GET /health HTTP/1.1\r\nHost: x\r\nX-Half'));
    assertRefusal(headers, 408, 'request_timeout', 'stalled headers');
    const body = await exchange(port, (socket) =>
      write(
        socket,
        `PUT /v1/customers/by-ref/crm/slow HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.company.apiKey}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":`,
      ),
    );
    assertRefusal(body, 408, 'request_timeout', 'stalled body');
    assert.notEqual(body.headers['x-request-id'], headers.headers['x-request-id']);
    assert.equal(logged(body.headers['x-request-id']!)[0]?.msg, 'request timed out');
  });

  test('an HTTP/1.1 request without Host: 400 malformed_request in the envelope with an id (was Node’s bare 400)', async () => {
    const answer = await exchange(port, (socket) => write(socket, 'GET /health HTTP/1.1\r\n\r\n'));
    assertRefusal(answer, 400, 'malformed_request', 'no Host');
    // HTTP/1.0 needs no Host.
    const old = await exchange(port, (socket) => write(socket, 'GET /health HTTP/1.0\r\n\r\n'));
    assert.equal(old.status, 200, old.text);
    assert.match(old.headers['x-request-id'] ?? '', ID);
  });

  test('an Expect other than 100-continue: 417 expectation_failed in the envelope with an id (was Node’s bare 417)', async () => {
    const answer = await exchange(port, (socket) => write(socket, 'GET /health HTTP/1.1\r\nHost: x\r\nExpect: wunder\r\nConnection: close\r\n\r\n'));
    assertRefusal(answer, 417, 'expectation_failed', 'Expect: wunder');
    // 100-continue is met as before: the body is asked for and the request answered.
    const body = JSON.stringify({ name: 'Weiter GmbH' });
    const continued = await exchange(port, async (socket) => {
      await write(
        socket,
        `PUT /v1/customers/by-ref/crm/continue HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.company.apiKey}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`,
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
      await write(socket, body);
    });
    assert.match(continued.text, /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 201 /, continued.text.slice(0, 200));
  });

  test('CONNECT, which this server does not serve: 405 method_not_allowed with an id instead of a dropped connection', async () => {
    const answer = await exchange(port, (socket) => write(socket, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'));
    assertRefusal(answer, 405, 'method_not_allowed', 'CONNECT');
  });

  test('answers of the routes and of the framework carry it too: 200, 404, 405, 413, a broken path', async () => {
    const cases: [string, number][] = [
      ['GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', 200],
      ['GET /v1/nothing HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', 404],
      ['DELETE /v1/invoices HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', 405],
      [
        `PUT /v1/customers/by-ref/crm/x HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.company.apiKey}\r\nContent-Type: application/json\r\nContent-Length: 2000000\r\n\r\n{}`,
        413,
      ],
      ['GET /v1/customers/by-ref/crm/%ZZ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', 400],
    ];
    for (const [request, status] of cases) {
      const answer = await exchange(port, (socket) => write(socket, request), { giveUpMs: 3000 });
      assert.equal(answer.status, status, answer.text.slice(0, 200));
      assert.match(answer.headers['x-request-id'] ?? '', ID, request.split('\r\n')[0]);
    }
  });
});

describe('while the server closes', () => {
  test('a request that arrives on an open connection gets 503 service_unavailable in the envelope with an id and Connection: close (was Fastify’s own body)', async () => {
    const t = await testApp();
    try {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const port = (t.app.server.address() as net.AddressInfo).port;
      const body = JSON.stringify({ name: 'Vorher GmbH' });
      let closing: Promise<void> | undefined;
      const answer = await exchange(port, async (socket) => {
        // The first request is under way (half its body sent) when the server begins to close;
        // the second, pipelined behind it, is read only after the first was answered.
        await write(
          socket,
          `PUT /v1/customers/by-ref/crm/before HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.company.apiKey}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
        );
        await new Promise((resolve) => setTimeout(resolve, 100));
        closing = t.app.close();
        await new Promise((resolve) => setTimeout(resolve, 50));
        await write(socket, `${body.slice(5)}GET /health HTTP/1.1\r\nHost: x\r\n\r\n`);
      });
      await closing;
      assert.equal(answer.status, 201, answer.text);
      const second = parseAnswer(answer.text.slice(answer.text.indexOf('HTTP/1.1', 10)));
      assert.equal(second.status, 503, answer.text);
      assert.match(second.headers['x-request-id'] ?? '', ID, answer.text);
      assert.match(second.headers.connection ?? '', /close/i);
      assert.equal(second.headers['content-type'], 'application/json; charset=utf-8');
      assert.equal(JSON.parse(second.body).detail.code, 'service_unavailable');
    } finally {
      await t.close();
    }
  });
});
