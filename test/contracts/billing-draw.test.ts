import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { billContract } from '../../src/modules/contracts/bill-contract.ts';
import { type TestApp, testApp } from '../helpers/app.ts';
import { recording } from '../helpers/recording.ts';
import { putCustomer } from '../invoicing/helpers.ts';
import { contractInvoices, getContract, putContract } from './helpers.ts';

// Issue 26, point 2: every billing transaction of a company waits on the invoice number's
// row from its draw to its commit, so a billed invoice runs one statement after the draw:
// the change feed's position, the invoice with its lines, its event, its booking and the
// contract's cycle, all in the invoice's data-modifying WITH.

describe('a billed invoice after its number is drawn', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp({ now: '2026-12-01T12:00:00Z' });
    await putCustomer(t, 'kunde-1');
    await putContract(t, 'draw-1', {
      customer: { source: 'crm', external_ref: 'kunde-1' },
      name: 'Hosting',
      status: 'active',
      billing_interval: 'month',
      start_date: '2026-12-01',
      items: [{ ref: 'hosting', description: 'Hosting', unit_price_net: '49.00', quantity: '1' }],
    });
  });
  after(() => t.close());

  test('runs one statement: change feed, invoice and lines, event, booking, cycle', async () => {
    const contract = await getContract(t, 'draw-1');
    const { db, statements } = recording(t.handle.db);
    const outcomes = await billContract({ db, clock: t.clock, bookingWrites: t.invoicing.bookingWrites }, t.company.companyId, contract.id, '2026-12-01');
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['billed'],
    );
    // (The company's first invoice: its range row is made between a first try and the draw.)
    const draw = statements.lastIndexOf('update number_ranges');
    assert.ok(draw > 0, `no number drawn: ${statements.join(', ')}`);
    assert.deepEqual(statements.slice(draw + 1), [
      'with insert number_ranges + insert invoices + insert invoice_lines + insert events + insert journal_entries + insert journal_lines + insert contract_cycles',
    ]);
    // What that statement wrote: the invoice as the API shows it, booked, its cycle billed.
    const [invoice] = await contractInvoices(t, 'draw-1');
    assert.equal(invoice?.status, 'issued');
    assert.equal(invoice?.total_net, '49.00');
    const entry = await t.handle.db
      .selectFrom('journal_entries')
      .select(['document_number', 'id'])
      .where('document_id', '=', invoice!.id)
      .executeTakeFirstOrThrow();
    assert.equal(entry.document_number, invoice!.number);
    const lines = await t.handle.db.selectFrom('journal_lines').select(['side', 'amount_cents']).where('entry_id', '=', entry.id).orderBy('position').execute();
    assert.deepEqual(
      lines.map((l) => [l.side, Number(l.amount_cents)]),
      [
        ['S', 5831],
        ['H', 4900],
        ['H', 931],
      ],
    );
    const cycles = (await getContract(t, 'draw-1')).cycles as { status: string; invoice_id: string }[];
    assert.deepEqual(
      cycles.map((c) => [c.status, c.invoice_id]),
      [['billed', invoice!.id]],
    );
  });
});
