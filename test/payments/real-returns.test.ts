import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parseStatement } from '../../src/modules/payments/index.ts';
import { type TestApp, testApp } from '../helpers/app.ts';
import { putCustomer } from '../invoicing/helpers.ts';
import { camt, fixture, importFile, issueInvoice } from './helpers.ts';

// Issue 24, point 3: returns as real banks write them (fixtures/real/README.md names each
// file's origin and licence) — a German MT940 returned direct debit with the bank's fees
// (GVC 109, OAMT+/COAM+, reason MD06 in the text) and ABN AMRO's camt.053 with rejected
// direct debits (RvslInd, PMNT/IDDT/UPDD, RtrInf MS03). Each is taken back from the invoice
// its collection paid, found by the end-to-end reference the return repeats.

describe('real returns', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp();
    await putCustomer(t, 'kunde-1');
  });
  after(() => t.close());

  /** An invoice of `net` at 19 %, issued and collected by a direct debit booked on `date` under `e2e`. */
  const collected = async (ref: string, net: string, gross: string, e2e: string, date: string) => {
    const invoice = await issueInvoice(t, ref, { lines: [{ description: 'Ladestrom', quantity: '1', unit: 'Stück', unit_price_net: net, vat_rate: 19 }] });
    assert.equal(invoice.total_gross, gross);
    const paid = await importFile(
      t,
      camt([{ amount: gross, e2e, text: `Lastschrift ${invoice.number}`, date }], { id: `COLLECT-${ref}`, msgId: `COLLECT-${ref}` }),
    );
    assert.equal(paid.totals.invoices_paid, 1);
    return invoice;
  };

  test('MT940 (GVC 109, Stadtwerke): the return of 5.50 takes the original 1.50 back; the 4.00 fees are noted, not taken', async () => {
    const bytes = fixture('real/jejik-germanbanktest-multiline_eref.sta');
    const [entry] = parseStatement(bytes).entries;
    assert.deepEqual(entry!.transactions[0]!.returned, { marker: 'GVC 109', reason: 'MD06', originalAmount: '1.50' });
    // 1.26 net + 19 % (0.2394 → 0.24) = 1.50 gross, collected on 6 September 2019.
    const invoice = await collected('stadtwerke', '1.26', '1.50', 'A11111111.2222.3333.44444', '2019-09-06');
    const result = await importFile(t, bytes, 'jejik-germanbanktest-multiline_eref.sta');
    const tx = result.entries[0]!.transactions[0]!;
    assert.equal(tx.status, 'matched');
    assert.deepEqual(tx.notes, [
      { code: 'returned', values: { marker: 'GVC 109', reason: 'MD06' } },
      { code: 'return_fee', values: { amount: '4.00' } },
    ]);
    assert.deepEqual(
      tx.reversals.map((r) => [r.invoice_number, r.amount, r.status_after]),
      [[invoice.number, '1.50', 'issued']],
    );
    assert.deepEqual([result.totals.paid_out, result.totals.reversed, result.totals.debits_unassigned], ['5.50', '1.50', '0.00']);
    const view = (await t.request('GET', `/v1/invoices/${invoice.id}`)).json();
    assert.deepEqual([view.status, view.amount_paid], ['issued', '0.00']);
  });

  test('camt.053 (ABN AMRO, rejected direct debits): the reject of 1.00 is taken back from the invoice its collection paid; the one of 921.00, whose collection Kontor never booked, waits for a person', async () => {
    const bytes = fixture('real/iso20022js-abn_amro-example_camt.xml');
    const returns = parseStatement(bytes).entries.filter((e) => e.direction === 'debit' && e.transactions[0]?.returned);
    assert.deepEqual(
      returns.map((e) => [e.position, e.amount, e.reversal, e.transactions[0]!.returned?.reason, e.transactions[0]!.endToEndId]),
      [
        [12, '1.00', true, 'MS03', '1234567X908303803'],
        [13, '921.00', true, 'MS03', '1234567X908303804'],
      ],
    );
    // 0.84 net + 19 % (0.1596 → 0.16) = 1.00 gross, collected on 30 March 2012.
    const invoice = await collected('abn', '0.84', '1.00', '1234567X908303803', '2012-03-30');
    const result = await importFile(t, bytes, 'iso20022js-abn_amro-example_camt.xml');
    const [small, large] = [12, 13].map((position) => result.entries.find((e) => e.position === position)!);
    assert.deepEqual(
      small!.transactions[0]!.reversals.map((r) => [r.invoice_number, r.amount, r.status_after]),
      [[invoice.number, '1.00', 'issued']],
    );
    assert.deepEqual(
      [large!.status, large!.transactions[0]!.note],
      ['unmatched', 'return (RtrInf, reason MS03); a return that names no invoice and no payment Kontor booked; a person must assign it'],
    );
    const view = (await t.request('GET', `/v1/invoices/${invoice.id}`)).json();
    assert.deepEqual([view.status, view.amount_paid, view.paid_at], ['issued', '0.00', null]);
  });
});
