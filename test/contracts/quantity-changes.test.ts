import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestApp, testApp } from '../helpers/app.ts';
import { putCustomer } from '../invoicing/helpers.ts';
import { contractInvoices, getContract, invoiceLines, putContract, runBilling } from './helpers.ts';

// Issue 24, point 2: a quantity change takes effect on the day it is made (company time
// zone, Europe/Berlin). Arrears items bill the period time-weighted (days at each
// quantity); advance items get an adjustment line on the next invoice for the rest of the
// cycle billed already, positive for an increase, negative for a decrease, each prorated
// line rounded half up once. September 2026 has 30 days, October 31.

const lineRows = async (t: TestApp, invoiceId: string) =>
  (await invoiceLines(t, invoiceId)).map((l) => [l.description, l.quantity, l.unit_price_net, l.net_cents, l.service_period_start, l.service_period_end]);

const customer = { source: 'crm', external_ref: 'kunde-1' };
const contract = (items: unknown[], overrides: Record<string, unknown> = {}) => ({
  customer,
  name: 'Team',
  status: 'active',
  billing_interval: 'month',
  start_date: '2026-09-01',
  items,
  ...overrides,
});
const licences = (quantity: string, overrides: Record<string, unknown> = {}) => ({
  ref: 'lizenzen',
  description: 'Lizenzen',
  unit_price_net: '65.20',
  quantity,
  ...overrides,
});
const seats = (quantity: string) => ({ ref: 'plaetze', description: 'Arbeitsplätze', unit_price_net: '10.00', quantity, billing_timing: 'arrears' });

describe('quantity changes are prorated by day', () => {
  let t: TestApp;
  /** A PUT at a moment (UTC) of the company's day. */
  const putAt = async (instant: string, ref: string, body: Record<string, unknown>) => {
    t.clock.set(instant);
    return putContract(t, ref, body);
  };
  const last = async (ref: string) => (await contractInvoices(t, ref)).at(-1)!;

  before(async () => {
    t = await testApp({ now: '2026-08-20T10:00:00Z' });
    await putCustomer(t, 'kunde-1');
    await putContract(t, 'plus', contract([licences('1')]), [201]);
    await putContract(t, 'minus', contract([licences('3')]), [201]);
    await putContract(t, 'arrears', contract([seats('1')]), [201]);
    await putContract(t, 'same-day', contract([licences('1')]), [201]);
    await putContract(t, 'back-again', contract([licences('1')]), [201]);
    await putContract(t, 'first-day', contract([licences('1')]), [201]);
    await putContract(t, 'first-day-early', contract([licences('1')]), [201]);
    await putContract(t, 'several', contract([licences('1', { unit_price_net: '30.00' }), seats('1')], { start_date: '2026-10-01' }), [201]);
    await putContract(t, 'draft', contract([licences('1')], { status: 'draft', start_date: '2026-10-01' }), [201]);
    const base = { ref: 'basis', description: 'Basis', unit_price_net: '50.00' };
    await putContract(t, 'item-end', contract([licences('2', { unit_price_net: '30.00' }), base], { start_date: '2026-10-01' }), [201]);
    await putContract(t, 'final', contract([licences('1', { unit_price_net: '30.00' })], { start_date: '2026-10-01' }), [201]);
    await runBilling(t, '2026-09-01');
    await putAt('2026-09-15T08:00:00Z', 'plus', contract([licences('3')]));
    await putAt('2026-09-15T08:00:00Z', 'minus', contract([licences('2')]));
    await putAt('2026-09-15T08:00:00Z', 'same-day', contract([licences('3')]));
    await putAt('2026-09-15T08:00:00Z', 'back-again', contract([licences('3')]));
    await putAt('2026-09-15T15:00:00Z', 'same-day', contract([licences('2')]));
    await putAt('2026-09-15T15:00:00Z', 'back-again', contract([licences('1')]));
    await putAt('2026-09-19T08:00:00Z', 'arrears', contract([seats('5')]));
    await putAt('2026-09-25T08:00:00Z', 'draft', contract([licences('3')], { status: 'draft', start_date: '2026-10-01' }));
    await putAt('2026-09-26T08:00:00Z', 'draft', contract([licences('3')], { status: 'active', start_date: '2026-10-01' }));
    // 08:00 in Berlin on 1 October, before the billing run of the day.
    await putAt('2026-10-01T06:00:00Z', 'first-day-early', contract([licences('2')]));
    await runBilling(t, '2026-10-01');
  });
  after(() => t.close());

  test('advance: an increase in a billed month is charged on the next invoice for the rest of it (69.55)', async () => {
    const view = await getContract(t, 'plus');
    assert.equal(view.items[0].quantity, '3');
    const invoice = await last('plus');
    assert.deepEqual(await lineRows(t, invoice.id), [
      // 2 × 65.20 × 16/30 = 69.5466… → 69.55
      ['Anpassung 1 → 3 Lizenzen, 15.09.–30.09.2026 (anteilig 16 von 30 Tagen; 2 × 65,20\u00a0€ je Monat)', '1', '69.55', 6955, '2026-09-15', '2026-09-30'],
      ['Lizenzen', '3', '65.20', 19560, '2026-10-01', '2026-10-31'],
    ]);
    // 69.55 + 195.60
    assert.equal(invoice.total_net, '265.15');
  });

  test('advance: a decrease is credited on the next invoice by a negative line', async () => {
    const invoice = await last('minus');
    assert.deepEqual(await lineRows(t, invoice.id), [
      // 1 × 65.20 × 16/30 = 34.7733… → 34.77, credited
      ['Anpassung 3 → 2 Lizenzen, 15.09.–30.09.2026 (anteilig 16 von 30 Tagen; 1 × 65,20\u00a0€ je Monat)', '-1', '34.77', -3477, '2026-09-15', '2026-09-30'],
      ['Lizenzen', '2', '65.20', 13040, '2026-10-01', '2026-10-31'],
    ]);
    const view = (await t.request('GET', `/v1/invoices/${invoice.id}`)).json();
    // 130.40 − 34.77 = 95.63; VAT 19 % of 95.63 = 18.1697 → 18.17
    assert.deepEqual([view.total_net, view.total_tax, view.total_gross], ['95.63', '18.17', '113.80']);
  });

  test('arrears: the period is billed time-weighted, days at each quantity (26.00, not 50.00)', async () => {
    const invoice = await last('arrears');
    assert.deepEqual(await lineRows(t, invoice.id), [
      // 18 days at 1: 10.00 × 18/30 = 6.00; 12 days at 5: 50.00 × 12/30 = 20.00
      ['Arbeitsplätze (anteilig 18 von 30 Tagen; 1 × 10,00\u00a0€ je Monat)', '1', '6.00', 600, '2026-09-01', '2026-09-18'],
      ['Arbeitsplätze (anteilig 12 von 30 Tagen; 5 × 10,00\u00a0€ je Monat)', '1', '20.00', 2000, '2026-09-19', '2026-09-30'],
    ]);
    assert.equal(invoice.total_net, '26.00');
  });

  test('a change on the same day replaces the one before; back to the old quantity is no change', async () => {
    assert.deepEqual(await lineRows(t, (await last('same-day')).id), [
      ['Anpassung 1 → 2 Lizenzen, 15.09.–30.09.2026 (anteilig 16 von 30 Tagen; 1 × 65,20\u00a0€ je Monat)', '1', '34.77', 3477, '2026-09-15', '2026-09-30'],
      ['Lizenzen', '2', '65.20', 13040, '2026-10-01', '2026-10-31'],
    ]);
    assert.deepEqual(await lineRows(t, (await last('back-again')).id), [['Lizenzen', '1', '65.20', 6520, '2026-10-01', '2026-10-31']]);
  });

  test('on a draft a quantity is simply set: the first invoice bills it, no adjustment', async () => {
    assert.deepEqual(await lineRows(t, (await last('draft')).id), [['Lizenzen', '3', '65.20', 19560, '2026-10-01', '2026-10-31']]);
  });

  test("a change on the cycle's first day: before the run the cycle is billed at it; after the run the whole cycle is adjusted next time", async () => {
    assert.deepEqual(await lineRows(t, (await last('first-day-early')).id), [['Lizenzen', '2', '65.20', 13040, '2026-10-01', '2026-10-31']]);
    // 17:00 in Berlin, after the run.
    await putAt('2026-10-01T15:00:00Z', 'first-day', contract([licences('2')]));
    // The other contracts change in October too (the next tests read their November invoices).
    await putAt('2026-10-11T08:00:00Z', 'several', contract([licences('2', { unit_price_net: '30.00' }), seats('2')], { start_date: '2026-10-01' }));
    const base = { ref: 'basis', description: 'Basis', unit_price_net: '50.00' };
    await putAt(
      '2026-10-15T08:00:00Z',
      'item-end',
      contract([licences('2', { unit_price_net: '30.00', ends_after: '2026-10-20' }), base], { start_date: '2026-10-01' }),
    );
    await putAt(
      '2026-10-15T08:00:00Z',
      'final',
      contract([licences('2', { unit_price_net: '30.00' })], { start_date: '2026-10-01', status: 'cancelled', end_date: '2026-10-31' }),
    );
    await putAt('2026-10-21T08:00:00Z', 'several', contract([licences('4', { unit_price_net: '30.00' }), seats('4')], { start_date: '2026-10-01' }));
    await runBilling(t, '2026-11-01');

    assert.deepEqual(await lineRows(t, (await last('first-day')).id), [
      // a whole cycle: 1 × 65.20, not prorated
      ['Anpassung 1 → 2 Lizenzen, 01.10.–31.10.2026 (1 × 65,20\u00a0€ je Monat)', '1', '65.20', 6520, '2026-10-01', '2026-10-31'],
      ['Lizenzen', '2', '65.20', 13040, '2026-11-01', '2026-11-30'],
    ]);
  });

  test('several changes in one cycle: one line per quantity in arrears, one adjustment per change in advance', async () => {
    const invoice = await last('several');
    assert.deepEqual(await lineRows(t, invoice.id), [
      // Arrears, October: 10 days at 1 (10.00 × 10/31 = 3.2258 → 3.23), 10 at 2 (20.00 × 10/31 = 6.4516 → 6.45), 11 at 4 (40.00 × 11/31 = 14.1935 → 14.19)
      ['Arbeitsplätze (anteilig 10 von 31 Tagen; 1 × 10,00\u00a0€ je Monat)', '1', '3.23', 323, '2026-10-01', '2026-10-10'],
      // Advance, October billed at 1: +1 for 10 days (30.00 × 10/31 = 9.6774 → 9.68), +3 for 11 days (90.00 × 11/31 = 31.9354 → 31.94)
      ['Anpassung 1 → 2 Lizenzen, 11.10.–20.10.2026 (anteilig 10 von 31 Tagen; 1 × 30,00\u00a0€ je Monat)', '1', '9.68', 968, '2026-10-11', '2026-10-20'],
      ['Arbeitsplätze (anteilig 10 von 31 Tagen; 2 × 10,00\u00a0€ je Monat)', '1', '6.45', 645, '2026-10-11', '2026-10-20'],
      ['Anpassung 1 → 4 Lizenzen, 21.10.–31.10.2026 (anteilig 11 von 31 Tagen; 3 × 30,00\u00a0€ je Monat)', '1', '31.94', 3194, '2026-10-21', '2026-10-31'],
      ['Arbeitsplätze (anteilig 11 von 31 Tagen; 4 × 10,00\u00a0€ je Monat)', '1', '14.19', 1419, '2026-10-21', '2026-10-31'],
      ['Lizenzen', '4', '30.00', 12000, '2026-11-01', '2026-11-30'],
    ]);
    // 3.23 + 9.68 + 6.45 + 31.94 + 14.19 + 120.00
    assert.equal(invoice.total_net, '185.49');
  });

  test('an item ended inside the period billed in advance: the days after its end are credited', async () => {
    assert.deepEqual(await lineRows(t, (await last('item-end')).id), [
      // 2 × 30.00 × 11/31 = 21.2903… → 21.29
      [
        'Gutschrift nach Ende der Position: Lizenzen, 21.10.–31.10.2026 (anteilig 11 von 31 Tagen; 2 × 30,00\u00a0€ je Monat)',
        '-1',
        '21.29',
        -2129,
        '2026-10-21',
        '2026-10-31',
      ],
      ['Basis', '1', '50.00', 5000, '2026-11-01', '2026-11-30'],
    ]);
    assert.equal((await last('item-end')).total_net, '28.71');
  });

  test('a change before a cancellation: the final invoice carries the adjustment', async () => {
    const invoice = await last('final');
    // 1 × 30.00 × 17/31 = 16.4516… → 16.45
    assert.deepEqual(await lineRows(t, invoice.id), [
      ['Anpassung 1 → 2 Lizenzen, 15.10.–31.10.2026 (anteilig 17 von 31 Tagen; 1 × 30,00\u00a0€ je Monat)', '1', '16.45', 1645, '2026-10-15', '2026-10-31'],
    ]);
    assert.equal(invoice.total_net, '16.45');
    assert.equal((await getContract(t, 'final')).status, 'ended');
  });
});
