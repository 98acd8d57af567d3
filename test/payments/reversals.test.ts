import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import iconv from 'iconv-lite';
import { runCommand } from '../../src/cli/commands.ts';
import { bufferIo } from '../../src/cli/io.ts';
import { runDailyTasks } from '../../src/jobs/index.ts';
import { createDatevExport } from '../../src/modules/bookkeeping/index.ts';
import { customerAccount } from '../../src/modules/customers/customer-records.ts';
import { BankImportError, type BankImportResult } from '../../src/modules/payments/index.ts';
import { sealer, type TestApp, testApp } from '../helpers/app.ts';
import { putCustomer } from '../invoicing/helpers.ts';
import { camt, importCounts, importFile, issueInvoice } from './helpers.ts';

// Issue 24, point 3: a bank debit that takes money back from an invoice — a refund to the
// customer naming the invoice, a returned direct debit — reaches the invoice (amount paid
// down, status back, paid_at cleared, change feed), the books (debtor against bank) and the
// revenue share (reversal-ledger.test.ts); what matches nothing waits for a person.
// Every invoice here: 49.00 at 19 % + 2 × 12.50 at 7 % = 58.31 + 26.75 = 85.06 EUR gross,
// customer kunde-1 = debtor account 10000 (SKR03: bank 1200).

type Invoice = Awaited<ReturnType<typeof issueInvoice>>;

const tx = (result: BankImportResult, position: number) => result.entries.find((e) => e.position === position)!.transactions[0]!;

describe('bank debits taken back from invoices', () => {
  let t: TestApp;
  let file = 0;
  const getInvoice = async (invoice: Invoice) => (await t.request('GET', `/v1/invoices/${invoice.id}`)).json();
  const eventsOf = (invoice: Invoice) => t.handle.db.selectFrom('events').select('type').where('subject_id', '=', invoice.id).orderBy('seq').execute();
  /** A statement file of its own (id, message id) with these entries. */
  const statement = (entries: Parameters<typeof camt>[0]) => {
    file += 1;
    return camt(entries, { id: `R-${file}`, msgId: `RMSG-${file}` });
  };
  const pay = (invoice: Invoice, amount = '85.06', date = '2026-11-20', extra: Partial<Parameters<typeof camt>[0][number]> = {}) =>
    importFile(t, statement([{ amount, text: `Rechnung ${invoice.number}`, name: 'Beispiel AG', date, ...extra }]));
  const journalOf = (documentNumber: string) =>
    t.handle.db
      .selectFrom('journal_entries as e')
      .innerJoin('journal_lines as l', (join) => join.onRef('l.company_id', '=', 'e.company_id').onRef('l.entry_id', '=', 'e.id'))
      .select(['e.document_type', 'e.entry_date', 'e.description', 'l.account', 'l.side', 'l.amount_cents'])
      .where('e.company_id', '=', t.company.companyId)
      .where('e.document_number', '=', documentNumber)
      .orderBy('e.created_at')
      .orderBy('e.entry_date')
      .orderBy('l.position')
      .execute();
  const feedSince = async (since: string) =>
    ((await t.request('GET', `/v1/invoices?changed_since=${since}`)).json().data as { id: string; status: string; amount_paid: string }[]).map((i) => [
      i.id,
      i.status,
      i.amount_paid,
    ]);
  const tick = () => {
    // Each step its own instant, so the change feed tells them apart.
    t.clock.set(new Date(t.clock.now().getTime() + 60_000).toISOString());
    return t.clock.now().toISOString();
  };

  before(async () => {
    t = await testApp();
    await putCustomer(t, 'kunde-1');
  });
  after(() => t.close());

  test('a refund naming a paid invoice takes its payment back: amount paid 0, issued again, paid_at cleared, booked debtor against bank, in the change feed, no event; then it can be cancelled', async () => {
    const invoice = await issueInvoice(t, 'r-full');
    await pay(invoice);
    assert.equal((await getInvoice(invoice)).status, 'paid');
    const refused = await t.request('POST', `/v1/invoices/${invoice.id}/cancel`);
    assert.equal(refused.statusCode, 422);
    assert.equal(refused.json().detail.code, 'invoice_not_cancellable');

    const since = tick();
    const result = await importFile(
      t,
      statement([{ amount: '85.06', indicator: 'DBIT', text: `Erstattung ${invoice.number}`, name: 'Beispiel AG', date: '2026-11-21' }]),
    );
    assert.deepEqual(
      result.entries.map((e) => [e.status, e.direction, e.note]),
      [['matched', 'debit', null]],
    );
    assert.deepEqual(tx(result, 1).reversals, [
      { invoice_id: invoice.id, invoice_number: invoice.number, amount: '85.06', credit: '0.00', status_after: 'issued', paid_after: '0.00' },
    ]);
    // 85.06 paid out, all of it taken back from one invoice; no credit received.
    assert.deepEqual(
      [
        result.totals.paid_out,
        result.totals.reversed,
        result.totals.credit_refunded,
        result.totals.debits_unassigned,
        result.totals.invoices_reversed,
        result.totals.received,
      ],
      ['85.06', '85.06', '0.00', '0.00', 1, '0.00'],
    );

    const view = await getInvoice(invoice);
    assert.deepEqual([view.status, view.amount_paid, view.paid_at, view.overdue], ['issued', '0.00', null, false]);
    assert.deepEqual(await feedSince(since), [[invoice.id, 'issued', '0.00']]);
    // invoice.issued and invoice.paid of the payment; the refund is no event.
    assert.deepEqual(
      (await eventsOf(invoice)).map((e) => e.type),
      ['invoice.issued', 'invoice.paid'],
    );
    // Payment S bank / H debtor on the 20th, its reversal H bank / S debtor on the 21st, each 85.06.
    const payments = (await journalOf(invoice.number)).filter((l) => l.document_type === 'payment');
    assert.deepEqual(
      payments.map((l) => [l.entry_date, l.account, l.side, l.amount_cents]),
      [
        ['2026-11-20', '1200', 'S', 8506],
        ['2026-11-20', '10000', 'H', 8506],
        ['2026-11-21', '1200', 'H', 8506],
        ['2026-11-21', '10000', 'S', 8506],
      ],
    );
    assert.match(payments[2]!.description, new RegExp(`^Erstattung ${invoice.number} Beispiel AG$`));

    // Refunded in full, it can be cancelled: the Stornorechnung takes the claim off the books.
    const cancelled = await t.request('POST', `/v1/invoices/${invoice.id}/cancel`);
    assert.equal(cancelled.statusCode, 201, cancelled.body);
    const storno = cancelled.json();
    assert.equal(storno.total_gross, '-85.06');
    assert.equal((await getInvoice(invoice)).status, 'cancelled');
    // Debtor 10000 for this invoice: invoice S 85.06, payment H 85.06, reversal S 85.06, storno H 85.06 → 0.
    const debtor = [...(await journalOf(invoice.number)), ...(await journalOf(storno.number))].filter((l) => l.account === '10000');
    assert.equal(
      debtor.reduce((sum, l) => sum + (l.side === 'S' ? l.amount_cents : -l.amount_cents), 0),
      0,
    );
    assert.equal(debtor.length, 4);
  });

  test('a partial refund leaves the invoice partially paid (paid_at cleared) and not cancellable', async () => {
    const invoice = await issueInvoice(t, 'r-part');
    await pay(invoice);
    const result = await importFile(t, statement([{ amount: '30.00', indicator: 'DBIT', text: `Teilerstattung ${invoice.number}`, date: '2026-11-21' }]));
    // 85.06 − 30.00 = 55.06 still paid.
    assert.deepEqual(tx(result, 1).reversals[0], {
      invoice_id: invoice.id,
      invoice_number: invoice.number,
      amount: '30.00',
      credit: '0.00',
      status_after: 'partially_paid',
      paid_after: '55.06',
    });
    const view = await getInvoice(invoice);
    assert.deepEqual([view.status, view.amount_paid, view.paid_at], ['partially_paid', '55.06', null]);
    const res = await t.request('POST', `/v1/invoices/${invoice.id}/cancel`);
    assert.equal(res.statusCode, 422);
    assert.match(res.json().detail.message, /Sobald die Zahlung erstattet und im Kontoauszug zurückgebucht ist/);
  });

  test('a refund larger than what was paid takes back only what was paid; the rest waits for a person', async () => {
    const invoice = await issueInvoice(t, 'r-more');
    await pay(invoice, '40.00');
    const before = await importCounts(t);
    const result = await importFile(t, statement([{ amount: '50.00', indicator: 'DBIT', text: `Erstattung ${invoice.number}`, date: '2026-11-21' }]));
    // 40.00 was paid: 40.00 taken back, 50.00 − 40.00 = 10.00 left to assign.
    const debit = tx(result, 1);
    assert.equal(result.entries[0]!.status, 'partially_matched');
    assert.deepEqual([debit.status, debit.note], ['unmatched', '10.00 EUR more than the invoices named received: left for a person to assign']);
    assert.deepEqual(
      debit.reversals.map((r) => [r.amount, r.status_after, r.paid_after]),
      [['40.00', 'issued', '0.00']],
    );
    assert.deepEqual([result.totals.reversed, result.totals.debits_unassigned], ['40.00', '10.00']);
    const stored = await t.handle.db
      .selectFrom('bank_transactions')
      .select(['status', 'unassigned_cents'])
      .where('company_id', '=', t.company.companyId)
      .where(
        'entry_id',
        '=',
        (await t.handle.db.selectFrom('bank_entries').select('id').where('statement_id', '=', result.statement_id).executeTakeFirstOrThrow()).id,
      )
      .executeTakeFirstOrThrow();
    assert.deepEqual(stored, { status: 'unmatched', unassigned_cents: 1000 });
    const after = await importCounts(t);
    assert.equal(after.journalEntries, before.journalEntries + 1, 'one booking: the 40.00 taken back');
    assert.deepEqual([(await getInvoice(invoice)).status, (await getInvoice(invoice)).amount_paid], ['issued', '0.00']);
  });

  test('a debit naming a cancelled invoice, a Stornorechnung, an unknown number or an invoice that received nothing waits for a person; nothing is booked', async () => {
    const cancelled = await issueInvoice(t, 'r-cancelled');
    const storno = (await t.request('POST', `/v1/invoices/${cancelled.id}/cancel`)).json() as { number: string };
    const unpaid = await issueInvoice(t, 'r-unpaid');
    const before = await importCounts(t);
    const result = await importFile(
      t,
      statement([
        { amount: '10.00', indicator: 'DBIT', text: `Erstattung ${cancelled.number}`, date: '2026-11-21' },
        { amount: '10.00', indicator: 'DBIT', text: `Gutschrift ${storno.number}`, date: '2026-11-21' },
        { amount: '10.00', indicator: 'DBIT', text: 'Erstattung RE-1999-00042', date: '2026-11-21' },
        { amount: '10.00', indicator: 'DBIT', text: `Erstattung ${unpaid.number}`, date: '2026-11-21' },
      ]),
    );
    assert.deepEqual(
      result.entries.map((e) => [e.status, e.note]),
      [
        ['unmatched', `invoice ${cancelled.number} is cancelled`],
        ['unmatched', `${storno.number} is a Stornorechnung (cancellation invoice)`],
        ['unmatched', 'unknown invoice number RE-1999-00042'],
        ['unmatched', `invoice ${unpaid.number} has received no payment to take back`],
      ],
    );
    // 4 × 10.00 left for a person, nothing taken back.
    assert.deepEqual([result.totals.paid_out, result.totals.reversed, result.totals.debits_unassigned], ['40.00', '0.00', '40.00']);
    const after = await importCounts(t);
    assert.deepEqual([after.journalEntries, after.invoices], [before.journalEntries, before.invoices]);
    const waiting = await t.handle.db
      .selectFrom('bank_transactions as t')
      .innerJoin('bank_entries as e', (join) => join.onRef('e.company_id', '=', 't.company_id').onRef('e.id', '=', 't.entry_id'))
      .select(['t.status', 't.unassigned_cents'])
      .where('e.statement_id', '=', result.statement_id)
      .execute();
    assert.deepEqual(
      waiting,
      Array.from({ length: 4 }, () => ({ status: 'unmatched', unassigned_cents: 1000 })),
    );
  });

  test('a customer credit left by an over-payment is paid back first: the invoice stays paid until its own payment is taken back', async () => {
    const one = await issueInvoice(t, 'r-over-1');
    const two = await issueInvoice(t, 'r-over-2');
    // 100.00 for 85.06: paid, 14.94 kept as the customer's credit, for each.
    await pay(one, '100.00');
    await pay(two, '100.00');
    const since = tick();
    const credit = await importFile(t, statement([{ amount: '14.94', indicator: 'DBIT', text: `Rueckzahlung Guthaben ${one.number}`, date: '2026-11-21' }]));
    assert.deepEqual(tx(credit, 1).reversals[0], {
      invoice_id: one.id,
      invoice_number: one.number,
      amount: '0.00',
      credit: '14.94',
      status_after: 'paid',
      paid_after: '85.06',
    });
    assert.deepEqual([credit.totals.reversed, credit.totals.credit_refunded, credit.totals.invoices_reversed], ['0.00', '14.94', 0]);
    assert.deepEqual([(await getInvoice(one)).status, (await getInvoice(one)).amount_paid], ['paid', '85.06']);
    assert.deepEqual(await feedSince(since), [], 'the invoice did not change');
    // The credit is gone: a second 14.94 naming it finds only the invoice's payment.
    const all = await importFile(t, statement([{ amount: '100.00', indicator: 'DBIT', text: `Storno Auftrag ${two.number}`, date: '2026-11-21' }]));
    // 100.00 = 14.94 credit + 85.06 payment.
    assert.deepEqual(
      tx(all, 1).reversals.map((r) => [r.amount, r.credit, r.status_after]),
      [['85.06', '14.94', 'issued']],
    );
    const reversal = (await journalOf(two.number)).filter((l) => l.document_type === 'payment').slice(2);
    assert.deepEqual(
      reversal.map((l) => [l.account, l.side, l.amount_cents]),
      [
        ['1200', 'H', 10000],
        ['10000', 'S', 10000],
      ],
    );
    const left = await t.handle.db
      .selectFrom('payment_reversals')
      .select(['invoice_cents', 'credit_cents', 'kind', 'status_before', 'paid_before_cents'])
      .where('invoice_id', '=', two.id)
      .execute();
    assert.deepEqual(left, [{ invoice_cents: 8506, credit_cents: 1494, kind: 'refund', status_before: 'paid', paid_before_cents: 8506 }]);
    // The customer's account: the two credits of 14.94 and what was paid back of them, nothing left.
    const customerId = (await t.request('GET', '/v1/customers/by-ref/crm/kunde-1')).json().id as string;
    const account = await customerAccount(t.handle.db, t.company.companyId, customerId, '2026-11-21');
    assert.deepEqual(
      account!.credits.map((c) => [c.invoice_number, Number(c.amount_cents)]).sort(),
      [
        [one.number, -1494],
        [one.number, 1494],
        [two.number, -1494],
        [two.number, 1494],
      ].sort(),
    );
    assert.equal(account!.creditCents, 0n);
  });

  test('a returned direct debit (camt RtrInf MD06) naming no invoice is taken back from the invoice its collection paid, found by the end-to-end reference', async () => {
    const invoice = await issueInvoice(t, 'r-return');
    await pay(invoice, '85.06', '2026-11-20', { e2e: 'LS-2026-4711', text: `SEPA-Lastschrift ${invoice.number}` });
    const result = await importFile(
      t,
      statement([
        {
          amount: '85.06',
          indicator: 'DBIT',
          reversal: true,
          bankCode: 'PMNT/IDDT/UPDD',
          e2e: 'LS-2026-4711',
          returnReason: 'MD06',
          text: 'Ruecklastschrift Widerspruch',
          date: '2026-11-23',
        },
      ]),
    );
    const debit = tx(result, 1);
    assert.equal(debit.status, 'matched');
    assert.deepEqual(debit.notes, [{ code: 'returned', values: { marker: 'RtrInf', reason: 'MD06' } }]);
    assert.equal(debit.note, 'return (RtrInf, reason MD06)');
    assert.deepEqual(
      debit.reversals.map((r) => [r.invoice_number, r.amount, r.status_after]),
      [[invoice.number, '85.06', 'issued']],
    );
    const row = await t.handle.db
      .selectFrom('payment_reversals')
      .select(['kind', 'return_marker', 'return_reason', 'booking_date'])
      .where('invoice_id', '=', invoice.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(row, { kind: 'return', return_marker: 'RtrInf', return_reason: 'MD06', booking_date: '2026-11-23' });
    const booked = (await journalOf(invoice.number)).filter((l) => l.document_type === 'payment').slice(2);
    assert.match(booked[0]!.description, /^Rückbuchung /);
  });

  test('a return whose text names a number that is not an invoice of the company is still found through its collection', async () => {
    const invoice = await issueInvoice(t, 'r-return-foreign');
    await pay(invoice, '85.06', '2026-11-20', { e2e: 'LS-FREMDTEXT-1', text: `SEPA-Lastschrift ${invoice.number}` });
    const result = await importFile(
      t,
      statement([
        {
          amount: '85.06',
          indicator: 'DBIT',
          reversal: true,
          e2e: 'LS-FREMDTEXT-1',
          returnReason: 'MS02',
          text: 'Retoure zu Vertrag RE-2019-00001',
          date: '2026-11-23',
        },
      ]),
    );
    const debit = tx(result, 1);
    assert.equal(debit.status, 'matched');
    assert.deepEqual(
      debit.reversals.map((r) => [r.invoice_number, r.amount]),
      [[invoice.number, '85.06']],
    );
    assert.equal(debit.note, 'return (RtrInf, reason MS02); unknown invoice number RE-2019-00001');
  });

  test('MT940: a returned direct debit with the bank’s fees (GVC 109, OAMT+ 85,06, COAM+ 5,00) takes back the original amount only', async () => {
    const invoice = await issueInvoice(t, 'r-mt940');
    await pay(invoice, '85.06', '2026-11-20', { e2e: 'LS-MT-0815', text: `SEPA-Lastschrift ${invoice.number}` });
    // 1000.00 − 90.06 = 909.94; the 90.06 are 85.06 collected + 5.00 return fees.
    const mt940 = [
      ':20:STARTUMS',
      ':25:37040044/0532013000',
      ':28C:00042/001',
      ':60F:C261122EUR1000,00',
      ':61:2611231123DR90,06NRTINONREF',
      ':86:109?00RETOURE SEPA LASTSCHRIFT?10931?20EREF+LS-MT-0815?21MREF+M-4711?22OAMT+85,06?23COAM+5,00',
      '?24SVWZ+Retoure SEPA Lastschri?25ft, Rueckgabegrund: AM04 ke?26ine Deckung?32Beispiel AG',
      ':62F:C261123EUR909,94',
      '-',
    ].join('\r\n');
    const result = await importFile(t, mt940, 'retoure.sta');
    const debit = tx(result, 1);
    assert.equal(debit.status, 'matched');
    assert.deepEqual(debit.notes, [
      { code: 'returned', values: { marker: 'GVC 109', reason: 'AM04' } },
      { code: 'return_fee', values: { amount: '5.00' } },
    ]);
    assert.deepEqual(
      debit.reversals.map((r) => [r.amount, r.status_after]),
      [['85.06', 'issued']],
    );
    assert.deepEqual([result.totals.paid_out, result.totals.reversed, result.totals.debits_unassigned], ['90.06', '85.06', '0.00']);
    const booked = (await journalOf(invoice.number)).filter((l) => l.document_type === 'payment').slice(2);
    assert.deepEqual(
      booked.map((l) => [l.entry_date, l.account, l.side, l.amount_cents]),
      [
        ['2026-11-23', '1200', 'H', 8506],
        ['2026-11-23', '10000', 'S', 8506],
      ],
    );
  });

  test('paid, taken back and paid again: invoice.paid is sent once; the change feed shows each step', async () => {
    const invoice = await issueInvoice(t, 'r-again');
    await pay(invoice, '85.06', '2026-11-20');
    const refunded = tick();
    await importFile(t, statement([{ amount: '85.06', indicator: 'DBIT', text: `Erstattung ${invoice.number}`, date: '2026-11-21' }]));
    assert.deepEqual(await feedSince(refunded), [[invoice.id, 'issued', '0.00']]);
    const repaid = tick();
    await importFile(t, statement([{ amount: '85.06', text: `Rechnung ${invoice.number} erneut`, date: '2026-11-22' }]));
    assert.deepEqual(await feedSince(repaid), [[invoice.id, 'paid', '85.06']]);
    const view = await getInvoice(invoice);
    // Booking day 2026-11-22, 00:00 in Berlin.
    assert.equal(view.paid_at, '2026-11-21T23:00:00.000Z');
    assert.deepEqual(
      (await eventsOf(invoice)).map((e) => e.type),
      ['invoice.issued', 'invoice.paid'],
    );
  });

  test('the same file again books nothing; the same debit in another file is a duplicate and is not taken back twice', async () => {
    const invoice = await issueInvoice(t, 'r-twice');
    await pay(invoice, '85.06');
    const content = statement([{ amount: '20.00', indicator: 'DBIT', text: `Erstattung ${invoice.number}`, date: '2026-11-21', ref: 'DEBIT-TWICE-1' }]);
    await importFile(t, content);
    const before = await importCounts(t);
    const again = await importFile(t, content);
    assert.equal(again.already_imported, true);
    const other = await importFile(t, content.replace(/RMSG-\d+/, 'RMSG-OTHER'));
    assert.equal(other.already_imported, false);
    assert.deepEqual(
      other.entries.map((e) => e.status),
      ['duplicate'],
    );
    const after = await importCounts(t);
    assert.deepEqual([after.journalEntries, after.invoices, after.entries], [before.journalEntries, before.invoices, before.entries]);
    assert.equal((await getInvoice(invoice)).amount_paid, '65.06');
  });

  test('a debit dated in a locked accounting period refuses the whole import', async () => {
    const invoice = await issueInvoice(t, 'r-locked');
    await pay(invoice, '85.06', '2026-11-20');
    await t.handle.db.insertInto('period_locks').values({ company_id: t.company.companyId, locked_until: '2026-11-20' }).execute();
    try {
      const before = await importCounts(t);
      await assert.rejects(
        importFile(t, statement([{ amount: '85.06', indicator: 'DBIT', text: `Erstattung ${invoice.number}`, date: '2026-11-20' }])),
        (error: Error) => {
          assert.ok(error instanceof BankImportError);
          assert.equal(error.code, 'period_locked');
          assert.equal(
            error.message,
            `the accounting period is locked up to 2026-11-20; the money taken back from ${invoice.number} booked on 2026-11-20 would fall into it. Nothing was imported.`,
          );
          return true;
        },
      );
      assert.deepEqual(await importCounts(t), before);
      // The day after the lock is open.
      const open = await importFile(t, statement([{ amount: '85.06', indicator: 'DBIT', text: `Erstattung ${invoice.number}`, date: '2026-11-21' }]));
      assert.equal(open.totals.reversed, '85.06');
    } finally {
      await t.handle.db.deleteFrom('period_locks').where('company_id', '=', t.company.companyId).execute();
    }
  });

  test('a credit and the refund of it in one file: the invoice is where it was, both booked; a return later in the file finds the collection of the same file', async () => {
    const refunded = await issueInvoice(t, 'r-same-file');
    const returned = await issueInvoice(t, 'r-same-file-2');
    const since = tick();
    const result = await importFile(
      t,
      statement([
        { amount: '85.06', text: `Rechnung ${refunded.number}`, date: '2026-11-21' },
        { amount: '85.06', indicator: 'DBIT', text: `Erstattung ${refunded.number}`, date: '2026-11-21' },
        { amount: '85.06', e2e: 'LS-SAME-1', text: `Lastschrift ${returned.number}`, date: '2026-11-21' },
        { amount: '85.06', indicator: 'DBIT', reversal: true, e2e: 'LS-SAME-1', returnReason: 'AM04', text: 'Retoure', date: '2026-11-21' },
      ]),
    );
    assert.deepEqual(
      result.entries.map((e) => e.status),
      ['matched', 'matched', 'matched', 'matched'],
    );
    assert.deepEqual([tx(result, 2).reversals[0]?.invoice_number, tx(result, 4).reversals[0]?.invoice_number], [refunded.number, returned.number]);
    // Paid and taken back within the file: nothing changed for the API, no event.
    assert.deepEqual(await feedSince(since), []);
    for (const invoice of [refunded, returned]) {
      assert.deepEqual([(await getInvoice(invoice)).status, (await getInvoice(invoice)).amount_paid], ['issued', '0.00']);
      assert.deepEqual(
        (await eventsOf(invoice)).map((e) => e.type),
        ['invoice.issued'],
      );
      assert.equal((await journalOf(invoice.number)).filter((l) => l.document_type === 'payment').length, 4, 'payment and reversal, two lines each');
    }
  });

  test('overdue: an invoice overdue before its payment is overdue again when the payment is returned, without a second invoice.overdue', async () => {
    const late = await issueInvoice(t, 'r-overdue', { payment_terms_days: 0 });
    const onTime = await issueInvoice(t, 'r-overdue-2', { payment_terms_days: 0 });
    assert.equal((await getInvoice(late)).due_date, '2026-11-21');
    // The day after the due date the daily task marks both overdue (one event each) …
    await runDailyTasks(t.handle.db, t.clock, { asOf: '2026-11-22', companyId: t.company.companyId });
    assert.equal((await getInvoice(late)).overdue, true);
    // … then they are paid, and one payment comes back.
    await pay(late, '85.06', '2026-11-23', { e2e: 'LS-LATE-1' });
    await pay(onTime, '85.06', '2026-11-23');
    assert.equal((await getInvoice(late)).overdue, false);
    await importFile(
      t,
      statement([{ amount: '85.06', indicator: 'DBIT', reversal: true, e2e: 'LS-LATE-1', returnReason: 'AM04', text: 'Retoure', date: '2026-11-24' }]),
    );
    const view = await getInvoice(late);
    assert.deepEqual([view.status, view.overdue], ['issued', true]);
    await runDailyTasks(t.handle.db, t.clock, { asOf: '2026-11-25', companyId: t.company.companyId });
    assert.deepEqual(
      (await eventsOf(late)).map((e) => e.type),
      ['invoice.issued', 'invoice.overdue', 'invoice.paid'],
    );
    assert.equal((await getInvoice(onTime)).overdue, false, 'still paid');
  });

  test('an invoice paid before it was overdue and refunded after its due date is marked overdue by the daily task, once', async () => {
    const invoice = await issueInvoice(t, 'r-overdue-3', { payment_terms_days: 0 });
    await pay(invoice, '85.06', '2026-11-21');
    await importFile(t, statement([{ amount: '85.06', indicator: 'DBIT', text: `Erstattung ${invoice.number}`, date: '2026-11-26' }]));
    assert.equal((await getInvoice(invoice)).overdue, false);
    await runDailyTasks(t.handle.db, t.clock, { asOf: '2026-11-27', companyId: t.company.companyId });
    await runDailyTasks(t.handle.db, t.clock, { asOf: '2026-11-28', companyId: t.company.companyId });
    assert.equal((await getInvoice(invoice)).overdue, true);
    assert.deepEqual(
      (await eventsOf(invoice)).map((e) => e.type),
      ['invoice.issued', 'invoice.paid', 'invoice.overdue'],
    );
  });

  test('a refund naming two invoices takes back from each in the order named', async () => {
    const first = await issueInvoice(t, 'r-two-1');
    const second = await issueInvoice(t, 'r-two-2');
    await pay(first);
    await pay(second);
    // 100.00: 85.06 from the first, 14.94 from the second (85.06 − 14.94 = 70.12 still paid).
    const result = await importFile(
      t,
      statement([{ amount: '100.00', indicator: 'DBIT', text: `Erstattung ${first.number} und ${second.number}`, date: '2026-11-21' }]),
    );
    assert.deepEqual(
      tx(result, 1).reversals.map((r) => [r.invoice_number, r.amount, r.status_after, r.paid_after]),
      [
        [first.number, '85.06', 'issued', '0.00'],
        [second.number, '14.94', 'partially_paid', '70.12'],
      ],
    );
  });

  test('imports at the same time, each taking back half of a paid invoice, both apply, one after the other', async () => {
    const invoice = await issueInvoice(t, 'r-concurrent');
    await pay(invoice);
    // 85.06 = 42.53 + 42.53.
    const files = [1, 2].map((i) =>
      camt([{ amount: '42.53', indicator: 'DBIT', text: `Erstattung ${invoice.number} Teil ${i}`, date: '2026-11-21' }], {
        id: `CONC-${i}`,
        msgId: `CONC-${i}`,
      }),
    );
    const results = await Promise.all(files.map((content) => importFile(t, content)));
    assert.deepEqual(
      results.map((r) => r.totals.reversed),
      ['42.53', '42.53'],
    );
    assert.deepEqual(results.map((r) => tx(r, 1).reversals[0]!.status_after).sort(), ['issued', 'partially_paid']);
    const view = await getInvoice(invoice);
    assert.deepEqual([view.status, view.amount_paid], ['issued', '0.00']);
  });

  test('kontor bank import prints what each debit took back, what waits and why, and the debits’ totals', async () => {
    const refunded = await issueInvoice(t, 'r-cli-1');
    const returned = await issueInvoice(t, 'r-cli-2');
    await pay(refunded);
    await pay(returned, '85.06', '2026-11-20', { e2e: 'LS-CLI-1' });
    const content = statement([
      { amount: '85.06', indicator: 'DBIT', text: `Erstattung ${refunded.number}`, name: 'Beispiel AG', date: '2026-11-21' },
      {
        amount: '85.06',
        indicator: 'DBIT',
        reversal: true,
        e2e: 'LS-CLI-1',
        returnReason: 'AM04',
        text: 'Ruecklastschrift',
        name: 'Beispiel AG',
        date: '2026-11-21',
      },
      { amount: '40.00', indicator: 'DBIT', text: 'Erstattung RE-2025-00417', name: 'Erika Muster', date: '2026-11-21' },
      { amount: '30.00', indicator: 'DBIT', text: 'Kontofuehrung November', name: 'Commerzbank AG', date: '2026-11-21' },
    ]);
    writeFileSync(path.join(t.dataDir, 'debits.xml'), content);
    const io = bufferIo();
    const code = await runCommand(['bank', 'import', 'debits.xml', '--company', t.company.companyId], io, {
      db: t.handle.db,
      clock: t.clock,
      sealer,
      cwd: t.dataDir,
      dataDir: t.dataDir,
      invoicing: t.invoicing,
    });
    assert.equal(code, 0, io.stderr);
    const lines = io.stdout.trimEnd().split('\n');
    assert.deepEqual(lines.slice(1), [
      '',
      'Matched',
      `  #1  2026-11-21  -85.06 EUR  Beispiel AG  ${refunded.number} 85.06 taken back (now issued)`,
      `  #2  2026-11-21  -85.06 EUR  Beispiel AG  ${returned.number} 85.06 taken back (now issued); return (RtrInf, reason AM04)`,
      '',
      'Unmatched (kept for a person to assign)',
      '  #3  2026-11-21  -40.00 EUR  Erika Muster  unknown invoice number RE-2025-00417 — "Erstattung RE-2025-00417"',
      '',
      'Ignored',
      '  #4  2026-11-21  -30.00 EUR  Commerzbank AG  debit ignored',
      '',
      'Totals: 2 matched, 0 partly matched, 1 unmatched, 1 ignored, 0 already imported',
      '        received 0.00 EUR: applied 0.00 EUR to invoices (0 paid, 0 partially paid), customer credit 0.00 EUR, unassigned 0.00 EUR',
      // 85.06 + 85.06 + 40.00 considered (the bank's fee is no customer's): 170.12 taken back, 40.00 waits.
      '        paid out 210.12 EUR: taken back 170.12 EUR from 2 invoices, customer credit paid back 0.00 EUR, unassigned 40.00 EUR',
    ]);
  });

  test('the DATEV export carries the reversal: Konto bank, H, Gegenkonto debtor, Belegfeld 1 = the invoice number', async () => {
    const csv = iconv.decode((await createDatevExport(t.handle.db, t.company.companyId, { from: '2026-01-01', to: '2026-12-31' })).file, 'win1252');
    const rows = csv.split('\r\n').map((line) => line.split(';'));
    const refund = rows.find((fields) => fields[13] === '"Erstattung RE-2026-00001 Beispiel AG"');
    assert.ok(refund, 'the refund of the first test is exported');
    // 85,06 H on 1200 against 10000, Belegdatum 21.11. (2111), Belegfeld 1 RE-2026-00001.
    assert.deepEqual([refund[0], refund[1], refund[6], refund[7], refund[9], refund[10]], ['85,06', '"H"', '1200', '10000', '2111', '"RE-2026-00001"']);
  });
});
