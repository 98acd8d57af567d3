import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { DatabaseHandle } from '../../src/db/connection.ts';
import type { Chart } from '../../src/db/schema-bookkeeping.ts';
import { inTransaction } from '../../src/db/transaction.ts';
import { assertBalanced, BookkeepingError, bookInvoice, invoiceJournalLines, type JournalLine, mirror } from '../../src/modules/bookkeeping/index.ts';
import { testDatabase } from '../helpers/database.ts';
import { book, bookkeepingCompany, invoiceDocument, storedLines, stornoOf } from './fixtures.ts';

const line = (account: string, side: 'S' | 'H', amountCents: number): JournalLine => ({ account, side, amountCents, taxKey: null });

describe('bookInvoice', () => {
  let handle: DatabaseHandle;
  const companies: Record<Chart, string> = { SKR03: '', SKR04: '' };
  let docSeq = 0;
  const nextId = () => `inv_test_${++docSeq}`;

  before(async () => {
    handle = await testDatabase();
    companies.SKR03 = await bookkeepingCompany(handle, 'SKR03');
    companies.SKR04 = await bookkeepingCompany(handle, 'SKR04');
  });
  after(() => handle.close());

  const cases: { name: string; doc: Parameters<typeof invoiceDocument>[0]; SKR03: JournalLine[]; SKR04: JournalLine[] }[] = [
    {
      name: 'domestic 19 % + 7 %: S debtor gross / H revenue per rate net / H output VAT per rate',
      doc: {},
      SKR03: [line('10000', 'S', 129700), line('8400', 'H', 100000), line('8300', 'H', 10000), line('1776', 'H', 19000), line('1771', 'H', 700)],
      SKR04: [line('10000', 'S', 129700), line('4400', 'H', 100000), line('4300', 'H', 10000), line('3806', 'H', 19000), line('3801', 'H', 700)],
    },
    {
      name: 'small business (§ 19 UStG): gross to the Kleinunternehmer revenue account, no VAT',
      doc: { verdict: 'small_business', lines: [{ net: '500.00', rate: 0 }] },
      SKR03: [line('10000', 'S', 50000), line('8195', 'H', 50000)],
      SKR04: [line('10000', 'S', 50000), line('4185', 'H', 50000)],
    },
    {
      name: 'EU reverse charge: net to 8336 / 4336, no VAT',
      doc: { verdict: 'reverse_charge', customerNumber: '10001', lines: [{ net: '2500.00', rate: 0 }] },
      SKR03: [line('10001', 'S', 250000), line('8336', 'H', 250000)],
      SKR04: [line('10001', 'S', 250000), line('4336', 'H', 250000)],
    },
    {
      name: 'third country, not taxable: net to 8338 / 4338, no VAT',
      doc: { verdict: 'not_taxable', customerNumber: '10002', lines: [{ net: '80.50', rate: 0 }] },
      SKR03: [line('10002', 'S', 8050), line('8338', 'H', 8050)],
      SKR04: [line('10002', 'S', 8050), line('4338', 'H', 8050)],
    },
    {
      name: 'domestic 0 % with exemption reason next to 19 %: exempt revenue 8100 / 4100',
      doc: {
        lines: [
          { net: '10.00', rate: 19 },
          { net: '40.00', rate: 0 },
        ],
      },
      SKR03: [line('10000', 'S', 5190), line('8400', 'H', 1000), line('8100', 'H', 4000), line('1776', 'H', 190)],
      SKR04: [line('10000', 'S', 5190), line('4400', 'H', 1000), line('4100', 'H', 4000), line('3806', 'H', 190)],
    },
  ];

  for (const c of cases) {
    for (const chart of ['SKR03', 'SKR04'] as const) {
      test(`${chart}: ${c.name}`, async () => {
        const doc = invoiceDocument({ ...c.doc, number: `RE-2026-${String(docSeq + 100).padStart(5, '0')}` });
        const result = await book(handle, companies[chart], chart, doc, nextId());
        assert.equal(result.status, 'booked');
        assert.deepEqual(result.lines, c[chart]);
        const stored = await storedLines(handle, companies[chart], result.entryId!);
        assert.deepEqual(
          stored,
          c[chart].map((l) => ({ account: l.account, side: l.side, amount_cents: l.amountCents, tax_key: null })),
        );
      });
    }
  }

  test('a reverse-charge entry keeps the buyer VAT ID and every entry records date, number and service date', async () => {
    const doc = invoiceDocument({ verdict: 'reverse_charge', number: 'RE-2026-00900', issueDate: '2026-04-02', lines: [{ net: '10.00', rate: 0 }] });
    const result = await book(handle, companies.SKR03, 'SKR03', doc, 'inv_rc_meta');
    const entry = await handle.db.selectFrom('journal_entries').selectAll().where('id', '=', result.entryId!).executeTakeFirstOrThrow();
    assert.equal(entry.entry_date, '2026-04-02');
    assert.equal(entry.document_type, 'invoice');
    assert.equal(entry.document_number, 'RE-2026-00900');
    assert.equal(entry.service_date, '2026-04-28');
    assert.equal(entry.counterparty_vat_id, 'ATU58219378');
    assert.equal(entry.chart, 'SKR03');
    assert.match(entry.description, /^Rechnung RE-2026-00900 Müller GmbH$/);
  });

  test('a storno books the exact mirror of its invoice: same accounts and amounts, sides swapped', async () => {
    const invoice = invoiceDocument({ number: 'RE-2026-00500' });
    const original = await book(handle, companies.SKR03, 'SKR03', invoice, 'inv_to_cancel');
    const storno = await book(handle, companies.SKR03, 'SKR03', stornoOf(invoice, 'RE-2026-00501', '2026-03-20'), 'inv_storno');
    assert.equal(storno.status, 'booked');
    assert.deepEqual(storno.lines, mirror(original.lines));
    assert.deepEqual(storno.lines[0], line('10000', 'H', 129700));
    assert.ok(storno.lines.every((l) => l.amountCents > 0));
    const entry = await handle.db.selectFrom('journal_entries').selectAll().where('id', '=', storno.entryId!).executeTakeFirstOrThrow();
    assert.equal(entry.document_type, 'storno');
    assert.equal(entry.entry_date, '2026-03-20');
    assert.match(entry.description, /^Storno RE-2026-00501 zu RE-2026-00500/);
  });

  test('a document booked twice gives one entry: the second call writes nothing and answers already_booked', async () => {
    const doc = invoiceDocument({ number: 'RE-2026-00600' });
    const first = await book(handle, companies.SKR03, 'SKR03', doc, 'inv_twice');
    const second = await book(handle, companies.SKR03, 'SKR03', doc, 'inv_twice');
    assert.equal(first.status, 'booked');
    assert.equal(second.status, 'already_booked');
    assert.equal(second.entryId, first.entryId);
    assert.deepEqual(second.lines, first.lines);
    const entries = await handle.db
      .selectFrom('journal_entries')
      .select('id')
      .where('company_id', '=', companies.SKR03)
      .where('document_id', '=', 'inv_twice')
      .execute();
    assert.equal(entries.length, 1);
  });

  test('the same document booked by two transactions at once gives one entry', async () => {
    const doc = invoiceDocument({ number: 'RE-2026-00601' });
    const results = await Promise.all([1, 2].map(() => book(handle, companies.SKR03, 'SKR03', doc, 'inv_race')));
    assert.deepEqual(results.map((r) => r.status).sort(), ['already_booked', 'booked']);
    const entries = await handle.db.selectFrom('journal_entries').select('id').where('document_id', '=', 'inv_race').execute();
    assert.equal(entries.length, 1);
    // The loser's entry and lines are one statement: it wrote no line either.
    const booked = results.find((r) => r.status === 'booked')!;
    const lines = await handle.db
      .selectFrom('journal_lines')
      .select('position')
      .where('company_id', '=', companies.SKR03)
      .where('entry_id', '=', entries[0]!.id)
      .execute();
    assert.equal(lines.length, booked.lines.length);
    assert.ok(lines.length >= 2);
  });

  test('refuses to book a document id again under another number', async () => {
    await book(handle, companies.SKR03, 'SKR03', invoiceDocument({ number: 'RE-2026-00700' }), 'inv_renumbered');
    await assert.rejects(
      book(handle, companies.SKR03, 'SKR03', invoiceDocument({ number: 'RE-2026-00701' }), 'inv_renumbered'),
      (e: unknown) => e instanceof BookkeepingError && e.code === 'already_booked',
    );
  });

  test('every entry in the journal is balanced (sum Soll = sum Haben)', async () => {
    const rows = await handle.db
      .selectFrom('journal_lines')
      .select(['entry_id', 'side', 'amount_cents'])
      .where('company_id', 'in', [companies.SKR03, companies.SKR04])
      .execute();
    const sums = new Map<string, number>();
    for (const r of rows) sums.set(r.entry_id, (sums.get(r.entry_id) ?? 0) + (r.side === 'S' ? r.amount_cents : -r.amount_cents));
    assert.ok(sums.size >= 12, `expected the entries of the tests above, got ${sums.size}`);
    for (const [entryId, balance] of sums) assert.equal(balance, 0, `entry ${entryId} is unbalanced`);
  });

  test('refuses a booking dated in a locked accounting period (period_locked)', async () => {
    const company = await bookkeepingCompany(handle, 'SKR03');
    await handle.db.insertInto('period_locks').values({ company_id: company, locked_until: '2026-03-31' }).execute();
    await assert.rejects(
      book(handle, company, 'SKR03', invoiceDocument({ issueDate: '2026-03-31' }), 'inv_locked'),
      (e: unknown) => e instanceof BookkeepingError && e.code === 'period_locked',
    );
    const open = await book(handle, company, 'SKR03', invoiceDocument({ issueDate: '2026-04-01' }), 'inv_open');
    assert.equal(open.status, 'booked');
  });

  test('refuses an invoice with negative totals and a storno with positive ones', async () => {
    const invoice = invoiceDocument({ lines: [{ net: '-10.00', rate: 19 }] });
    assert.throws(
      () => invoiceJournalLines('SKR03', invoice),
      (e: unknown) => e instanceof BookkeepingError && e.code === 'invalid_document',
    );
    const storno = { ...invoiceDocument(), type: 'storno' as const };
    assert.throws(
      () => invoiceJournalLines('SKR03', storno),
      (e: unknown) => e instanceof BookkeepingError && e.code === 'invalid_document',
    );
  });

  test('refuses totals that do not match the VAT breakdown, and VAT on a reverse-charge invoice', () => {
    const doc = invoiceDocument();
    assert.throws(() => invoiceJournalLines('SKR03', { ...doc, totals: { ...doc.totals, gross: '1297.01' } }), /do not match/);
    assert.throws(() => invoiceJournalLines('SKR03', invoiceDocument({ verdict: 'reverse_charge', lines: [{ net: '10.00', rate: 19 }] })), /cannot carry 19 %/);
  });

  test('refuses a customer number outside the debtor range 10000–69999', () => {
    assert.throws(() => invoiceJournalLines('SKR03', invoiceDocument({ customerNumber: '70000' })), /not a debtor account/);
  });

  test('a zero invoice writes no entry', async () => {
    const result = await book(handle, companies.SKR03, 'SKR03', invoiceDocument({ lines: [{ net: '0.00', rate: 19 }] }), 'inv_zero');
    assert.equal(result.status, 'nothing_to_book');
    assert.equal(result.entryId, null);
  });

  test('assertBalanced throws on unequal sides and on non-positive amounts', () => {
    assert.throws(
      () => assertBalanced([line('10000', 'S', 100), line('8400', 'H', 99)]),
      (e: unknown) => e instanceof BookkeepingError && e.code === 'unbalanced',
    );
    assert.throws(() => assertBalanced([line('10000', 'S', 0), line('8400', 'H', 0)]), /positive cents/);
    assert.doesNotThrow(() => assertBalanced([line('10000', 'S', 100), line('8400', 'H', 84), line('1776', 'H', 16)]));
  });

  test('a failure later in the issuing transaction leaves no booking behind', async () => {
    await assert.rejects(
      inTransaction(handle.db, async (trx) => {
        await bookInvoice(trx, companies.SKR03, 'SKR03', invoiceDocument({ number: 'RE-2026-00800' }), 'inv_rolled_back');
        throw new Error('mail rendering failed');
      }),
      /mail rendering failed/,
    );
    const entries = await handle.db.selectFrom('journal_entries').select('id').where('document_id', '=', 'inv_rolled_back').execute();
    assert.equal(entries.length, 0);
  });
});
