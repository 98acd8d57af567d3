import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestApp, testApp } from '../helpers/app.ts';
import { invoiceBody, postInvoice, putCustomer } from './helpers.ts';
import { ciiSchemaErrors } from './render/cii-schema.ts';

describe('cancelInvoice (Storno)', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp();
    await putCustomer(t, 'kunde-1');
  });
  after(() => t.close());

  test('creates a storno with its own number, negative amounts, references both ways, documents, booking and event', async () => {
    const original = (await postInvoice(t, invoiceBody('to-cancel', { issue: true }))).json();
    const res = await t.request('POST', `/v1/invoices/${original.id}/cancel`);
    assert.equal(res.statusCode, 201, res.body);
    const storno = res.json();
    assert.equal(storno.type, 'storno');
    assert.notEqual(storno.number, original.number);
    assert.match(storno.number, /^RE-2026-\d{5}$/, 'same number range');
    assert.deepEqual(
      [storno.total_net, storno.total_tax, storno.total_gross],
      [`-${original.total_net}`, `-${original.total_tax}`, `-${original.total_gross}`],
    );
    assert.deepEqual(storno.cancels_invoice, { id: original.id, number: original.number, external_ref: 'to-cancel' });
    const cancelled = (await t.request('GET', `/v1/invoices/${original.id}`)).json();
    assert.equal(cancelled.status, 'cancelled');
    assert.deepEqual(cancelled.cancelled_by, { id: storno.id, number: storno.number, external_ref: null });
    const xml = await t.request('GET', `/v1/invoices/${storno.id}/xml`);
    assert.match(xml.body, /<ram:TypeCode>384<\/ram:TypeCode>/);
    assert.match(xml.body, new RegExp(`<ram:IssuerAssignedID>${original.number}</ram:IssuerAssignedID>`), 'BT-25 names the original');
    const pdf = await t.request('GET', `/v1/invoices/${storno.id}/pdf`);
    assert.equal(pdf.statusCode, 200);
    const entries = await t.handle.db.selectFrom('journal_entries').select('document_type').where('document_id', 'in', [original.id, storno.id]).execute();
    assert.equal(entries.length, 2, 'issue and reversal are booked');
    const events = await t.handle.db.selectFrom('events').select('type').where('subject_id', '=', original.id).orderBy('seq').execute();
    assert.deepEqual(
      events.map((e) => e.type),
      ['invoice.issued', 'invoice.cancelled'],
    );

    const again = await t.request('POST', `/v1/invoices/${original.id}/cancel`);
    assert.equal(again.statusCode, 200);
    assert.deepEqual(again.json(), storno, 'cancelled again: the same storno');
  });

  test('the storno of a reverse-charge invoice carries both notes, each its own BG-1, and its e-invoice is schema-valid', async () => {
    await putCustomer(t, 'wien', { name: 'Wiener Handel GmbH', zip: '1010', city: 'Wien', country_code: 'AT', vat_id: 'ATU58219378' });
    const lines = [{ description: 'Beratung', quantity: '3', unit: 'Stunde', unit_price_net: '120.00', vat_rate: 0 }];
    const original = (await postInvoice(t, invoiceBody('rc-to-cancel', { customer: { source: 'crm', external_ref: 'wien' }, lines, issue: true }))).json();
    const storno = (await t.request('POST', `/v1/invoices/${original.id}/cancel`)).json();
    const xml = (await t.request('GET', `/v1/invoices/${storno.id}/xml`)).body;
    const notes = [...xml.matchAll(/<ram:IncludedNote>\s*<ram:Content>([^<]*)<\/ram:Content>\s*<\/ram:IncludedNote>/g)].map((m) => m[1]);
    assert.equal(notes.length, 2, xml);
    assert.match(notes[0]!, new RegExp(`^Storno zu Rechnung ${original.number}`));
    assert.match(notes[1]!, /Reverse Charge/);
    assert.deepEqual(await ciiSchemaErrors(xml), []);
  });

  test('paid or partly paid invoices, drafts and stornos cannot be cancelled', async () => {
    const paid = (await postInvoice(t, invoiceBody('paid-1', { issue: true }))).json();
    await t.handle.db.updateTable('invoices').set({ status: 'partially_paid', amount_paid_cents: 100 }).where('id', '=', paid.id).execute();
    const res = await t.request('POST', `/v1/invoices/${paid.id}/cancel`);
    assert.equal(res.statusCode, 422);
    assert.equal(res.json().detail.code, 'invoice_not_cancellable');
    assert.equal(res.json().detail.messages.length, 1);
    const draft = (await postInvoice(t, invoiceBody('draft-c'))).json();
    assert.equal((await t.request('POST', `/v1/invoices/${draft.id}/cancel`)).json().detail.code, 'invoice_not_cancellable');
    const unknown = await t.request('POST', '/v1/invoices/inv_nothing/cancel');
    assert.equal(unknown.json().detail.code, 'invoice_not_found');
  });

  test('a storno into a locked accounting period is refused with 409 period_locked and writes nothing', async () => {
    const original = (await postInvoice(t, invoiceBody('lock-cancel', { issue: true }))).json();
    await t.handle.db
      .insertInto('period_locks' as never)
      .values({ company_id: t.company.companyId, locked_until: '2026-11-30' } as never)
      .execute();
    try {
      const res = await t.request('POST', `/v1/invoices/${original.id}/cancel`);
      assert.equal(res.statusCode, 409);
      assert.equal(res.json().detail.code, 'period_locked');
      assert.equal((await t.request('GET', `/v1/invoices/${original.id}`)).json().status, 'issued');
    } finally {
      await t.handle.db
        .deleteFrom('period_locks' as never)
        .where('company_id' as never, '=', t.company.companyId as never)
        .execute();
    }
  });

  test('another company sees 404 invoice_not_found for every invoice route', async () => {
    const mine = (await postInvoice(t, invoiceBody('private-1', { issue: true }))).json();
    const other = await t.newCompany('stranger');
    for (const [method, url] of [
      ['GET', `/v1/invoices/${mine.id}`],
      ['GET', `/v1/invoices/${mine.id}/pdf`],
      ['GET', `/v1/invoices/${mine.id}/xml`],
      ['GET', '/v1/invoices/by-ref/crm/private-1'],
      ['POST', `/v1/invoices/${mine.id}/send`],
      ['POST', `/v1/invoices/${mine.id}/cancel`],
    ] as const) {
      const res = await t.request(method, url, { key: other.apiKey });
      assert.equal(res.statusCode, 404, `${method} ${url}`);
      assert.equal(res.json().detail.code, 'invoice_not_found');
    }
  });
});

describe('GET /invoices', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp();
    await putCustomer(t, 'kunde-1');
    await putCustomer(t, 'kunde-2');
  });
  after(() => t.close());

  test('lists in change order with cursor paging and filters', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await postInvoice(t, invoiceBody(`list-${i}`, { issue: i % 2 === 0 }))).json().id);
    await postInvoice(t, invoiceBody('list-other', { customer: { source: 'crm', external_ref: 'kunde-2' } }));
    const page1 = (await t.request('GET', '/v1/invoices?limit=2')).json();
    assert.deepEqual(
      page1.data.map((i: { id: string }) => i.id),
      ids.slice(0, 2),
    );
    assert.equal(typeof page1.next_cursor, 'string');
    const page2 = (await t.request('GET', `/v1/invoices?limit=2&cursor=${page1.next_cursor}`)).json();
    assert.deepEqual(
      page2.data.map((i: { id: string }) => i.id),
      ids.slice(2, 4),
    );
    const drafts = (await t.request('GET', '/v1/invoices?status=draft&customer_source=crm&customer_ref=kunde-1')).json();
    assert.deepEqual(
      drafts.data.map((i: { id: string }) => i.id),
      [ids[1], ids[3]],
    );
    assert.equal(drafts.next_cursor, null);
    const bad = await t.request('GET', '/v1/invoices?limit=201');
    assert.equal(bad.json().detail.errors[0].type, 'greater_than_maximum');
    const badCursor = await t.request('GET', '/v1/invoices?cursor=nonsense');
    assert.deepEqual(badCursor.json().detail.errors[0].loc, ['query', 'cursor']);
  });

  test('a sync loop over changed_since and the cursor sees every change, also one made while paging', async () => {
    t.clock.set(new Date(t.clock.now().getTime() + 1000));
    const since = t.clock.now().toISOString();
    const a = (await postInvoice(t, invoiceBody('sync-a'))).json();
    const b = (await postInvoice(t, invoiceBody('sync-b', { issue: true }))).json();
    const page1 = (await t.request('GET', `/v1/invoices?changed_since=${since}&limit=1`)).json();
    assert.deepEqual(
      page1.data.map((i: { id: string }) => i.id),
      [a.id],
    );
    // b changes while the caller pages: it must still come, in its new state.
    await t.request('POST', `/v1/invoices/${b.id}/cancel`);
    const seen: { id: string; status: string }[] = [...page1.data];
    let cursor = page1.next_cursor;
    while (cursor) {
      const page = (await t.request('GET', `/v1/invoices?changed_since=${since}&limit=1&cursor=${cursor}`)).json();
      seen.push(...page.data);
      cursor = page.next_cursor;
    }
    const last = new Map(seen.map((i) => [i.id, i.status]));
    assert.equal(last.get(b.id), 'cancelled');
    assert.ok([...last.keys()].length >= 3, 'a, b and the storno');
  });
});
