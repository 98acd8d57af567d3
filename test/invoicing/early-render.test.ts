import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { InvoiceDocument } from '../../src/modules/invoicing/index.ts';
import { renderInvoiceDocuments } from '../../src/modules/invoicing/render/index.ts';
import { type TestApp, testApp } from '../helpers/app.ts';
import { invoiceBody, newKey, postInvoice, putCustomer } from './helpers.ts';
import { attachments, extractPages } from './render/pdf-reader.ts';

// Issuing renders a predicted document before the transaction (early-render.ts). Whatever
// the prediction, every stored document must be the one of the invoice as issued.

describe('early rendering of issued invoices', () => {
  let t: TestApp;
  const rendered: InvoiceDocument[] = [];

  before(async () => {
    t = await testApp({
      invoicing: {
        render: async (doc) => {
          rendered.push(doc);
          return renderInvoiceDocuments(doc);
        },
      },
    });
    await putCustomer(t, 'kunde-1');
  });
  after(() => t.close());

  async function issue(ref: string, overrides: Record<string, unknown> = {}) {
    const res = await postInvoice(t, invoiceBody(ref, { issue: true, ...overrides }));
    assert.equal(res.statusCode, 201, res.body);
    return res.json() as { id: string; number: string };
  }

  async function storedDocument(id: string) {
    const pdf = (await t.request('GET', `/v1/invoices/${id}/pdf`)).rawPayload;
    const xml =
      attachments(pdf)
        .find((a) => a.name === 'factur-x.xml')
        ?.data.toString('utf8') ?? '';
    return { text: extractPages(pdf).join('\n'), xml };
  }

  test('a run of invoices renders each once, and each stored document carries its own number', async () => {
    await issue('er-warm'); // the first issue of a process has nothing to predict from
    const before = rendered.length;
    const issued = [];
    for (let i = 1; i <= 4; i++) issued.push(await issue(`er-run-${i}`));
    assert.equal(rendered.length - before, 4, 'one rendering per invoice: the early ones were taken');
    for (const invoice of issued) {
      const { text, xml } = await storedDocument(invoice.id);
      assert.match(text, new RegExp(invoice.number));
      assert.match(xml, new RegExp(`<ram:ID>${invoice.number}</ram:ID>`));
    }
  });

  test('a customer changed since the last issue gets a document with the new details', async () => {
    await issue('er-before-change');
    await putCustomer(t, 'kunde-1', { name: 'Umbenannt GmbH', city: 'Köln', zip: '50667' });
    const invoice = await issue('er-after-change');
    const { text, xml } = await storedDocument(invoice.id);
    assert.match(text, /Umbenannt GmbH/);
    assert.match(text, /50667 Köln/);
    assert.doesNotMatch(text, /Beispiel AG/);
    assert.match(xml, /Umbenannt GmbH/);
  });

  test('a refused request between two issues leaves no gap and no wrong number on the next document', async () => {
    const first = await issue('er-gap-1');
    const refused = await postInvoice(t, invoiceBody('er-gap-refused', { issue: true, currency: 'USD' }), newKey());
    assert.equal(refused.statusCode, 422);
    const refusedInTransaction = await postInvoice(t, invoiceBody('er-gap-1', { issue: true }), newKey());
    assert.equal(refusedInTransaction.statusCode, 409, 'external_ref taken: refused after the early render started');
    const second = await issue('er-gap-2');
    const third = await issue('er-gap-3');
    const seq = (n: string) => Number(n.slice(-5));
    assert.deepEqual([seq(second.number), seq(third.number)], [seq(first.number) + 1, seq(first.number) + 2]);
    for (const invoice of [second, third]) assert.match((await storedDocument(invoice.id)).text, new RegExp(invoice.number));
  });

  test('concurrent issues each store the document of their own number', async () => {
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => issue(`er-par-${i}`)));
    const numbers = results.map((r) => r.number).sort();
    assert.equal(new Set(numbers).size, 6);
    for (const invoice of results) {
      const { text, xml } = await storedDocument(invoice.id);
      assert.match(text, new RegExp(invoice.number));
      assert.match(xml, new RegExp(`<ram:ID>${invoice.number}</ram:ID>`));
    }
  });
});
