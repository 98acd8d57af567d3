import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { countRows, type TestApp, testApp } from '../helpers/app.ts';
import { invoiceBody, postInvoice, putCustomer } from '../invoicing/helpers.ts';

// Bad bytes are refused, not stored (issue 11, point 4): bodies that are not UTF-8, control
// characters in texts, lone surrogates, dates PostgreSQL cannot hold, and paths whose
// percent-encoding is broken. Each answer is the documented envelope and repeats nothing sent.

type Issue = { loc: (string | number)[]; type: string; msg: string };
const issues = (body: string): string[] => (JSON.parse(body).detail.errors as Issue[]).map((e) => `${e.loc.join('.')}:${e.type}`);

describe('bad input is refused before it reaches the database', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp();
    await putCustomer(t, 'kunde-1');
  });
  after(() => t.close());

  const putRaw = (ref: string, payload: Buffer | string) =>
    t.app.inject({
      method: 'PUT',
      url: `/v1/customers/by-ref/crm/${ref}`,
      headers: { authorization: `Bearer ${t.company.apiKey}`, 'content-type': 'application/json' },
      payload,
    });
  const customerExists = async (ref: string) => (await t.request('GET', `/v1/customers/by-ref/crm/${ref}`)).statusCode === 200;

  test('a body that is not valid UTF-8 is refused with 400 malformed_body, not stored with U+FFFD', async () => {
    const customers = await countRows(t.handle, 'customers');
    const cases: [string, number[]][] = [
      ['latin-1 ä', [0xe4]],
      ['lone continuation byte', [0x80]],
      ['overlong slash', [0xc0, 0xaf]],
      ['encoded surrogate', [0xed, 0xa0, 0x80]],
      ['cut-off sequence', [0xe2, 0x82]],
    ];
    for (const [i, [label, bytes]] of cases.entries()) {
      const ref = `utf8-${i}`;
      const payload = Buffer.concat([Buffer.from('{"name":"M'), Buffer.from(bytes), Buffer.from('ller GmbH"}')]);
      const res = await putRaw(ref, payload);
      assert.equal(res.statusCode, 400, label);
      assert.equal(res.json().detail.code, 'malformed_body', label);
      assert.ok(!res.body.includes('ller GmbH'), `${label}: the body is not echoed`);
      assert.equal(await customerExists(ref), false, `${label}: nothing stored`);
    }
    assert.equal(await countRows(t.handle, 'customers'), customers);
    // Valid UTF-8, also with a byte order mark, still works.
    const ok = await putRaw('utf8-ok', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"name":"Müller GmbH"}')]));
    assert.equal(ok.statusCode, 201);
    assert.equal(ok.json().name, 'Müller GmbH');
  });

  test('NUL and other control characters in a one-line text are refused: validation_failed, type pattern, loc at the field', async () => {
    const secret = 'Geheim-7c1';
    const res = await t.request('PUT', '/v1/customers/by-ref/crm/ctl-1', {
      body: {
        name: `${secret}\u0000GmbH`,
        street: `${secret}\u0007`,
        city: `${secret}\u007f`,
        contact_name: `${secret}\u0085`,
        zip: '80\t331',
        house_number: '5\n',
        email: null,
      },
    });
    assert.equal(res.statusCode, 422, res.body);
    assert.equal(res.json().detail.code, 'validation_failed');
    assert.deepEqual(issues(res.body).sort(), [
      'body.city:pattern',
      'body.contact_name:pattern',
      'body.house_number:pattern',
      'body.name:pattern',
      'body.street:pattern',
      'body.zip:pattern',
    ]);
    assert.ok(!res.body.includes(secret), 'the values sent are not echoed');
    assert.equal(await customerExists('ctl-1'), false, 'nothing stored');

    // Deeper in a body the loc still points at the field.
    const before = { invoices: await countRows(t.handle, 'invoices'), products: await countRows(t.handle, 'products') };
    const unit = await postInvoice(
      t,
      invoiceBody('ctl-inv-1', { lines: [{ description: 'Beratung', quantity: '1', unit: 'Std\u0000', unit_price_net: '10', vat_rate: 19 }] }),
    );
    assert.equal(unit.statusCode, 422, unit.body);
    assert.deepEqual(issues(unit.body), ['body.lines.0.unit:pattern']);
    const product = await t.request('PUT', '/v1/products/by-ref/shop/ctl-p', {
      body: { product_number: 'CTL-1', name: 'Tarif\u001b[31m', unit_price_net: '1', billing_interval: 'month' },
    });
    assert.equal(product.statusCode, 422, product.body);
    assert.deepEqual(issues(product.body), ['body.name:pattern']);
    assert.deepEqual({ invoices: await countRows(t.handle, 'invoices'), products: await countRows(t.handle, 'products') }, before, 'nothing stored');
  });

  test('multi-line texts (descriptions) keep tab and line breaks, other control characters are refused', async () => {
    const text = 'Wartung\tServer\r\nvor Ort\nzweiter Tag';
    const ok = await t.request('PUT', '/v1/products/by-ref/shop/ml-1', {
      body: { product_number: 'ML-1', name: 'Wartung', description: text, unit_price_net: '1', billing_interval: 'month' },
    });
    assert.equal(ok.statusCode, 201, ok.body);
    assert.equal(ok.json().description, text);
    const line = await postInvoice(t, invoiceBody('ml-inv-1', { lines: [{ description: text, quantity: '1', unit_price_net: '10', vat_rate: 19 }] }));
    assert.equal(line.statusCode, 201, line.body);

    const before = await countRows(t.handle, 'invoices');
    const refused = [
      ['a\u0000b', 'NUL'],
      ['a\rb', 'a lone CR'],
      ['a\u000bb', 'vertical tab'],
      ['a\u009bb', 'C1 CSI'],
    ] as const;
    for (const [i, [bad, label]] of refused.entries()) {
      const res = await postInvoice(t, invoiceBody(`ml-bad-${i}`, { lines: [{ description: bad, quantity: '1', unit_price_net: '10', vat_rate: 19 }] }));
      assert.equal(res.statusCode, 422, label);
      assert.deepEqual(issues(res.body), ['body.lines.0.description:pattern'], label);
    }
    assert.equal(await countRows(t.handle, 'invoices'), before, 'nothing stored');
    const name = await t.request('PUT', '/v1/products/by-ref/shop/ml-2', {
      body: { product_number: 'ML-2', name: 'zwei\nZeilen', description: text, unit_price_net: '1', billing_interval: 'month' },
    });
    assert.deepEqual(issues(name.body), ['body.name:pattern'], 'a name is one line');
  });

  test('a lone surrogate escape is refused, not stored as U+FFFD', async () => {
    for (const [ref, name] of [
      ['sur-1', 'M\\ud800ller'],
      ['sur-2', 'M\\udc00ller'],
    ]) {
      const res = await putRaw(ref!, `{"name":"${name}"}`);
      assert.equal(res.statusCode, 422, res.body);
      assert.deepEqual(issues(res.body), ['body.name:pattern']);
      assert.equal(await customerExists(ref!), false);
    }
    const pair = await putRaw('sur-ok', '{"name":"Smile \\ud83d\\ude00 GmbH"}');
    assert.equal(pair.statusCode, 201, 'a surrogate pair is a character');
    assert.equal(pair.json().name, 'Smile 😀 GmbH');
  });

  test('control characters in query strings and path parameters are refused alike: type pattern, loc query or path', async () => {
    for (const [url, loc] of [
      ['/v1/invoices?cursor=%00', 'query.cursor:pattern'],
      ['/v1/invoices?cursor=abc%0Adef', 'query.cursor:pattern'],
      ['/v1/invoices?customer_source=crm&customer_ref=a%00b', 'query.customer_ref:pattern'],
      ['/v1/customers/by-ref/crm/a%00b', 'path.external_ref:pattern'],
    ] as const) {
      const res = await t.request('GET', url);
      assert.equal(res.statusCode, 422, `${url}: ${res.body}`);
      assert.deepEqual(issues(res.body), [loc], url);
    }
  });

  test('dates before 1900 or after 9999 are refused with validation_failed format, in bodies and in changed_since', async () => {
    const before = await countRows(t.handle, 'invoices');
    for (const [start, end] of [
      ['0000-01-01', '0000-01-31'],
      ['1899-12-01', '1899-12-31'],
      ['10000-01-01', '10000-01-31'],
    ] as const) {
      const res = await postInvoice(t, invoiceBody(`date-${start}`, { service_period: { start, end } }));
      assert.equal(res.statusCode, 422, `${start}: ${res.body}`);
      assert.deepEqual(issues(res.body), ['body.service_period.start:format', 'body.service_period.end:format'], start);
      assert.ok(!res.body.includes(start), 'the date is not echoed');
    }
    assert.equal(await countRows(t.handle, 'invoices'), before, 'nothing stored');
    const edge = await postInvoice(t, invoiceBody('date-edge', { service_period: { start: '1900-01-01', end: '9999-12-31' } }));
    assert.equal(edge.statusCode, 201, `the first and last accepted dates: ${edge.body}`);

    for (const since of ['0000-01-01T00:00:00Z', '1899-12-31T23:59:59Z', '2026-11-21T10:00:60Z', '2026-02-30T10:00:00Z']) {
      const res = await t.request('GET', `/v1/invoices?changed_since=${encodeURIComponent(since)}`);
      assert.equal(res.statusCode, 422, `${since}: ${res.body}`);
      assert.deepEqual(issues(res.body), ['query.changed_since:format'], since);
    }
    for (const since of ['1900-01-01T00:00:00Z', '2026-11-21T10:00:00.5+01:00', '9999-12-31T23:59:59Z']) {
      const res = await t.request('GET', `/v1/invoices?changed_since=${encodeURIComponent(since)}`);
      assert.equal(res.statusCode, 200, `${since}: ${res.body}`);
    }
  });

  test('a path with broken percent-encoding answers 400 malformed_request in the error envelope, without the URL', async () => {
    const paths = [
      '/v1/customers/by-ref/crm/M%E4ller',
      '/v1/customers/by-ref/crm/x%ZZy',
      '/v1/customers/by-ref/crm/x%C3%28',
      '/v1/cust%ZZomers',
      // A segment longer than the router takes (8192) is refused alike, not with Fastify's body quoting it.
      `/v1/customers/by-ref/crm/${'ller'.repeat(2100)}`,
    ];
    for (const path of paths) {
      for (const method of ['GET', 'PUT']) {
        const res = await t.request(method, path, method === 'PUT' ? { body: { name: 'x' } } : {});
        assert.equal(res.statusCode, 400, `${method} ${path.slice(0, 60)}: ${res.body.slice(0, 200)}`);
        assert.match(String(res.headers['content-type']), /^application\/json/);
        const detail = res.json().detail;
        assert.equal(detail.code, 'malformed_request', `${method} ${path}`);
        assert.deepEqual(Object.keys(detail).sort(), ['code', 'message']);
        for (const part of ['%', 'customers', 'ller', 'FST_']) assert.ok(!res.body.includes(part), `${method} ${path}: the answer repeats ${part}`);
        assert.ok(res.headers['x-request-id'], 'a request id as on every answer');
      }
    }
    assert.equal(await customerExists('x'), false);
  });
});
