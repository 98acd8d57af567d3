import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { inTransaction } from '../../src/db/transaction.ts';
import { runDueWork } from '../../src/jobs/index.ts';
import { accrueInvoicePayments, type InvoicePaymentReversal, reverseInvoicePayments } from '../../src/modules/commissions/index.ts';
import { startOfDay } from '../../src/modules/payments/booking-instant.ts';
import { countRows, type TestApp, testApp } from '../helpers/app.ts';
import { putCustomer } from '../invoicing/helpers.ts';
import { camt, importFile, issueInvoice } from '../payments/helpers.ts';
import { balanceAgainstEntries, listEntries, partnerBalance, putAgreement, putAttribution, putPartner, putProduct, SELF_BILLING_PARTNER } from './helpers.ts';

// Money taken back from an invoice (issue 24, the ledger side of bank debits): the bank
// import calls reverseInvoicePayments in its transaction for each debit it applies to an
// invoice. The revenue share takes back the net share of the levels of the amount paid
// that go back (the mirror of the payment's paidShare), last paid first, at the percent of
// the payment entries that earned on them; an open entry reversed in full is voided with
// its reversal; a payment after it earns again. Here the function is called directly, in a
// transaction, on invoices paid through the bank import (the bank side tests the import).
//
// The invoice: 49.00 of product P-100 at 19 % + 2 × 12.50 at 7 % = net 74.00, VAT 9.31 +
// 1.75, gross 85.06. Partner A earns 10 % of every customer's revenue, partner B 20 % of
// P-100 only (basis 49.00 of the invoice's net).

const LINES = [
  { description: 'Pro-Tarif November', quantity: '1', unit: 'Monat', unit_price_net: '49.00', vat_rate: 19, product_number: 'P-100' },
  { description: 'Fachbuch', quantity: '2', unit: 'Stück', unit_price_net: '12.50', vat_rate: 7 },
];

async function customerOf(t: TestApp, invoiceId: string): Promise<string> {
  const row = await t.handle.db.selectFrom('invoices').select('customer_id').where('id', '=', invoiceId).executeTakeFirstOrThrow();
  return row.customer_id;
}

async function reverse(t: TestApp, invoiceId: string, reversal: { id: string; cents: number; before: number; on: string }) {
  const input: InvoicePaymentReversal = {
    reversalId: reversal.id,
    invoiceId,
    customerId: await customerOf(t, invoiceId),
    amountCents: reversal.cents,
    paidBeforeCents: reversal.before,
    grossCents: 8506,
    reversedOn: reversal.on,
    reversedAt: startOfDay(reversal.on, 'Europe/Berlin'),
  };
  return inTransaction(t.handle.db, (trx) => reverseInvoicePayments(trx, t.company.companyId, [input], t.clock.now()));
}

async function assertBalancesKept(t: TestApp, partnerIds: readonly string[]) {
  for (const id of partnerIds) {
    const { kept, summed } = await balanceAgainstEntries(t, id);
    assert.deepEqual(kept, summed, `partner ${id}`);
  }
}

const ofInvoice = async (t: TestApp, invoiceId: string, agreementId: string) =>
  (await listEntries(t)).filter((e) => e.source_id === invoiceId && e.agreement_id === agreementId);
const shape = (entries: Record<string, unknown>[]) => entries.map((e) => [e.basis_cents, e.amount_cents, e.percent, e.contract_month, e.status]);

describe('reversal of invoice payments (bank debits)', () => {
  let t: TestApp;
  let allA: string;
  let scopedB: string;
  let attributedC: string;
  const partners: string[] = [];

  before(async () => {
    t = await testApp();
    await putCustomer(t, 'kunde-1');
    await putCustomer(t, 'kunde-c', { name: 'Zugeordnet GmbH' });
    await putProduct(t, 'p-100', 'P-100');
    partners.push(await putPartner(t, 'partner-a'), await putPartner(t, 'partner-b'), await putPartner(t, 'partner-c'));
    allA = await putAgreement(t, 'all-a', {
      partner_ref: 'partner-a',
      start_date: '2026-01-01',
      applies_to: 'all_customers',
      tiers: [{ from_month: 1, to_month: null, percent: 10 }],
    });
    scopedB = await putAgreement(t, 'scoped-b', {
      partner_ref: 'partner-b',
      start_date: '2026-01-01',
      applies_to: 'all_customers',
      product_numbers: ['P-100'],
      tiers: [{ from_month: 1, to_month: null, percent: 20 }],
    });
    // C: 30 % in the attribution's first month, 15 % after.
    attributedC = await putAgreement(t, 'att-c', {
      partner_ref: 'partner-c',
      start_date: '2026-01-01',
      tiers: [
        { from_month: 1, to_month: 1, percent: 30 },
        { from_month: 2, to_month: null, percent: 15 },
      ],
    });
    await putAttribution(t, 'att-c-1', { agreement_ref: 'att-c', customer: { source: 'crm', external_ref: 'kunde-c' }, start_date: '2026-11-01' });
  });
  after(() => t.close());

  test('a returned direct debit of a paid invoice voids its open entries; paid again, it earns again', async () => {
    const invoice = await issueInvoice(t, 'inv-r1', { lines: LINES });
    await importFile(t, camt([{ amount: '85.06', text: invoice.number, date: '2026-11-20' }], { id: 'R1', msgId: 'R1' }));
    // A: 10 % of 74.00 = 7.40; B: 20 % of 49.00 = 9.80.
    assert.deepEqual(shape(await ofInvoice(t, invoice.id, allA)), [[7400, 740, 10, 1, 'open']]);
    assert.deepEqual(shape(await ofInvoice(t, invoice.id, scopedB)), [[4900, 980, 20, 1, 'open']]);
    const balanceA = await partnerBalance(t, 'partner-a');

    // The whole 85.06 comes back (Rücklastschrift): nothing of the invoice earns any more,
    // and since the entries were still open, they and their reversals are void.
    const written = await reverse(t, invoice.id, { id: 'bdr-1', cents: 8506, before: 8506, on: '2026-11-24' });
    assert.equal(written, 2);
    assert.deepEqual(shape(await ofInvoice(t, invoice.id, allA)), [
      [7400, 740, 10, 1, 'void'],
      [-7400, -740, 10, 1, 'void'],
    ]);
    assert.deepEqual(shape(await ofInvoice(t, invoice.id, scopedB)), [
      [4900, 980, 20, 1, 'void'],
      [-4900, -980, 20, 1, 'void'],
    ]);
    assert.equal((await partnerBalance(t, 'partner-a')).open, balanceA.open - 740);
    const event = await t.handle.db.selectFrom('revenue_events').selectAll().where('reversal_id', '=', 'bdr-1').executeTakeFirstOrThrow();
    assert.deepEqual([event.kind, Number(event.net_cents), event.paid_on, event.invoice_id], ['invoice_payment_reversal', -7400, '2026-11-24', invoice.id]);

    // Paid again on 26 November (the invoice had 0.00 after the debit): it earns again.
    await inTransaction(t.handle.db, (trx) =>
      accrueInvoicePayments(
        trx,
        t.company.companyId,
        [
          {
            allocationId: 'pal_paid_again',
            invoiceId: invoice.id,
            customerId: event.customer_id as string,
            amountCents: 8506,
            paidBeforeCents: 0,
            grossCents: 8506,
            paidOn: '2026-11-26',
            paidAt: startOfDay('2026-11-26', 'Europe/Berlin'),
          },
        ],
        t.clock.now(),
      ),
    );
    const again = (await ofInvoice(t, invoice.id, allA)).filter((e) => e.status === 'open');
    assert.deepEqual(shape(again), [[7400, 740, 10, 1, 'open']]);
    assert.equal((await partnerBalance(t, 'partner-a')).open, balanceA.open);
    await assertBalancesKept(t, partners);
  });

  test('a partial refund takes back the net share of the last-paid levels at their percent', async () => {
    const invoice = await issueInvoice(t, 'inv-r2', { lines: LINES });
    await importFile(t, camt([{ amount: '40.00', text: invoice.number, date: '2026-11-20' }], { id: 'R2a', msgId: 'R2a' }));
    await importFile(t, camt([{ amount: '45.06', text: invoice.number, date: '2026-11-21' }], { id: 'R2b', msgId: 'R2b' }));
    // A: 74.00 × 40.00 / 85.06 = 34.7989… → 34.80 (3.48), the rest 39.20 (3.92).
    // B: 49.00 × 40.00 / 85.06 = 23.0426… → 23.04 (4.608 → 4.61), the rest 25.96 (5.192 → 5.19).
    assert.deepEqual(shape(await ofInvoice(t, invoice.id, allA)), [
      [3480, 348, 10, 1, 'open'],
      [3920, 392, 10, 1, 'open'],
    ]);
    assert.deepEqual(shape(await ofInvoice(t, invoice.id, scopedB)), [
      [2304, 461, 20, 1, 'open'],
      [2596, 519, 20, 1, 'open'],
    ]);
    const before = await partnerBalance(t, 'partner-a');

    // 20.00 refunded to the customer: the paid levels 65.06 … 85.06 go back, all of the second payment's.
    // A: net at 85.06 = 74.00, at 65.06: 74.00 × 65.06 / 85.06 = 56.6005… → 56.60; back 17.40.
    //    The second payment's entry: 10 % of 39.20 = 3.92, of 56.60 − 34.80 = 21.80 → 2.18; back 1.74.
    // B: net at 65.06: 49.00 × 65.06 / 85.06 = 37.4787… → 37.48; back 49.00 − 37.48 = 11.52.
    //    20 % of 25.96 = 5.19, of 37.48 − 23.04 = 14.44 → 2.888 → 2.89; back 5.19 − 2.89 = 2.30.
    await reverse(t, invoice.id, { id: 'bdr-2', cents: 2000, before: 8506, on: '2026-11-24' });
    assert.deepEqual(shape(await ofInvoice(t, invoice.id, allA)).at(-1), [-1740, -174, 10, 1, 'open']);
    assert.deepEqual(shape(await ofInvoice(t, invoice.id, scopedB)).at(-1), [-1152, -230, 20, 1, 'open']);
    assert.equal((await partnerBalance(t, 'partner-a')).open, before.open - 174);
    const event = await t.handle.db
      .selectFrom('revenue_events')
      .select(['net_cents', 'paid_before_cents', 'paid_cents'])
      .where('reversal_id', '=', 'bdr-2')
      .executeTakeFirstOrThrow();
    assert.deepEqual([Number(event.net_cents), Number(event.paid_before_cents), Number(event.paid_cents)], [-1740, 8506, 2000]);
    await assertBalancesKept(t, partners);
  });

  test('levels paid at different percents go back last paid first, each at its own percent', async () => {
    const invoice = await issueInvoice(t, 'inv-r3', { customer: { source: 'crm', external_ref: 'kunde-c' }, lines: LINES });
    // 40.00 in the attribution's first month (30 %), 45.06 in its second (15 %).
    await importFile(t, camt([{ amount: '40.00', text: invoice.number, date: '2026-11-20' }], { id: 'R3a', msgId: 'R3a' }));
    await importFile(t, camt([{ amount: '45.06', text: invoice.number, date: '2026-12-02' }], { id: 'R3b', msgId: 'R3b' }));
    // 30 % of 34.80 = 10.44; 15 % of 39.20 = 5.88.
    assert.deepEqual(shape(await ofInvoice(t, invoice.id, attributedC)), [
      [3480, 1044, 30, 1, 'open'],
      [3920, 588, 15, 2, 'open'],
    ]);

    // 50.00 back: levels 35.06 … 85.06 — all of the second payment (45.06, void with its
    // reversal: it was open), and 35.06 … 40.00 of the first, at 30 %:
    // net at 40.00 = 34.80, at 35.06: 74.00 × 35.06 / 85.06 = 30.5013… → 30.50; back 4.30,
    // 30 % of 34.80 = 10.44, of 30.50 = 9.15; back 1.29.
    await reverse(t, invoice.id, { id: 'bdr-3', cents: 5000, before: 8506, on: '2026-12-05' });
    assert.deepEqual(shape(await ofInvoice(t, invoice.id, attributedC)), [
      [3480, 1044, 30, 1, 'open'],
      [3920, 588, 15, 2, 'void'],
      [-430, -129, 30, 1, 'open'],
      [-3920, -588, 15, 2, 'void'],
    ]);
    assert.equal((await partnerBalance(t, 'partner-c')).open, 1044 - 129);

    // The remaining 35.06 back too: the first payment is reversed in full while open — void.
    await reverse(t, invoice.id, { id: 'bdr-4', cents: 3506, before: 3506, on: '2026-12-06' });
    const entries = await ofInvoice(t, invoice.id, attributedC);
    assert.ok(
      entries.every((e) => e.status === 'void'),
      JSON.stringify(shape(entries)),
    );
    assert.equal(
      entries.reduce((sum, e) => sum + (e.amount_cents as number), 0),
      0,
    );
    assert.equal((await partnerBalance(t, 'partner-c')).open, 0);
    await assertBalancesKept(t, partners);
  });

  test('a debit and the payment made again in one bank statement: the debit takes back the earlier payment', async () => {
    const invoice = await issueInvoice(t, 'inv-r6', { customer: { source: 'crm', external_ref: 'kunde-c' }, lines: LINES });
    await importFile(t, camt([{ amount: '85.06', text: invoice.number, date: '2026-11-20' }], { id: 'R6', msgId: 'R6' }));
    // November: the attribution's month 1, 30 % of 74.00 = 22.20.
    assert.deepEqual(shape(await ofInvoice(t, invoice.id, attributedC)), [[7400, 2220, 30, 1, 'open']]);
    const before = (await partnerBalance(t, 'partner-c')).open;
    // December's statement: the direct debit comes back on the 3rd, the customer pays again on
    // the 4th. The bank import books the file's payments first, then its debits, in one
    // transaction; what the invoice had before each says the debit came first.
    const customerId = await customerOf(t, invoice.id);
    await inTransaction(t.handle.db, async (trx) => {
      await accrueInvoicePayments(
        trx,
        t.company.companyId,
        [
          {
            allocationId: 'pal_r6_again',
            invoiceId: invoice.id,
            customerId,
            amountCents: 8506,
            paidBeforeCents: 0,
            grossCents: 8506,
            paidOn: '2026-12-04',
            paidAt: startOfDay('2026-12-04', 'Europe/Berlin'),
          },
        ],
        t.clock.now(),
      );
      await reverseInvoicePayments(
        trx,
        t.company.companyId,
        [
          {
            reversalId: 'bdr-r6',
            invoiceId: invoice.id,
            customerId,
            amountCents: 8506,
            paidBeforeCents: 8506,
            grossCents: 8506,
            reversedOn: '2026-12-03',
            reversedAt: startOfDay('2026-12-03', 'Europe/Berlin'),
          },
        ],
        t.clock.now(),
      );
    });
    // November's 22.20 is taken back (void with its reversal: it was open); December's
    // payment earns at month 2, 15 % of 74.00 = 11.10.
    assert.deepEqual(shape(await ofInvoice(t, invoice.id, attributedC)), [
      [7400, 2220, 30, 1, 'void'],
      [7400, 1110, 15, 2, 'open'],
      [-7400, -2220, 30, 1, 'void'],
    ]);
    assert.equal((await partnerBalance(t, 'partner-c')).open, before - 2220 + 1110);
    await assertBalancesKept(t, partners);
  });

  test('the same reversal again writes nothing', async () => {
    const invoice = await issueInvoice(t, 'inv-r4', { lines: LINES });
    await importFile(t, camt([{ amount: '85.06', text: invoice.number, date: '2026-11-20' }], { id: 'R4', msgId: 'R4' }));
    assert.equal(await reverse(t, invoice.id, { id: 'bdr-5', cents: 1000, before: 8506, on: '2026-11-24' }), 2);
    const entries = await countRows(t.handle, 'commission_entries');
    const events = await countRows(t.handle, 'revenue_events');
    assert.equal(await reverse(t, invoice.id, { id: 'bdr-5', cents: 1000, before: 8506, on: '2026-11-24' }), 0);
    assert.equal(await countRows(t.handle, 'commission_entries'), entries);
    assert.equal(await countRows(t.handle, 'revenue_events'), events);
    await assertBalancesKept(t, partners);
  });
});

describe('reversal of a payment whose entry is on a statement', () => {
  let t: TestApp;
  let partnerId: string;

  before(async () => {
    t = await testApp();
    await putCustomer(t, 'kunde-1');
    await putProduct(t, 'p-100', 'P-100');
    partnerId = await putPartner(t, 'partner-s', SELF_BILLING_PARTNER);
    await putAgreement(t, 'all-s', {
      partner_ref: 'partner-s',
      start_date: '2026-01-01',
      applies_to: 'all_customers',
      tiers: [{ from_month: 1, to_month: null, percent: 10 }],
    });
  });
  after(() => t.close());

  test('the statemented entry stays; the reversal is an open negative entry for the next statement', async () => {
    const invoice = await issueInvoice(t, 'inv-s1', { lines: LINES });
    await importFile(t, camt([{ amount: '85.06', text: invoice.number, date: '2026-11-20' }], { id: 'S1', msgId: 'S1' }));
    t.clock.set('2026-12-01T12:00:00Z');
    await runDueWork(
      { db: t.handle.db, clock: t.clock, services: { invoicing: t.invoicing } },
      { asOf: '2026-12-01', companyId: t.company.companyId, log: () => {} },
    );
    assert.deepEqual(await partnerBalance(t, 'partner-s'), { open: 0, statemented: 740, paid: 0 });

    await reverse(t, invoice.id, { id: 'bdr-s1', cents: 8506, before: 8506, on: '2026-12-03' });
    const entries = (await listEntries(t)).filter((e) => e.source_id === invoice.id);
    assert.deepEqual(shape(entries), [
      [7400, 740, 10, 1, 'statemented'],
      [-7400, -740, 10, 1, 'open'],
    ]);
    assert.equal(entries[1]?.paid_at, '2026-12-02T23:00:00.000Z');
    assert.deepEqual(await partnerBalance(t, 'partner-s'), { open: -740, statemented: 740, paid: 0 });
    await assertBalancesKept(t, [partnerId]);
  });
});
