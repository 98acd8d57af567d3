import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { OPERATION_ERRORS, ROUTING_ERRORS } from '../../src/http/openapi.ts';
import { ERROR_CATALOGUE, type ErrorCode } from '../../src/shared/errors.ts';
import { type TestApp, testApp } from '../helpers/app.ts';
import { invoiceBody, postInvoice, putCustomer } from '../invoicing/helpers.ts';

type ErrorResponse = {
  description: string;
  content: {
    'application/json': { schema: { properties: { detail: { required: string[]; properties: { code: { enum: string[] } } & Record<string, unknown> } } } };
  };
};
type Operation = { operationId?: string; responses: Record<string, ErrorResponse> };

// Interface §7 "Returned by", the rows of codes the catalogue has, limited to the operations
// served so far (the commission and contract operations come later).
const INTERFACE_RETURNED_BY: Partial<Record<ErrorCode, string[]>> = {
  'commission.agreement_not_found': ['createInvoice'],
  conflict_retry: ['createInvoice', 'upsertCustomer', 'upsertProduct'],
  customer_not_found: ['createInvoice'],
  customer_number_range_exhausted: ['upsertCustomer'],
  idempotency_key_invalid: ['createInvoice'],
  idempotency_key_missing: ['createInvoice'],
  idempotency_key_reused: ['createInvoice'],
  invoice_external_ref_exists: ['createInvoice'],
  invoice_not_cancellable: ['cancelInvoice'],
  invoice_not_found: ['cancelInvoice', 'downloadInvoicePdf', 'retrieveInvoice', 'retrieveInvoiceByRef', 'sendInvoice'],
  invoice_not_issuable: ['createInvoice'],
  invoice_not_issued: ['downloadInvoicePdf'],
  invoice_pdf_missing: ['downloadInvoicePdf'],
  invoice_render_failed: ['cancelInvoice', 'createInvoice'],
  invoice_send_failed: ['sendInvoice'],
  period_locked: ['cancelInvoice', 'createInvoice'],
  'pricing.model_unknown': ['upsertProduct'],
  'pricing.negative_value': ['upsertProduct'],
  'pricing.overage_needs_quota': ['upsertProduct'],
  'pricing.package_size_missing': ['upsertProduct'],
  'pricing.quantity_negative': ['upsertProduct'],
  'pricing.tier_incomplete': ['upsertProduct'],
  'pricing.tier_invalid': ['upsertProduct'],
  'pricing.tiers_empty': ['upsertProduct'],
  'pricing.tiers_overlap': ['upsertProduct'],
  product_not_found: ['createInvoice'],
  product_number_taken: ['upsertProduct'],
};
// What the service answers beyond that column.
const BEYOND_INTERFACE: Partial<Record<ErrorCode, string[]>> = {
  customer_not_found: ['retrieveCustomer'],
  product_not_found: ['retrieveProduct'],
  invoice_not_found: ['downloadInvoiceXml'],
  invoice_not_issued: ['downloadInvoiceXml', 'sendInvoice'],
  invoice_pdf_missing: ['downloadInvoiceXml', 'sendInvoice'],
  conflict_retry: ['cancelInvoice', 'sendInvoice'],
};
const EVERY_OPERATION: ErrorCode[] = [
  'api_key_admin_required',
  'api_key_entity_not_accessible',
  'api_key_entity_not_single',
  'api_key_expired',
  'api_key_invalid',
  'api_key_missing',
  'api_key_scope_missing',
  'api_key_user_inactive',
  'api_version_unknown',
  'validation_failed',
  'malformed_request',
  'request_timeout',
  'expectation_failed',
  'service_unavailable',
];

describe('OpenAPI document and /docs: operations, their refusals, the Kontor page', () => {
  let t: TestApp;
  let operations: Map<string, Operation & { method: string; path: string }>;
  before(async () => {
    t = await testApp();
    const res = await t.request('GET', '/v1/openapi.json', { key: null });
    assert.equal(res.statusCode, 200);
    operations = new Map();
    for (const [path, item] of Object.entries(res.json().paths as Record<string, Record<string, Operation>>)) {
      for (const [method, operation] of Object.entries(item)) operations.set(operation.operationId ?? `${method} ${path}`, { ...operation, method, path });
    }
  });
  after(() => t.close());

  /** The codes an operation documents, by status. */
  function documented(operationId: string): Map<number, string[]> {
    const operation = operations.get(operationId);
    assert.ok(operation, `operation ${operationId} is documented`);
    const byStatus = new Map<number, string[]>();
    for (const [status, response] of Object.entries(operation.responses)) {
      if (Number(status) >= 400) byStatus.set(Number(status), response.content['application/json'].schema.properties.detail.properties.code.enum);
    }
    return byStatus;
  }

  test('every operation has an operationId with a refusal table and one error response per status, none generic', () => {
    assert.ok(operations.size >= 12, `${operations.size} operations`);
    for (const [operationId, operation] of operations) {
      assert.ok(operation.operationId, `${operation.method} ${operation.path} has an operationId`);
      assert.ok(operationId in OPERATION_ERRORS, `${operationId} has an entry in OPERATION_ERRORS`);
      assert.ok(!('4XX' in operation.responses) && !('5XX' in operation.responses), `${operationId} lists statuses, not 4XX/5XX`);
      for (const status of [400, 401, 403, 422, 500]) assert.ok(operation.responses[status], `${operationId} documents ${status}`);
      for (const [status, response] of Object.entries(operation.responses)) {
        if (Number(status) < 400) continue;
        const detail = response.content['application/json'].schema.properties.detail;
        assert.deepEqual(detail.required, ['code', 'message'], `${operationId} ${status}`);
        assert.ok(detail.properties.code.enum.length > 0, `${operationId} ${status} names its codes`);
      }
    }
  });

  test('each documented code sits under the status ERROR_CATALOGUE gives it, with the catalogue meaning', () => {
    for (const [operationId, operation] of operations) {
      for (const [status, codes] of documented(operationId)) {
        const description = operation.responses[status]!.description;
        for (const code of codes) {
          const entry = ERROR_CATALOGUE[code as ErrorCode];
          assert.ok(entry, `${operationId} documents ${code}, a catalogue code`);
          assert.equal(entry[0], status, `${operationId}: ${code} under ${status}`);
          assert.ok(description.includes(`\`${code}\`: ${entry[1]}`), `${operationId} ${status} explains ${code}`);
        }
      }
    }
  });

  test('createInvoice documents idempotency_key_reused under 409 and invoice_not_issuable under 422 with their meaning', () => {
    const createInvoice = operations.get('createInvoice')!;
    assert.ok(documented('createInvoice').get(409)?.includes('idempotency_key_reused'));
    assert.ok(documented('createInvoice').get(422)?.includes('invoice_not_issuable'));
    assert.match(createInvoice.responses[409]!.description, /`idempotency_key_reused`: This Idempotency-Key was used with a different request body\./);
    assert.match(createInvoice.responses[422]!.description, /`invoice_not_issuable`: A mandatory detail for issuing is missing/);
    const detail = createInvoice.responses[422]!.content['application/json'].schema.properties.detail.properties;
    assert.ok(detail.messages && detail.errors, 'the extra fields messages and errors are declared');
  });

  test('every operation documents the codes interface §7 returns from it, those of every operation, and what it answers beyond', () => {
    for (const operationId of operations.keys()) {
      const codes = new Set([...documented(operationId).values()].flat());
      for (const code of EVERY_OPERATION) assert.ok(codes.has(code), `${operationId} documents ${code}`);
      const method = operations.get(operationId)!.method;
      if (method === 'post' || method === 'put') {
        for (const code of ['malformed_body', 'unsupported_media_type', 'payload_too_large']) assert.ok(codes.has(code), `${operationId} documents ${code}`);
      }
    }
    for (const [code, operationIds] of [...Object.entries(INTERFACE_RETURNED_BY), ...Object.entries(BEYOND_INTERFACE)]) {
      const status = ERROR_CATALOGUE[code as ErrorCode][0];
      for (const operationId of operationIds)
        assert.ok(documented(operationId).get(status)?.includes(code), `${operationId} documents ${code} under ${status}`);
    }
  });

  test('every catalogue code is documented on some operation, or answers a path no operation serves', () => {
    const all = new Set([...operations.keys()].flatMap((operationId) => [...documented(operationId).values()].flat()));
    const routing: readonly string[] = ROUTING_ERRORS;
    for (const code of Object.keys(ERROR_CATALOGUE)) {
      assert.ok(all.has(code) || routing.includes(code), `${code} is documented or a routing code`);
      assert.ok(!(all.has(code) && routing.includes(code)), `${code} is not both`);
    }
  });

  test('the documented error responses leave real refusals as they were: errors, messages, supported, scope', async () => {
    const invalid = await t.request('PUT', '/v1/customers/by-ref/crm/doc-1', { body: { name: 42 } });
    assert.equal(invalid.statusCode, 422);
    assert.equal(invalid.json().detail.code, 'validation_failed');
    assert.ok(invalid.json().detail.errors.some((e: { loc: string[] }) => e.loc.join('.') === 'body.name'));

    await putCustomer(t, 'kunde-1');
    await putCustomer(t, 'no-street', { street: null });
    const notIssuable = await postInvoice(t, invoiceBody('doc-not-issuable', { customer: { source: 'crm', external_ref: 'no-street' }, issue: true }));
    assert.equal(notIssuable.statusCode, 422);
    const detail = notIssuable.json().detail;
    assert.equal(detail.code, 'invoice_not_issuable');
    assert.ok(detail.messages.includes('Kunde Beispiel AG: die Straße fehlt.'), JSON.stringify(detail));

    const draft = await postInvoice(t, invoiceBody('doc-draft'));
    assert.equal(draft.statusCode, 201, draft.body);
    const cancel = await t.request('POST', `/v1/invoices/${draft.json().id}/cancel`);
    assert.equal(cancel.statusCode, 422);
    assert.equal(cancel.json().detail.code, 'invoice_not_cancellable');
    assert.equal(cancel.json().detail.messages.length, 1);

    const version = await t.request('GET', '/v1/invoices', { headers: { 'service-version': '1999-01-01' } });
    assert.deepEqual(Object.keys(version.json().detail).sort(), ['code', 'message', 'supported']);
    const readOnly = await t.newKey({ scopes: ['partner:invoices:read'] });
    const scope = await t.request('PUT', '/v1/customers/by-ref/crm/doc-2', { key: readOnly, body: { name: 'x' } });
    assert.equal(scope.json().detail.scope, 'partner:customers:write');
  });

  test('/docs says Kontor: page title, top-bar wordmark and icon, all served from here', async () => {
    for (const start of ['/docs', '/docs/', '/docs/static/index.html']) {
      let res = await t.request('GET', start, { key: null });
      for (let hops = 0; res.statusCode >= 300 && res.statusCode < 400 && hops < 3; hops++) {
        res = await t.request('GET', new URL(String(res.headers.location), `http://localhost${start}`).pathname, { key: null });
      }
      assert.equal(res.statusCode, 200, start);
      assert.match(res.body, /<title>Kontor API<\/title>/, start);
      assert.doesNotMatch(res.body, /Swagger UI/, start);
      assert.doesNotMatch(res.body, /(src|href)="(https?:)?\/\//, `${start} loads nothing from elsewhere`);
    }
    const initializer = await t.request('GET', '/docs/static/swagger-initializer.js', { key: null });
    const logo = initializer.body.match(/data:image\/svg\+xml;base64,([A-Za-z0-9+/=]+)/);
    assert.ok(logo?.[1], 'the top bar logo is replaced');
    assert.match(Buffer.from(logo[1], 'base64').toString('utf8'), />Kontor API</);
    const icon = await t.request('GET', '/docs/static/theme/kontor.svg', { key: null });
    assert.equal(icon.statusCode, 200);
    assert.match(String(icon.headers['content-type']), /^image\/svg\+xml/);
  });
});
