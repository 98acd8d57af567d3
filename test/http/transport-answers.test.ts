import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { DEFAULT_TIMEOUTS } from '../../src/http/transport.ts';
import { countRows, type TestApp, testApp } from '../helpers/app.ts';
import { BUSINESS_CUSTOMER } from '../invoicing/helpers.ts';

// The transport answers as documented (issue 11, point 6): 415 for a body that is not JSON,
// 405 with Allow for a known path and another method, a client that stops sending is cut
// off, and a 500 logs its cause without the personal data of the failed statement.

describe('transport answers', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp();
  });
  after(() => t.close());

  test('a body route refuses a Content-Type other than JSON with 415 unsupported_media_type', async () => {
    const cases: [string, string, string][] = [
      ['PUT', '/v1/customers/by-ref/crm/media-1', 'text/plain'],
      ['PUT', '/v1/customers/by-ref/crm/media-1', 'text/plain; charset=utf-8'],
      ['PUT', '/v1/customers/by-ref/crm/media-1', 'application/xml'],
      ['PUT', '/v1/customers/by-ref/crm/media-1', 'multipart/form-data; boundary=x'],
      ['PUT', '/v1/products/by-ref/shop/media-2', 'text/plain'],
      ['POST', '/v1/invoices', 'text/plain'],
    ];
    for (const [method, url, type] of cases) {
      const res = await t.request(method, url, {
        body: JSON.stringify({ name: 'Media GmbH' }),
        headers: { 'content-type': type, 'idempotency-key': 'media-1' },
      });
      assert.equal(res.statusCode, 415, `${method} ${url} ${type}: ${res.body}`);
      assert.equal(res.json().detail.code, 'unsupported_media_type');
    }
    assert.equal((await t.request('GET', '/v1/customers/by-ref/crm/media-1')).statusCode, 404, 'nothing stored');
    assert.equal(await countRows(t.handle, 'products'), 0);
    assert.equal(await countRows(t.handle, 'idempotency_keys'), 0);
  });

  test('a known path with another method answers 405 method_not_allowed with Allow listing its methods', async () => {
    const cases: [string, string, string][] = [
      ['DELETE', '/v1/customers/by-ref/crm/k-1', 'GET, HEAD, PUT'],
      ['POST', '/v1/customers/by-ref/crm/k-1', 'GET, HEAD, PUT'],
      ['PATCH', '/v1/products/by-ref/shop/p-1', 'GET, HEAD, PUT'],
      ['PUT', '/v1/invoices', 'GET, HEAD, POST'],
      ['DELETE', '/v1/invoices/inv_123?x=1', 'GET, HEAD'],
      ['GET', '/v1/invoices/inv_123/cancel', 'POST'],
    ];
    for (const [method, url, allow] of cases) {
      const res = await t.request(method, url, method === 'GET' || method === 'DELETE' ? {} : { body: { name: 'Allow GmbH' } });
      assert.equal(res.statusCode, 405, `${method} ${url}: ${res.body}`);
      assert.equal(res.json().detail.code, 'method_not_allowed');
      assert.equal(res.headers.allow, allow, `${method} ${url}`);
    }
    assert.equal((await t.request('GET', '/v1/customers/by-ref/crm/k-1')).statusCode, 404, 'nothing stored');
    const unknown = await t.request('DELETE', '/v1/no-such-thing');
    assert.equal(unknown.statusCode, 404, 'a path no method serves stays 404');
    assert.equal(unknown.json().detail.code, 'route_not_found');
    assert.equal(unknown.headers.allow, undefined);
  });

  test('the server cuts off slow clients by default: 30 s for a request, 10 s for its headers', async () => {
    assert.deepEqual(DEFAULT_TIMEOUTS, { requestMs: 30_000, headersMs: 10_000 });
    assert.equal(t.app.server.requestTimeout, 30_000);
    assert.equal(t.app.server.headersTimeout, 10_000);
  });
});

/** Sends `parts` on a raw connection, then waits for the server to close it; what it answered, and when. */
function rawExchange(port: number, head: string, body: string, giveUpMs: number): Promise<{ answer: string; closedAfterMs: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(head);
      if (body) socket.write(body);
    });
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      answer += chunk;
    });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server held the connection for ${giveUpMs} ms; answer so far: ${answer}`));
    }, giveUpMs);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ answer, closedAfterMs: Date.now() - started });
    });
    socket.on('error', () => {});
  });
}

describe('a client that stops sending is cut off (real port, short timeouts)', () => {
  let t: TestApp;
  let port: number;
  before(async () => {
    t = await testApp({ app: { timeouts: { requestMs: 400, headersMs: 200 } } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as net.AddressInfo).port;
  });
  after(() => t.close());

  const head = (contentLength: number) =>
    `PUT /v1/customers/by-ref/crm/slow-1 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${t.company.apiKey}\r\nContent-Type: application/json\r\nContent-Length: ${contentLength}\r\n\r\n`;

  test('half a body: 408 request_timeout in the error envelope, the connection closed, nothing stored', async () => {
    const body = JSON.stringify({ name: 'Langsam GmbH', city: 'Schneckenhausen' });
    const { answer, closedAfterMs } = await rawExchange(port, head(body.length), body.slice(0, 20), 5_000);
    assert.match(answer, /^HTTP\/1\.1 408 /);
    assert.match(answer, /\r\nConnection: close\r\n/i);
    const json = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
    assert.equal(json.detail.code, 'request_timeout');
    assert.ok(!answer.includes('Langsam'), 'nothing of the request is repeated');
    assert.ok(closedAfterMs >= 350 && closedAfterMs < 3_000, `closed after ${closedAfterMs} ms`);
    assert.equal((await t.request('GET', '/v1/customers/by-ref/crm/slow-1')).statusCode, 404, 'nothing stored');
  });

  test('half the headers: 408 and the connection closed', async () => {
    const { answer, closedAfterMs } = await rawExchange(port, 'GET /v1/customers/by-ref/crm/x HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthor', '', 5_000);
    assert.match(answer, /^HTTP\/1\.1 408 /);
    assert.match(answer, /"code":"request_timeout"/);
    assert.ok(closedAfterMs < 3_000, `closed after ${closedAfterMs} ms`);
  });

  test('an unreadable request (headers over 16 KiB) answers 400 malformed_request in the envelope and is closed', async () => {
    const { answer } = await rawExchange(
      port,
      `GET /v1/customers/by-ref/crm/x HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'geheim'.repeat(4000)}\r\n\r\n`,
      '',
      5_000,
    );
    assert.match(answer, /^HTTP\/1\.1 400 /);
    assert.match(answer, /"code":"malformed_request"/);
    assert.ok(!answer.includes('geheim'));
  });

  test('a request sent in time is answered as usual', async () => {
    const body = JSON.stringify({ name: 'Flink GmbH' });
    const socket = net.connect(port, '127.0.0.1');
    const answer = await new Promise<string>((resolve, reject) => {
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        text += chunk;
        if (text.includes('"Flink GmbH"')) resolve(text);
      });
      socket.on('error', reject);
      socket.write(head(body.length).replace('slow-1', 'fast-1') + body);
    });
    socket.destroy();
    assert.match(answer, /^HTTP\/1\.1 201 /);
  });
});

describe('a 500 logs its cause without personal data', () => {
  let t: TestApp;
  const lines: string[] = [];
  before(async () => {
    t = await testApp({ app: { logger: { level: 'info', stream: { write: (line: string) => lines.push(line) } } } });
    // A real failing statement: the customer insert breaks a check constraint.
    await sql`alter table customers add constraint customers_name_probe check (name <> ${sql.lit('Erika Mustermann')})`.execute(t.handle.db);
  });
  after(() => t.close());

  test('a failing statement: 500 internal_error; the log has SQLSTATE, constraint and table, not the names, e-mail or address sent', async () => {
    const sent = {
      ...BUSINESS_CUSTOMER,
      name: 'Erika Mustermann',
      email: 'erika.mustermann@example.org',
      street: 'Geheimweg',
      city: 'Verschwiegenheim',
      contact_name: 'Egon Privat',
    };
    const res = await t.request('PUT', '/v1/customers/by-ref/crm/erika', { body: sent });
    assert.equal(res.statusCode, 500, res.body);
    assert.deepEqual(res.json().detail, { code: 'internal_error', message: 'The service failed; repeat the request.' });

    const all = lines.join('');
    const errors = lines.map((line) => JSON.parse(line)).filter((line) => line.level === 50);
    assert.equal(errors.length, 1, all);
    const [line] = errors;
    assert.equal(line.reqId, res.headers['x-request-id']);
    assert.equal(line.err.type, 'DatabaseError');
    assert.equal(line.err.code, '23514');
    assert.equal(line.err.constraint, 'customers_name_probe');
    assert.equal(line.err.table, 'customers');
    assert.match(line.err.message, /violates check constraint "customers_name_probe"/);
    assert.match(line.err.stack, /^\s+at /, 'code locations');
    for (const personal of [sent.name, 'Erika', sent.email, sent.street, sent.city, sent.contact_name, sent.zip, sent.vat_id]) {
      assert.ok(!all.includes(personal), `the log names ${personal}`);
    }
    for (const field of ['detail', 'params', 'query', 'where']) assert.equal(line.err[field], undefined, `err.${field} is not logged`);
    assert.equal((await t.request('GET', '/v1/customers/by-ref/crm/erika')).statusCode, 404, 'nothing stored');
  });
});
