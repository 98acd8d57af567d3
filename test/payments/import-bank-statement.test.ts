import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import iconv from 'iconv-lite';
import { createDatevExport } from '../../src/modules/bookkeeping/index.ts';
import { BankImportError, type BankImportResult, importBankStatement, StatementError } from '../../src/modules/payments/index.ts';
import { type TestApp, testApp } from '../helpers/app.ts';
import { putCustomer } from '../invoicing/helpers.ts';
import { camt, fixture, fixtureText, importCounts, importFile, issueInvoice } from './helpers.ts';

type Invoice = Awaited<ReturnType<typeof issueInvoice>>;

const entry = (result: BankImportResult, position: number) => result.entries.find((e) => e.position === position)!;

describe('importBankStatement', () => {
  let t: TestApp;
  /** RE-2026-00001 … 00007, 85.06 EUR each, customer kunde-1 (debtor 10000). */
  const invoices: Invoice[] = [];
  const getInvoice = async (invoice: Invoice) => (await t.request('GET', `/v1/invoices/${invoice.id}`)).json();
  const paidEvents = (invoice: Invoice) =>
    t.handle.db.selectFrom('events').select(['type', 'data']).where('subject_id', '=', invoice.id).where('type', '=', 'invoice.paid').execute();

  before(async () => {
    t = await testApp();
    await putCustomer(t, 'kunde-1');
    for (let i = 1; i <= 7; i++) invoices.push(await issueInvoice(t, `pay-${i}`));
    assert.deepEqual(
      invoices.map((i) => [i.number, i.total_gross]),
      Array.from({ length: 7 }, (_, i) => [`RE-2026-0000${i + 1}`, '85.06']),
    );
  });
  after(() => t.close());

  test('camt.053.001.02: a full payment marks the invoice paid (paid_at, event, change feed, booking); debit and pending entries are ignored with a note', async () => {
    t.clock.set('2026-11-21T10:00:01Z');
    const since = t.clock.now().toISOString();
    const result = await importFile(t, fixture('camt053-v02.xml'), 'camt-v02.xml');

    assert.equal(result.already_imported, false);
    assert.equal(result.format, 'camt.053.001.02');
    assert.deepEqual(result.warnings, []);
    assert.deepEqual(
      result.entries.map((e) => [e.position, e.status, e.note]),
      [
        [1, 'matched', null],
        [2, 'ignored', 'debit ignored'],
        [3, 'ignored', 'pending entry ignored (only booked entries count)'],
      ],
    );
    assert.deepEqual(entry(result, 1).transactions[0]!.payments, [
      { invoice_id: invoices[0]!.id, invoice_number: 'RE-2026-00001', amount: '85.06', effect: 'paid', open_after: '0.00' },
    ]);

    const paid = await getInvoice(invoices[0]!);
    assert.equal(paid.status, 'paid');
    assert.equal(paid.amount_paid, '85.06');
    assert.equal(paid.paid_at, '2026-11-19T23:00:00.000Z', 'booking date 2026-11-20, 00:00 in Europe/Berlin');

    const events = await paidEvents(invoices[0]!);
    assert.equal(events.length, 1);
    assert.deepEqual(events[0]!.data, paid, 'the event carries the invoice as GET /v1/invoices/{id} shows it');

    const feed = (await t.request('GET', `/v1/invoices?changed_since=${since}`)).json();
    assert.deepEqual(
      feed.data.map((i: { id: string; status: string }) => [i.id, i.status]),
      [[invoices[0]!.id, 'paid']],
    );

    const journal = await t.handle.db
      .selectFrom('journal_entries as e')
      .innerJoin('journal_lines as l', (join) => join.onRef('l.company_id', '=', 'e.company_id').onRef('l.entry_id', '=', 'e.id'))
      .select(['e.document_number', 'e.entry_date', 'l.account', 'l.side', 'l.amount_cents'])
      .where('e.document_type', '=', 'payment')
      .orderBy('l.position')
      .execute();
    assert.deepEqual(journal, [
      { document_number: 'RE-2026-00001', entry_date: '2026-11-20', account: '1200', side: 'S', amount_cents: 8506 },
      { document_number: 'RE-2026-00001', entry_date: '2026-11-20', account: '10000', side: 'H', amount_cents: 8506 },
    ]);
  });

  test('camt.053.001.08: batch of two, over-payment with customer credit, partial payment, unmatched and USD entries', async () => {
    const result = await importFile(t, fixture('camt053-v08.xml'), 'camt-v08.xml');
    assert.deepEqual(
      result.entries.map((e) => [e.position, e.status, e.note]),
      [
        [1, 'matched', null],
        [2, 'matched', null],
        [3, 'matched', null],
        [4, 'unmatched', 'no invoice number found in the remittance text'],
        [5, 'ignored', 'USD entry ignored (Kontor books EUR only)'],
      ],
    );
    assert.deepEqual(
      entry(result, 1).transactions.map((tx) => tx.payments.map((p) => [p.invoice_number, p.amount, p.effect])),
      [[['RE-2026-00002', '85.06', 'paid']], [['RE-2026-00003', '85.06', 'paid']]],
    );
    const over = entry(result, 2).transactions[0]!;
    assert.deepEqual(over.payments[0]!.effect, 'paid');
    assert.deepEqual(over.credit, { customer_id: over.credit!.customer_id, customer_name: 'Beispiel AG', amount: '14.94' });
    assert.match(over.note!, /^14\.94 EUR more than open: kept as credit of Beispiel AG$/);
    assert.deepEqual(entry(result, 3).transactions[0]!.payments, [
      { invoice_id: invoices[4]!.id, invoice_number: 'RE-2026-00005', amount: '50.00', effect: 'partially_paid', open_after: '35.06' },
    ]);
    assert.deepEqual(result.warnings, [
      "statement 2026-11-21-USD is for account DE83500105175555555555, not the company's account DE89370400440532013000; its entries were imported all the same",
    ]);
    assert.deepEqual(result.totals, {
      entries: 5,
      duplicates: 0,
      matched: 3,
      partially_matched: 0,
      unmatched: 1,
      ignored: 1,
      invoices_paid: 3,
      invoices_partially_paid: 1,
      received: '345.12',
      applied: '305.18',
      credited: '14.94',
      unassigned: '25.00',
      // No debit in this file.
      paid_out: '0.00',
      reversed: '0.00',
      credit_refunded: '0.00',
      debits_unassigned: '0.00',
      invoices_reversed: 0,
    });

    const [two, three, four, five] = await Promise.all(invoices.slice(1, 5).map(getInvoice));
    assert.deepEqual(
      [two, three, four, five].map((i) => [i.number, i.status, i.amount_paid, i.paid_at]),
      [
        ['RE-2026-00002', 'paid', '85.06', '2026-11-20T23:00:00.000Z'],
        ['RE-2026-00003', 'paid', '85.06', '2026-11-20T23:00:00.000Z'],
        ['RE-2026-00004', 'paid', '85.06', '2026-11-20T23:00:00.000Z'],
        ['RE-2026-00005', 'partially_paid', '50.00', null],
      ],
    );
    assert.equal((await paidEvents(invoices[4]!)).length, 0, 'a partial payment is no event');
    for (const invoice of invoices.slice(1, 4)) assert.equal((await paidEvents(invoice)).length, 1);

    const credits = await t.handle.db.selectFrom('customer_credits').select(['amount_cents', 'booking_date']).execute();
    assert.deepEqual(credits, [{ amount_cents: 1494, booking_date: '2026-11-21' }]);
    // The whole 100.00 goes bank against debtor: the debtor account carries the 14.94 as a credit balance.
    const overBooking = await t.handle.db
      .selectFrom('journal_entries as e')
      .innerJoin('journal_lines as l', (join) => join.onRef('l.company_id', '=', 'e.company_id').onRef('l.entry_id', '=', 'e.id'))
      .select(['l.account', 'l.side', 'l.amount_cents'])
      .where('e.document_number', '=', 'RE-2026-00004')
      .where('e.document_type', '=', 'payment')
      .orderBy('l.position')
      .execute();
    assert.deepEqual(overBooking, [
      { account: '1200', side: 'S', amount_cents: 10000 },
      { account: '10000', side: 'H', amount_cents: 10000 },
    ]);
    const unassigned = await t.handle.db
      .selectFrom('bank_transactions')
      .select(['payer_name', 'remittance_text', 'unassigned_cents', 'note'])
      .where('status', '=', 'unmatched')
      .execute();
    assert.deepEqual(unassigned, [
      { payer_name: 'Erika Muster', remittance_text: 'Spende Sommerfest', unassigned_cents: 2500, note: 'no invoice number found in the remittance text' },
    ]);
  });

  test('the same file again books nothing and says so', async () => {
    const before = await importCounts(t);
    const again = await importFile(t, fixture('camt053-v08.xml'), 'camt-v08-again.xml');
    assert.equal(again.already_imported, true);
    assert.deepEqual(again.entries, []);
    assert.deepEqual(await importCounts(t), before);
  });

  test('the same entries inside another file are not imported again', async () => {
    const before = await importCounts(t);
    const otherFile = fixtureText('camt053-v08.xml').replace('<MsgId>CAMT053-20261121-01</MsgId>', '<MsgId>CAMT053-20261121-02</MsgId>');
    const result = await importFile(t, otherFile, 'camt-v08-copy.xml');
    assert.equal(result.already_imported, false);
    assert.deepEqual(
      result.entries.map((e) => e.status),
      ['duplicate', 'duplicate', 'duplicate', 'duplicate', 'duplicate'],
    );
    assert.match(result.entries[0]!.note!, /^already imported with statement bst_/);
    const after = await importCounts(t);
    assert.equal(after.statements, before.statements + 1, 'the file itself is recorded');
    assert.deepEqual({ ...after, statements: 0 }, { ...before, statements: 0 }, 'nothing else is written');
  });

  test('MT940: SVWZ+ split over ?21/?22 names the invoice; a second, overlapping MT940 file books nothing twice', async () => {
    const result = await importFile(t, fixture('mt940-de.sta'), 'umsaetze.sta');
    assert.equal(result.format, 'mt940');
    assert.deepEqual(
      result.entries.map((e) => [e.status, e.note]),
      [
        ['matched', null],
        ['ignored', 'debit ignored'],
        ['unmatched', 'no invoice number found in the remittance text'],
      ],
    );
    assert.equal((await getInvoice(invoices[6]!)).status, 'paid');

    const before = await importCounts(t);
    // The next day's file repeats the day before (a re-download): only the new line counts.
    const text = fixtureText('mt940-de.sta', 'win1252')
      .replace(':62F:C261120EUR1095,06', ':61:2611211121CR10,00NTRFNONREF\r\n:86:166?00SEPA-GUTSCHRIFT?20SVWZ+Trinkgeld\r\n:62F:C261121EUR1105,06')
      .replace(':28C:00012/001', ':28C:00012/002');
    const next = await importFile(t, iconv.encode(text, 'win1252'), 'umsaetze-2.sta');
    assert.deepEqual(
      next.entries.map((e) => e.status),
      ['duplicate', 'duplicate', 'duplicate', 'unmatched'],
    );
    const after = await importCounts(t);
    assert.equal(after.journalEntries, before.journalEntries);
    assert.equal(after.entries, before.entries + 1);
  });

  test('the rest of a partly paid invoice, number written in lower case with spaces, makes it paid with one event', async () => {
    const result = await importFile(t, camt([{ amount: '35.06', text: 'rest zu re 2026 00005', date: '2026-11-22' }], { id: 'rest' }));
    assert.deepEqual(entry(result, 1).transactions[0]!.payments[0], {
      invoice_id: invoices[4]!.id,
      invoice_number: 'RE-2026-00005',
      amount: '35.06',
      effect: 'paid',
      open_after: '0.00',
    });
    const five = await getInvoice(invoices[4]!);
    assert.deepEqual([five.status, five.amount_paid, five.paid_at], ['paid', '85.06', '2026-11-21T23:00:00.000Z']);
    const events = await paidEvents(invoices[4]!);
    assert.equal(events.length, 1);
    assert.deepEqual(events[0]!.data, five);
  });

  test('two invoices in one transfer are split in the order named; a shortfall leaves the last one partly paid', async () => {
    const a = await issueInvoice(t, 'split-a');
    const b = await issueInvoice(t, 'split-b');
    const c = await issueInvoice(t, 'split-c');
    const d = await issueInvoice(t, 'split-d');
    const result = await importFile(
      t,
      camt(
        [
          { amount: '170.12', text: `Rechnungen ${b.number.replace(/-/g, '')} und ${a.number.toLowerCase()}` },
          { amount: '100.00', text: `${c.number}/${d.number.replace(/-/g, '_')}` },
        ],
        { id: 'split' },
      ),
    );
    assert.deepEqual(
      result.entries.flatMap((e) => e.transactions.flatMap((tx) => tx.payments.map((p) => [p.invoice_number, p.amount, p.effect, p.open_after]))),
      [
        [b.number, '85.06', 'paid', '0.00'],
        [a.number, '85.06', 'paid', '0.00'],
        [c.number, '85.06', 'paid', '0.00'],
        [d.number, '14.94', 'partially_paid', '70.12'],
      ],
    );
    const journal = await t.handle.db
      .selectFrom('journal_entries')
      .select(['document_number'])
      .where('document_type', '=', 'payment')
      .where('document_number', 'in', [a.number, b.number, c.number, d.number])
      .execute();
    assert.equal(journal.length, 4, 'one booking per invoice, Belegfeld 1 = its number');
  });

  test('credits that name no open invoice stay unmatched with the reason', async () => {
    const cancelled = await issueInvoice(t, 'to-cancel');
    const storno = (await t.request('POST', `/v1/invoices/${cancelled.id}/cancel`)).json();
    const result = await importFile(
      t,
      camt(
        [
          { amount: '85.06', text: 'RE-2026-00001 nochmal' },
          { amount: '85.06', text: `Zahlung ${cancelled.number}` },
          { amount: '85.06', text: `Zahlung ${storno.number}` },
          { amount: '85.06', text: 'RE-2026-99999' },
          { amount: '12.00', text: 'Danke!' },
        ],
        { id: 'unmatched' },
      ),
    );
    assert.deepEqual(
      result.entries.map((e) => [e.status, e.note]),
      [
        ['unmatched', 'invoice RE-2026-00001 is already paid'],
        ['unmatched', `invoice ${cancelled.number} is cancelled`],
        ['unmatched', `${storno.number} is a Stornorechnung (cancellation invoice)`],
        ['unmatched', 'unknown invoice number RE-2026-99999'],
        ['unmatched', 'no invoice number found in the remittance text'],
      ],
    );
    assert.equal(result.totals.unassigned, '352.24');
    assert.equal((await getInvoice(cancelled)).status, 'cancelled');
  });

  test('debits, reversals, pending and non-EUR entries are stored as ignored with a note and book nothing', async () => {
    const open = await issueInvoice(t, 'ignored-ones');
    const before = await importCounts(t);
    const result = await importFile(
      t,
      camt(
        [
          // A debit naming no invoice (issue 24: one naming an invoice takes money back from it, see reversals.test.ts).
          { amount: '85.06', indicator: 'DBIT', text: 'Miete Dezember' },
          { amount: '85.06', reversal: true, text: open.number },
          { amount: '85.06', status: 'PDNG', text: open.number },
          { amount: '85.06', currency: 'CHF', text: open.number },
        ],
        { id: 'ignored' },
      ),
    );
    assert.deepEqual(
      result.entries.map((e) => e.note),
      [
        'debit ignored',
        'reversal of an earlier debit ignored; a person must check it',
        'pending entry ignored (only booked entries count)',
        'CHF entry ignored (Kontor books EUR only)',
      ],
    );
    const after = await importCounts(t);
    assert.equal(after.entries, before.entries + 4);
    assert.equal(after.journalEntries, before.journalEntries);
    assert.equal((await getInvoice(open)).status, 'issued');
  });

  test('paid and partly paid invoices cannot be cancelled after a real import', async () => {
    const full = await issueInvoice(t, 'cancel-paid');
    const part = await issueInvoice(t, 'cancel-part');
    await importFile(
      t,
      camt(
        [
          { amount: '85.06', text: full.number },
          { amount: '10.00', text: part.number },
        ],
        { id: 'cancel' },
      ),
    );
    for (const invoice of [full, part]) {
      const res = await t.request('POST', `/v1/invoices/${invoice.id}/cancel`);
      assert.equal(res.statusCode, 422);
      assert.equal(res.json().detail.code, 'invoice_not_cancellable');
    }
    assert.deepEqual([(await getInvoice(full)).status, (await getInvoice(part)).status], ['paid', 'partially_paid']);
  });

  test('refused files (truncated XML, wrong namespace, foreign XML, MT940 with a broken balance) write nothing', async () => {
    const open = await issueInvoice(t, 'refusals');
    const good = camt([{ amount: '85.06', text: open.number }], { id: 'refused' });
    const before = await importCounts(t);
    const files: [string, string | Buffer, RegExp][] = [
      ['truncated', good.slice(0, good.length - 60), /^the XML is cut off or malformed/],
      ['namespace', good.replace('camt.053.001.08', 'camt.054.001.08'), /^the namespace says camt\.054 but the document holds a camt\.053 <BkToCstmrStmt>/],
      [
        'foreign',
        '<?xml version="1.0"?><Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/>',
        /^the file is an e-invoice \(UBL Invoice\), not an ISO 20022 bank statement/,
      ],
      [
        'broken balance',
        fixture('mt940-broken-balance.sta'),
        /^MT940 statement 1: opening balance 100,00 \+ entries 20,00 ≠ closing balance 130,00; the file does not add up: download it again from online banking$/,
      ],
      ['sub-cent amount', camt([{ amount: '85.061', text: open.number }], { id: 'subcent' }), /^entry 1: amount 85\.061 EUR has more than two decimals$/],
    ];
    for (const [name, content, message] of files) {
      await assert.rejects(importFile(t, content), (error: Error) => error instanceof StatementError && message.test(error.message), name);
    }
    assert.deepEqual(await importCounts(t), before);
    assert.equal((await getInvoice(open)).status, 'issued');
  });

  test('a payment dated in a locked accounting period refuses the whole import', async () => {
    const open = await issueInvoice(t, 'locked');
    const other = await issueInvoice(t, 'locked-2');
    await t.handle.db.insertInto('period_locks').values({ company_id: t.company.companyId, locked_until: '2026-11-30' }).execute();
    try {
      const before = await importCounts(t);
      const file = camt(
        [
          { amount: '85.06', text: open.number, date: '2026-12-01' },
          { amount: '85.06', text: other.number, date: '2026-11-30' },
        ],
        { id: 'locked' },
      );
      await assert.rejects(importFile(t, file), (error: Error) => {
        assert.ok(error instanceof BankImportError);
        assert.equal(error.code, 'period_locked');
        assert.equal(
          error.message,
          `the accounting period is locked up to 2026-11-30; the payment for ${other.number} booked on 2026-11-30 would fall into it. Nothing was imported.`,
        );
        return true;
      });
      assert.deepEqual(await importCounts(t), before);
    } finally {
      await t.handle.db.deleteFrom('period_locks').where('company_id', '=', t.company.companyId).execute();
    }
  });

  test('the DATEV export carries the payments: Konto bank, Gegenkonto debtor, Belegfeld 1 = invoice number', async () => {
    const csv = iconv.decode((await createDatevExport(t.handle.db, t.company.companyId, { from: '2026-01-01', to: '2026-12-31' })).file, 'win1252');
    const payments = csv
      .split('\r\n')
      .map((line) => line.split(';'))
      .filter((fields) => fields[13]?.startsWith('"Zahlungseingang'));
    const first = payments.find((fields) => fields[10] === '"RE-2026-00001"')!;
    assert.deepEqual([first[0], first[1], first[6], first[7], first[9], first[10]], ['85,06', '"S"', '1200', '10000', '2011', '"RE-2026-00001"']);
    const over = payments.find((fields) => fields[10] === '"RE-2026-00004"')!;
    assert.equal(over[0], '100,00', 'the over-payment in full');
    assert.equal(first[114], '', 'no Leistungsdatum on a payment');
  });
});

describe('importBankStatement for an unknown company', () => {
  test('is refused with company_not_found', async () => {
    const t = await testApp();
    try {
      await assert.rejects(
        importBankStatement(t.handle.db, t.clock, 'cmp_unknown', Buffer.from(camt([{ amount: '1.00', text: 'x' }]))),
        (error: Error) => error instanceof BankImportError && error.code === 'company_not_found',
      );
    } finally {
      await t.close();
    }
  });
});

describe('importBankStatement at the same time', () => {
  test('two imports of the same file, or of two files paying the same invoice, book it once', async () => {
    const t = await testApp();
    try {
      await putCustomer(t, 'kunde-1');
      const invoice = await issueInvoice(t, 'concurrent');
      const file = camt([{ amount: '85.06', text: invoice.number }], { id: 'same' });
      const other = camt([{ amount: '85.06', text: invoice.number, ref: 'ANOTHER-REF' }], { id: 'other', msgId: 'MSG-2' });
      const results = await Promise.all([importFile(t, file), importFile(t, file), importFile(t, other)]);
      assert.equal(results.filter((r) => r.already_imported).length, 1, 'the same file is imported once');
      const payments = results.flatMap((r) => r.entries.flatMap((e) => e.transactions.flatMap((tx) => tx.payments)));
      assert.equal(payments.length, 1, 'one of the two transfers pays the invoice');
      const notes = results.flatMap((r) => r.entries.map((e) => e.note)).filter(Boolean);
      assert.deepEqual(notes, [`invoice ${invoice.number} is already paid`], 'the other stays unmatched');
      const counts = await importCounts(t);
      assert.equal(counts.allocations, 1);
      assert.equal(counts.journalEntries, 2, 'the invoice and one payment');
      const events = await t.handle.db.selectFrom('events').select('type').where('subject_id', '=', invoice.id).where('type', '=', 'invoice.paid').execute();
      assert.equal(events.length, 1);
    } finally {
      await t.close();
    }
  });
});
