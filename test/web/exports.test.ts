import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import iconv from 'iconv-lite';
import { countRows, type TestApp, testApp } from '../helpers/app.ts';
import { putCustomer } from '../invoicing/helpers.ts';
import { issueInvoice } from '../payments/helpers.ts';
import { signedIn, signedInMember, type WebClient } from './client.ts';

// Issue 15, point 2 (DATEV export): the period form (previous month by default, quick links),
// the EXTF Buchungsstapel as a download named like the command line's file, read back here;
// the export and its warnings in the audit trail and listed on the page; German refusals with
// the typed dates kept; members may export (daily bookkeeping work).

describe('DATEV export in the app', () => {
  let t: TestApp;
  let admin: WebClient;
  let member: WebClient;
  let invoice: { id: string; number: string };

  const download = async (client: WebClient, form: Record<string, string>) => {
    await client.get('/app/exports');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(client.lastBody)?.[1] ?? '';
    return t.app.inject({
      method: 'POST',
      url: '/app/exports',
      headers: {
        host: 'kontor.test',
        cookie: `kontor_session=${client.cookies.get('kontor_session')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      payload: new URLSearchParams({ _csrf: csrf, ...form }).toString(),
    });
  };

  before(async () => {
    t = await testApp();
    await putCustomer(t, 'kunde-1');
    invoice = await issueInvoice(t, 'x-1');
    admin = await signedIn(t);
    member = (await signedInMember(t, `export-${process.pid}@example.com`)).client;
  });
  after(() => t.close());

  test('the form offers the previous month and the current fiscal year, and warns about missing DATEV numbers', async () => {
    const page = await admin.get('/app/exports');
    assert.equal(page.status, 200);
    assert.match(page.body, /data-progress="Export wird erstellt …"/);
    assert.match(page.body, /<input id="from" name="from" type="date" required value="2026-10-01">/);
    assert.match(page.body, /<input id="to" name="to" type="date" required value="2026-10-31">/);
    assert.match(page.body, /href="\/app\/exports\?from=2026-10-01&amp;to=2026-10-31">Vormonat \(01\.10\.2026 – 31\.10\.2026\)/);
    assert.match(page.body, /href="\/app\/exports\?from=2026-01-01&amp;to=2026-11-21">Laufendes Geschäftsjahr \(01\.01\.2026 – 21\.11\.2026\)/);
    assert.match(page.body, /Testnummern 1001\/1/);
    assert.match(page.body, /Noch keine Exporte\./);
    const chosen = await admin.get('/app/exports?from=2026-11-01&to=2026-11-30');
    assert.match(chosen.body, /name="from" type="date" required value="2026-11-01"/);
  });

  test('the export downloads the Buchungsstapel with the invoice, and is recorded with its warning', async () => {
    const res = await download(admin, { from: '2026-11-01', to: '2026-11-30' });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['content-type'], 'text/csv; charset=windows-1252');
    assert.equal(res.headers['content-disposition'], 'attachment; filename="EXTF_Buchungsstapel_2026-11-01_2026-11-30.csv"');
    const lines = iconv.decode(res.rawPayload, 'win1252').split('\r\n');
    assert.match(lines[0] as string, /^"EXTF";700;21;"Buchungsstapel";13;\d{17};;"[^"]*";"[^"]*";"";1001;1;20260101;4;20261101;20261130;/);
    assert.match(lines[1] as string, /^Umsatz \(ohne Soll\/Haben-Kz\);Soll\/Haben-Kennzeichen;/);
    // Debtor 10000 against revenue 19 % (8400) and 7 % (8300), gross, Belegfeld 1 = the invoice number.
    const bookings = lines.slice(2).filter((line) => line.includes(`"${invoice.number}"`));
    assert.deepEqual(
      bookings.map((line) => line.split(';').slice(0, 8)),
      [
        ['58,31', '"S"', '"EUR"', '', '', '', '10000', '8400'],
        ['26,75', '"S"', '"EUR"', '', '', '', '10000', '8300'],
      ],
    );
    assert.match(bookings[0] as string, /;2111;/, 'Belegdatum TTMM');
    const audit = await t.handle.db
      .selectFrom('audit_log')
      .select(['action', 'user_id', 'subject_type', 'after'])
      .where('action', '=', 'datev.exported')
      .executeTakeFirstOrThrow();
    const recorded = typeof audit.after === 'string' ? JSON.parse(audit.after) : audit.after;
    assert.equal(audit.user_id, t.company.userId);
    assert.equal(audit.subject_type, 'datev_export');
    assert.equal(recorded.from, '2026-11-01');
    assert.equal(recorded.to, '2026-11-30');
    assert.equal(recorded.bookings, 2);
    assert.equal(recorded.file_name, 'EXTF_Buchungsstapel_2026-11-01_2026-11-30.csv');
    assert.deepEqual(recorded.warning_codes, ['datev_test_numbers']);
    assert.match(recorded.warnings[0], /DATEV's test numbers 1001\/1/);
    const page = await admin.get('/app/exports');
    assert.match(
      page.body,
      /01\.11\.2026 – 30\.11\.2026<\/td><td class="num">2<\/td><td><span class="badge warn">Ohne Berater- und Mandantennummer: Testnummern 1001\/1 im Kopf der Datei/,
    );
    assert.match((await admin.get('/app/audit')).body, /DATEV-Export erstellt/);
  });

  test('refusals in German with the typed dates kept, nothing recorded', async () => {
    const before = await countRows(t.handle, 'audit_log');
    const reversed = await download(admin, { from: '2026-11-30', to: '2026-11-01' });
    assert.equal(reversed.statusCode, 422);
    assert.match(reversed.headers['content-type'] as string, /^text\/html/);
    assert.match(reversed.body, /Das Ende des Zeitraums \(01\.11\.2026\) liegt vor seinem Anfang \(30\.11\.2026\)\./);
    assert.match(reversed.body, /name="from" type="date" required value="2026-11-30" aria-invalid="true"/);
    const across = await download(admin, { from: '2025-12-01', to: '2026-01-31' });
    assert.equal(across.statusCode, 422);
    assert.match(across.body, /reicht aber über den Beginn des Geschäftsjahres am 01\.01\.2026/);
    assert.match(across.body, /value="2025-12-01"/);
    const nonsense = await download(admin, { from: '2026-02-30', to: 'gestern' });
    assert.equal(nonsense.statusCode, 422);
    assert.match(nonsense.body, /Bitte geben Sie den Zeitraum mit zwei gültigen Daten an/);
    assert.equal(await countRows(t.handle, 'audit_log'), before);
  });

  test('a member may export too', async () => {
    const res = await download(member, { from: '2026-11-01', to: '2026-11-30' });
    assert.equal(res.statusCode, 200);
    assert.match(iconv.decode(res.rawPayload, 'win1252'), /^"EXTF"/);
    const rows = await t.handle.db.selectFrom('audit_log').select('user_id').where('action', '=', 'datev.exported').orderBy('seq').execute();
    assert.equal(rows.length, 2);
    assert.notEqual(rows[1]?.user_id, t.company.userId);
  });
});
