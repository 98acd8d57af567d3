import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { countRows, type TestApp, testApp } from '../helpers/app.ts';

describe('HTTP transport: errors, limits, versions, documentation', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp();
  });
  after(() => t.close());

  test('an unknown route answers 404 route_not_found in the error body', async () => {
    const res = await t.request('GET', '/v1/no-such-thing');
    assert.equal(res.statusCode, 404);
    assert.equal(res.json().detail.code, 'route_not_found');
    const unprefixed = await t.request('GET', '/customers/by-ref/crm/x');
    assert.equal(unprefixed.json().detail.code, 'route_not_found');
  });

  test('a body over 1 MiB is refused with 413 payload_too_large and writes nothing', async () => {
    const before = await countRows(t.handle, 'customers');
    const res = await t.request('PUT', '/v1/customers/by-ref/crm/big', { body: { name: 'x', contact_name: 'y'.repeat(1024 * 1024) } });
    assert.equal(res.statusCode, 413);
    assert.equal(res.json().detail.code, 'payload_too_large');
    assert.equal(await countRows(t.handle, 'customers'), before);
  });

  test('malformed JSON is refused with 400 malformed_body and writes nothing', async () => {
    const before = await countRows(t.handle, 'customers');
    for (const body of ['{"name":', '{"name": "a",}', '', '{"__proto__": {"x": 1}, "name": "a"}']) {
      const res = await t.request('PUT', '/v1/customers/by-ref/crm/bad-json', { body, headers: { 'content-type': 'application/json' } });
      assert.equal(res.statusCode, 400, `body ${JSON.stringify(body)}`);
      assert.equal(res.json().detail.code, 'malformed_body');
    }
    assert.equal(await countRows(t.handle, 'customers'), before);
  });

  test('a body that is not JSON is refused with 415 unsupported_media_type', async () => {
    const res = await t.request('PUT', '/v1/customers/by-ref/crm/form', { body: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    assert.equal(res.statusCode, 415);
    assert.equal(res.json().detail.code, 'unsupported_media_type');
  });

  test('validation_failed lists loc, type and msg per problem, never the values sent', async () => {
    const secret = 'geheim-9f8e7d';
    const res = await t.request('PUT', '/v1/customers/by-ref/crm/v-1', {
      body: { name: 42, email: secret, customer_type: secret, iban: secret, zip: 'z'.repeat(17) },
    });
    assert.equal(res.statusCode, 422);
    const detail = res.json().detail;
    assert.equal(detail.code, 'validation_failed');
    const found = new Set(detail.errors.map((e: { loc: unknown[]; type: string }) => `${e.loc.join('.')}:${e.type}`));
    for (const expected of ['body.name:type_error', 'body.email:format', 'body.customer_type:enum', 'body.iban:extra_forbidden', 'body.zip:too_long']) {
      assert.ok(found.has(expected), `${expected} in ${[...found].join(', ')}`);
    }
    for (const e of detail.errors) assert.equal(typeof e.msg, 'string');
    assert.ok(!res.body.includes(secret), 'the sent value is not echoed');
    const missing = await t.request('PUT', '/v1/customers/by-ref/crm/v-1', { body: {} });
    assert.deepEqual(
      missing.json().detail.errors.map((e: { loc: unknown[]; type: string }) => [e.loc, e.type]),
      [[['body', 'name'], 'missing']],
    );
    assert.equal(await countRows(t.handle, 'customers'), 0);
  });

  test('path parameters outside the patterns of interface §8 are refused with validation_failed', async () => {
    const cases: [string, string][] = [
      ['/v1/customers/by-ref/CRM/x', 'source'],
      ['/v1/customers/by-ref/-crm/x', 'source'],
      [`/v1/customers/by-ref/${'s'.repeat(51)}/x`, 'source'],
      ['/v1/customers/by-ref/crm/.x', 'external_ref'],
      ['/v1/customers/by-ref/crm/a%2Fb', 'external_ref'],
      ['/v1/customers/by-ref/crm/a%20b', 'external_ref'],
      [`/v1/customers/by-ref/crm/${'r'.repeat(256)}`, 'external_ref'],
      [`/v1/customers/by-ref/crm/${'r'.repeat(3000)}`, 'external_ref'],
    ];
    for (const [url, param] of cases) {
      for (const method of ['GET', 'PUT']) {
        const res = await t.request(method, url, method === 'PUT' ? { body: { name: 'x' } } : {});
        assert.equal(res.statusCode, 422, `${method} ${url.slice(0, 80)}`);
        assert.deepEqual(res.json().detail.errors[0].loc, ['path', param]);
        assert.equal(res.json().detail.errors[0].type, 'pattern');
      }
    }
    const longest = await t.request('PUT', `/v1/customers/by-ref/${'s'.repeat(50)}/${'r'.repeat(255)}`, { body: { name: 'longest' } });
    assert.equal(longest.statusCode, 201, 'the longest allowed references work');
    assert.equal(await countRows(t.handle, 'customers'), 1);
  });

  test('unknown query parameters are refused with validation_failed extra_forbidden', async () => {
    const res = await t.request('GET', '/v1/customers/by-ref/crm/x?expand=all');
    assert.equal(res.statusCode, 422);
    assert.deepEqual(
      res.json().detail.errors.map((e: { loc: string[]; type: string }) => [e.loc, e.type]),
      [[['query', 'expand'], 'extra_forbidden']],
    );
    const put = await t.request('PUT', '/v1/products/by-ref/shop/x?dry_run=1', {
      body: { product_number: 'X', name: 'x', unit_price_net: '1', billing_interval: 'month' },
    });
    assert.equal(put.statusCode, 422);
    assert.deepEqual(put.json().detail.errors[0].loc, ['query', 'dry_run']);
  });

  test('VAT ID, Leitweg-ID and country code are checked beyond their shape', async () => {
    const res = await t.request('PUT', '/v1/customers/by-ref/crm/v-2', {
      body: { name: 'x', vat_id: 'DE136695975', leitweg_id: '992-90009-97', country_code: 'XX' },
    });
    assert.equal(res.statusCode, 422);
    const errors = res
      .json()
      .detail.errors.map((e: { loc: string[]; type: string }) => `${e.loc.join('.')}:${e.type}`)
      .sort();
    assert.deepEqual(errors, ['body.country_code:enum', 'body.leitweg_id:pattern', 'body.vat_id:pattern']);
    const ok = await t.request('PUT', '/v1/customers/by-ref/crm/v-2', {
      body: { name: 'Stadt Musterstadt', vat_id: 'ATU58219378', leitweg_id: '04011000-1234512345-06', country_code: 'AT' },
    });
    assert.equal(ok.statusCode, 201);
  });

  test('Service-Version: the offered version is answered, an unknown one gives 400 with supported', async () => {
    const ok = await t.request('GET', '/v1/customers/by-ref/crm/none', { headers: { 'service-version': '2026-11-01' } });
    assert.equal(ok.statusCode, 404);
    assert.equal(ok.headers['service-version'], '2026-11-01');
    for (const version of ['2025-01-01', 'latest', '']) {
      const res = await t.request('GET', '/v1/customers/by-ref/crm/none', { headers: { 'service-version': version } });
      assert.equal(res.statusCode, 400, `version ${JSON.stringify(version)}`);
      assert.equal(res.json().detail.code, 'api_version_unknown');
      assert.deepEqual(res.json().detail.supported, ['2026-11-01']);
    }
  });

  test('every answer carries a request id, the caller’s when it sent a plain one', async () => {
    const mine = await t.request('GET', '/v1/customers/by-ref/crm/none', { headers: { 'x-request-id': 'trace-123' } });
    assert.equal(mine.headers['x-request-id'], 'trace-123');
    const made = await t.request('GET', '/v1/customers/by-ref/crm/none', { headers: { 'x-request-id': 'bad id with spaces' } });
    assert.match(String(made.headers['x-request-id']), /^req_[0-9a-f]{16}$/);
    const next = await t.request('GET', '/v1/customers/by-ref/crm/none');
    assert.notEqual(next.headers['x-request-id'], made.headers['x-request-id'], 'each request gets its own id');
  });

  test('OpenAPI 3.1 is generated from the route schemas, and /docs renders it', async () => {
    const res = await t.request('GET', '/v1/openapi.json', { key: null });
    assert.equal(res.statusCode, 200);
    const doc = res.json();
    assert.equal(doc.openapi, '3.1.0');
    const path = doc.paths['/v1/customers/by-ref/{source}/{external_ref}'];
    assert.equal(path.put.operationId, 'upsertCustomer');
    assert.equal(path.get.operationId, 'retrieveCustomer');
    assert.ok(path.put.requestBody.content['application/json'].schema.properties.vat_id);
    assert.ok(path.put.responses['201']);
    const params = path.put.parameters.map((p: { name: string; schema: { pattern: string } }) => [p.name, p.schema.pattern]);
    assert.deepEqual(params, [
      ['source', '^[a-z0-9][a-z0-9_-]{0,49}$'],
      ['external_ref', '^[A-Za-z0-9][A-Za-z0-9._:@+-]{0,254}$'],
    ]);
    const docs = await t.request('GET', '/docs/', { key: null });
    assert.equal(docs.statusCode, 200);
    assert.match(docs.headers['content-type'] as string, /text\/html/);
  });
});
