import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createEarlyRenders, type EarlyRenders, type InvoiceDocument } from '../../src/modules/invoicing/index.ts';
import { invoiceRangeKey } from '../../src/modules/invoicing/numbering.ts';
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

  test('a replay renders nothing, and the next issue still takes its early rendering', async () => {
    const key = newKey();
    const body = invoiceBody('er-replay', { issue: true });
    assert.equal((await postInvoice(t, body, key)).statusCode, 201);
    const before = rendered.length;
    const replay = await postInvoice(t, body, key);
    assert.equal(replay.statusCode, 200);
    assert.equal(rendered.length, before, 'a key answered before starts no rendering');
    const next = await issue('er-after-replay');
    assert.equal(rendered.length, before + 1, 'one rendering: the early one was taken');
    assert.match((await storedDocument(next.id)).text, new RegExp(next.number));
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

describe('early rendering beside other requests in flight', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp();
    await putCustomer(t, 'kunde-1');
  });
  after(() => t.close());

  const TODAY = '2026-11-21';
  /**
   * An EarlyRenders that has seen the test customer's invoice number `seq` drawn, a
   * renderer that records each predicted number, and what `start` needs besides a key.
   */
  async function seenIssue(seq: number) {
    const db = t.handle.db;
    const company = await db.selectFrom('companies').selectAll().where('id', '=', t.company.companyId).executeTakeFirstOrThrow();
    const customer = await db.selectFrom('customers').selectAll().where('company_id', '=', t.company.companyId).executeTakeFirstOrThrow();
    const earlyRenders = createEarlyRenders();
    earlyRenders.remember(company, customer, invoiceRangeKey(TODAY), seq, null);
    const predicted: string[] = [];
    const body = invoiceBody('any', { issue: true }) as Parameters<EarlyRenders['start']>[2];
    const start = (key: string) =>
      earlyRenders.start(
        company.id,
        key,
        body,
        () => TODAY,
        async (doc) => {
          predicted.push(doc.number);
          return { pdf: Buffer.from('%PDF'), xml: null };
        },
      );
    return { company, earlyRenders, predicted, start };
  }

  test('while predictions made beside others miss, only every 8th such request renders early; a lone request always does', async () => {
    const { earlyRenders, predicted, start: startWith } = await seenIssue(1);
    let keys = 0;
    const start = () => {
      const early = startWith(`key-${++keys}`);
      assert.ok(early, 'the company, the customer and the next number are known');
      return early;
    };

    // The first request is alone; the second starts beside it. Both predictions miss
    // (as when a PostgreSQL pool draws the numbers in another order).
    const lone = start();
    const beside = start();
    assert.equal(predicted.length, 2, 'with no misses seen yet, both predict');
    const drawnElsewhere = { ...lone.doc!, number: 'RE-2026-99999' };
    assert.equal(earlyRenders.take(beside, drawnElsewhere), null);
    beside.settle();

    // Now the beside-predictions mostly miss: of 16 more requests beside `lone`, 2 render.
    predicted.length = 0;
    for (let i = 0; i < 16; i++) {
      const next = start();
      if (next.rendering) assert.equal(earlyRenders.take(next, drawnElsewhere), null);
      else assert.equal(earlyRenders.take(next, drawnElsewhere), null, 'nothing to take');
      next.settle();
    }
    assert.equal(predicted.length, 2);
    lone.settle();

    // Alone in its number range, a request predicts whatever happened beside others.
    predicted.length = 0;
    const alone = start();
    assert.equal(predicted.length, 1);
    assert.ok(alone.rendering);
    alone.settle();
  });

  test('a key answered before starts nothing; a prediction no transaction drew is taken back when it settles', async () => {
    const { company, earlyRenders, predicted, start } = await seenIssue(7);

    // A replay of a key this process has not seen: it predicts number 8, then nothing draws it.
    start('unseen-replay')!.settle();
    start('next')!.settle();
    assert.deepEqual(
      predicted.map((n) => n.slice(-5)),
      ['00008', '00008'],
      'the number the replay predicted is predicted again',
    );

    earlyRenders.answered(company.id, 'known');
    assert.equal(start('known'), null);
    assert.equal(predicted.length, 2, 'no rendering for a key with an answer');
  });
});
