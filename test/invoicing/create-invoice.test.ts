import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { simpleParser } from 'mailparser';
import { type TestApp, testApp } from '../helpers/app.ts';
import { counts, invoiceBody, newKey, postInvoice, putCustomer, tenLines } from './helpers.ts';

const INVOICE_KEYS = [
  'amount_paid',
  'cancelled_by',
  'cancels_invoice',
  'contract_external_ref',
  'currency',
  'customer_external_ref',
  'due_date',
  'dunning_level',
  'external_ref',
  'external_source',
  'id',
  'issue_date',
  'number',
  'overdue',
  'paid_at',
  'sent_at',
  'service_period',
  'status',
  'total_gross',
  'total_net',
  'total_tax',
  'type',
];

describe('createInvoice', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp({ now: '2026-11-21T10:00:00Z' });
    await putCustomer(t, 'kunde-1');
  });
  after(() => t.close());

  test('issue false creates a draft without number; its PDF is 409 invoice_not_issued', async () => {
    const res = await postInvoice(t, invoiceBody('draft-1'));
    assert.equal(res.statusCode, 201, res.body);
    const body = res.json();
    assert.deepEqual(Object.keys(body).sort(), [...INVOICE_KEYS, 'send_error'].sort());
    assert.equal(body.status, 'draft');
    assert.equal(body.number, null);
    assert.equal(body.issue_date, null);
    // 49.00 × 19 % = 9.31; 2 × 12.50 = 25.00 × 7 % = 1.75
    assert.deepEqual([body.total_net, body.total_tax, body.total_gross, body.amount_paid], ['74.00', '11.06', '85.06', '0.00']);
    assert.equal(body.send_error, null);
    const pdf = await t.request('GET', `/v1/invoices/${body.id}/pdf`);
    assert.equal(pdf.statusCode, 409);
    assert.equal(pdf.json().detail.code, 'invoice_not_issued');
  });

  test('issue true issues: number, dates, totals, PDF, e-invoice, booking, one invoice.issued event', async () => {
    const res = await postInvoice(t, invoiceBody('issued-1', { issue: true, lines: tenLines() }));
    assert.equal(res.statusCode, 201, res.body);
    const body = res.json();
    assert.equal(body.status, 'issued');
    assert.match(body.number, /^RE-2026-\d{5}$/);
    assert.equal(body.issue_date, '2026-11-21');
    assert.equal(body.due_date, '2026-12-05', '14 days, the company default');
    assert.equal(body.customer_external_ref, 'kunde-1');
    assert.deepEqual(body.service_period, { start: '2026-11-01', end: '2026-11-30' });
    const first = await t.request('GET', `/v1/invoices/${body.id}/pdf`);
    const second = await t.request('GET', `/v1/invoices/${body.id}/pdf`);
    assert.equal(first.statusCode, 200);
    assert.equal(first.headers['content-type'], 'application/pdf');
    assert.equal(first.rawPayload.subarray(0, 5).toString(), '%PDF-');
    assert.equal(
      createHash('sha256').update(first.rawPayload).digest('hex'),
      createHash('sha256').update(second.rawPayload).digest('hex'),
      'same bytes each time',
    );
    const xml = await t.request('GET', `/v1/invoices/${body.id}/xml`);
    assert.equal(xml.statusCode, 200);
    assert.match(xml.body, /CrossIndustryInvoice/);
    assert.match(xml.body, new RegExp(body.number));
    const events = await t.handle.db.selectFrom('events').select(['type', 'data']).where('subject_id', '=', body.id).execute();
    assert.deepEqual(
      events.map((e) => e.type),
      ['invoice.issued'],
    );
    assert.equal((events[0]!.data as { number: string }).number, body.number, 'event data is the invoice as the API returns it');
    const entries = await t.handle.db.selectFrom('journal_entries').select('id').where('document_id', '=', body.id).execute();
    assert.equal(entries.length, 1, 'issue is booked');
    const read = await t.request('GET', `/v1/invoices/${body.id}`);
    const { send_error: _ignored, ...invoice } = body;
    assert.deepEqual(read.json(), invoice);
    const byRef = await t.request('GET', '/v1/invoices/by-ref/crm/issued-1');
    assert.deepEqual(byRef.json(), invoice);
  });

  test('issue and send mails the invoice (outbox without SMTP): status sent, events issued and sent', async () => {
    const res = await postInvoice(t, invoiceBody('sent-1', { issue: true, send: true }));
    assert.equal(res.statusCode, 201, res.body);
    const body = res.json();
    assert.equal(body.status, 'sent');
    assert.equal(body.sent_at, '2026-11-21T10:00:00.000Z');
    assert.equal(body.send_error, null);
    const files = readdirSync(path.join(t.dataDir, 'outbox', t.company.companyId));
    assert.ok(
      files.some((f) => f.includes(body.number)),
      `an .eml for ${body.number} in ${files}`,
    );
    const events = await t.handle.db.selectFrom('events').select('type').where('subject_id', '=', body.id).orderBy('seq').execute();
    assert.deepEqual(
      events.map((e) => e.type),
      ['invoice.issued', 'invoice.sent'],
    );
    const again = await t.request('POST', `/v1/invoices/${body.id}/send`);
    assert.equal(again.statusCode, 200);
    assert.equal(again.json().sent_at, body.sent_at, 'already sent: unchanged answer');
    const after = readdirSync(path.join(t.dataDir, 'outbox', t.company.companyId)).filter((f) => f.includes(body.number));
    assert.equal(after.length, 1, 'not mailed again');
  });

  test('a failing mail leaves the invoice issued with send_error; send then answers 422 invoice_send_failed', async () => {
    const other = await t.newCompany('smtp-down');
    await t.handle.db
      .updateTable('companies')
      .set({ smtp: JSON.stringify({ host: '127.0.0.1', port: 1, secure: false, user: null, password_sealed: null, from: 'rechnung@example.com' }) })
      .where('id', '=', other.companyId)
      .execute();
    await putCustomer(t, 'kunde-1', {}, other.apiKey);
    const res = await postInvoice(t, invoiceBody('mail-fails', { issue: true, send: true }), newKey(), other.apiKey);
    assert.equal(res.statusCode, 201, res.body);
    const body = res.json();
    assert.equal(body.status, 'issued');
    assert.equal(body.sent_at, null);
    assert.equal(body.send_error.code, 'mail_unreachable');
    const send = await t.request('POST', `/v1/invoices/${body.id}/send`, { key: other.apiKey });
    assert.equal(send.statusCode, 422);
    assert.equal(send.json().detail.code, 'invoice_send_failed');
    assert.equal(typeof send.json().detail.message, 'string');
  });

  test('refuses an issue whose details are missing with 422 invoice_not_issuable and German messages; nothing created', async () => {
    await putCustomer(t, 'no-mail', { email: null, street: null });
    const before = await counts(t);
    const key = newKey();
    const res = await postInvoice(t, invoiceBody('not-issuable', { customer: { source: 'crm', external_ref: 'no-mail' }, issue: true }), key);
    assert.equal(res.statusCode, 422);
    const detail = res.json().detail;
    assert.equal(detail.code, 'invoice_not_issuable');
    assert.ok(detail.messages.includes('Kunde Beispiel AG: die E-Mail-Adresse fehlt.'), detail.messages.join(' | '));
    assert.ok(detail.messages.includes('Kunde Beispiel AG: die Straße fehlt.'));
    assert.deepEqual(await counts(t), before, 'no draft, no number, no key');
    await putCustomer(t, 'no-mail');
    const retry = await postInvoice(t, invoiceBody('not-issuable', { customer: { source: 'crm', external_ref: 'no-mail' }, issue: true }), key);
    assert.equal(retry.statusCode, 201, 'the key was not used up');
  });

  test('refuses a wrong VAT rate for a reverse-charge customer with invoice_not_issuable', async () => {
    await putCustomer(t, 'wien', { country_code: 'AT', vat_id: 'ATU58219378', city: 'Wien', zip: '1010' });
    const res = await postInvoice(t, invoiceBody('rc-19', { customer: { source: 'crm', external_ref: 'wien' }, issue: true }));
    assert.equal(res.statusCode, 422);
    assert.match(res.json().detail.messages.join(' '), /Reverse Charge/);
    const ok = await postInvoice(
      t,
      invoiceBody('rc-0', {
        customer: { source: 'crm', external_ref: 'wien' },
        issue: true,
        lines: [{ description: 'Beratung', quantity: '3', unit: 'h', unit_price_net: '120.00', vat_rate: 0 }],
      }),
    );
    assert.equal(ok.statusCode, 201, ok.body);
    assert.deepEqual([ok.json().total_net, ok.json().total_tax], ['360.00', '0.00']);
    const xml = await t.request('GET', `/v1/invoices/${ok.json().id}/xml`);
    assert.match(xml.body, /<ram:CategoryCode>AE<\/ram:CategoryCode>/);
  });

  test('refusals create nothing, use no number and leave the key free', async () => {
    const cases: [string, unknown, number, string][] = [
      ['unknown customer', invoiceBody('r1', { customer: { source: 'crm', external_ref: 'nobody' }, issue: true }), 404, 'customer_not_found'],
      [
        'unknown product',
        invoiceBody('r2', { issue: true, lines: [{ description: 'x', quantity: 1, unit_price_net: '1.00', vat_rate: 19, product_number: 'NOPE' }] }),
        404,
        'product_not_found',
      ],
      ['no lines', invoiceBody('r3', { lines: [] }), 422, 'validation_failed'],
      [
        '501 lines',
        invoiceBody('r4', { lines: Array.from({ length: 501 }, () => ({ description: 'x', quantity: 1, unit_price_net: '1.00', vat_rate: 19 })) }),
        422,
        'validation_failed',
      ],
      [
        'long description',
        invoiceBody('r5', { lines: [{ description: 'x'.repeat(1001), quantity: 1, unit_price_net: '1.00', vat_rate: 19 }] }),
        422,
        'validation_failed',
      ],
      [
        'negative quantity',
        invoiceBody('r6', { lines: [{ description: 'x', quantity: '-1', unit_price_net: '1.00', vat_rate: 19 }] }),
        422,
        'validation_failed',
      ],
      ['negative price', invoiceBody('r7', { lines: [{ description: 'x', quantity: 1, unit_price_net: '-1.00', vat_rate: 19 }] }), 422, 'validation_failed'],
      [
        '7 decimals',
        invoiceBody('r8', { lines: [{ description: 'x', quantity: '1.1234567', unit_price_net: '1.00', vat_rate: 19 }] }),
        422,
        'validation_failed',
      ],
      ['VAT 16 %', invoiceBody('r9', { lines: [{ description: 'x', quantity: 1, unit_price_net: '1.00', vat_rate: 16 }] }), 422, 'validation_failed'],
      ['currency USD', invoiceBody('r10', { currency: 'USD' }), 422, 'validation_failed'],
      ['period end before start', invoiceBody('r11', { service_period: { start: '2026-11-30', end: '2026-11-01' } }), 422, 'validation_failed'],
      ['no service period', { ...invoiceBody('r12'), service_period: undefined }, 422, 'validation_failed'],
      [
        'attribution without agreements',
        invoiceBody('r13', { attribution: { partner_ref: 'p1', agreement_ref: 'a1' } }),
        404,
        'commission.agreement_not_found',
      ],
    ];
    for (const [name, body, status, code] of cases) {
      const before = await counts(t);
      const key = newKey();
      const res = await postInvoice(t, body, key);
      assert.equal(res.statusCode, status, `${name}: ${res.body.slice(0, 300)}`);
      assert.equal(res.json().detail.code, code, name);
      assert.deepEqual(await counts(t), before, `${name}: nothing written`);
    }
  });

  test('validation_failed names the place: negative quantity, decimals, rate, period', async () => {
    const res = await postInvoice(t, invoiceBody('v1', { lines: [{ description: 'x', quantity: '-1', unit_price_net: '1.1234567', vat_rate: 16 }] }));
    const errors = res
      .json()
      .detail.errors.map((e: { loc: unknown[]; type: string }) => `${e.loc.join('.')}:${e.type}`)
      .sort();
    assert.deepEqual(errors, ['body.lines.0.quantity:less_than_minimum', 'body.lines.0.unit_price_net:decimal', 'body.lines.0.vat_rate:enum']);
    const period = await postInvoice(t, invoiceBody('v2', { service_period: { start: '2026-11-30', end: '2026-11-01' } }));
    assert.deepEqual(period.json().detail.errors[0].loc, ['body', 'service_period', 'end']);
  });

  test('a render failure answers 500 invoice_render_failed and creates nothing', async () => {
    const broken = await testApp({ invoicing: { render: async () => Promise.reject(new Error('font missing')) } });
    try {
      await putCustomer(broken, 'kunde-1');
      const before = await counts(broken);
      const res = await postInvoice(broken, invoiceBody('render-fails', { issue: true }));
      assert.equal(res.statusCode, 500);
      assert.equal(res.json().detail.code, 'invoice_render_failed');
      assert.deepEqual(await counts(broken), before);
    } finally {
      await broken.close();
    }
  });

  test('refuses an issue into a locked accounting period with 409 period_locked', async () => {
    const other = await t.newCompany('locked');
    await putCustomer(t, 'kunde-1', {}, other.apiKey);
    await t.handle.db
      .insertInto('period_locks' as never)
      .values({ company_id: other.companyId, locked_until: '2026-11-30' } as never)
      .execute();
    const before = await counts(t);
    const res = await postInvoice(t, invoiceBody('locked-1', { issue: true }), newKey(), other.apiKey);
    assert.equal(res.statusCode, 409);
    assert.equal(res.json().detail.code, 'period_locked');
    assert.deepEqual(await counts(t), before);
  });

  test('Idempotency-Key must be present and well-formed', async () => {
    const missing = await postInvoice(t, invoiceBody('k1'), null);
    assert.equal(missing.statusCode, 400);
    assert.equal(missing.json().detail.code, 'idempotency_key_missing');
    for (const bad of ['with space', 'x'.repeat(256), 'ümlaut']) {
      const res = await t.request('POST', '/v1/invoices', { body: invoiceBody('k2'), headers: { 'idempotency-key': bad } });
      assert.equal(res.statusCode, 400, bad);
      assert.equal(res.json().detail.code, 'idempotency_key_invalid');
    }
  });
});

describe('issuing checks that depend on the verdict', () => {
  test('a not-taxable invoice needs the seller’s tax number (no VAT IDs allowed there)', async () => {
    const t = await testApp();
    try {
      await t.handle.db.updateTable('companies').set({ tax_number: null }).where('id', '=', t.company.companyId).execute();
      await putCustomer(t, 'zuerich', { country_code: 'CH', vat_id: null, city: 'Zürich', zip: '8001' });
      const body = invoiceBody('ch-1', {
        customer: { source: 'crm', external_ref: 'zuerich' },
        issue: true,
        lines: [{ description: 'Beratung', quantity: 1, unit_price_net: '100.00', vat_rate: 0 }],
      });
      const refused = await postInvoice(t, body);
      assert.equal(refused.statusCode, 422);
      assert.match(refused.json().detail.messages.join(' '), /Steuernummer/);
      await t.handle.db.updateTable('companies').set({ tax_number: '30/123/45678' }).where('id', '=', t.company.companyId).execute();
      const ok = await postInvoice(t, body);
      assert.equal(ok.statusCode, 201, ok.body);
      const xml = (await t.request('GET', `/v1/invoices/${ok.json().id}/xml`)).body;
      assert.match(xml, /<ram:CategoryCode>O<\/ram:CategoryCode>/);
      assert.doesNotMatch(xml, /schemeID="VA"/, 'no VAT IDs on a category O invoice');
    } finally {
      await t.close();
    }
  });
});

describe('XRechnung for a public buyer', () => {
  test('a customer with a Leitweg-ID gets the XRechnung as XML, served and attached to the mail', async () => {
    const t = await testApp();
    try {
      await putCustomer(t, 'stadt', { name: 'Stadt Musterstadt', leitweg_id: '04011000-1234512345-06', vat_id: null });
      const res = await postInvoice(t, invoiceBody('xr-1', { customer: { source: 'crm', external_ref: 'stadt' }, issue: true, send: true }));
      assert.equal(res.statusCode, 201, res.body);
      const invoice = res.json();
      const xml = await t.request('GET', `/v1/invoices/${invoice.id}/xml`);
      assert.equal(xml.statusCode, 200);
      assert.match(xml.body, /urn:cen\.eu:en16931:2017#compliant#urn:xeinkauf\.de:kosit:xrechnung_3\.0/);
      assert.match(xml.body, /<ram:BuyerReference>04011000-1234512345-06<\/ram:BuyerReference>/);
      const folder = path.join(t.dataDir, 'outbox', t.company.companyId);
      const eml = readdirSync(folder).find((f) => f.includes(invoice.number))!;
      const mail = await simpleParser(readFileSync(path.join(folder, eml)));
      assert.deepEqual(mail.attachments.map((a) => [a.filename, a.contentType]).sort(), [
        [`${invoice.number}.pdf`, 'application/pdf'],
        [`${invoice.number}.xml`, 'application/xml'],
      ]);
      assert.equal(mail.attachments.find((a) => a.filename?.endsWith('.xml'))!.content.toString('utf8'), xml.body, 'the mailed XML is the stored one');
      assert.equal(mail.to && !Array.isArray(mail.to) ? mail.to.value[0]?.address : null, 'buchhaltung@beispiel.example');
    } finally {
      await t.close();
    }
  });
});
