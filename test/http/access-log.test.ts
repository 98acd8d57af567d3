import assert from 'node:assert/strict';
import type net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { type TestApp, testApp } from '../helpers/app.ts';
import { putCustomer } from '../invoicing/helpers.ts';
import { signedIn } from '../web/client.ts';

// Issue 29 §1: the access log carries no personal data and no external reference. A line
// names the method and the route's pattern, never the URL (its path holds the company's
// references, its query a searched name), nor the client's address, port or Host; a
// request the framework refuses logs its code, not its message (which can quote the body).

describe('the access log', () => {
  let t: TestApp;
  let port: number;
  const lines: string[] = [];
  const logged = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  before(async () => {
    t = await testApp({ app: { logger: { level: 'info', stream: { write: (line: string) => lines.push(line) } } } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as net.AddressInfo).port;
  });
  after(() => t.close());

  test('an API request: the route’s pattern and the status, not the external reference, the address or the host', async () => {
    lines.length = 0;
    const res = await fetch(`http://127.0.0.1:${port}/v1/customers/by-ref/crm/kunde-geheim-4711`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${t.company.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Geheimkunde GmbH', customer_type: 'business', country_code: 'DE', city: 'Verschwiegenheim' }),
    });
    assert.equal(res.status, 201, await res.text());
    const id = res.headers.get('x-request-id');
    const mine = logged().filter((line) => line.reqId === id);
    assert.deepEqual(
      mine.map((line) => line.msg),
      ['incoming request', 'request completed'],
    );
    assert.deepEqual(mine[0]?.req, { method: 'PUT', route: '/v1/customers/by-ref/:source/:external_ref' });
    assert.deepEqual(mine[1]?.res, { statusCode: 201 });
    assert.equal(typeof mine[1]?.responseTime, 'number');
    const all = lines.join('');
    for (const secret of [
      'geheim',
      'Geheim',
      'Verschwiegenheim',
      '127.0.0.1',
      `:${port}`,
      'remoteAddress',
      'remotePort',
      '"host"',
      t.company.apiKey.slice(0, 8),
    ])
      assert.ok(!all.includes(secret), `the log holds ${secret}`);
  });

  test('an app page with a search: no searched name; an unknown path: no path; a broken body: no body', async () => {
    await putCustomer(t, 'kunde-1', { name: 'Erika Geheimname' });
    const web = await signedIn(t);
    lines.length = 0;
    assert.equal((await web.get('/app/customers?q=Geheimname')).status, 200);
    assert.ok(logged().some((line) => (line.req as { route?: string } | undefined)?.route === '/app/customers'));
    const unknown = await fetch(`http://127.0.0.1:${port}/v1/nirgends/kunde-geheim-4711`);
    assert.equal(unknown.status, 404);
    assert.deepEqual(logged().find((line) => line.reqId === unknown.headers.get('x-request-id'))?.req, { method: 'GET', route: null });
    const broken = await fetch(`http://127.0.0.1:${port}/v1/customers/by-ref/crm/kunde-2`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${t.company.apiKey}`, 'content-type': 'application/json' },
      body: '{"name": Geheimtext}',
    });
    assert.equal(broken.status, 400);
    const all = lines.join('');
    for (const secret of ['Geheimname', 'geheim', 'Geheimtext', 'kunde-2', '127.0.0.1']) assert.ok(!all.includes(secret), `the log holds ${secret}`);
  });
});
