import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import type { InvoiceDocument } from '../../src/modules/invoicing/document.ts';
import { invoicingOutside } from '../../src/modules/invoicing/outside.ts';
import { createRenderPool } from '../../src/modules/invoicing/render/render-pool.ts';
import { MESSAGE_LIMIT, renderFailureForLog, safeMessage } from '../../src/modules/invoicing/render-failure.ts';
import { sealer, type TestApp, testApp } from '../helpers/app.ts';
import { BUSINESS_CUSTOMER, invoiceBody, newKey, putCustomer } from './helpers.ts';
import { domesticInvoice } from './render/fixtures.ts';

// A rendering that fails answers 500 invoice_render_failed with nothing about the cause;
// the log line of that request says why: request id, the invoice number being issued, the
// error's class and message without the document's personal data, cut short.

type LogLine = { level: number; reqId?: string; msg: string; err?: { type: string; code?: string }; cause?: Record<string, unknown> };

describe('a render failure is logged with its cause, the answer carries none', () => {
  let t: TestApp;
  let broken: FastifyInstance;
  const lines: string[] = [];
  const outside: ReturnType<typeof invoicingOutside>[] = [];
  let failure: unknown;
  /** The numbers of the documents the failing renderer was asked for. */
  const attempted: string[] = [];

  before(async () => {
    t = await testApp({ now: '2026-11-21T10:00:00Z' });
    await putCustomer(t, 'kunde-1');
    const real = invoicingOutside({ dataDir: t.dataDir, sealer });
    outside.push(real);
    // The same database and company, rendering through a renderer that fails with `failure`.
    broken = await buildApp({
      db: t.handle.db,
      clock: t.clock,
      sealer,
      mailer: t.mailer,
      config: { logLevel: 'info' },
      logger: { level: 'info', stream: { write: (line: string) => lines.push(line) } },
      invoicing: {
        ...real,
        liveness: t.handle.liveness,
        render: async (doc) => {
          attempted.push(doc.number);
          throw failure;
        },
      },
    });
  });
  after(async () => {
    await broken.close();
    for (const o of outside) await o.close();
    await t.close();
  });

  const issueThroughBroken = (ref: string) =>
    broken.inject({
      method: 'POST',
      url: '/v1/invoices',
      headers: { authorization: `Bearer ${t.company.apiKey}`, 'content-type': 'application/json', 'idempotency-key': newKey() },
      payload: JSON.stringify(invoiceBody(ref, { issue: true })),
    });
  const logged = () => lines.map((line) => JSON.parse(line) as LogLine);

  test('the 500 names no cause; the error line has the request id, the invoice number, the class and the message without personal data', async () => {
    lines.length = 0;
    attempted.length = 0;
    failure = new TypeError(
      `cannot lay out "${BUSINESS_CUSTOMER.name}, ${BUSINESS_CUSTOMER.street}" for ${BUSINESS_CUSTOMER.email} (contact ${BUSINESS_CUSTOMER.contact_name})`,
    );
    const res = await issueThroughBroken('render-fails-1');
    assert.equal(res.statusCode, 500);
    assert.deepEqual(Object.keys(res.json().detail).sort(), ['code', 'message']);
    assert.equal(res.json().detail.code, 'invoice_render_failed');
    for (const secret of ['TypeError', 'lay out', 'RE-']) assert.ok(!res.body.includes(secret), `the answer names ${secret}`);

    const errors = logged().filter((line) => line.level === 50);
    assert.equal(errors.length, 1, lines.join(''));
    const [line] = errors;
    assert.equal(line!.msg, 'request failed');
    assert.equal(line!.reqId, res.headers['x-request-id']);
    assert.equal(line!.err?.code, 'invoice_render_failed');
    assert.equal(line!.cause?.type, 'TypeError');
    assert.equal(line!.cause?.message, 'cannot lay out "[redacted], [redacted]" for [redacted] (contact [redacted])');
    assert.match(String(line!.cause?.stack), /^\s+at /, 'code locations of the failure');

    // The number of the document it was rendering (drawn in the transaction, rolled back with it).
    assert.equal(attempted.length, 1);
    assert.equal(line!.cause?.invoice_number, attempted[0]);
    assert.match(attempted[0]!, /\d/);

    const all = lines.join('');
    for (const personal of [
      BUSINESS_CUSTOMER.name,
      BUSINESS_CUSTOMER.street,
      BUSINESS_CUSTOMER.email,
      BUSINESS_CUSTOMER.contact_name,
      BUSINESS_CUSTOMER.city,
    ]) {
      assert.ok(!all.includes(personal), `the log names ${personal}`);
    }
  });

  test('a rejection that is no Error is logged by its type; a long message is cut', async () => {
    lines.length = 0;
    attempted.length = 0;
    failure = `x${'y'.repeat(2000)}`;
    const res = await issueThroughBroken('render-fails-2');
    assert.equal(res.statusCode, 500);
    const [line] = logged().filter((l) => l.level === 50);
    assert.equal(line!.cause?.type, 'string');
    assert.equal(String(line!.cause?.message).length, MESSAGE_LIMIT + 1, 'cut to the limit plus an ellipsis');
  });
});

describe('what the log keeps of a render error', () => {
  test('takes out the parties’ and lines’ texts (also XML-escaped) and e-mail addresses, on one line', () => {
    const doc = domesticInvoice;
    const message = [
      `buyer ${doc.buyer.name} at ${doc.buyer.street} ${doc.buyer.city}`,
      `escaped ${doc.buyer.name.replace('&', '&amp;')}`,
      `line "${doc.lines[0]!.description}"`,
      `seller contact ${doc.seller.contactName} ${doc.seller.iban}`,
      'someone@else.example',
      `number ${doc.number}, type business, country DE`,
    ].join('\n');
    const safe = safeMessage(message, doc);
    assert.equal(
      safe,
      'buyer [redacted] at [redacted] [redacted] escaped [redacted] line "[redacted]" seller contact [redacted] [redacted] [redacted] number RE-2026-000123, type business, country DE',
    );
  });

  test('a render thread’s error keeps its class and the thread’s code locations', async () => {
    const { renderInvoiceDocuments } = await import('../../src/modules/invoicing/render/index.ts');
    const pool = createRenderPool(1);
    try {
      const brokenDoc = { ...domesticInvoice, eInvoice: 'none', lines: null } as unknown as InvoiceDocument;
      const direct = await renderInvoiceDocuments(brokenDoc).then(
        () => assert.fail('rendered'),
        (e: Error) => e,
      );
      assert.equal(direct.constructor.name, 'TypeError', direct.stack);
      const threaded = await pool.render(brokenDoc).then(
        () => assert.fail('rendered'),
        (e: unknown) => e,
      );
      const forLog = renderFailureForLog(threaded, domesticInvoice);
      assert.equal(forLog.name, 'TypeError');
      assert.equal(forLog.message, direct.message);
      assert.equal(forLog.invoice_number, 'RE-2026-000123');
      assert.match(forLog.stack!, /^TypeError: .*\n\s+at .*\/render\//s);
    } finally {
      await pool.close();
    }
  });
});
