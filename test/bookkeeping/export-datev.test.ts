import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import iconv from 'iconv-lite';
import type { DatabaseHandle } from '../../src/db/connection.ts';
import { updateCompany } from '../../src/modules/access/index.ts';
import { BookkeepingError, createDatevExport, exportDatevBuchungsstapel, lockPeriod } from '../../src/modules/bookkeeping/index.ts';
import { fixedClock } from '../../src/shared/clock.ts';
import { testDatabase } from '../helpers/database.ts';
import { book, bookkeepingCompany, invoiceDocument, sealer, splitDatevLine, stornoOf } from './fixtures.ts';

const NOW = new Date('2026-11-21T10:00:00.123Z');

describe('exportDatevBuchungsstapel', () => {
  let handle: DatabaseHandle;
  let skr03: string;
  let skr04: string;
  let file: Buffer;
  let lines: string[];
  let data: string[][];

  before(async () => {
    handle = await testDatabase();
    skr03 = await bookkeepingCompany(handle, 'SKR03');
    skr04 = await bookkeepingCompany(handle, 'SKR04');
    const invoice = invoiceDocument({ number: 'RE-2026-00001', issueDate: '2026-03-05' });
    await book(handle, skr03, 'SKR03', invoice, 'inv_1');
    await book(handle, skr03, 'SKR03', stornoOf(invoice, 'RE-2026-00002', '2026-03-06'), 'inv_2');
    await book(
      handle,
      skr03,
      'SKR03',
      invoiceDocument({
        number: 'RE-2026-00003',
        issueDate: '2026-04-30',
        verdict: 'reverse_charge',
        customerNumber: '10001',
        buyerName: 'Österreich "Süd" GmbH',
        lines: [{ net: '2500.00', rate: 0 }],
      }),
      'inv_3',
    );
    // Outside the exported range: the year before and the year after.
    await book(handle, skr03, 'SKR03', invoiceDocument({ number: 'RE-2025-00099', issueDate: '2025-12-31' }), 'inv_old');
    await book(handle, skr03, 'SKR03', invoiceDocument({ number: 'RE-2027-00001', issueDate: '2027-01-01' }), 'inv_new');
    await book(handle, skr04, 'SKR04', invoiceDocument({ number: 'RE-2026-00001', issueDate: '2026-06-01' }), 'inv_skr04');

    file = await exportDatevBuchungsstapel(handle.db, skr03, { from: '2026-01-01', to: '2026-12-31', now: NOW });
    const content = iconv.decode(file, 'win1252');
    lines = content.split('\r\n');
    data = lines.slice(2, -1).map(splitDatevLine);
  });
  after(() => handle.close());

  test('lines end in CRLF, with no bare LF and a final CRLF', () => {
    const content = iconv.decode(file, 'win1252');
    assert.ok(content.endsWith('\r\n'));
    assert.equal(lines.at(-1), '');
    assert.equal(content.replaceAll('\r\n', '').includes('\n'), false);
  });

  test('the header line has 31 fields: EXTF 700, category 21 Buchungsstapel 13, DATEV test Berater 1001 / Mandant 1 without settings, fiscal year, period, SKR', () => {
    const header = lines[0]!.split(';');
    assert.equal(header.length, 31);
    assert.deepEqual(header.slice(0, 5), ['"EXTF"', '700', '21', '"Buchungsstapel"', '13']);
    assert.equal(header[5], '20261121110000123', 'creation time in Europe/Berlin');
    assert.equal(header[10], '1001');
    assert.equal(header[11], '1');
    assert.equal(header[12], '20260101', 'fiscal year start');
    assert.equal(header[13], '4', 'G/L account length');
    assert.equal(header[14], '20260101');
    assert.equal(header[15], '20261231');
    assert.equal(header[18], '1', 'booking type FiBu');
    assert.equal(header[20], '0', 'no Festschreibung: nothing is locked');
    assert.equal(header[21], '"EUR"');
    assert.equal(header[26], '"03"');
  });

  test('the column-name line and every data line have 125 columns', () => {
    const columns = lines[1]!.split(';');
    assert.equal(columns.length, 125);
    assert.equal(columns[0], 'Umsatz (ohne Soll/Haben-Kz)');
    assert.equal(columns[8], 'BU-Schlüssel');
    assert.equal(columns[114], 'Leistungsdatum');
    assert.ok(data.length > 0);
    for (const row of data) assert.equal(row.length, 125);
  });

  test('exports only the entries dated inside the range, one data line per revenue account', () => {
    // The storno RE-2026-00002 carries the number of the invoice it cancels in Belegfeld 1 (below).
    assert.deepEqual(
      data.map((row) => [row[10], row[13]!.split(' ')[0]]),
      [
        ['RE-2026-00001', 'Rechnung'],
        ['RE-2026-00001', 'Rechnung'],
        ['RE-2026-00001', 'Storno'],
        ['RE-2026-00001', 'Storno'],
        ['RE-2026-00003', 'Rechnung'],
      ],
    );
  });

  test('an invoice: debtor against the automatic revenue account with the gross amount, decimal comma, no BU key', () => {
    const [first, second] = data;
    // Umsatz, S/H, WKZ, Konto, Gegenkonto, BU, Belegdatum
    assert.deepEqual([first![0], first![1], first![2], first![6], first![7], first![8], first![9]], ['1190,00', 'S', 'EUR', '10000', '8400', '', '0503']);
    assert.deepEqual([second![0], second![1], second![6], second![7], second![8]], ['107,00', 'S', '10000', '8300', '']);
    assert.equal(first![13], 'Rechnung RE-2026-00001 Müller GmbH');
    assert.equal(first![114], '28032026', 'Leistungsdatum TTMMJJJJ = end of the service period');
  });

  test('the raw bytes are Windows-1252: ü is 0xFC, not UTF-8', () => {
    assert.ok(file.includes(Buffer.from([0x4d, 0xfc, 0x6c, 0x6c, 0x65, 0x72])), 'Müller as Windows-1252');
    assert.equal(file.includes(Buffer.from([0xc3, 0xbc])), false, 'no UTF-8 ü');
    assert.ok(lines[2]!.includes('"Rechnung RE-2026-00001 Müller GmbH"'), 'Buchungstext in double quotes');
  });

  test('the storno: same accounts with the Haben mark, positive amounts; Belegfeld 1 = the cancelled invoice, so DATEV closes its open item', () => {
    // DATEV (Buchungsstapel, field 11): an open item is cleared only by a payment or credit
    // whose Belegfeld 1 equals the invoice's. The storno's own number stays in the
    // Buchungstext and in Beleginfo 1 ("Belegnummer").
    const storno = data.filter((row) => row[13]!.startsWith('Storno'));
    assert.deepEqual(
      storno.map((row) => [row[0], row[1], row[6], row[7], row[9], row[10], row[13], row[20], row[21]]),
      [
        ['1190,00', 'H', '10000', '8400', '0603', 'RE-2026-00001', 'Storno RE-2026-00002 zu RE-2026-00001 Müller GmbH', 'Belegnummer', 'RE-2026-00002'],
        ['107,00', 'H', '10000', '8300', '0603', 'RE-2026-00001', 'Storno RE-2026-00002 zu RE-2026-00001 Müller GmbH', 'Belegnummer', 'RE-2026-00002'],
      ],
    );
    // On the debtor's account the invoice (S) and its storno (H) under one key net to zero.
    const debtor = data.filter((row) => row[6] === '10000' && row[10] === 'RE-2026-00001');
    const balance = debtor.reduce((sum, row) => sum + (row[1] === 'S' ? 1 : -1) * Number(row[0]!.replace(',', '')), 0);
    assert.equal(balance, 0);
    // An invoice's own rows carry no Beleginfo.
    assert.deepEqual([data[0]![20], data[0]![21]], ['', '']);
  });

  test('reverse charge: net to 8336 with the buyer VAT ID; quotes in the text are doubled; Buchungstext at most 60 characters', () => {
    const row = data.find((r) => r[10] === 'RE-2026-00003')!;
    assert.deepEqual([row[0], row[1], row[6], row[7], row[8], row[9]], ['2500,00', 'S', '10001', '8336', '', '3004']);
    assert.equal(row[39], 'ATU58219378');
    assert.equal(row[13], 'Rechnung RE-2026-00003 Österreich "Süd" GmbH');
    assert.ok(lines[6]!.includes('"Rechnung RE-2026-00003 Österreich ""Süd"" GmbH"'));
    assert.ok(data.every((r) => r[13]!.length <= 60));
  });

  test('createDatevExport counts the bookings and entries', async () => {
    const result = await createDatevExport(handle.db, skr03, { from: '2026-01-01', to: '2026-12-31', now: NOW });
    assert.equal(result.bookings, 5);
    assert.equal(result.entries, 3);
    assert.deepEqual(result.file, file);
  });

  test('an SKR04 company gets SKR "04" and its own accounts', async () => {
    const content = iconv.decode(await exportDatevBuchungsstapel(handle.db, skr04, { from: '2026-06-01', to: '2026-06-30', now: NOW }), 'win1252');
    const [header, , ...rest] = content.split('\r\n');
    assert.equal(header!.split(';')[26], '"04"');
    const rows = rest.slice(0, -1).map(splitDatevLine);
    assert.deepEqual(
      rows.map((r) => [r[0], r[6], r[7]]),
      [
        ['1190,00', '10000', '4400'],
        ['107,00', '10000', '4300'],
      ],
    );
  });

  test('a range with no entries gives header and column names only', async () => {
    const result = await createDatevExport(handle.db, skr03, { from: '2026-12-01', to: '2026-12-31', now: NOW });
    assert.equal(result.bookings, 0);
    assert.equal(iconv.decode(result.file, 'win1252').split('\r\n').length, 3);
  });

  test('refuses a range across two fiscal years (DATEV takes one fiscal year per file)', async () => {
    await assert.rejects(
      exportDatevBuchungsstapel(handle.db, skr03, { from: '2025-12-01', to: '2026-01-31' }),
      (e: unknown) => e instanceof BookkeepingError && e.code === 'invalid_range' && /one fiscal year/.test(e.message),
    );
  });

  test('refuses malformed and reversed ranges and unknown companies', async () => {
    await assert.rejects(exportDatevBuchungsstapel(handle.db, skr03, { from: '2026-02-30', to: '2026-03-01' }), /must be dates/);
    await assert.rejects(exportDatevBuchungsstapel(handle.db, skr03, { from: '2026-03-02', to: '2026-03-01' }), /after its end/);
    await assert.rejects(
      exportDatevBuchungsstapel(handle.db, 'cmp_unknown', { from: '2026-01-01', to: '2026-01-31' }),
      (e: unknown) => e instanceof BookkeepingError && e.code === 'company_not_found',
    );
  });

  test('without DATEV numbers the export warns that the header carries the test numbers', async () => {
    const result = await createDatevExport(handle.db, skr03, { from: '2026-12-01', to: '2026-12-31', now: NOW });
    assert.equal(result.warnings.length, 1);
    assert.match(result.warnings[0]!, /no DATEV consultant and client number.*1001\/1/);
  });
});

describe('DATEV header from the company settings', () => {
  let handle: DatabaseHandle;
  let companyId: string;
  const header = async (from: string, to: string) =>
    iconv
      .decode(await exportDatevBuchungsstapel(handle.db, companyId, { from, to, now: NOW }), 'win1252')
      .split('\r\n')[0]!
      .split(';');

  before(async () => {
    handle = await testDatabase();
    companyId = await bookkeepingCompany(handle, 'SKR03');
    await updateCompany(
      handle.db,
      fixedClock('2026-11-21T10:00:00Z'),
      sealer,
      companyId,
      JSON.stringify({ datev_consultant_number: 4711, datev_client_number: '12345', fiscal_year_start: '07-01' }),
    );
    await book(handle, companyId, 'SKR03', invoiceDocument({ number: 'RE-2026-00001', issueDate: '2026-03-05' }), 'inv_1');
  });
  after(() => handle.close());

  test('carries the consultant and client numbers and the start of the fiscal year that holds the range', async () => {
    const fields = await header('2025-07-01', '2026-06-30');
    assert.deepEqual([fields[10], fields[11], fields[12], fields[14], fields[15]], ['4711', '12345', '20250701', '20250701', '20260630']);
    const result = await createDatevExport(handle.db, companyId, { from: '2025-07-01', to: '2026-06-30', now: NOW });
    assert.equal(result.bookings, 2, 'the March invoice lies in the fiscal year 2025/26');
    assert.deepEqual(result.warnings, []);
    assert.equal((await header('2026-07-01', '2026-07-31'))[12], '20260701');
  });

  test('refuses a range across the fiscal-year start, not across the calendar year', async () => {
    await assert.rejects(
      exportDatevBuchungsstapel(handle.db, companyId, { from: '2026-06-01', to: '2026-07-31' }),
      (e: unknown) => e instanceof BookkeepingError && e.code === 'invalid_range' && /starts on 07-01/.test(e.message),
    );
    assert.equal((await header('2025-12-01', '2026-01-31'))[12], '20250701', 'December to January lies in one fiscal year');
  });

  test('Festschreibung 1 once the whole range lies in a locked period, 0 while part of it is open', async () => {
    await lockPeriod(handle.db, fixedClock('2026-11-21T10:00:00Z'), { companyId, until: '2026-03-31' });
    assert.equal((await header('2026-03-01', '2026-03-31'))[20], '1');
    assert.equal((await header('2026-03-01', '2026-04-30'))[20], '0');
  });
});
