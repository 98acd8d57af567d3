import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runCommand } from '../../src/cli/commands.ts';
import { bufferIo } from '../../src/cli/io.ts';
import { lockPeriod } from '../../src/modules/bookkeeping/index.ts';
import { taxPeriod, type UstvaReport, ustvaReport } from '../../src/modules/tax/index.ts';
import { sealer, type TestApp, testApp } from '../helpers/app.ts';
import { signedIn } from '../web/client.ts';
import { buildQuarter, QUARTER_START } from './quarter.ts';

// Issue 28 §1: the Umsatzsteuer-Voranmeldung's Kennzahlen from the books, for a quarter of
// realistic activity — domestic 19 % and 7 %, a tax-free line, EU reverse charge, a third
// country, a storno of a September invoice booked in October, Gutschriften to a domestic,
// an EU, a third-country and a small-business partner, and a partner's own invoice — each
// figure computed by hand here, and the booked sums against the journal summed on its own.

describe('the Umsatzsteuer-Voranmeldung from the books', () => {
  let t: TestApp;
  let q4: UstvaReport;
  let out: string;

  const line = (key: string) => q4.lines.find((l) => l.key === key);

  before(async () => {
    t = await testApp({ now: QUARTER_START });
    out = mkdtempSync(path.join(tmpdir(), 'kontor-ustva-'));
    await buildQuarter(t);
    q4 = await ustvaReport(t.handle.db, t.company.companyId, taxPeriod('2026-Q4'));
  });
  after(async () => {
    await t.close();
    rmSync(out, { recursive: true, force: true });
  });

  test('every Kennzahl as computed by hand: the booked cents, and what the form takes', () => {
    const figures = Object.fromEntries(q4.lines.map((l) => [l.key, [l.booked_cents, l.form]]));
    assert.deepEqual(figures, {
      // 1,000.55 + 100.00 − 250.00 (the September invoice's storno, booked in October)
      '81': [850_55, '850'],
      // booked: 190.10 + 19.00 − 47.50; the form: 850 € × 19 %
      '81-tax': [161_60, '161.50'],
      '86': [200_00, '200'],
      '86-tax': [14_00, '14.00'],
      '48': [300_00, '300'],
      '21': [500_00, '500'],
      '45': [400_00, '400'],
      // the EU partner's Gutschrift: 10 % of 500.00, § 13b at 19 %
      '46': [50_00, '50'],
      '47': [9_50, '9.50'],
      // the Swiss partner's: 10 % of 300.00
      '84': [30_00, '30'],
      '85': [5_70, '5.70'],
      // the domestic partner's Gutschrift 19.00 + the partner's own invoice 15.20
      '66': [34_20, '34.20'],
      '67': [15_20, '15.20'],
      // 161.50 + 14.00 + 9.50 + 5.70 − 34.20 − 15.20 (the form); booked: 161.60 …
      '83': [141_40, '141.30'],
    });
    assert.equal(q4.vorauszahlung_cents, 141_30);
    assert.equal(q4.rounding_difference_cents, 10);
    assert.equal(q4.filed, false);
    assert.equal(line('83')?.label, 'Umsatzsteuer-Vorauszahlung');
  });

  test('each figure lists the documents behind it; the storno is a negative document in October', () => {
    const k81 = line('81');
    assert.deepEqual(
      k81?.documents.map((d) => [d.entry_date, d.document_type, d.amount_cents]),
      [
        ['2026-10-05', 'invoice', 1000_55],
        ['2026-10-05', 'invoice', 100_00],
        ['2026-10-10', 'storno', -250_00],
      ],
    );
    assert.equal(
      k81?.documents.reduce((sum, d) => sum + d.amount_cents, 0),
      k81?.booked_cents,
    );
    assert.deepEqual(
      line('66')
        ?.documents.map((d) => [d.document_type, d.amount_cents])
        .sort(),
      [
        ['commission_statement', 15_20],
        ['commission_statement', 19_00],
      ],
    );
    assert.equal(line('46')?.documents.length, 1);
  });

  test('the booked sums agree with the journal, summed here on its own, to the cent', async () => {
    const rows = await t.handle.db
      .selectFrom('journal_lines as l')
      .innerJoin('journal_entries as e', (join) => join.onRef('e.company_id', '=', 'l.company_id').onRef('e.id', '=', 'l.entry_id'))
      .select(['l.account', 'l.side', 'l.amount_cents'])
      .where('l.company_id', '=', t.company.companyId)
      .where('e.entry_date', '>=', '2026-10-01')
      .where('e.entry_date', '<=', '2026-12-31')
      .execute();
    const credit = (account: string) =>
      rows.filter((r) => r.account === account).reduce((sum, r) => sum + (r.side === 'H' ? 1 : -1) * Number(r.amount_cents), 0);
    // SKR03: 8400/1776 19 %, 8300/1771 7 %, 8100 tax-exempt, 8336 EU, 8338 third country,
    // 3123/3125 § 13b, 1787 USt § 13b, 1576 VSt 19 %, 1577 VSt § 13b.
    assert.equal(line('81')?.booked_cents, credit('8400'));
    assert.equal(line('81-tax')?.booked_cents, credit('1776'));
    assert.equal(line('86')?.booked_cents, credit('8300'));
    assert.equal(line('86-tax')?.booked_cents, credit('1771'));
    assert.equal(line('48')?.booked_cents, credit('8100'));
    assert.equal(line('21')?.booked_cents, credit('8336'));
    assert.equal(line('45')?.booked_cents, credit('8338'));
    assert.equal(line('46')?.booked_cents, -credit('3123'));
    assert.equal(line('84')?.booked_cents, -credit('3125'));
    assert.equal((line('47')?.booked_cents ?? 0) + (line('85')?.booked_cents ?? 0), credit('1787'));
    assert.equal(line('66')?.booked_cents, -credit('1576'));
    assert.equal(line('67')?.booked_cents, -credit('1577'));
  });

  test('months: October holds the sales and the storno, November the Gutschriften and the partner invoice, September the cancelled invoice', async () => {
    const month = async (label: string) =>
      Object.fromEntries((await ustvaReport(t.handle.db, t.company.companyId, taxPeriod(label))).lines.map((l) => [l.key, l.booked_cents]));
    const september = await month('2026-09');
    assert.equal(september['81'], 250_00);
    const october = await month('2026-10');
    assert.equal(october['81'], 850_55);
    assert.equal(october['66'], undefined);
    const november = await month('2026-11');
    assert.equal(november['66'], 34_20);
    assert.equal(november['81'], undefined);
    assert.equal(november['83'], -(34_20 + 15_20) + 9_50 + 5_70);
  });

  test('kontor export ustva prints the figures; --json lists the documents; a bad period is a usage error', async () => {
    const ctx = { db: t.handle.db, clock: t.clock, sealer, cwd: out, dataDir: t.dataDir, invoicing: t.invoicing };
    const io = bufferIo();
    assert.equal(await runCommand(['export', 'ustva', '--company', t.company.companyId, '--period', '2026-Q4'], io, ctx), 0);
    assert.match(io.stdout, /^Umsatzsteuer-Voranmeldung 2026-Q4 \(2026-10-01 bis 2026-12-31\)$/m);
    assert.match(io.stdout, /^Kz 81\s+850 {2}Steuerpflichtige Umsätze zum Steuersatz von 19 %/m);
    assert.match(io.stdout, /^Kz 83\s+141\.30 {2}Umsatzsteuer-Vorauszahlung$/m);
    const json = bufferIo();
    assert.equal(await runCommand(['export', 'ustva', '--company', t.company.companyId, '--period', '2026-Q4', '--json'], json, ctx), 0);
    const parsed = JSON.parse(json.stdout) as UstvaReport;
    assert.equal(parsed.lines.find((l) => l.key === '21')?.documents.length, 1);
    const bad = bufferIo();
    assert.equal(await runCommand(['export', 'ustva', '--company', t.company.companyId, '--period', '2026-13'], bad, ctx), 2);
    assert.match(bad.stderr, /not a filing period: 2026-13/);
  });

  test('the app page: the figures as the form takes them, the documents under each, a wrong period refused', async () => {
    const web = await signedIn(t);
    const res = await web.get('/app/tax/ustva?period=2026-Q4');
    assert.equal(res.status, 200);
    assert.match(res.body, /<h1>Umsatzsteuer-Voranmeldung<\/h1>/);
    assert.match(
      res.body,
      /<tr><td>81<\/td><td class="wrap">Steuerpflichtige Umsätze zum Steuersatz von 19 % \(Bemessungsgrundlage\) <a href="#docs-81">3 Belege<\/a><\/td><td class="num">850 €<\/td><td class="num">850,55\u00a0€<\/td><\/tr>/,
    );
    assert.match(
      res.body,
      /<tr><td><\/td><td class="wrap">Steuer zu Kz 81 <a href="#docs-81-tax">3 Belege<\/a><\/td><td class="num">161,50\u00a0€<\/td><td class="num">161,60\u00a0€<\/td><\/tr>/,
    );
    assert.match(res.body, /<tr class="strong"><td>83<\/td><td class="wrap">Umsatzsteuer-Vorauszahlung<\/td><td class="num">141,30\u00a0€<\/td>/);
    assert.match(
      res.body,
      /<details id="docs-81" class="panel">[\s\S]*?<td>10\.10\.2026<\/td><td><a href="\/app\/invoices\/inv_[0-9a-z]+">Stornorechnung [^<]+<\/a><\/td><td class="num">-250,00\u00a0€<\/td>/,
    );
    assert.match(res.body, /um 0,10\u00a0€ von der Steuer ab, die das Formular aus den vollen Euro-Beträgen berechnet/);
    const bad = await web.get('/app/tax/ustva?period=Q4');
    assert.equal(bad.status, 422);
    assert.match(bad.body, /Bitte geben Sie einen Monat wie 2026-11, ein Quartal wie 2026-Q4 oder ein Jahr wie 2026 an\./);
  });

  test('the company’s filing rhythm: the page and the commands default to its last period and give the deadline', async () => {
    // Today is 4 January 2027 (the quarter's last step).
    const rhythm = (vat_return_period: 'monthly' | 'quarterly' | 'annual', vat_return_extension = false) =>
      t.handle.db.updateTable('companies').set({ vat_return_period, vat_return_extension }).where('id', '=', t.company.companyId).execute();
    const web = await signedIn(t);
    const ctx = { db: t.handle.db, clock: t.clock, sealer, cwd: out, dataDir: t.dataDir, invoicing: t.invoicing };
    try {
      // Monthly, the default: December; 10 January 2027 is a Sunday.
      let body = (await web.get('/app/tax/ustva')).body;
      assert.match(body, /<h2 id="ustva-heading">2026-12 \(01\.12\.2026 – 31\.12\.2026\)<\/h2>/);
      assert.match(
        body,
        /Voranmeldungszeitraum der Firma: monatlich \(Einstellungen → Buchhaltung und DATEV\)\. Die Voranmeldung für diesen Zeitraum ist bis 11\.01\.2027 abzugeben\./,
      );

      // Quarterly with a Dauerfristverlängerung: the fourth quarter, due 10 February; the ZM on 25 January.
      await rhythm('quarterly', true);
      body = (await web.get('/app/tax/ustva')).body;
      assert.match(body, /<h2 id="ustva-heading">2026-Q4 \(01\.10\.2026 – 31\.12\.2026\)<\/h2>/);
      assert.match(
        body,
        /vierteljährlich, mit Dauerfristverlängerung \(Einstellungen → Buchhaltung und DATEV\)\. Die Voranmeldung für diesen Zeitraum ist bis 10\.02\.2027 abzugeben\./,
      );
      assert.match(body, /Die Zusammenfassende Meldung ist bis 25\.01\.2027 abzugeben\./);
      // A month is no period of a quarterly filer.
      assert.match(
        (await web.get('/app/tax/ustva?period=2026-11')).body,
        /Die Firma meldet vierteljährlich; für diesen Zeitraum gibt sie keine Voranmeldung ab\./,
      );
      const io = bufferIo();
      assert.equal(await runCommand(['export', 'ustva', '--company', t.company.companyId], io, ctx), 0, io.stderr);
      assert.match(io.stdout, /^Umsatzsteuer-Voranmeldung 2026-Q4 \(2026-10-01 bis 2026-12-31\)$/m);
      assert.match(io.stdout, /^Voranmeldungszeitraum der Firma: vierteljährlich, mit Dauerfristverlängerung; abzugeben bis 10\.02\.2027$/m);
      const json = bufferIo();
      assert.equal(await runCommand(['export', 'ustva', '--company', t.company.companyId, '--json'], json, ctx), 0);
      assert.deepEqual((JSON.parse(json.stdout) as UstvaReport).filing, {
        rhythm: 'quarterly',
        extension: true,
        is_filing_period: true,
        ustva_due: '2027-02-10',
        zm_due: '2027-01-25',
      });
      const zm = bufferIo();
      assert.equal(await runCommand(['export', 'zm', '--company', t.company.companyId, '--out', 'zm-default.csv'], zm, ctx), 0, zm.stderr);
      assert.match(zm.stdout, /^Zusammenfassende Meldung 2026-Q4 \(2026-10-01 bis 2026-12-31\)$/m);
      assert.match(zm.stdout, /; abzugeben bis 25\.01\.2027$/m);
      const zmYear = bufferIo();
      assert.equal(await runCommand(['export', 'zm', '--company', t.company.companyId, '--period', '2026'], zmYear, ctx), 2);
      assert.match(zmYear.stderr, /the Zusammenfassende Meldung is filed per month or quarter/);

      // Exempted from advance returns: the year, as sums for the annual return; no ZM for a year.
      await rhythm('annual');
      body = (await web.get('/app/tax/ustva')).body;
      assert.match(body, /<h2 id="ustva-heading">2026 \(01\.01\.2026 – 31\.12\.2026\)<\/h2>/);
      assert.match(
        body,
        /jährlich \(von Voranmeldungen befreit\) \(Einstellungen → Buchhaltung und DATEV\)\. Jahressummen der Buchungen, etwa für die Umsatzsteuererklärung\./,
      );
      assert.match(body, /Die Zusammenfassende Meldung wird je Monat oder Quartal abgegeben, nicht für ein Jahr/);
      const year = await ustvaReport(t.handle.db, t.company.companyId, taxPeriod('2026'));
      const sum = (report: UstvaReport, key: string) => report.lines.find((l) => l.key === key)?.booked_cents ?? 0;
      const months = await Promise.all(['2026-09', '2026-Q4'].map((p) => ustvaReport(t.handle.db, t.company.companyId, taxPeriod(p))));
      assert.ok(
        ['81', '86', '21', '45', '66'].every((key) => sum(year, key) !== 0),
        'the year has every kind of figure',
      );
      for (const key of ['81', '86', '21', '45', '66', '83'])
        assert.equal(
          sum(year, key),
          months.reduce((total, report) => total + sum(report, key), 0),
          `Kz ${key}: the year is September and the fourth quarter`,
        );
    } finally {
      await rhythm('monthly');
    }
  });

  test('a locked period is marked as filed; a Kleinunternehmer gets no figures, with the reason', async () => {
    await lockPeriod(t.handle.db, t.clock, { companyId: t.company.companyId, until: '2026-12-31' });
    assert.equal((await ustvaReport(t.handle.db, t.company.companyId, taxPeriod('2026-Q4'))).filed, true);
    assert.equal((await ustvaReport(t.handle.db, t.company.companyId, taxPeriod('2027-01'))).filed, false);
    const small = await t.newCompany('kleinunternehmer');
    await t.handle.db.updateTable('companies').set({ small_business: true }).where('id', '=', small.companyId).execute();
    const report = await ustvaReport(t.handle.db, small.companyId, taxPeriod('2026-Q4'));
    assert.deepEqual(report.lines, []);
    assert.match(report.note ?? '', /Als Kleinunternehmer \(§ 19 UStG\) gibt die Firma keine Umsatzsteuer-Voranmeldung ab/);
  });
});
