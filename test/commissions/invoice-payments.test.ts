import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { countRows, type TestApp, testApp } from '../helpers/app.ts';
import { putCustomer } from '../invoicing/helpers.ts';
import { camt, importFile, issueInvoice } from '../payments/helpers.ts';
import { balanceAgainstEntries, listEntries, partnerBalance, putAgreement, putAttribution, putPartner, putProduct } from './helpers.ts';

// The ledger from invoice payments (issue 14, point 5): the bank import writes the entries
// of every payment it books in its own transaction — pro rata of the invoice's net by the
// amount paid of its gross, counted cumulatively so that the parts of a paid invoice add up
// to its net exactly; over-payments earn nothing; product scopes count their lines only.

describe('revenue share of invoice payments', () => {
  let t: TestApp;
  let allId: string;
  let scopedId: string;
  let partnerA: string;

  before(async () => {
    t = await testApp();
    await putCustomer(t, 'kunde-1');
    await putProduct(t, 'p-100', 'P-100');
    partnerA = await putPartner(t, 'partner-a');
    await putPartner(t, 'partner-b');
    allId = await putAgreement(t, 'all-a', {
      partner_ref: 'partner-a',
      start_date: '2026-01-01',
      applies_to: 'all_customers',
      tiers: [{ from_month: 1, to_month: null, percent: 10 }],
    });
    scopedId = await putAgreement(t, 'scoped-b', {
      partner_ref: 'partner-b',
      start_date: '2026-01-01',
      applies_to: 'all_customers',
      product_numbers: ['P-100'],
      tiers: [{ from_month: 1, to_month: null, percent: 20 }],
    });
  });
  after(() => t.close());

  // 49.00 (P-100) at 19 % + 2 × 12.50 at 7 %: net 74.00, gross 85.06.
  const lines = () => [
    { description: 'Pro-Tarif November', quantity: '1', unit: 'Monat', unit_price_net: '49.00', vat_rate: 19, product_number: 'P-100' },
    { description: 'Fachbuch', quantity: '2', unit: 'Stück', unit_price_net: '12.50', vat_rate: 7 },
  ];

  test('a partial and a final payment earn the net pro rata, adding up to it exactly', async () => {
    const invoice = await issueInvoice(t, 'inv-1', { lines: lines() });
    assert.equal(invoice.total_gross, '85.06');
    const first = await importFile(t, camt([{ amount: '40.00', text: `Teilzahlung ${invoice.number}`, date: '2026-11-20' }], { id: 'S1', msgId: 'M1' }));
    assert.equal(first.totals.matched, 1);
    let entries = await listEntries(t);
    assert.equal(entries.length, 2);
    const byAgreement = (list: Record<string, unknown>[], id: string) => list.filter((e) => e.agreement_id === id);
    // 74.00 × 40.00 / 85.06 = 34.7989… → 34.80, 10 % = 3.48; P-100 only: 49.00 × 40.00 / 85.06 = 23.0426… → 23.04, 20 % = 4.61 (4.608).
    assert.deepEqual(
      byAgreement(entries, allId).map((e) => [e.basis_cents, e.amount_cents, e.source_type, e.source_id, e.service_period_start, e.contract_month]),
      [[3480, 348, 'invoice', invoice.id, '2026-11-01', 1]],
    );
    assert.deepEqual(
      byAgreement(entries, scopedId).map((e) => [e.basis_cents, e.amount_cents]),
      [[2304, 461]],
    );
    assert.equal(entries[0]?.paid_at, '2026-11-19T23:00:00.000Z'); // the booking day's midnight in Berlin

    // The rest, with 10.00 too much (kept as the customer's credit, earning nothing).
    await importFile(t, camt([{ amount: '55.06', text: `Rest ${invoice.number}`, date: '2026-11-21' }], { id: 'S2', msgId: 'M2' }));
    entries = await listEntries(t);
    const all = byAgreement(entries, allId);
    assert.deepEqual(
      all.map((e) => e.basis_cents),
      [3480, 3920],
    );
    assert.equal(
      all.reduce((sum, e) => sum + (e.basis_cents as number), 0),
      7400,
    );
    assert.deepEqual(
      byAgreement(entries, scopedId).map((e) => e.basis_cents),
      [2304, 2596],
    );
    assert.equal((await partnerBalance(t, 'partner-a')).open, 348 + 392);
    const events = await t.handle.db.selectFrom('revenue_events').selectAll().where('invoice_id', '=', invoice.id).orderBy('paid_on').execute();
    assert.deepEqual(
      events.map((e) => [e.kind, Number(e.net_cents), e.paid_on]),
      [
        ['invoice_payment', 3480, '2026-11-20'],
        ['invoice_payment', 3920, '2026-11-21'],
      ],
    );
    const check = await balanceAgainstEntries(t, partnerA);
    assert.deepEqual(check.kept, check.summed);
  });

  test('the same statement imported again writes no entry twice', async () => {
    const before = await countRows(t.handle, 'commission_entries');
    const invoice = await issueInvoice(t, 'inv-2', { lines: lines() });
    const file = camt([{ amount: '85.06', text: invoice.number, date: '2026-11-21' }], { id: 'S3', msgId: 'M3' });
    await importFile(t, file);
    await importFile(t, file);
    assert.equal(await countRows(t.handle, 'commission_entries'), before + 2);
  });

  test('a payment before an agreement starts earns nothing under it', async () => {
    const late = await putAgreement(t, 'late-a', {
      partner_ref: 'partner-a',
      start_date: '2026-12-01',
      applies_to: 'all_customers',
      tiers: [{ from_month: 1, to_month: null, percent: 50 }],
    });
    const invoice = await issueInvoice(t, 'inv-3', { lines: lines() });
    await importFile(t, camt([{ amount: '85.06', text: invoice.number, date: '2026-11-21' }], { id: 'S4', msgId: 'M4' }));
    const entries = await listEntries(t);
    assert.ok(entries.every((e) => e.agreement_id !== late));
  });

  test('an attributed customer earns from its attribution start, months counted from it', async () => {
    await putCustomer(t, 'kunde-att', { name: 'Zugeordnet GmbH' });
    await putPartner(t, 'partner-att');
    const attributed = await putAgreement(t, 'att-a', {
      partner_ref: 'partner-att',
      start_date: '2026-01-01',
      tiers: [
        { from_month: 1, to_month: 1, percent: 30 },
        { from_month: 2, to_month: null, percent: 15 },
      ],
    });
    await putAttribution(t, 'att-1', { agreement_ref: 'att-a', customer: { source: 'crm', external_ref: 'kunde-att' }, start_date: '2026-11-21' });
    const invoice = await issueInvoice(t, 'inv-att', { customer: { source: 'crm', external_ref: 'kunde-att' }, lines: lines() });
    // Paid the day before the attribution starts: nothing under it.
    await importFile(t, camt([{ amount: '40.00', text: invoice.number, date: '2026-11-20' }], { id: 'S5', msgId: 'M5' }));
    assert.equal((await listEntries(t)).filter((e) => e.agreement_id === attributed).length, 0);
    // The rest, in the attribution's first month (30 %), then a later invoice in month 2 (15 %).
    await importFile(t, camt([{ amount: '45.06', text: invoice.number, date: '2026-11-21' }], { id: 'S6', msgId: 'M6' }));
    const later = await issueInvoice(t, 'inv-att-2', { customer: { source: 'crm', external_ref: 'kunde-att' }, lines: lines() });
    await importFile(t, camt([{ amount: '85.06', text: later.number, date: '2026-12-01' }], { id: 'S7', msgId: 'M7' }));
    const entries = (await listEntries(t)).filter((e) => e.agreement_id === attributed);
    assert.deepEqual(
      entries.map((e) => [e.basis_cents, e.contract_month, e.percent, e.amount_cents]),
      [
        [3920, 1, 30, 1176],
        [7400, 2, 15, 1110],
      ],
    );
  });
});
