import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { unzipSync } from 'fflate';
import { runCommand } from '../../src/cli/commands.ts';
import { bufferIo } from '../../src/cli/io.ts';
import { lockPeriod } from '../../src/modules/bookkeeping/index.ts';
import { directorySink, type GobdExportSummary, taxPeriod, ustvaReport, writeGobdExport } from '../../src/modules/tax/index.ts';
import { sealer, type TestApp, testApp } from '../helpers/app.ts';
import { camt, importFile } from '../payments/helpers.ts';
import { signedIn, signedInMember } from '../web/client.ts';
import { type DeclaredTable, declaredTables, dtdErrors, parseCsv } from './gobd-files.ts';
import { buildQuarter, QUARTER_START } from './quarter.ts';

// Issue 28 §3: the GoBD audit export (Z3) of a quarter of realistic activity — read back
// as the auditor's software would: index.xml valid against the GDPdU DTD shipped with it,
// every CSV parsed by the columns index.xml declares, keys unique and joined, the figures
// as computed by hand, every document tied to its record by its SHA-256; the same data
// gives the same bytes, in a folder and in the app's ZIP alike; the export is in the trail.

const REQUIRE_XMLLINT = process.env.KONTOR_TEST_REQUIRE_XMLLINT === '1';

/** Every file under `dir`, relative path → bytes. */
function filesOf(dir: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    files.set(path.relative(dir, full).split(path.sep).join('/'), readFileSync(full));
  }
  return files;
}

describe('the GoBD audit export', () => {
  let t: TestApp;
  let root: string;
  let dir: string;
  let summary: GobdExportSummary;
  let tables: DeclaredTable[];
  const records = new Map<string, Record<string, string>[]>();
  const actor = () => ({ userId: t.company.userId, organizationId: t.company.organizationId, companyId: t.company.companyId });
  // As `kontor` runs its commands: on a server the documents are read as binary COPYs, so
  // the command's folder compared byte for byte with `dir` (read page by page) checks both ways.
  const cliContext = () => ({
    db: t.handle.db,
    clock: t.clock,
    sealer,
    cwd: root,
    dataDir: t.dataDir,
    invoicing: t.invoicing,
    ...(t.handle.copyRows ? { copyRows: t.handle.copyRows } : {}),
  });
  const rows = (name: string) => records.get(name) ?? assert.fail(`no table ${name}`);
  const Q4 = { from: '2026-10-01', to: '2026-12-31' };

  before(async () => {
    t = await testApp({ now: QUARTER_START });
    await buildQuarter(t);
    // The domestic 19 %/7 % invoice of 5 October (1,404.65 € gross) is paid on 20 October.
    const paid = await t.handle.db
      .selectFrom('invoices')
      .select(['number', 'total_gross_cents'])
      .where('company_id', '=', t.company.companyId)
      .where('external_ref', '=', 'oct-1')
      .executeTakeFirstOrThrow();
    assert.equal(paid.total_gross_cents, 1404_65);
    await importFile(t, camt([{ amount: '1404.65', date: '2026-10-20', text: `Rechnung ${paid.number}`, name: 'Beispiel AG' }], { id: 'Q4-1' }), 'oktober.xml');
    await lockPeriod(t.handle.db, t.clock, { companyId: t.company.companyId, until: '2026-12-31', lockedBy: t.company.userId });
    root = mkdtempSync(path.join(tmpdir(), 'kontor-gobd-'));
    dir = path.join(root, 'q4');
    summary = await writeGobdExport(t.handle.db, t.company.companyId, { ...Q4, now: t.clock.now(), actor: actor() }, directorySink(dir));
    tables = declaredTables(readFileSync(path.join(dir, 'index.xml'), 'utf8'));
    for (const table of tables) {
      const [header = [], ...data] = parseCsv(readFileSync(path.join(dir, table.url), 'utf8'));
      assert.deepEqual(
        header,
        table.columns.map((c) => c.name),
        `${table.url}: the header row names the declared columns`,
      );
      records.set(
        table.name,
        data.map((record) => {
          assert.equal(record.length, table.columns.length, `${table.url}: every record has the declared columns`);
          return Object.fromEntries(table.columns.map((c, i) => [c.name, record[i] as string]));
        }),
      );
    }
  });
  after(async () => {
    await t.close();
    rmSync(root, { recursive: true, force: true });
  });

  test('index.xml is valid against the GDPdU DTD that comes with it', (context) => {
    const files = readdirSync(dir);
    assert.ok(files.includes('gdpdu-01-09-2004.dtd'));
    assert.match(
      readFileSync(path.join(dir, 'index.xml'), 'utf8'),
      /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<!DOCTYPE DataSet SYSTEM "gdpdu-01-09-2004\.dtd">/,
    );
    const errors = dtdErrors(path.join(dir, 'index.xml'));
    if (errors === null) {
      assert.ok(!REQUIRE_XMLLINT, 'xmllint (libxml2-utils) is required here');
      context.skip('xmllint is not installed');
      return;
    }
    assert.deepEqual(errors, []);
    // And a broken one is refused: the check can fail.
    const broken = path.join(root, 'broken');
    mkdirSync(broken);
    writeFileSync(path.join(broken, 'gdpdu-01-09-2004.dtd'), readFileSync(path.join(dir, 'gdpdu-01-09-2004.dtd')));
    writeFileSync(path.join(broken, 'index.xml'), readFileSync(path.join(dir, 'index.xml'), 'utf8').replace('<Version>1.0</Version>', ''));
    assert.notDeepEqual(dtdErrors(path.join(broken, 'index.xml')), []);
  });

  test('every table parses by its declared columns: numbers, dates, unique keys, foreign keys that join', () => {
    assert.deepEqual(
      tables.map((table) => table.name),
      [
        'Kunden',
        'Lieferanten',
        'Partner',
        'Rechnungen',
        'Rechnungspositionen',
        'Gutschriften',
        'Gutschriftspositionen',
        'Partnerrechnungen',
        'Zahlungen',
        'Rueckbuchungen',
        'Kontoauszuege',
        'Bankumsaetze',
        'Banktransaktionen',
        'Buchungen',
        'Buchungszeilen',
        'Mahnungen',
        'Auszahlungen',
        'Periodensperren',
        'Protokoll',
        'Dokumente',
      ],
    );
    for (const table of tables) {
      const keyColumns = table.columns.filter((c) => c.key).map((c) => c.name);
      assert.ok(keyColumns.length > 0, `${table.name} has a primary key`);
      const keys = new Set<string>();
      for (const row of rows(table.name)) {
        for (const column of table.columns) {
          const value = row[column.name] as string;
          if (value === '') continue;
          if (column.kind === 'Numeric') {
            const pattern = column.accuracy === 0 ? /^-?\d+$/ : new RegExp(`^-?\\d+,\\d{${column.accuracy}}$`);
            assert.match(value, pattern, `${table.name}.${column.name}`);
          }
          if (column.kind === 'Date') assert.match(value, /^(0[1-9]|[12]\d|3[01])\.(0[1-9]|1[0-2])\.20\d\d$/, `${table.name}.${column.name}`);
        }
        const key = keyColumns.map((name) => row[name]).join('|');
        assert.ok(!keys.has(key), `${table.name}: key ${key} once`);
        keys.add(key);
      }
      for (const fk of table.foreignKeys) {
        const target = tables.find((candidate) => candidate.name === fk.references) ?? assert.fail(`${fk.references} is declared`);
        const targetKeys = target.columns.filter((c) => c.key).map((c) => c.name);
        const known = new Set(rows(target.name).map((row) => targetKeys.map((name) => row[name]).join('|')));
        for (const row of rows(table.name)) {
          const value = fk.names.map((name) => row[name]).join('|');
          // A notice of the quarter may dun an invoice of an earlier quarter: not in this export's invoices.
          if (value === '' || (table.name === 'Mahnungen' && !known.has(value))) continue;
          assert.ok(known.has(value), `${table.name}.${fk.names.join('+')} = ${value} is in ${target.name}`);
        }
      }
    }
    const texts = readFileSync(path.join(dir, 'rechnungen.csv'));
    assert.notEqual(texts[0], 0xef, 'UTF-8 without a byte-order mark, as index.xml declares');
  });

  test('the figures as computed by hand: the quarter’s invoices, their lines, the journal, the payment', async () => {
    const invoices = rows('Rechnungen');
    // 5 October: four invoices; 10 October: the storno of the September invoice. Not: September, January.
    assert.deepEqual(
      invoices.map((r) => [r.RECHNUNGSDATUM, r.BELEGART, r.NETTO, r.UMSATZSTEUER, r.BRUTTO]),
      [
        ['05.10.2026', 'invoice', '1200,55', '204,10', '1404,65'],
        ['05.10.2026', 'invoice', '400,00', '19,00', '419,00'],
        ['05.10.2026', 'invoice', '500,00', '0,00', '500,00'],
        ['05.10.2026', 'invoice', '400,00', '0,00', '400,00'],
        ['10.10.2026', 'storno', '-250,00', '-47,50', '-297,50'],
      ],
    );
    const storno = invoices[4] as Record<string, string>;
    assert.match(storno.STORNIERT_RECHNUNG as string, /^RE-2026-\d{5}$/);
    assert.equal(invoices[2]?.KUNDE_UST_IDNR, 'ATU58219378');
    assert.equal(invoices[2]?.STEUERLICHE_BEURTEILUNG, 'reverse_charge');
    // Lines: 1,000.55 at 19 % and 200.00 at 7 % on the first; each line's net sums to its invoice.
    const lines = rows('Rechnungspositionen');
    assert.deepEqual(
      lines.filter((l) => l.BELEG_ID === invoices[0]?.BELEG_ID).map((l) => [l.POSITION, l.BESCHREIBUNG, l.MENGE, l.EINZELPREIS_NETTO, l.UST_SATZ, l.NETTO]),
      [
        ['1', 'Lizenz', '1,0000', '1000,550000', '19,00', '1000,55'],
        ['2', 'Fachbuch', '1,0000', '200,000000', '7,00', '200,00'],
      ],
    );
    const cents = (text: string) => Number(text.replace(',', ''));
    for (const invoice of invoices)
      assert.equal(
        lines.filter((l) => l.BELEG_ID === invoice.BELEG_ID).reduce((sum, l) => sum + cents(l.NETTO as string), 0),
        cents(invoice.NETTO as string),
      );
    // The journal: every entry balances, and account 8400 holds the Kz 81 base of the Voranmeldung.
    const journal = rows('Buchungszeilen');
    for (const entry of rows('Buchungen')) {
      const own = journal.filter((l) => l.BUCHUNG_ID === entry.BUCHUNG_ID);
      const balance = own.reduce((sum, l) => sum + (l.SOLL_HABEN === 'S' ? 1 : -1) * cents(l.BETRAG as string), 0);
      assert.equal(balance, 0, `entry ${entry.BELEGNUMMER} balances`);
    }
    const credit8400 = journal.filter((l) => l.KONTO === '8400').reduce((sum, l) => sum + (l.SOLL_HABEN === 'H' ? 1 : -1) * cents(l.BETRAG as string), 0);
    const ustva = await ustvaReport(t.handle.db, t.company.companyId, taxPeriod('2026-Q4'));
    assert.equal(credit8400, 850_55);
    assert.equal(credit8400, ustva.lines.find((l) => l.key === '81')?.booked_cents);
    // The payment: one bank entry of 20 October, allocated to the first invoice in full.
    assert.deepEqual(
      rows('Bankumsaetze').map((r) => [r.BUCHUNGSDATUM, r.RICHTUNG, r.BETRAG]),
      [['20.10.2026', 'credit', '1404,65']],
    );
    assert.deepEqual(
      rows('Zahlungen').map((r) => [r.BUCHUNGSDATUM, r.RECHNUNGSNUMMER, r.BETRAG]),
      [['20.10.2026', invoices[0]?.RECHNUNGSNUMMER, '1404,65']],
    );
    assert.equal(rows('Banktransaktionen')[0]?.ZAHLER, 'Beispiel AG');
    assert.equal(rows('Kontoauszuege')[0]?.DATEINAME, 'oktober.xml');
    // Statements: four Gutschriften and one statement asking for the partner's invoice, which is recorded.
    assert.deepEqual(
      rows('Gutschriften')
        .map((r) => r.NUMMER?.slice(0, 2))
        .sort(),
      ['AB', 'GS', 'GS', 'GS', 'GS'],
    );
    assert.equal(rows('Partnerrechnungen').length, 1);
    assert.equal(rows('Partnerrechnungen')[0]?.UMSATZSTEUER, '15,20');
    assert.deepEqual(
      rows('Periodensperren').map((r) => [r.GESPERRT_BIS, r.GESPERRT_VON]),
      [['31.12.2026', t.company.adminEmail]],
    );
    assert.ok(summary.locked);
    assert.deepEqual(
      summary.tables.map((table) => [table.name, table.rows]),
      tables.filter((table) => table.name !== 'Dokumente').map((table) => [table.name, rows(table.name).length]),
    );
  });

  test('every stored document is there, tied to its record by its SHA-256', () => {
    const documents = rows('Dokumente');
    const invoices = rows('Rechnungen');
    for (const invoice of invoices) {
      for (const kind of ['pdf', 'xml'])
        assert.ok(
          documents.some((d) => d.BELEG_ID === invoice.BELEG_ID && d.ART === kind && d.TABELLE === 'Rechnungen'),
          `${invoice.RECHNUNGSNUMMER}.${kind}`,
        );
    }
    for (const statement of rows('Gutschriften')) assert.ok(documents.some((d) => d.BELEG_ID === statement.BELEG_ID && d.ART === 'pdf'));
    assert.equal(documents.length, summary.documents);
    for (const document of documents) {
      const bytes = readFileSync(path.join(dir, document.DATEI as string));
      assert.equal(createHash('sha256').update(bytes).digest('hex'), document.SHA256, document.DATEI);
      assert.equal(String(bytes.length), document.BYTES);
      assert.equal(document.PRUEFSUMME_GESPEICHERT, 'ja');
    }
    // Every file under dokumente/ is listed.
    const listed = new Set(documents.map((d) => d.DATEI));
    for (const name of filesOf(dir).keys()) if (name.startsWith('dokumente/')) assert.ok(listed.has(name), name);
    assert.match(
      readFileSync(path.join(dir, documents.find((d) => d.ART === 'pdf')?.DATEI as string))
        .subarray(0, 5)
        .toString(),
      /^%PDF-/,
    );
  });

  test('the same data gives the same bytes; the export itself is in the audit trail', async () => {
    const again = path.join(root, 'again');
    await writeGobdExport(t.handle.db, t.company.companyId, { ...Q4, now: t.clock.now(), actor: actor() }, directorySink(again));
    const first = filesOf(dir);
    const second = filesOf(again);
    assert.deepEqual([...second.keys()].sort(), [...first.keys()].sort());
    for (const [name, bytes] of first) assert.ok(bytes.equals(second.get(name) as Buffer), `${name} is the same`);
    const trail = await t.handle.db
      .selectFrom('audit_log')
      .select(['action', 'subject_id', 'after', 'user_id'])
      .where('company_id', '=', t.company.companyId)
      .where('action', '=', 'gobd.exported')
      .execute();
    assert.equal(trail.length, 2);
    const after = (typeof trail[0]?.after === 'string' ? JSON.parse(trail[0].after) : trail[0]?.after) as Record<string, unknown>;
    assert.equal(trail[0]?.subject_id, '2026-10-01..2026-12-31');
    assert.equal(trail[0]?.user_id, t.company.userId);
    assert.equal(
      after.index_sha256,
      createHash('sha256')
        .update(first.get('index.xml') as Buffer)
        .digest('hex'),
    );
    assert.equal((after.rows as Record<string, number>).Rechnungen, 5);
    // A range that includes the day of the export shows the first export in its Protokoll.
    const today = path.join(root, 'today');
    const day = t.clock.today('Europe/Berlin');
    await writeGobdExport(t.handle.db, t.company.companyId, { from: day, to: day, now: t.clock.now(), actor: actor() }, directorySink(today));
    assert.match(readFileSync(path.join(today, 'protokoll.csv'), 'utf8'), /"gobd\.exported";"gobd_export";"2026-10-01\.\.2026-12-31"/);
  });

  test('a changed stored document shows: its checksum no longer matches, and the command line exits 1', async () => {
    const target = await t.handle.db
      .selectFrom('invoice_files as f')
      .innerJoin('invoices as i', (join) => join.onRef('i.company_id', '=', 'f.company_id').onRef('i.id', '=', 'f.invoice_id'))
      .select(['f.invoice_id', 'f.content', 'i.number'])
      .where('f.company_id', '=', t.company.companyId)
      .where('f.kind', '=', 'xml')
      .where('i.external_ref', '=', 'oct-3')
      .executeTakeFirstOrThrow();
    // Simulated in the database: Kontor itself never rewrites a stored document.
    const set = (content: Buffer) =>
      t.handle.db
        .updateTable('invoice_files')
        .set({ content })
        .where('company_id', '=', t.company.companyId)
        .where('invoice_id', '=', target.invoice_id)
        .where('kind', '=', 'xml')
        .execute();
    await set(Buffer.concat([target.content, Buffer.from('<!-- geändert -->')]));
    try {
      const ctx = cliContext();
      const io = bufferIo();
      const code = await runCommand(
        ['export', 'gobd', '--company', t.company.companyId, '--from', Q4.from, '--to', Q4.to, '--out', 'tampered', '--by', t.company.adminEmail],
        io,
        ctx,
      );
      assert.equal(code, 1);
      assert.match(io.stdout, new RegExp(`Achtung: dokumente/rechnungen/${target.number}\\.xml weicht von der gespeicherten Prüfsumme ab`));
      const listed = parseCsv(readFileSync(path.join(root, 'tampered', 'dokumente.csv'), 'utf8'));
      assert.equal(listed.find((r) => r[0] === `dokumente/rechnungen/${target.number}.xml`)?.[7], 'nein');
    } finally {
      await set(target.content);
    }
  });

  test('kontor export gobd: the folder and the summary; refusals for a used folder, a stranger, a bad range', async () => {
    const ctx = cliContext();
    const base = ['export', 'gobd', '--company', t.company.companyId, '--from', Q4.from, '--to', Q4.to];
    assert.equal(ctx.copyRows !== undefined, t.handle.kind === 'postgres', 'on a server the command reads documents by COPY');
    const io = bufferIo();
    assert.equal(await runCommand([...base, '--out', 'cli', '--by', t.company.adminEmail], io, ctx), 0, io.stderr);
    assert.match(io.stdout, /^GoBD-Export 2026-10-01 bis 2026-12-31 in .*cli$/m);
    assert.match(io.stdout, /^rechnungen\.csv +5 Zeile\(n\)$/m);
    const cli = filesOf(path.join(root, 'cli'));
    for (const [name, bytes] of filesOf(dir)) assert.ok(bytes.equals(cli.get(name) as Buffer), name);

    const used = bufferIo();
    assert.equal(await runCommand([...base, '--out', 'cli', '--by', t.company.adminEmail], used, ctx), 1);
    assert.match(used.stderr, /is not empty; the export goes into a new or empty folder/);
    const stranger = bufferIo();
    assert.equal(await runCommand([...base, '--out', 'stranger', '--by', 'niemand@example.com'], stranger, ctx), 1);
    assert.match(stranger.stderr, /niemand@example\.com is no active member/);
    const backwards = bufferIo();
    assert.equal(
      await runCommand(
        ['export', 'gobd', '--company', t.company.companyId, '--from', '2026-12-31', '--to', '2026-10-01', '--out', 'backwards', '--by', t.company.adminEmail],
        backwards,
        ctx,
      ),
      1,
    );
    assert.match(backwards.stderr, /the range starts 2026-12-31, after its end 2026-10-01/);
    const missing = bufferIo();
    assert.equal(await runCommand([...base, '--out', 'nobody'], missing, ctx), 2);
    assert.match(missing.stderr, /--by/);
  });

  test('the app: admins download the same export as one ZIP; members may not', async () => {
    const web = await signedIn(t);
    const pageRes = await web.get('/app/tax/gobd');
    assert.equal(pageRes.status, 200);
    assert.match(pageRes.body, /<h1>GoBD-Export und Verfahrensdokumentation<\/h1>/);
    assert.match(pageRes.body, /<td>01\.10\.2026 – 31\.12\.2026<\/td>/);
    const res = await web.post('/app/tax/gobd', Q4);
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], 'application/zip');
    assert.match(String(res.headers['content-disposition']), /^attachment; filename="GoBD-Export_2026-10-01_2026-12-31\.zip"$/);
    const zipped = unzipSync(new Uint8Array(res.raw));
    const folder = filesOf(dir);
    assert.deepEqual(Object.keys(zipped).sort(), [...folder.keys()].sort());
    for (const [name, bytes] of folder) assert.ok(Buffer.from(zipped[name] as Uint8Array).equals(bytes), name);
    const bad = await web.post('/app/tax/gobd', { from: '2026-12-31', to: '2026-10-01' });
    assert.equal(bad.status, 422);
    assert.match(bad.body, /Bitte geben Sie zwei Daten an, das zweite nicht vor dem ersten\./);

    const member = await signedInMember(t, 'mitglied@beispiel.example');
    assert.equal((await member.client.get('/app/tax/gobd')).status, 403);
    assert.equal((await member.client.post('/app/tax/gobd', Q4)).status, 403);
    assert.equal((await member.client.get('/app/tax/verfahrensdokumentation.pdf')).status, 403);
    assert.doesNotMatch((await member.client.get('/app/tax/ustva')).body, /\/app\/tax\/gobd/);
  });

  test('the Verfahrensdokumentation draft: kontor export verfahrensdokumentation and the app’s downloads', async () => {
    const ctx = cliContext();
    const io = bufferIo();
    assert.equal(await runCommand(['export', 'verfahrensdokumentation', '--company', t.company.companyId, '--out', 'vd', '--json'], io, ctx), 0, io.stderr);
    const written = JSON.parse(io.stdout) as { markdown: string; pdf: string };
    assert.match(path.basename(written.pdf), /^Verfahrensdokumentation_.+_2027-01-04\.pdf$/);
    const markdown = readFileSync(written.markdown, 'utf8');
    assert.match(markdown, /^# Verfahrensdokumentation/);
    assert.match(markdown, /Datenträgerüberlassung \(Z3\): der Befehl „kontor export gobd“/);
    assert.equal(readFileSync(written.pdf).subarray(0, 5).toString(), '%PDF-');
    const web = await signedIn(t);
    const pdf = await web.get('/app/tax/verfahrensdokumentation.pdf');
    assert.equal(pdf.status, 200);
    assert.equal(pdf.headers['content-type'], 'application/pdf');
    assert.ok(pdf.raw.equals(readFileSync(written.pdf)), 'the app gives the same PDF as the command line');
    const md = await web.get('/app/tax/verfahrensdokumentation.md');
    assert.match(String(md.headers['content-disposition']), /^attachment; filename="Verfahrensdokumentation_.+_2027-01-04\.md"$/);
    assert.equal(md.body, markdown);
  });

  test('another company’s export holds none of this company’s records', async () => {
    const other = await t.newCompany('andere');
    const otherDir = path.join(root, 'other');
    const result = await writeGobdExport(
      t.handle.db,
      other.companyId,
      { ...Q4, now: t.clock.now(), actor: { userId: other.userId, organizationId: other.organizationId, companyId: other.companyId } },
      directorySink(otherDir),
    );
    assert.equal(result.documents, 0);
    const ids = new Set(rows('Rechnungen').map((r) => r.BELEG_ID));
    for (const [name, bytes] of filesOf(otherDir)) {
      const text = bytes.toString('utf8');
      for (const id of ids) assert.ok(!text.includes(id as string), `${name} holds no invoice of the first company`);
    }
  });
});
