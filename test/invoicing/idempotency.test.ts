import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestApp, testApp } from '../helpers/app.ts';
import { usePostgres } from '../helpers/database.ts';
import { counts, invoiceBody, newKey, postInvoice, putCustomer } from './helpers.ts';

describe('createInvoice idempotency (interface §8)', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp();
    await putCustomer(t, 'kunde-1');
  });
  after(() => t.close());

  test('rule 1: same key and body replays the first answer byte for byte with Idempotent-Replayed, creating nothing', async () => {
    const key = newKey();
    const first = await postInvoice(t, invoiceBody('idem-1', { issue: true, send: true }), key);
    assert.equal(first.statusCode, 201);
    assert.equal(first.headers['idempotent-replayed'], undefined);
    const before = await counts(t);
    // Same body, keys in another order.
    const reordered = JSON.parse(JSON.stringify(invoiceBody('idem-1', { issue: true, send: true })));
    const replay = await postInvoice(t, Object.fromEntries(Object.entries(reordered).reverse()), key);
    assert.equal(replay.statusCode, 200);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.body, first.body);
    assert.deepEqual(await counts(t), before, 'nothing created, issued or mailed again');
  });

  test('rule 2: same key, different body gives 409 idempotency_key_reused; "1" and "1.0" differ', async () => {
    const key = newKey();
    const body = invoiceBody('idem-2', { lines: [{ description: 'x', quantity: '1', unit_price_net: '5.00', vat_rate: 19 }] });
    assert.equal((await postInvoice(t, body, key)).statusCode, 201);
    const changed = invoiceBody('idem-2', { lines: [{ description: 'x', quantity: '1.0', unit_price_net: '5.00', vat_rate: 19 }] });
    const res = await postInvoice(t, changed, key);
    assert.equal(res.statusCode, 409);
    assert.equal(res.json().detail.code, 'idempotency_key_reused');
  });

  test('rule 3: a failed request does not use up its key', async () => {
    const key = newKey();
    const refused = await postInvoice(t, invoiceBody('idem-3', { customer: { source: 'crm', external_ref: 'later' } }), key);
    assert.equal(refused.statusCode, 404);
    await putCustomer(t, 'later');
    const res = await postInvoice(t, invoiceBody('idem-3', { customer: { source: 'crm', external_ref: 'later' } }), key);
    assert.equal(res.statusCode, 201);
  });

  test('rule 4: concurrent requests with one key: one creates, the others wait and return its answer', async () => {
    const key = newKey();
    const body = invoiceBody('idem-4', { issue: true });
    const results = await Promise.all(Array.from({ length: 5 }, () => postInvoice(t, body, key)));
    const statuses = results.map((r) => r.statusCode).sort();
    assert.deepEqual(statuses, [200, 200, 200, 200, 201]);
    const created = results.find((r) => r.statusCode === 201)!;
    for (const r of results.filter((r) => r.statusCode === 200)) {
      assert.equal(r.body, created.body);
      assert.equal(r.headers['idempotent-replayed'], 'true');
    }
    const rows = await t.handle.db.selectFrom('invoices').select('id').where('external_ref', '=', 'idem-4').execute();
    assert.equal(rows.length, 1);
  });

  test('rule 5: concurrent keys for one external_ref: one creates, the others get 409 with invoice_id', async () => {
    const body = invoiceBody('idem-5', { issue: true });
    const results = await Promise.all(Array.from({ length: 4 }, () => postInvoice(t, body, newKey())));
    const created = results.filter((r) => r.statusCode === 201);
    const refused = results.filter((r) => r.statusCode === 409);
    assert.equal(created.length, 1, results.map((r) => r.statusCode).join());
    assert.equal(refused.length, 3);
    for (const r of refused) {
      assert.equal(r.json().detail.code, 'invoice_external_ref_exists');
      assert.equal(r.json().detail.invoice_id, created[0]!.json().id);
    }
  });

  test('keys are per company: another company may use the same key', async () => {
    const other = await t.newCompany('keys');
    await putCustomer(t, 'kunde-1', {}, other.apiKey);
    const key = newKey();
    assert.equal((await postInvoice(t, invoiceBody('idem-6'), key)).statusCode, 201);
    assert.equal((await postInvoice(t, invoiceBody('idem-6'), key, other.apiKey)).statusCode, 201);
  });
});

describe('invoice numbers under concurrency and failure (design §4)', () => {
  test('numbers stay gapless and unique when issuing concurrently with injected failures', async () => {
    let calls = 0;
    const t = await testApp({
      invoicing: {
        // Every third rendering fails: those requests roll back and must not use a number.
        render: async (doc) => {
          calls += 1;
          if (calls % 3 === 0) throw new Error('injected render failure');
          const { renderInvoiceDocuments } = await import('../../src/modules/invoicing/render/index.ts');
          return renderInvoiceDocuments(doc);
        },
      },
    });
    try {
      await putCustomer(t, 'kunde-1');
      const total = usePostgres ? 30 : 15;
      const results = await Promise.all(Array.from({ length: total }, (_, i) => postInvoice(t, invoiceBody(`num-${i}`, { issue: true }))));
      const ok = results.filter((r) => r.statusCode === 201);
      const failed = results.filter((r) => r.statusCode === 500);
      assert.equal(ok.length + failed.length, total, results.map((r) => r.statusCode).join());
      assert.ok(failed.length > 0, 'some failures were injected');
      const numbers = ok.map((r) => Number(r.json().number.slice(-5))).sort((a, b) => a - b);
      assert.deepEqual(
        numbers,
        Array.from({ length: ok.length }, (_, i) => i + 1),
        'gapless from 1',
      );
      const rows = await t.handle.db.selectFrom('invoices').select('number').where('number', 'is not', null).execute();
      assert.equal(rows.length, ok.length, 'failed requests left nothing behind');
    } finally {
      await t.close();
    }
  });
});
