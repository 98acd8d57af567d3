import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import iconv from 'iconv-lite';
import { sql } from 'kysely';
import { createDatevExport } from '../../src/modules/bookkeeping/index.ts';
import { cancelStatement } from '../../src/modules/statements/index.ts';
import { partnerWithOctoberGutschrift } from '../commissions/helpers.ts';
import { type TestApp, testApp } from '../helpers/app.ts';
import { invoiceBody, postInvoice, putCustomer } from '../invoicing/helpers.ts';
import { splitDatevLine } from './fixtures.ts';

// Issue 24, point 4 (DATEV): a storno and a statement's cancellation close the open item of
// the document they cancel in DATEV's OPOS: Belegfeld 1 carries the cancelled document's
// number (DATEV clears an item only by a credit with the same Belegfeld 1), the storno's own
// number stays in the Buchungstext and in Beleginfo 1. Entries booked before the change get
// the reference from the migration.

describe('DATEV: stornos and cancellations close the open item they cancel', () => {
  let t: TestApp;
  let invoiceNumber: string;
  let stornoNumber: string;
  let creditor: string;
  const rows = async () => {
    const result = await createDatevExport(t.handle.db, t.company.companyId, { from: '2026-11-01', to: '2026-11-30', now: t.clock.now() });
    return iconv.decode(result.file, 'win1252').split('\r\n').slice(2, -1).map(splitDatevLine);
  };
  /** Σ S − Σ H in cents of the rows on `account` under Belegfeld 1 `key`. */
  const openItem = (data: string[][], account: string, key: string) =>
    data.filter((row) => row[6] === account && row[10] === key).reduce((sum, row) => sum + (row[1] === 'S' ? 1 : -1) * Number(row[0]!.replace(',', '')), 0);

  before(async () => {
    t = await testApp({ now: '2026-10-05T10:00:00Z' });
    // A Gutschrift of 10 % of 500.00: 50.00 + 19 % = 59.50, issued 01.11.2026, then cancelled.
    const partnerId = await partnerWithOctoberGutschrift(t, 'gs', { netAmount: '500.00' });
    creditor = String((await t.request('GET', '/v1/commission-partners/by-ref/crm/gs')).json().kreditorennummer);
    const gutschrift = await t.handle.db.selectFrom('commission_statements').select('id').where('partner_id', '=', partnerId).executeTakeFirstOrThrow();
    await cancelStatement({ db: t.handle.db, clock: t.clock }, gutschrift.id);
    // An invoice: 49.00 + 19 % = 58.31 and 2 × 12.50 + 7 % = 26.75, gross 85.06; then its storno.
    await putCustomer(t, 'kunde-1');
    const issued = await postInvoice(t, invoiceBody('inv-open-item', { issue: true }));
    assert.equal(issued.statusCode, 201, issued.body);
    invoiceNumber = issued.json().number;
    const cancelled = await t.request('POST', `/v1/invoices/${issued.json().id}/cancel`);
    assert.equal(cancelled.statusCode, 201, cancelled.body);
    stornoNumber = cancelled.json().number;
  });
  after(() => t.close());

  const check = async () => {
    const data = await rows();
    const storno = data.filter((row) => row[13]!.startsWith(`Storno ${stornoNumber}`));
    assert.equal(storno.length, 2, 'one row per revenue account (19 % and 7 %)');
    for (const row of storno) {
      assert.equal(row[10], invoiceNumber, 'Belegfeld 1: the cancelled invoice');
      assert.deepEqual([row[20], row[21]], ['Belegnummer', stornoNumber]);
    }
    assert.deepEqual(
      storno.map((row) => [row[0], row[1]]),
      [
        ['58,31', 'H'],
        ['26,75', 'H'],
      ],
    );
    // The debtor's item RE-…: S 85.06 by the invoice, H 85.06 by the storno → closed.
    const debtor = storno[0]![6]!;
    assert.equal(openItem(data, debtor, invoiceNumber), 0);

    const cancellation = data.filter((row) => row[6] === creditor && row[13]!.startsWith('Storno GS-2026-00002'));
    assert.deepEqual(
      cancellation.map((row) => [row[0], row[1], row[7], row[8], row[10], row[20], row[21]]),
      [['59,50', 'S', '4760', '9', 'GS-2026-00001', 'Belegnummer', 'GS-2026-00002']],
    );
    // The creditor's item GS-2026-00001: H 59.50 by the Gutschrift, S 59.50 by its cancellation → closed.
    assert.equal(openItem(data, creditor, 'GS-2026-00001'), 0);
  };

  test('the storno and the cancellation carry the cancelled number in Belegfeld 1, their own in Beleginfo 1', check);

  test('entries booked before the change get the reference from migration 0037', async () => {
    await t.handle.db.updateTable('journal_entries').set({ settles_number: null }).where('company_id', '=', t.company.companyId).execute();
    const before = await rows();
    assert.ok(
      before.some((row) => row[10] === stornoNumber),
      'without the reference the storno is its own open item',
    );
    const migration = readFileSync(path.resolve(import.meta.dirname, '../../src/db/migrations/0037_journal_open_items.sql'), 'utf8');
    await sql.raw(migration).execute(t.handle.db);
    await check();
  });
});
