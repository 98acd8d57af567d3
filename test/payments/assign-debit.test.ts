import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { CommandContext } from '../../src/cli/command-kit.ts';
import { runCommand } from '../../src/cli/commands.ts';
import { bufferIo } from '../../src/cli/io.ts';
import { AssignCreditError, assignBankTransaction } from '../../src/modules/payments/index.ts';
import { countRows, sealer, type TestApp, testApp } from '../helpers/app.ts';
import { putCustomer } from '../invoicing/helpers.ts';
import { camt, importFile, issueInvoice } from './helpers.ts';

// Issue 24, point 3: a debit the import could not take back from an invoice (a refund
// naming no number, a return whose collection Kontor does not know, the rest of a refund
// larger than what was paid) waits for a person, who assigns it to the invoice it takes
// money back from — the same step in the app and on the command line, booked like an
// automatic match, with an audit row. Invoices: 85.06 EUR gross, debtor 10000.

type Invoice = Awaited<ReturnType<typeof issueInvoice>>;

describe('assigning a debit by hand', () => {
  let t: TestApp;
  let ctx: CommandContext;
  let file = 0;
  const actor = () => ({ userId: t.company.userId, organizationId: t.company.organizationId, companyId: t.company.companyId, email: t.company.adminEmail });
  const kontor = async (...args: string[]) => {
    const io = bufferIo();
    const code = await runCommand(args, io, ctx);
    return { code, stdout: io.stdout, stderr: io.stderr };
  };
  const getInvoice = async (invoice: Invoice) => (await t.request('GET', `/v1/invoices/${invoice.id}`)).json();
  const statement = (entries: Parameters<typeof camt>[0]) => {
    file += 1;
    return camt(entries, { id: `A-${file}`, msgId: `AMSG-${file}` });
  };
  const pay = (invoice: Invoice, amount = '85.06') => importFile(t, statement([{ amount, text: `Rechnung ${invoice.number}`, date: '2026-11-20' }]));
  /** A debit the import leaves for a person: a return naming no invoice, its collection unknown to Kontor. */
  const unmatchedDebit = async (amount: string, reason = 'MD06') => {
    const result = await importFile(
      t,
      statement([
        {
          amount,
          indicator: 'DBIT',
          reversal: true,
          returnReason: reason,
          e2e: `UNKNOWN-${file}`,
          text: 'Ruecklastschrift',
          name: 'Beispiel AG',
          date: '2026-11-22',
        },
      ]),
    );
    assert.equal(result.entries[0]!.status, 'unmatched', JSON.stringify(result.entries[0]));
    const entry = await t.handle.db.selectFrom('bank_entries').select('id').where('statement_id', '=', result.statement_id).executeTakeFirstOrThrow();
    return { entryId: entry.id, position: 1 };
  };
  const assign = (debit: { entryId: string; position: number }, number: string) =>
    assignBankTransaction({ db: t.handle.db, clock: t.clock }, t.company.companyId, debit, number, actor());
  const written = async () => ({
    reversals: await countRows(t.handle, 'payment_reversals'),
    journal: await countRows(t.handle, 'journal_entries'),
    audit: await countRows(t.handle, 'audit_log'),
    events: await countRows(t.handle, 'events'),
  });

  before(async () => {
    t = await testApp();
    ctx = { db: t.handle.db, clock: t.clock, sealer, cwd: t.dataDir, dataDir: t.dataDir, invoicing: t.invoicing };
    await putCustomer(t, 'kunde-1');
  });
  after(() => t.close());

  test('the return is listed with its reason; assigned, it is taken back like a match: reversal, booking, invoice issued again, audit row, no event', async () => {
    const invoice = await issueInvoice(t, 'a-1');
    await pay(invoice);
    const debit = await unmatchedDebit('85.06');
    const stored = await t.handle.db
      .selectFrom('bank_transactions')
      .select(['status', 'unassigned_cents', 'note', 'notes'])
      .where('entry_id', '=', debit.entryId)
      .executeTakeFirstOrThrow();
    // RtrInf says more than RvslInd: it names the reason.
    assert.deepEqual(stored, {
      status: 'unmatched',
      unassigned_cents: 8506,
      note: 'return (RtrInf, reason MD06); a return that names no invoice and no payment Kontor booked; a person must assign it',
      notes: [
        { code: 'returned', values: { marker: 'RtrInf', reason: 'MD06' } },
        { code: 'return_without_invoice', values: {} },
      ],
    });
    const before = await written();
    const result = await assign(debit, invoice.number);
    assert.deepEqual(result, {
      direction: 'debit',
      reversalId: result.direction === 'debit' ? result.reversalId : '',
      invoiceNumber: invoice.number,
      invoiceCents: 8506,
      creditCents: 0,
      leftCents: 0,
      statusAfter: 'issued',
    });
    const after = await written();
    assert.deepEqual(after, { reversals: before.reversals + 1, journal: before.journal + 1, audit: before.audit + 1, events: before.events });
    const view = await getInvoice(invoice);
    assert.deepEqual([view.status, view.amount_paid, view.paid_at], ['issued', '0.00', null]);
    const audit = await t.handle.db
      .selectFrom('audit_log')
      .select(['action', 'user_id', 'before', 'after'])
      .where('subject_id', '=', invoice.id)
      .where('action', '=', 'payment.reversed')
      .executeTakeFirstOrThrow();
    assert.equal(audit.user_id, t.company.userId);
    assert.deepEqual(
      [(audit.before as Record<string, string>).paid, (audit.after as Record<string, string>).paid, (audit.after as Record<string, string>).status],
      ['85.06', '0.00', 'issued'],
    );
    const tx = await t.handle.db
      .selectFrom('bank_transactions')
      .select(['status', 'unassigned_cents', 'note'])
      .where('entry_id', '=', debit.entryId)
      .executeTakeFirstOrThrow();
    assert.deepEqual(tx, { status: 'matched', unassigned_cents: 0, note: `Von Hand zugeordnet: ${invoice.number}` });
    // Booked H bank / S debtor on the bank's booking day.
    const lines = await t.handle.db
      .selectFrom('journal_entries as e')
      .innerJoin('journal_lines as l', (join) => join.onRef('l.company_id', '=', 'e.company_id').onRef('l.entry_id', '=', 'e.id'))
      .select(['e.entry_date', 'e.document_number', 'l.account', 'l.side', 'l.amount_cents'])
      .where('e.document_id', '=', result.direction === 'debit' ? result.reversalId : '')
      .orderBy('l.position')
      .execute();
    assert.deepEqual(
      lines.map((l) => [l.entry_date, l.document_number, l.account, l.side, l.amount_cents]),
      [
        ['2026-11-22', invoice.number, '1200', 'H', 8506],
        ['2026-11-22', invoice.number, '10000', 'S', 8506],
      ],
    );
  });

  test('refused, with nothing written: unknown number, Stornorechnung, cancelled, nothing paid, a locked period, a debit assigned in full', async () => {
    const paid = await issueInvoice(t, 'a-2');
    await pay(paid);
    const cancelled = await issueInvoice(t, 'a-3');
    const storno = (await t.request('POST', `/v1/invoices/${cancelled.id}/cancel`)).json() as { number: string };
    const unpaid = await issueInvoice(t, 'a-4');
    const debit = await unmatchedDebit('10.00');
    const before = await written();
    const refusals: [string, RegExp][] = [
      ['RE-1999-00001', /^Eine Rechnung RE-1999-00001 gibt es nicht\.$/],
      [storno.number, new RegExp(`^${storno.number} ist eine Stornorechnung`)],
      [cancelled.number, new RegExp(`^Die Rechnung ${cancelled.number} ist storniert`)],
      [unpaid.number, new RegExp(`^Auf die Rechnung ${unpaid.number} ist nichts gezahlt worden`)],
    ];
    for (const [number, message] of refusals)
      await assert.rejects(assign(debit, number), (error: Error) => error instanceof AssignCreditError && message.test(error.message), number);
    await t.handle.db.insertInto('period_locks').values({ company_id: t.company.companyId, locked_until: '2026-11-22' }).execute();
    try {
      await assert.rejects(assign(debit, paid.number), /Der Buchungszeitraum ist bis 2026-11-22 gesperrt; die Abbuchung vom 2026-11-22 fiele hinein\./);
    } finally {
      await t.handle.db.deleteFrom('period_locks').where('company_id', '=', t.company.companyId).execute();
    }
    assert.deepEqual(await written(), before);
    // Assigned in full (10.00 of 85.06), a second time is refused.
    await assign(debit, paid.number);
    await assert.rejects(assign(debit, paid.number), /Diese Abbuchung ist bereits vollständig zugeordnet\./);
    assert.equal((await getInvoice(paid)).amount_paid, '75.06');
    // A credit's entry is no debit, and a debit is never paid to an invoice.
    await assert.rejects(
      assignBankTransaction(
        { db: t.handle.db, clock: t.clock },
        t.company.companyId,
        { entryId: 'bke_00000000000000000000000000', position: 1 },
        paid.number,
        actor(),
      ),
      /Diese Gutschrift gibt es nicht\./,
    );
  });

  test('more than the invoice received: its payment is taken back, the rest stays to assign; the customer credit of an over-payment first', async () => {
    const first = await issueInvoice(t, 'a-5');
    const over = await issueInvoice(t, 'a-6');
    await pay(first);
    // 90.00 for 85.06: 4.94 kept as credit.
    await pay(over, '90.00');
    const debit = await unmatchedDebit('100.00');
    // 100.00 to the first: its 85.06, 14.94 left.
    const part = await assign(debit, first.number);
    assert.deepEqual(part.direction === 'debit' && [part.invoiceCents, part.creditCents, part.leftCents, part.statusAfter], [8506, 0, 1494, 'issued']);
    const listed = await t.handle.db
      .selectFrom('bank_transactions')
      .select(['status', 'unassigned_cents', 'note'])
      .where('entry_id', '=', debit.entryId)
      .executeTakeFirstOrThrow();
    assert.deepEqual(listed, { status: 'unmatched', unassigned_cents: 1494, note: `Teilweise von Hand zugeordnet (${first.number}); 14.94 EUR offen` });
    // The rest 14.94 to the over-paid one: its credit 4.94 first, then 10.00 of its payment (85.06 − 10.00 = 75.06).
    const rest = await assign(debit, over.number);
    assert.deepEqual(rest.direction === 'debit' && [rest.invoiceCents, rest.creditCents, rest.leftCents, rest.statusAfter], [1000, 494, 0, 'partially_paid']);
    assert.deepEqual([(await getInvoice(over)).status, (await getInvoice(over)).amount_paid], ['partially_paid', '75.06']);
  });

  test('paid, taken back by hand and paid by hand again: invoice.paid is sent once', async () => {
    const invoice = await issueInvoice(t, 'a-7');
    await pay(invoice);
    await assign(await unmatchedDebit('85.06'), invoice.number);
    const credit = await importFile(t, statement([{ amount: '85.06', text: 'ohne Nummer', name: 'Beispiel AG', date: '2026-11-23' }]));
    const entry = await t.handle.db.selectFrom('bank_entries').select('id').where('statement_id', '=', credit.statement_id).executeTakeFirstOrThrow();
    const repaid = await assign({ entryId: entry.id, position: 1 }, invoice.number);
    assert.equal(repaid.direction, 'credit');
    assert.equal((await getInvoice(invoice)).status, 'paid');
    const events = await t.handle.db.selectFrom('events').select('type').where('subject_id', '=', invoice.id).where('type', '=', 'invoice.paid').execute();
    assert.equal(events.length, 1);
  });

  test('two people assigning the same debit at the same time: it is taken back once', async () => {
    const one = await issueInvoice(t, 'a-8');
    const two = await issueInvoice(t, 'a-9');
    await pay(one);
    await pay(two);
    const debit = await unmatchedDebit('85.06');
    const outcomes = await Promise.allSettled([assign(debit, one.number), assign(debit, two.number)]);
    assert.deepEqual(outcomes.map((o) => o.status).sort(), ['fulfilled', 'rejected']);
    const rejected = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
    assert.match(String(rejected.reason.message), /bereits vollständig zugeordnet/);
    const paidSum = Number((await getInvoice(one)).amount_paid) + Number((await getInvoice(two)).amount_paid);
    // 2 × 85.06 paid, 85.06 taken back once: 85.06 left paid.
    assert.equal(paidSum.toFixed(2), '85.06');
  });

  test('kontor bank unassigned lists the debit with its reason; kontor bank assign takes it back', async () => {
    const invoice = await issueInvoice(t, 'a-10');
    await pay(invoice);
    const debit = await unmatchedDebit('20.00', 'AM04');
    const list = await kontor('bank', 'unassigned', '--company', t.company.companyId, '--json');
    assert.equal(list.code, 0, list.stderr);
    const rows = JSON.parse(list.stdout) as { entry_id: string; direction: string; amount: string; note: string }[];
    const mine = rows.find((r) => r.entry_id === debit.entryId)!;
    assert.deepEqual([mine.direction, mine.amount], ['debit', '20.00']);
    assert.match(mine.note, /^return \(RtrInf, reason AM04\); a return that names no invoice/);
    const text = await kontor('bank', 'unassigned', '--company', t.company.companyId);
    assert.match(text.stdout, new RegExp(`${debit.entryId} 1  2026-11-22  -20\\.00 EUR  Beispiel AG  "Ruecklastschrift"  \\(return`));
    const assigned = await kontor('bank', 'assign', debit.entryId, '1', invoice.number, '--company', t.company.companyId, '--by', t.company.adminEmail);
    assert.equal(assigned.code, 0, assigned.stderr);
    // 85.06 − 20.00 = 65.06 still paid.
    assert.equal(
      assigned.stdout.trim(),
      `20.00 EUR taken back from ${invoice.number} (20.00 of its payment, 0.00 of the customer credit; now partially_paid); 0.00 EUR of the debit left`,
    );
    const again = await kontor('bank', 'assign', debit.entryId, '1', invoice.number, '--company', t.company.companyId, '--by', t.company.adminEmail, '--json');
    assert.equal(again.code, 1);
    assert.match(again.stderr, /Diese Abbuchung ist bereits vollständig zugeordnet/);
    assert.equal((await getInvoice(invoice)).amount_paid, '65.06');
  });
});
