import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestApp, testApp } from '../helpers/app.ts';
import { putCustomer } from '../invoicing/helpers.ts';
import { contractInvoices, getContract, invoiceLines, putContract, putProducts, reportUsage, runBilling } from './helpers.ts';

// The lifecycle of a contract (issue 13, point 4) through the billing run: a start before
// the billing anchor and an item added inside a cycle are prorated by days; a pause bills
// nothing for its days (and credits those billed in advance already, issue 24); a
// cancellation ends the contract at its end date with a final arrears invoice; an end
// inside a period billed in advance is refused.

const lineRows = async (t: TestApp, invoiceId: string) =>
  (await invoiceLines(t, invoiceId)).map((l) => [l.description, l.quantity, l.unit_price_net, l.service_period_start, l.service_period_end]);

describe('a contract from start to end', () => {
  let t: TestApp;
  const items = [
    { ref: 'hosting', product_number: 'HOST-S' },
    { ref: 'api', product_ref: 'api-calls' },
  ];
  const seats = { ref: 'seats', description: 'Arbeitsplätze', unit_price_net: '10.00', quantity: '3' };
  const storage = { ref: 'storage', description: 'Speicher', unit: 'GB', pricing_model: 'per_unit', unit_price_net: '0.10' };
  const contract = (overrides: Record<string, unknown> = {}) => ({
    customer: { source: 'crm', external_ref: 'kunde-1' },
    name: 'SaaS Team',
    status: 'active',
    billing_interval: 'month',
    start_date: '2026-12-10',
    billing_starts_on: '2027-01-01',
    items,
    ...overrides,
  });
  const last = async () => (await contractInvoices(t, 'team-1')).at(-1)!;

  before(async () => {
    t = await testApp();
    await putCustomer(t, 'kunde-1');
    await putProducts(t);
    await putContract(t, 'team-1', contract(), [201]);
  });
  after(() => t.close());

  test('the days before the billing anchor are billed with the first cycle, prorated', async () => {
    await runBilling(t, '2027-01-01');
    const invoice = await last();
    assert.deepEqual(await lineRows(t, invoice.id), [
      ['Hosting S (anteilig 22 von 31 Tagen; 1 × 29,00\u00a0€ je Monat)', '1', '20.58', '2026-12-10', '2026-12-31'],
      ['Hosting S', '1', '29.00', '2027-01-01', '2027-01-31'],
    ]);
    assert.equal(invoice.total_net, '49.58');
  });

  test('an item added inside a cycle is billed from the day it was added', async () => {
    t.clock.set('2027-01-15T09:00:00Z');
    await putContract(t, 'team-1', contract({ items: [...items, seats, storage] }));
    // Usage of an item counts from the day it was added.
    const early = await reportUsage(t, 'team-1', [{ external_ref: 's-0', item_ref: 'storage', quantity: '5', occurred_at: '2027-01-14T10:00:00Z' }]);
    assert.equal(early.statusCode, 422, early.body);
    assert.deepEqual(
      early.json().detail.errors.map((e: { loc: unknown[]; type: string }) => [e.loc, e.type]),
      [[['body', 'records', 0, 'occurred_at'], 'less_than_minimum']],
    );
    assert.equal(
      (await reportUsage(t, 'team-1', [{ external_ref: 's-1', item_ref: 'storage', quantity: '5', occurred_at: '2027-01-20T10:00:00Z' }])).statusCode,
      201,
    );
    await runBilling(t, '2027-02-01');
    assert.deepEqual(await lineRows(t, (await last()).id), [
      ['Arbeitsplätze (anteilig 17 von 31 Tagen; 3 × 10,00\u00a0€ je Monat)', '1', '16.45', '2027-01-15', '2027-01-31'],
      ['Speicher', '5', '0.10', '2027-01-15', '2027-01-31'],
      ['Hosting S', '1', '29.00', '2027-02-01', '2027-02-28'],
      ['Arbeitsplätze', '3', '10.00', '2027-02-01', '2027-02-28'],
    ]);
  });

  test('a paused contract bills nothing on its billing date; the paused days billed in advance are credited; after the resume the days since are billed', async () => {
    t.clock.set('2027-02-10T09:00:00Z');
    await putContract(t, 'team-1', contract({ status: 'paused', items: [...items, seats, storage] }));
    const paused = await reportUsage(t, 'team-1', [{ external_ref: 'p-1', item_ref: 'api', quantity: '5', occurred_at: '2027-02-11T10:00:00Z' }]);
    assert.equal(paused.statusCode, 409);
    assert.equal(paused.json().detail.code, 'contract.not_active');
    const invoicesBefore = (await contractInvoices(t, 'team-1')).length;
    await runBilling(t, '2027-03-01');
    assert.equal((await contractInvoices(t, 'team-1')).length, invoicesBefore);
    let view = await getContract(t, 'team-1');
    assert.deepEqual(
      { start: view.cycles[0].start, end: view.cycles[0].end, status: view.cycles[0].status, invoice_id: view.cycles[0].invoice_id },
      { start: '2027-03-01', end: '2027-03-31', status: 'paused', invoice_id: null },
    );
    assert.equal(view.next_billing_date, '2027-04-01');

    t.clock.set('2027-03-15T09:00:00Z');
    await putContract(t, 'team-1', contract({ status: 'active', items: [...items, seats, storage] }));
    await runBilling(t, '2027-04-01');
    assert.deepEqual(await lineRows(t, (await last()).id), [
      // February was billed in advance; its days from the pause on (10 to 28 February, 19 of 28) are credited (issue 24),
      // carried from 1 March (nothing to charge then) to this invoice: 29.00 × 19/28 = 19.678… → 19.68; 30.00 × 19/28 = 20.357… → 20.36.
      [
        'Gutschrift für die Pause: Hosting S, 10.02.–28.02.2027 (anteilig 19 von 28 Tagen; 1 × 29,00\u00a0€ je Monat)',
        '-1',
        '19.68',
        '2027-02-10',
        '2027-02-28',
      ],
      [
        'Gutschrift für die Pause: Arbeitsplätze, 10.02.–28.02.2027 (anteilig 19 von 28 Tagen; 3 × 10,00\u00a0€ je Monat)',
        '-1',
        '20.36',
        '2027-02-10',
        '2027-02-28',
      ],
      ['Hosting S (anteilig 17 von 31 Tagen; 1 × 29,00\u00a0€ je Monat)', '1', '15.90', '2027-03-15', '2027-03-31'],
      ['Arbeitsplätze (anteilig 17 von 31 Tagen; 3 × 10,00\u00a0€ je Monat)', '1', '16.45', '2027-03-15', '2027-03-31'],
      ['Hosting S', '1', '29.00', '2027-04-01', '2027-04-30'],
      ['Arbeitsplätze', '3', '10.00', '2027-04-01', '2027-04-30'],
    ]);
    view = await getContract(t, 'team-1');
    assert.equal(view.status, 'active');
  });

  test('an end inside the period billed in advance is refused; a cancellation ends with a final arrears invoice', async () => {
    t.clock.set('2027-04-10T09:00:00Z');
    const early = await t.request('PUT', '/v1/contracts/by-ref/crm/team-1', {
      body: contract({ status: 'cancelled', end_date: '2027-04-20', items: [...items, seats, storage] }),
    });
    assert.equal(early.statusCode, 422, early.body);
    assert.equal(early.json().detail.code, 'contract.end_before_billed');
    assert.deepEqual(early.json().detail.args, { billed_until: '2027-04-30' });

    const cancelled = await putContract(t, 'team-1', contract({ status: 'cancelled', end_date: '2027-05-31', items: [...items, seats, storage] }));
    assert.equal(cancelled.status, 'cancelled');
    assert.equal(cancelled.next_billing_date, '2027-05-01');
    await runBilling(t, '2027-05-01');
    const usage = await reportUsage(t, 'team-1', [
      { external_ref: 'm-1', item_ref: 'api', quantity: '1500', occurred_at: '2027-05-31T20:00:00Z' },
      { external_ref: 'm-2', item_ref: 'api', quantity: '1', occurred_at: '2027-06-01T08:00:00Z' },
    ]);
    assert.equal(usage.statusCode, 422, 'usage after the end date is refused');
    assert.equal(
      (await reportUsage(t, 'team-1', [{ external_ref: 'm-1', item_ref: 'api', quantity: '1500', occurred_at: '2027-05-31T20:00:00Z' }])).statusCode,
      201,
    );

    await runBilling(t, '2027-06-01');
    const final = await last();
    assert.deepEqual(await lineRows(t, final.id), [
      ['API-Aufrufe, Staffel 0 bis unter 1.000 Aufrufe', '1000', '0', '2027-05-01', '2027-05-31'],
      ['API-Aufrufe, Staffel 1.000 bis unter 10.000 Aufrufe', '500', '0.01', '2027-05-01', '2027-05-31'],
    ]);
    const view = await getContract(t, 'team-1');
    assert.equal(view.status, 'ended');
    assert.equal(view.next_billing_date, null);
    assert.deepEqual(
      { start: view.cycles[0].start, end: view.cycles[0].end, status: view.cycles[0].status, invoice_number: view.cycles[0].invoice_number },
      { start: '2027-05-01', end: '2027-05-31', status: 'billed', invoice_number: final.number },
    );
    const change = await t.request('PUT', '/v1/contracts/by-ref/crm/team-1', { body: contract({ status: 'active', items: [...items, seats, storage] }) });
    assert.equal(change.statusCode, 409);
    assert.equal(change.json().detail.code, 'contract.ended');
    const afterEnd = await reportUsage(t, 'team-1', [{ external_ref: 'x-1', item_ref: 'api', quantity: '1', occurred_at: '2027-05-20T08:00:00Z' }]);
    assert.equal(afterEnd.json().detail.code, 'contract.not_active');
  });
});
