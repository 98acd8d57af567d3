import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import iconv from 'iconv-lite';
import type { DatabaseHandle } from '../../src/db/connection.ts';
import type { Chart } from '../../src/db/schema-bookkeeping.ts';
import { inTransaction } from '../../src/db/transaction.ts';
import {
  assertBalanced,
  BookkeepingError,
  bookStatement,
  exportDatevBuchungsstapel,
  type JournalLine,
  mirror,
  statementJournalLines,
} from '../../src/modules/bookkeeping/index.ts';
import type { StatementDocument, StatementPartner, StatementTaxNote } from '../../src/modules/statements/statement-document.ts';
import { testDatabase } from '../helpers/database.ts';
import { book, bookkeepingCompany, invoiceDocument, splitDatevLine, storedLines } from './fixtures.ts';

// Revenue-share statements in the journal and in the DATEV Buchungsstapel (german-rules
// §6.2, §7.2): commission expense against the partner's creditor account.

const line = (account: string, side: 'S' | 'H', amountCents: number, taxKey: string | null = null): JournalLine => ({ account, side, amountCents, taxKey });

const cents = (amount: string) => {
  const [whole = '0', fraction = ''] = amount.replace('-', '').split('.');
  const value = Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
  return amount.startsWith('-') ? -value : value;
};
const money = (value: number) => (value < 0 ? '-' : '') + (Math.abs(value) / 100).toFixed(2);
const negate = (amount: string) => (amount.startsWith('-') ? amount.slice(1) : amount === '0.00' ? amount : `-${amount}`);

type PartnerStatus = StatementPartner['taxStatus'];
const TAX_NOTE: Record<PartnerStatus, StatementTaxNote> = {
  domestic_regular: 'regular',
  domestic_small_business: 'small_business',
  eu_reverse_charge: 'reverse_charge',
  third_country: 'reverse_charge',
  private_person: 'private_person',
};
const PARTNER: Record<PartnerStatus, { name: string; countryCode: string; vatId: string | null }> = {
  domestic_regular: { name: 'Werbeagentur Sonnenschein GmbH', countryCode: 'DE', vatId: 'DE811569869' },
  domestic_small_business: { name: 'Petra Schmidt Marketingberatung', countryCode: 'DE', vatId: null },
  eu_reverse_charge: { name: 'Agence Lumière SARL', countryCode: 'FR', vatId: 'FR40303265045' },
  third_country: { name: 'Alpenblick Consulting AG', countryCode: 'CH', vatId: 'CHE-116.281.710 MWST' },
  private_person: { name: 'Max Mustermann', countryCode: 'DE', vatId: null },
};

type StatementOptions = {
  status?: PartnerStatus;
  number?: string;
  issueDate?: string;
  creditorNumber?: string;
  /** Commission per line (decimal strings); the net total is their sum. */
  amounts?: string[];
};

/** A StatementDocument as issuing freezes it: VAT = round half up(net × 19 %) only for a regular partner. */
function statementDocument(options: StatementOptions = {}): StatementDocument {
  const status = options.status ?? 'domestic_regular';
  const taxNote = TAX_NOTE[status];
  const issueDate = options.issueDate ?? '2026-04-03';
  const amounts = options.amounts ?? ['1000.00', '234.56'];
  const net = amounts.reduce((sum, a) => sum + cents(a), 0);
  const vatRate = taxNote === 'regular' ? 19 : 0;
  const vat = Math.floor((net * vatRate + 50) / 100);
  const partner = PARTNER[status];
  return {
    kind: status === 'private_person' ? 'settlement' : 'self_billing',
    type: 'statement',
    number: options.number ?? 'GS-2026-00001',
    issueDate,
    period: { start: '2026-03-01', end: '2026-03-31' },
    currency: 'EUR',
    company: {
      name: 'Kontor Demo',
      legalForm: 'GmbH',
      street: 'Friedrichstraße',
      houseNumber: '123',
      zip: '10117',
      city: 'Berlin',
      countryCode: 'DE',
      vatId: 'DE136695976',
      email: 'rechnung@kontor-demo.de',
      taxNumber: '30/123/45678',
      phone: null,
      contactName: null,
      iban: 'DE02120300000000202051',
      bic: null,
      bankName: null,
    },
    partner: {
      ...partner,
      street: 'Hauptstraße',
      houseNumber: '1',
      zip: '80336',
      city: 'München',
      email: null,
      creditorNumber: options.creditorNumber ?? '70001',
      taxNumber: null,
      taxStatus: status,
      language: 'de',
      iban: null,
      ibanMasked: null,
      bic: null,
    },
    lines: amounts.map((amount, i) => ({
      position: i + 1,
      description: `Provision 10 % auf bezahlten Umsatz – Kunde ${i + 1}`,
      period: { start: '2026-03-01', end: '2026-03-31' },
      basis: money(cents(amount) * 10),
      percent: '10',
      amount,
      entryCount: 1,
    })),
    vatRate,
    taxNote,
    totals: { net: money(net), vat: money(vat), gross: money(net + vat) },
    notes: [],
    selfBillingAgreedOn: status === 'private_person' ? null : '2026-01-01',
    precedingStatement: null,
    payoutDueDate: '2026-04-17',
    eInvoice: 'none',
  };
}

/** The cancellation (Storno) of a statement: every amount negated, its own number and date. */
function cancellationOf(doc: StatementDocument, number: string, issueDate = doc.issueDate): StatementDocument {
  return {
    ...doc,
    type: 'cancellation',
    number,
    issueDate,
    lines: doc.lines.map((l) => ({ ...l, basis: negate(l.basis), amount: negate(l.amount) })),
    totals: { net: negate(doc.totals.net), vat: negate(doc.totals.vat), gross: negate(doc.totals.gross) },
    precedingStatement: { number: doc.number, issueDate: doc.issueDate },
  };
}

const invalidDocument = (e: unknown) => e instanceof BookkeepingError && e.code === 'invalid_document';

describe('statementJournalLines', () => {
  // net 1234.56: VAT 19 % = 234.5664 → 234.57; § 13b tax of net 1000.05 = 190.0095 → 190.01.
  const cases: { name: string; options: StatementOptions; SKR03: JournalLine[]; SKR04: JournalLine[] }[] = [
    {
      name: 'regular 19 %: H creditor gross / S Verkaufsprovisionen net with BU 9 / S input VAT 19 %',
      options: {},
      SKR03: [line('70001', 'H', 146913), line('4760', 'S', 123456, '9'), line('1576', 'S', 23457)],
      SKR04: [line('70001', 'H', 146913), line('6770', 'S', 123456, '9'), line('1406', 'S', 23457)],
    },
    {
      name: 'small business (§ 19 UStG): net against the creditor, no VAT',
      options: { status: 'domestic_small_business', amounts: ['500.00'] },
      SKR03: [line('70001', 'H', 50000), line('4760', 'S', 50000)],
      SKR04: [line('70001', 'H', 50000), line('6770', 'S', 50000)],
    },
    {
      name: 'private person: net against the creditor, no VAT',
      options: { status: 'private_person', amounts: ['80.50'] },
      SKR03: [line('70001', 'H', 8050), line('4760', 'S', 8050)],
      SKR04: [line('70001', 'H', 8050), line('6770', 'S', 8050)],
    },
    {
      name: 'EU partner, § 13b Abs. 1: net on the automatic account 3123 / 5923 and the pair Vorsteuer / Umsatzsteuer § 13b',
      options: { status: 'eu_reverse_charge', amounts: ['1000.05'] },
      SKR03: [line('70001', 'H', 100005), line('3123', 'S', 100005), line('1577', 'S', 19001), line('1787', 'H', 19001)],
      SKR04: [line('70001', 'H', 100005), line('5923', 'S', 100005), line('1407', 'S', 19001), line('3837', 'H', 19001)],
    },
    {
      name: 'third-country partner, § 13b Abs. 2 Nr. 1: net on the automatic account 3125 / 5925 and the § 13b pair',
      options: { status: 'third_country', amounts: ['0.50'] },
      // 0.50 × 19 % = 0.095 → 0.10 (half up)
      SKR03: [line('70001', 'H', 50), line('3125', 'S', 50), line('1577', 'S', 10), line('1787', 'H', 10)],
      SKR04: [line('70001', 'H', 50), line('5925', 'S', 50), line('1407', 'S', 10), line('3837', 'H', 10)],
    },
  ];

  for (const c of cases) {
    for (const chart of ['SKR03', 'SKR04'] as const) {
      test(`${chart}: ${c.name}`, () => {
        const lines = statementJournalLines(chart, statementDocument(c.options));
        assert.deepEqual(lines, c[chart]);
        assert.doesNotThrow(() => assertBalanced(lines));
      });

      test(`${chart}: the cancellation of "${c.name.split(':')[0]}" books the exact mirror, balanced, positive amounts`, () => {
        const doc = statementDocument(c.options);
        const lines = statementJournalLines(chart, cancellationOf(doc, 'GS-2026-00002'));
        assert.deepEqual(lines, mirror(c[chart]));
        assert.equal(lines[0]!.side, 'S', 'the creditor is debited back');
        assert.ok(lines.every((l) => l.amountCents > 0));
        assert.doesNotThrow(() => assertBalanced(lines));
      });
    }
  }

  test('a zero statement has nothing to book', () => {
    assert.deepEqual(statementJournalLines('SKR03', statementDocument({ amounts: ['10.00', '-10.00'] })), []);
  });

  test('refuses a statement with negative totals and a cancellation with positive ones', () => {
    assert.throws(() => statementJournalLines('SKR03', statementDocument({ amounts: ['-10.00'] })), invalidDocument);
    assert.throws(() => statementJournalLines('SKR03', { ...statementDocument(), type: 'cancellation' }), invalidDocument);
  });

  test('refuses totals that do not add up or do not match the lines', () => {
    const doc = statementDocument();
    assert.throws(() => statementJournalLines('SKR03', { ...doc, totals: { ...doc.totals, gross: '1469.14' } }), /do not add up/);
    assert.throws(() => statementJournalLines('SKR03', { ...doc, lines: doc.lines.slice(1) }), /the lines sum to/);
  });

  test('refuses VAT other than round half up(net × 19 %) on a regular statement, and any VAT without the regular tax note', () => {
    const doc = statementDocument();
    assert.throws(() => statementJournalLines('SKR03', { ...doc, totals: { net: '1234.56', vat: '234.56', gross: '1469.12' } }), invalidDocument);
    const small = statementDocument({ status: 'domestic_small_business', amounts: ['100.00'] });
    assert.throws(() => statementJournalLines('SKR03', { ...small, vatRate: 19, totals: { net: '100.00', vat: '19.00', gross: '119.00' } }), invalidDocument);
    const eu = statementDocument({ status: 'eu_reverse_charge', amounts: ['100.00'] });
    assert.throws(() => statementJournalLines('SKR03', { ...eu, vatRate: 19 }), invalidDocument);
  });

  test('refuses reverse charge for a domestic partner (no § 13b case to book)', () => {
    const doc = statementDocument({ status: 'domestic_small_business', amounts: ['100.00'] });
    assert.throws(() => statementJournalLines('SKR03', { ...doc, taxNote: 'reverse_charge' }), /needs a partner in another EU state or a third country/);
  });

  test('refuses a creditor number outside the creditor range 70000–99999', () => {
    assert.throws(() => statementJournalLines('SKR03', statementDocument({ creditorNumber: '10000' })), /not a creditor account/);
    assert.throws(() => statementJournalLines('SKR03', statementDocument({ creditorNumber: '7001' })), /not a creditor account/);
  });
});

describe('bookStatement', () => {
  let handle: DatabaseHandle;
  const companies: Record<Chart, string> = { SKR03: '', SKR04: '' };
  const bookIt = (companyId: string, chart: Chart, doc: StatementDocument, statementId: string) =>
    inTransaction(handle.db, (trx) => bookStatement(trx, companyId, chart, doc, statementId));
  const entriesOf = (companyId: string, statementId: string) =>
    handle.db.selectFrom('journal_entries').selectAll().where('company_id', '=', companyId).where('document_id', '=', statementId).execute();

  before(async () => {
    handle = await testDatabase();
    companies.SKR03 = await bookkeepingCompany(handle, 'SKR03');
    companies.SKR04 = await bookkeepingCompany(handle, 'SKR04');
  });
  after(() => handle.close());

  test('writes one entry: type commission_statement, statement id and number, issue date, end of the period, partner VAT ID', async () => {
    const doc = statementDocument({ number: 'GS-2026-00010' });
    assert.equal(await bookIt(companies.SKR03, 'SKR03', doc, 'cst_regular'), true);
    const [entry, ...more] = await entriesOf(companies.SKR03, 'cst_regular');
    assert.equal(more.length, 0);
    assert.equal(entry!.document_type, 'commission_statement');
    assert.equal(entry!.document_number, 'GS-2026-00010');
    assert.equal(entry!.entry_date, '2026-04-03');
    assert.equal(entry!.service_date, '2026-03-31');
    assert.equal(entry!.counterparty_vat_id, 'DE811569869');
    assert.equal(entry!.chart, 'SKR03');
    assert.equal(entry!.description, 'Gutschrift GS-2026-00010 Werbeagentur Sonnenschein GmbH');
    assert.deepEqual(await storedLines(handle, companies.SKR03, entry!.id), [
      { account: '70001', side: 'H', amount_cents: 146913, tax_key: null },
      { account: '4760', side: 'S', amount_cents: 123456, tax_key: '9' },
      { account: '1576', side: 'S', amount_cents: 23457, tax_key: null },
    ]);
  });

  test('a § 13b statement keeps the explicit VAT pair in the journal; a Swiss UID is not kept as VAT ID', async () => {
    const doc = statementDocument({ status: 'third_country', number: 'GS-2026-00011', amounts: ['300.00'] });
    assert.equal(await bookIt(companies.SKR04, 'SKR04', doc, 'cst_foreign'), true);
    const [entry] = await entriesOf(companies.SKR04, 'cst_foreign');
    assert.equal(entry!.counterparty_vat_id, null);
    assert.deepEqual(await storedLines(handle, companies.SKR04, entry!.id), [
      { account: '70001', side: 'H', amount_cents: 30000, tax_key: null },
      { account: '5925', side: 'S', amount_cents: 30000, tax_key: null },
      { account: '1407', side: 'S', amount_cents: 5700, tax_key: null },
      { account: '3837', side: 'H', amount_cents: 5700, tax_key: null },
    ]);
  });

  test('a statement is booked once: the second call answers false and writes nothing', async () => {
    const doc = statementDocument({ number: 'GS-2026-00020' });
    assert.equal(await bookIt(companies.SKR03, 'SKR03', doc, 'cst_twice'), true);
    const linesBefore = await handle.db.selectFrom('journal_lines').select('entry_id').where('company_id', '=', companies.SKR03).execute();
    assert.equal(await bookIt(companies.SKR03, 'SKR03', doc, 'cst_twice'), false);
    assert.equal((await entriesOf(companies.SKR03, 'cst_twice')).length, 1);
    const linesAfter = await handle.db.selectFrom('journal_lines').select('entry_id').where('company_id', '=', companies.SKR03).execute();
    assert.equal(linesAfter.length, linesBefore.length);
  });

  test('the same statement booked by two transactions at once gives one entry', async () => {
    const doc = statementDocument({ number: 'GS-2026-00021' });
    const results = await Promise.all([1, 2].map(() => bookIt(companies.SKR03, 'SKR03', doc, 'cst_race')));
    assert.deepEqual(results.sort(), [false, true]);
    assert.equal((await entriesOf(companies.SKR03, 'cst_race')).length, 1);
  });

  test('refuses to book a statement id again under another number', async () => {
    await bookIt(companies.SKR03, 'SKR03', statementDocument({ number: 'GS-2026-00030' }), 'cst_renumbered');
    await assert.rejects(
      bookIt(companies.SKR03, 'SKR03', statementDocument({ number: 'GS-2026-00031' }), 'cst_renumbered'),
      (e: unknown) => e instanceof BookkeepingError && e.code === 'already_booked',
    );
  });

  test('a cancellation is its own entry with the mirrored lines', async () => {
    const doc = statementDocument({ status: 'eu_reverse_charge', number: 'GS-2026-00040', amounts: ['1000.05'] });
    await bookIt(companies.SKR03, 'SKR03', doc, 'cst_to_cancel');
    assert.equal(await bookIt(companies.SKR03, 'SKR03', cancellationOf(doc, 'GS-2026-00041', '2026-04-20'), 'cst_cancellation'), true);
    const [original] = await entriesOf(companies.SKR03, 'cst_to_cancel');
    const [storno] = await entriesOf(companies.SKR03, 'cst_cancellation');
    assert.equal(storno!.entry_date, '2026-04-20');
    assert.equal(storno!.document_number, 'GS-2026-00041');
    assert.equal(storno!.description, 'Storno GS-2026-00041 zu GS-2026-00040 Agence Lumière SARL');
    const originalLines = await storedLines(handle, companies.SKR03, original!.id);
    const stornoLines = await storedLines(handle, companies.SKR03, storno!.id);
    assert.deepEqual(
      stornoLines,
      originalLines.map((l) => ({ ...l, side: l.side === 'S' ? 'H' : 'S' })),
    );
  });

  test('a zero statement writes nothing', async () => {
    assert.equal(await bookIt(companies.SKR03, 'SKR03', statementDocument({ number: 'GS-2026-00050', amounts: ['5.00', '-5.00'] }), 'cst_zero'), false);
    assert.equal((await entriesOf(companies.SKR03, 'cst_zero')).length, 0);
  });

  test('refuses a statement dated in a locked accounting period (period_locked) and writes nothing', async () => {
    const company = await bookkeepingCompany(handle, 'SKR03');
    await handle.db.insertInto('period_locks').values({ company_id: company, locked_until: '2026-04-03' }).execute();
    await assert.rejects(
      bookIt(company, 'SKR03', statementDocument({ issueDate: '2026-04-03' }), 'cst_locked'),
      (e: unknown) => e instanceof BookkeepingError && e.code === 'period_locked',
    );
    assert.equal((await entriesOf(company, 'cst_locked')).length, 0);
    assert.equal(await bookIt(company, 'SKR03', statementDocument({ issueDate: '2026-04-04' }), 'cst_open'), true);
  });

  test('every entry in the journal is balanced (sum Soll = sum Haben)', async () => {
    const rows = await handle.db
      .selectFrom('journal_lines')
      .select(['entry_id', 'side', 'amount_cents'])
      .where('company_id', 'in', [companies.SKR03, companies.SKR04])
      .execute();
    const sums = new Map<string, number>();
    for (const r of rows) sums.set(r.entry_id, (sums.get(r.entry_id) ?? 0) + (r.side === 'S' ? r.amount_cents : -r.amount_cents));
    assert.ok(sums.size >= 6);
    for (const [entryId, balance] of sums) assert.equal(balance, 0, `entry ${entryId} is unbalanced`);
  });
});

describe('DATEV export of statements', () => {
  let handle: DatabaseHandle;
  let skr03: string;
  let skr04: string;
  const NOW = new Date('2026-11-21T10:00:00.123Z');
  const bookIt = (companyId: string, chart: Chart, doc: StatementDocument, statementId: string) =>
    inTransaction(handle.db, (trx) => bookStatement(trx, companyId, chart, doc, statementId));
  const rowsOf = async (companyId: string) => {
    const content = iconv.decode(await exportDatevBuchungsstapel(handle.db, companyId, { from: '2026-01-01', to: '2026-12-31', now: NOW }), 'win1252');
    return content.split('\r\n').slice(2, -1).map(splitDatevLine);
  };
  /** Umsatz, S/H, Konto, Gegenkonto, BU-Schlüssel, Belegdatum, Belegfeld 1, Leistungsdatum. */
  const main = (row: string[]) => [row[0], row[1], row[6], row[7], row[8], row[9], row[10], row[114]];

  before(async () => {
    handle = await testDatabase();
    skr03 = await bookkeepingCompany(handle, 'SKR03');
    skr04 = await bookkeepingCompany(handle, 'SKR04');
    await book(handle, skr03, 'SKR03', invoiceDocument({ number: 'RE-2026-00001', issueDate: '2026-04-01' }), 'inv_1');
    const regular = statementDocument({ number: 'GS-2026-00001', issueDate: '2026-04-03' });
    await bookIt(skr03, 'SKR03', regular, 'cst_1');
    await bookIt(
      skr03,
      'SKR03',
      statementDocument({ status: 'domestic_small_business', number: 'GS-2026-00002', creditorNumber: '70002', amounts: ['500.00'] }),
      'cst_2',
    );
    const eu = statementDocument({ status: 'eu_reverse_charge', number: 'GS-2026-00003', creditorNumber: '70003', amounts: ['1000.05'] });
    await bookIt(skr03, 'SKR03', eu, 'cst_3');
    await bookIt(skr03, 'SKR03', statementDocument({ status: 'third_country', number: 'GS-2026-00004', creditorNumber: '70004', amounts: ['0.50'] }), 'cst_4');
    await bookIt(
      skr03,
      'SKR03',
      statementDocument({ status: 'private_person', number: 'AB-2026-00001', creditorNumber: '70005', amounts: ['80.50'] }),
      'cst_5',
    );
    await bookIt(skr03, 'SKR03', cancellationOf(regular, 'GS-2026-00005', '2026-04-10'), 'cst_6');
    await bookIt(skr03, 'SKR03', cancellationOf(eu, 'GS-2026-00006', '2026-04-10'), 'cst_7');
    await bookIt(skr04, 'SKR04', statementDocument({ number: 'GS-2026-00001' }), 'cst_1');
    await bookIt(
      skr04,
      'SKR04',
      statementDocument({ status: 'eu_reverse_charge', number: 'GS-2026-00002', creditorNumber: '70003', amounts: ['1000.05'] }),
      'cst_2',
    );
  });
  after(() => handle.close());

  test('one data line per statement: the creditor as Konto, Belegfeld 1 = statement number, the invoice unchanged beside them', async () => {
    const rows = await rowsOf(skr03);
    // The cancellations GS-2026-00005 and -00006 carry the cancelled Gutschrift's number (below).
    assert.deepEqual(
      rows.map((r) => r[10]),
      ['RE-2026-00001', 'RE-2026-00001', 'GS-2026-00001', 'GS-2026-00002', 'GS-2026-00003', 'GS-2026-00004', 'AB-2026-00001', 'GS-2026-00001', 'GS-2026-00003'],
    );
    assert.deepEqual([rows[0]![0], rows[0]![1], rows[0]![6], rows[0]![7], rows[0]![8]], ['1190,00', 'S', '10000', '8400', '']);
    for (const row of rows) assert.equal(row.length, 125);
  });

  test('regular: creditor Haben against Verkaufsprovisionen with the gross and BU-Schlüssel 9 (DATEV derives the input VAT once)', async () => {
    const row = (await rowsOf(skr03)).find((r) => r[10] === 'GS-2026-00001')!;
    assert.deepEqual(main(row), ['1469,13', 'H', '70001', '4760', '9', '0304', 'GS-2026-00001', '31032026']);
    assert.equal(row[2], 'EUR');
    assert.equal(row[13], 'Gutschrift GS-2026-00001 Werbeagentur Sonnenschein GmbH');
    // DATEV's split of the gross with key 9: 1469.13 × 19 / 119 = 234.57 → the journal's 1576 line.
  });

  test('small business and private person: the net, no BU-Schlüssel', async () => {
    const rows = await rowsOf(skr03);
    assert.deepEqual(main(rows.find((r) => r[10] === 'GS-2026-00002')!), ['500,00', 'H', '70002', '4760', '', '0304', 'GS-2026-00002', '31032026']);
    assert.deepEqual(main(rows.find((r) => r[10] === 'AB-2026-00001')!), ['80,50', 'H', '70005', '4760', '', '0304', 'AB-2026-00001', '31032026']);
  });

  test('§ 13b: the net against the automatic account 3123 (EU) / 3125 (third country), no key, no separate VAT rows', async () => {
    const rows = await rowsOf(skr03);
    const eu = rows.filter((r) => r[10] === 'GS-2026-00003' && r[13]!.startsWith('Gutschrift'));
    assert.deepEqual(eu.map(main), [['1000,05', 'H', '70003', '3123', '', '0304', 'GS-2026-00003', '31032026']]);
    const foreign = rows.filter((r) => r[10] === 'GS-2026-00004');
    assert.deepEqual(foreign.map(main), [['0,50', 'H', '70004', '3125', '', '0304', 'GS-2026-00004', '31032026']]);
    assert.ok(!rows.some((r) => ['1576', '1577', '1787'].includes(r[7]!) || ['1576', '1577', '1787'].includes(r[6]!)));
    assert.equal(eu[0]![39], '', 'EU-Land u. UStID (Bestimmung) is for revenue, not for services received');
  });

  test('cancellations: the same rows with the Soll mark, Belegfeld 1 = the cancelled statement (its open item closes), own number beside it', async () => {
    const rows = (await rowsOf(skr03)).filter((r) => r[13]!.startsWith('Storno'));
    assert.deepEqual(
      rows.map((r) => [...main(r), r[13], r[20], r[21]]),
      [
        [
          '1469,13',
          'S',
          '70001',
          '4760',
          '9',
          '1004',
          'GS-2026-00001',
          '31032026',
          'Storno GS-2026-00005 zu GS-2026-00001 Werbeagentur Sonnenschein GmbH'.slice(0, 60),
          'Belegnummer',
          'GS-2026-00005',
        ],
        [
          '1000,05',
          'S',
          '70003',
          '3123',
          '',
          '1004',
          'GS-2026-00003',
          '31032026',
          'Storno GS-2026-00006 zu GS-2026-00003 Agence Lumière SARL',
          'Belegnummer',
          'GS-2026-00006',
        ],
      ],
    );
  });

  test('SKR04: 6770 with BU 9, the § 13b net on 5923', async () => {
    const rows = await rowsOf(skr04);
    assert.deepEqual(
      rows.map((r) => [r[0], r[1], r[6], r[7], r[8], r[10]]),
      [
        ['1469,13', 'H', '70001', '6770', '9', 'GS-2026-00001'],
        ['1000,05', 'H', '70003', '5923', '', 'GS-2026-00002'],
      ],
    );
  });

  test('refuses to export a § 13b entry whose VAT pair is not what DATEV computes from the net', async () => {
    const company = await bookkeepingCompany(handle, 'SKR03');
    await handle.db
      .insertInto('journal_entries')
      .values({
        company_id: company,
        id: 'jen_bad',
        entry_date: '2026-05-02',
        document_type: 'commission_statement',
        document_id: 'cst_bad',
        document_number: 'GS-2026-00099',
        description: 'Gutschrift GS-2026-00099',
        chart: 'SKR03',
        service_date: null,
        counterparty_vat_id: null,
      })
      .execute();
    const bad = [line('70003', 'H', 10000), line('3123', 'S', 10000), line('1577', 'S', 1800), line('1787', 'H', 1800)];
    await handle.db
      .insertInto('journal_lines')
      .values(
        bad.map((l, i) => ({
          company_id: company,
          entry_id: 'jen_bad',
          position: i + 1,
          account: l.account,
          side: l.side,
          amount_cents: l.amountCents,
          tax_key: l.taxKey,
        })),
      )
      .execute();
    await assert.rejects(
      exportDatevBuchungsstapel(handle.db, company, { from: '2026-01-01', to: '2026-12-31' }),
      (e: unknown) => e instanceof BookkeepingError && e.code === 'not_exportable' && /§ 13b VAT lines/.test(e.message),
    );
  });
});
