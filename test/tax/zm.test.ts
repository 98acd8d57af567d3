import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runCommand } from '../../src/cli/commands.ts';
import { bufferIo } from '../../src/cli/io.ts';
import { taxPeriod, ustvaReport, type ZmReport, zmCsv, zmReport, zmVatIdProblems } from '../../src/modules/tax/index.ts';
import { sealer, type TestApp, testApp } from '../helpers/app.ts';
import { AT_BUSINESS_CUSTOMER, putCustomer } from '../invoicing/helpers.ts';
import { signedIn } from '../web/client.ts';
import { issueToday } from './quarter.ts';

// Issue 28 §2: the Zusammenfassende Meldung from the books. A September sale to Austria is
// cancelled in October; October and November bring sales to Austria, France and Belgium
// (the Belgian one cancelled in the same month), a domestic and a Swiss sale stay out.
// Every row is computed by hand here; the rows agree with Kz 21 of the Voranmeldung.

const LINE = (description: string, net: string, vatRate = 0) => ({ description, quantity: '1', unit: 'Stück', unit_price_net: net, vat_rate: vatRate });
const FR = {
  name: 'Studio Lumière SARL',
  country_code: 'FR',
  vat_id: 'FR40303265045',
  zip: '75004',
  city: 'Paris',
  street: 'Rue de Rivoli',
  house_number: '10',
};
const BE = { name: 'Brussels Data BV', country_code: 'BE', vat_id: 'BE0477472701', zip: '1000', city: 'Bruxelles', street: 'Rue Neuve', house_number: '3' };

describe('the Zusammenfassende Meldung from the books', () => {
  let t: TestApp;
  let q4: ZmReport;
  let out: string;

  const invoice = (ref: string, customer: string, lines: unknown[]) => issueToday(t, ref, customer, lines);
  const cancel = async (id: string) => {
    const res = await t.request('POST', `/v1/invoices/${id}/cancel`);
    assert.equal(res.statusCode, 201, res.body);
    return res.json() as { id: string; number: string };
  };

  before(async () => {
    t = await testApp({ now: '2026-09-20T09:00:00Z' });
    out = mkdtempSync(path.join(tmpdir(), 'kontor-zm-'));
    await putCustomer(t, 'at', AT_BUSINESS_CUSTOMER);
    await putCustomer(t, 'fr', FR);
    await putCustomer(t, 'be', BE);
    await putCustomer(t, 'dom');
    await putCustomer(t, 'ch', {
      name: 'Zürcher Bank AG',
      country_code: 'CH',
      vat_id: null,
      zip: '8001',
      city: 'Zürich',
      street: 'Bahnhofstrasse',
      house_number: '1',
    });
    const september = await invoice('sep-at', 'at', [LINE('Wartung September', '250.00')]);
    t.clock.set('2026-10-05T09:00:00Z');
    await invoice('oct-at-1', 'at', [LINE('Softwareentwicklung', '500.00')]);
    await invoice('oct-at-2', 'at', [LINE('Schulung', '200.00'), LINE('Reisezeit', '120.40')]);
    const belgian = await invoice('oct-be', 'be', [LINE('Datenanalyse', '80.00')]);
    await invoice('oct-dom', 'dom', [LINE('Beratung', '100.00', 19)]);
    await invoice('oct-ch', 'ch', [LINE('Beratung Schweiz', '400.00')]);
    t.clock.set('2026-10-10T09:00:00Z');
    await cancel(september.id);
    await cancel(belgian.id);
    t.clock.set('2026-11-03T09:00:00Z');
    await invoice('nov-fr-1', 'fr', [LINE('Lizenz', '1234.56')]);
    const mistaken = await invoice('nov-fr-2', 'fr', [LINE('Doppelt berechnet', '99.99')]);
    await cancel(mistaken.id);
    t.clock.set('2027-01-04T09:00:00Z');
    await invoice('jan-at', 'at', [LINE('Wartung Januar', '300.00')]);
    q4 = await zmReport(t.handle.db, t.company.companyId, taxPeriod('2026-Q4'));
  });
  after(async () => {
    await t.close();
    rmSync(out, { recursive: true, force: true });
  });

  test('one row per VAT ID, as computed by hand: stornos netted where booked, a cancelled-out ID left out', () => {
    // AT: 500.00 + 320.40 − 250.00 (the September invoice, cancelled in October) = 570.40 → 570 €.
    // FR: 1,234.56 + 99.99 − 99.99 = 1,234.56 → 1,234 €. BE: 80.00 − 80.00 = 0 → nothing to report.
    assert.deepEqual(
      q4.rows.map((row) => [row.vat_id, row.amount_cents, row.amount_euros, row.kind]),
      [
        ['ATU58219378', 570_40, 570, 'S'],
        ['FR40303265045', 1234_56, 1234, 'S'],
      ],
    );
    assert.deepEqual(q4.problems, []);
    assert.equal(q4.total_cents, 1804_96);
    const at = q4.rows[0]?.documents ?? [];
    assert.deepEqual(
      at.map((d) => [d.entry_date, d.document_type, d.amount_cents]),
      [
        ['2026-10-05', 'invoice', 500_00],
        ['2026-10-05', 'invoice', 320_40],
        ['2026-10-10', 'storno', -250_00],
      ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    );
  });

  test('the rows agree with Kz 21 of the Voranmeldung of the same period, month and quarter', async () => {
    for (const label of ['2026-Q3', '2026-10', '2026-11', '2026-Q4', '2027-01']) {
      const period = taxPeriod(label);
      const zm = await zmReport(t.handle.db, t.company.companyId, period);
      const kz21 = (await ustvaReport(t.handle.db, t.company.companyId, period)).lines.find((l) => l.key === '21')?.booked_cents ?? 0;
      assert.equal(zm.total_cents, kz21, label);
    }
    const september = await zmReport(t.handle.db, t.company.companyId, taxPeriod('2026-09'));
    assert.deepEqual(
      september.rows.map((r) => [r.vat_id, r.amount_euros]),
      [['ATU58219378', 250]],
    );
    const october = await zmReport(t.handle.db, t.company.companyId, taxPeriod('2026-10'));
    assert.deepEqual(
      october.rows.map((r) => [r.vat_id, r.amount_cents]),
      [['ATU58219378', 570_40]],
    );
    const december = await zmReport(t.handle.db, t.company.companyId, taxPeriod('2026-12'));
    assert.deepEqual(december.rows, []);
    assert.match(december.note ?? '', /es ist nichts zu melden/);
  });

  test('the upload file: CSV version 3.0, the column names, one line per VAT ID in whole euros', () => {
    assert.equal(
      zmCsv(q4),
      '#v3.0\r\nUmsatzsteuer-Identifikationsnummer (USt-IdNr.),Betrag (Euro),Art der Leistung\r\nATU58219378,570,S\r\nFR40303265045,1234,S\r\n',
    );
  });

  test('a VAT ID the BZSt would refuse is named, and kontor export zm writes no file while one is there', async () => {
    assert.deepEqual(zmVatIdProblems('ATU58219378'), []);
    assert.deepEqual(zmVatIdProblems('EL094259216'), []);
    assert.match(zmVatIdProblems('ATU12345678')[0] ?? '', /falsche Prüfziffer/);
    assert.match(zmVatIdProblems('DE136695976')[0] ?? '', /deutsche USt-IdNr\./);
    assert.match(zmVatIdProblems('GR094259216')[0] ?? '', /keine USt-IdNr\. eines anderen EU-Mitgliedstaats/);
    assert.match(zmVatIdProblems('CHE116281710')[0] ?? '', /keine USt-IdNr\. eines anderen EU-Mitgliedstaats/);
    assert.match(zmVatIdProblems('XI123456782')[0] ?? '', /Nordirland/);

    const ctx = { db: t.handle.db, clock: t.clock, sealer, cwd: out, dataDir: t.dataDir, invoicing: t.invoicing };
    const io = bufferIo();
    assert.equal(await runCommand(['export', 'zm', '--company', t.company.companyId, '--period', '2026-Q4'], io, ctx), 0);
    assert.match(io.stdout, /^ATU58219378 +570 S {2}\(gebucht 570,40\u00a0€, 3 Beleg\(e\)\)$/m);
    const file = path.join(out, 'ZM_2026-Q4.csv');
    assert.equal(readFileSync(file, 'utf8'), zmCsv(q4));
    const json = bufferIo();
    assert.equal(await runCommand(['export', 'zm', '--company', t.company.companyId, '--period', '2026-10', '--out', 'oktober.csv', '--json'], json, ctx), 0);
    assert.equal((JSON.parse(json.stdout) as { file: string }).file, path.join(out, 'oktober.csv'));
    assert.match(readFileSync(path.join(out, 'oktober.csv'), 'utf8'), /\r\nATU58219378,570,S\r\n$/);
    const bad = bufferIo();
    assert.equal(await runCommand(['export', 'zm', '--company', t.company.companyId, '--period', '2026-14'], bad, ctx), 2);

    // An entry booked long ago with an ID whose check digit is wrong (simulated in the database).
    const entry = await t.handle.db
      .selectFrom('journal_entries')
      .select('id')
      .where('company_id', '=', t.company.companyId)
      .where('counterparty_vat_id', '=', 'FR40303265045')
      .where('entry_date', '=', '2026-11-03')
      .executeTakeFirstOrThrow();
    await t.handle.db.updateTable('journal_entries').set({ counterparty_vat_id: 'FR40303265046' }).where('id', '=', entry.id).execute();
    try {
      const refused = bufferIo();
      assert.equal(await runCommand(['export', 'zm', '--company', t.company.companyId, '--period', '2026-11', '--out', 'november.csv'], refused, ctx), 1);
      assert.match(refused.stderr, /FR40303265046: hat nicht das Format seines Landes oder eine falsche Prüfziffer/);
      assert.throws(() => readFileSync(path.join(out, 'november.csv')), /ENOENT/);
      const web = await signedIn(t);
      const page = await web.get('/app/tax/ustva?period=2026-11');
      assert.match(page.body, /So lässt sich die Meldung nicht hochladen:[\s\S]*FR40303265046: hat nicht das Format/);
      assert.doesNotMatch(page.body, /zm\.csv/);
      const download = await web.get('/app/tax/zm.csv?period=2026-11');
      assert.equal(download.status, 303);
    } finally {
      await t.handle.db.updateTable('journal_entries').set({ counterparty_vat_id: 'FR40303265045' }).where('id', '=', entry.id).execute();
    }
  });

  test('the app page shows the rows with their documents and offers the file', async () => {
    const web = await signedIn(t);
    const res = await web.get('/app/tax/ustva?period=2026-Q4');
    assert.equal(res.status, 200);
    assert.match(res.body, /<h2 id="zm-heading">Zusammenfassende Meldung<\/h2>/);
    assert.match(
      res.body,
      /<tr><td>ATU58219378<\/td><td class="num">570<\/td><td>S<\/td><td class="num">570,40\u00a0€<\/td><td class="wrap"><a href="\/app\/invoices\/inv_[0-9a-z]+">Rechnung [^<]+<\/a>, <a[^>]+>Rechnung [^<]+<\/a>, <a[^>]+>Stornorechnung [^<]+<\/a><\/td><\/tr>/,
    );
    assert.doesNotMatch(res.body, /BE0477472701/);
    assert.match(res.body, /<a class="button" href="\/app\/tax\/zm\.csv\?period=2026-Q4" download>ZM 2026-Q4 als CSV herunterladen<\/a>/);
    const file = await web.get('/app/tax/zm.csv?period=2026-Q4');
    assert.equal(file.status, 200);
    assert.match(String(file.headers['content-disposition']), /attachment; filename="ZM_2026-Q4\.csv"/);
    assert.equal(file.body, zmCsv(q4));
  });

  test('a Kleinunternehmer files no ZM, and another company sees none of these rows', async () => {
    const other = await t.newCompany('andere');
    assert.deepEqual((await zmReport(t.handle.db, other.companyId, taxPeriod('2026-Q4'))).rows, []);
    await t.handle.db.updateTable('companies').set({ small_business: true }).where('id', '=', other.companyId).execute();
    const small = await zmReport(t.handle.db, other.companyId, taxPeriod('2026-Q4'));
    assert.match(small.note ?? '', /keine Zusammenfassende Meldung ab \(§ 18a Abs\. 4 UStG\)/);
  });
});
