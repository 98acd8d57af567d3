import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type TestApp, testApp } from '../helpers/app.ts';
import { invoiceBody, postInvoice, putCustomer } from './helpers.ts';

// POST /invoices/{id}/send records each mail attempt before the mail leaves
// (modules/invoicing/mail-attempts.ts); the crash cases run real processes in
// mail-crash.test.ts. Here: one process, requests at the same moment, and the body.

describe('sendInvoice', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp();
    await putCustomer(t, 'kunde-1');
  });
  after(() => t.close());

  const outboxFor = (number: string) => {
    try {
      return readdirSync(path.join(t.dataDir, 'outbox', t.company.companyId)).filter((name) => name.includes(number));
    } catch {
      return [];
    }
  };

  test('sends at the same moment mail the invoice once; all answer the sent invoice', async () => {
    const issued = (await postInvoice(t, invoiceBody('together', { issue: true }))).json();
    const answers = await Promise.all(Array.from({ length: 6 }, () => t.request('POST', `/v1/invoices/${issued.id}/send`)));
    for (const res of answers) {
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().status, 'sent');
    }
    assert.equal(outboxFor(issued.number).length, 1, 'one mail');
    const events = await t.handle.db.selectFrom('events').select('type').where('subject_id', '=', issued.id).where('type', '=', 'invoice.sent').execute();
    assert.equal(events.length, 1);
    const attempts = await t.handle.db.selectFrom('invoice_mail_attempts').select(['state', 'message_id']).where('invoice_id', '=', issued.id).execute();
    assert.deepEqual(
      attempts.map((a) => a.state),
      ['sent'],
    );
    assert.match(attempts[0]!.message_id, new RegExp(`^<${issued.number}\\.`));
  });

  test('the body is optional; resend must be a boolean and nothing else is accepted', async () => {
    const issued = (await postInvoice(t, invoiceBody('with-body', { issue: true }))).json();
    const wrong = await t.request('POST', `/v1/invoices/${issued.id}/send`, { body: { resend: 'yes' } });
    assert.equal(wrong.statusCode, 422);
    assert.deepEqual(
      wrong.json().detail.errors.map((e: { loc: unknown[]; type: string }) => [e.loc.join('.'), e.type]),
      [['body.resend', 'type_error']],
    );
    const extra = await t.request('POST', `/v1/invoices/${issued.id}/send`, { body: { force: true } });
    assert.equal(extra.statusCode, 422);
    assert.equal(outboxFor(issued.number).length, 0, 'a refused request mails nothing');
    const sent = await t.request('POST', `/v1/invoices/${issued.id}/send`, { body: { resend: false } });
    assert.equal(sent.statusCode, 200);
    assert.equal(sent.json().status, 'sent');
    assert.equal(outboxFor(issued.number).length, 1);
  });
});
