import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { countRows, type TestApp, testApp } from '../helpers/app.ts';
import { putCustomer } from '../invoicing/helpers.ts';
import { camt, fixture, fixtureText, importFile, issueInvoice } from '../payments/helpers.ts';
import { signedIn, type WebClient } from './client.ts';

// Issue 25, points 1.2 and 1.3 (bank): the result of an upload lists what happened to each
// transaction — the invoice it paid (number linked, customer, amount, what is still open),
// what a debit took back, what was left unmatched and why, what was ignored and what was
// imported before — a long file showing the first rows of each group and counting the rest;
// a refused file gets a German message and writes nothing. A manual assignment accepts the
// number as a payer writes it ("re 2026 00006"), read by the importer's finder, and the
// field's suggestions name the customer and the open (or paid) amount.
// Invoices: 85.06 EUR gross, customer Beispiel AG.

/** A multipart/form-data body as a browser sends it: the form's hidden fields and one file. */
function multipart(fields: Record<string, string>, file: { name: string; content: string | Buffer }): { payload: Buffer; contentType: string } {
  const boundary = '----kontor-result-boundary';
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields))
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  parts.push(
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="statement"; filename="${file.name}"\r\nContent-Type: application/octet-stream\r\n\r\n`),
  );
  parts.push(Buffer.from(file.content));
  parts.push(Buffer.from(`\r\n--${boundary}--\r\n`));
  return { payload: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** "RE-2026-00006" as a payer may type it: "re 2026 00006". */
const spaced = (number: string) => number.toLowerCase().replaceAll('-', ' ');

describe('the bank upload’s result and manual assignment in the app', () => {
  let t: TestApp;
  let web: WebClient;
  let paid: { id: string; number: string };
  let partly: { id: string; number: string };
  let refunded: { id: string; number: string };

  const upload = async (content: string | Buffer, name: string) => {
    await web.get('/app/bank');
    const form = web.lastBody.slice(web.lastBody.indexOf('action="/app/bank/import"'));
    const fields: Record<string, string> = { _csrf: /name="_csrf" value="([^"]+)"/.exec(form)?.[1] ?? '' };
    const once = /name="_once" value="([^"]+)"/.exec(form.slice(0, form.indexOf('</form>')))?.[1];
    if (once) fields._once = once;
    const body = multipart(fields, { name, content });
    const res = await t.app.inject({
      method: 'POST',
      url: '/app/bank/import',
      headers: { host: 'kontor.test', cookie: [...web.cookies].map(([k, v]) => `${k}=${v}`).join('; '), 'content-type': body.contentType },
      payload: body.payload,
    });
    web.lastBody = res.body;
    return res;
  };
  const written = async () => ({
    statements: await countRows(t.handle, 'bank_statements'),
    entries: await countRows(t.handle, 'bank_entries'),
    allocations: await countRows(t.handle, 'payment_allocations'),
    journal: await countRows(t.handle, 'journal_entries'),
  });
  /** The hidden fields of the assign form in the row of this payer. */
  const assignForm = async (payer: string) => {
    const page = await web.get('/app/bank');
    const row = new RegExp(`<td>${payer}</td>[\\s\\S]*?name="entry_id" value="(bke_[0-9a-z]+)"><input type="hidden" name="position" value="(\\d+)">`).exec(
      page.body,
    );
    assert.ok(row, `an assign form for ${payer}`);
    return { entry_id: row[1] as string, position: row[2] as string };
  };
  /** The rows of one result group (its heading's id) as text, cells joined by " | ". */
  const groupRows = (body: string, id: string) => {
    const at = body.indexOf(`aria-labelledby="${id}"`);
    if (at < 0) return [];
    const table = body.slice(at, body.indexOf('</table>', at));
    return [...table.matchAll(/<tr><td>([\s\S]*?)<\/td><\/tr>/g)].map((m) =>
      (m[1] as string)
        .split(/<\/td><td[^>]*>/)
        .map((cell) =>
          cell
            .replace(/<[^>]+>/g, ' ')
            .replace(/[ \t\n]+/g, ' ')
            .trim(),
        )
        .join(' | ')
        .trim(),
    );
  };

  before(async () => {
    t = await testApp();
    await putCustomer(t, 'kunde-1');
    paid = await issueInvoice(t, 'r-paid');
    partly = await issueInvoice(t, 'r-partly');
    refunded = await issueInvoice(t, 'r-refunded');
    // Paid before; a refund in the upload takes it back.
    await importFile(t, camt([{ amount: '85.06', text: `Rechnung ${refunded.number}`, date: '2026-11-19' }], { id: 'R-EARLIER', msgId: 'R-EARLIER' }));
    web = await signedIn(t);
  });
  after(() => t.close());

  test('the result lists each transaction: invoice paid (linked, customer, amount), partly paid, taken back, unmatched with the reason, ignored, imported before', async () => {
    const file = camt(
      [
        { amount: '85.06', text: `Rechnung ${paid.number}`, name: 'Beispiel AG', date: '2026-11-20' },
        { amount: '50.00', text: `Abschlag ${spaced(partly.number)}`, name: 'Beispiel AG', date: '2026-11-20' },
        { amount: '12.00', text: 'Spende ohne Nummer', name: 'Fremder Zahler', date: '2026-11-20' },
        { amount: '9.99', status: 'PDNG', text: 'Vorgemerkt', name: 'Vormerker KG', date: '2026-11-20' },
        { amount: '5.00', indicator: 'DBIT', text: 'Kontoführung', name: 'Hausbank', date: '2026-11-20' },
        { amount: '85.06', indicator: 'DBIT', text: `Erstattung ${refunded.number}`, name: 'Beispiel AG', date: '2026-11-21' },
      ],
      { id: 'R-RESULT', msgId: 'R-RESULT' },
    );
    const res = await upload(file, 'ergebnis.xml');
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(groupRows(res.body, 'paid-heading'), [
      `20.11.2026 | Beispiel AG | ${paid.number} | Beispiel AG | 85,06\u00a0€ | bezahlt |`,
      `20.11.2026 | Beispiel AG | ${partly.number} | Beispiel AG | 50,00\u00a0€ | teilweise bezahlt, 35,06\u00a0€ offen |`,
    ]);
    assert.match(res.body, new RegExp(`<a href="/app/invoices/${paid.id}">${paid.number}</a>`), 'the number links to the invoice');
    assert.match(res.body, /<h3 id="paid-heading">Bezahlte Rechnungen <span class="muted">\(2\)<\/span><\/h3>/);
    assert.deepEqual(groupRows(res.body, 'taken-back-heading'), [`21.11.2026 | Beispiel AG | ${refunded.number} | Beispiel AG | −85,06\u00a0€ | wieder offen`]);
    assert.match(res.body, new RegExp(`<a href="/app/invoices/${refunded.id}">${refunded.number}</a>`));
    assert.deepEqual(groupRows(res.body, 'waiting-heading'), [
      '20.11.2026 | Fremder Zahler | Spende ohne Nummer | 12,00\u00a0€ | Keine Rechnungsnummer im Verwendungszweck gefunden; bitte von Hand zuordnen.',
    ]);
    assert.deepEqual(groupRows(res.body, 'ignored-heading'), [
      '20.11.2026 | Vormerker KG | 9,99\u00a0€ | Vorgemerkter Umsatz übergangen (es zählen nur gebuchte Umsätze).',
    ]);
    assert.match(res.body, /Eine Belastung ohne Rechnungsbezug \(etwa eine Gebühr\) wurde übergangen\./);
    assert.doesNotMatch(res.body, /Kontoführung/, 'a plain debit is counted, not listed');
    assert.doesNotMatch(res.body, /duplicates-heading/, 'nothing imported before');

    // Another file with the unmatched credit again (same bank reference) and a new one: the first is skipped as imported before.
    const overlapping = camt(
      [
        { amount: '12.00', text: 'Spende ohne Nummer', name: 'Fremder Zahler', date: '2026-11-20', ref: 'REF-R-RESULT-3' },
        { amount: '35.06', text: `Rest ${partly.number}`, name: 'Beispiel AG', date: '2026-11-22' },
      ],
      { id: 'R-RESULT', msgId: 'R-RESULT-2' },
    );
    const again = await upload(overlapping, 'ergebnis-2.xml');
    assert.equal(again.statusCode, 200);
    assert.deepEqual(groupRows(again.body, 'duplicates-heading').length, 1);
    assert.match(
      groupRows(again.body, 'duplicates-heading')[0] as string,
      /^20\.11\.2026 \| 12,00\u00a0€ \| Bereits mit einem früheren Kontoauszug importiert \(bst_[0-9a-z]{26}\); nichts doppelt gebucht\.$/,
    );
    assert.deepEqual(groupRows(again.body, 'paid-heading'), [`22.11.2026 | Beispiel AG | ${partly.number} | Beispiel AG | 35,06\u00a0€ | bezahlt |`]);
  });

  test('in English the groups and states read in English', async () => {
    await web.get('/app/lang?to=en');
    try {
      const other = await issueInvoice(t, 'r-english');
      const res = await upload(camt([{ amount: '85.06', text: `Invoice ${other.number}`, date: '2026-11-23' }], { id: 'R-EN', msgId: 'R-EN' }), 'en.xml');
      assert.match(res.body, /<h3 id="paid-heading">Invoices paid <span class="muted">\(1\)<\/span><\/h3>/);
      assert.match(groupRows(res.body, 'paid-heading')[0] as string, / \| paid \|$/);
    } finally {
      await web.get('/app/lang?to=de');
    }
  });

  test('a manual assignment accepts every spelling the importer accepts; the suggestions name the customer and the open amount', async () => {
    const open = await issueInvoice(t, 'r-assign');
    const other = await issueInvoice(t, 'r-assign-2');
    await importFile(
      t,
      camt(
        [
          { amount: '20.00', text: 'Zahlung ohne Nummer', name: 'Schreibweise GmbH', date: '2026-11-24' },
          { amount: '30.00', text: 'noch eine ohne Nummer', name: 'Kleinschreiber KG', date: '2026-11-24' },
          { amount: '40.00', text: 'und eine dritte', name: 'Nummernwort AG', date: '2026-11-24' },
        ],
        { id: 'R-ASSIGN', msgId: 'R-ASSIGN' },
      ),
    );
    const page = await web.get('/app/bank');
    assert.match(page.body, new RegExp(`<option value="${open.number}">Beispiel AG · 85,06\u00a0€ offen</option>`));
    assert.match(page.body, new RegExp(`<option value="${other.number}">Beispiel AG · 85,06\u00a0€ offen</option>`));
    assert.doesNotMatch(page.body, new RegExp(`<option value="${paid.number}">`), 'a paid invoice is not');

    // "re 2026 00006": lower case, spaces.
    const first = await web.post('/app/bank/assign', { ...(await assignForm('Schreibweise GmbH')), invoice_number: ` ${spaced(open.number)} ` });
    assert.equal(first.status, 303, first.body);
    assert.equal(first.location, `/app/bank?assigned=${encodeURIComponent(open.number)}`, 'the flash names the invoice as it is written');
    // "RE2026-00006": no first dash.
    const second = await web.post('/app/bank/assign', { ...(await assignForm('Kleinschreiber KG')), invoice_number: open.number.replace('-', '') });
    assert.equal(second.status, 303, second.body);
    // "Re.-Nr. 2026/00007", as payers write it in a remittance.
    const [letters, year, seq] = other.number.split('-') as [string, string, string];
    const third = await web.post('/app/bank/assign', {
      ...(await assignForm('Nummernwort AG')),
      invoice_number: `${letters.slice(0, 1)}${letters.slice(1).toLowerCase()}.-Nr. ${year}/${seq}`,
    });
    assert.equal(third.status, 303, third.body);
    const rows = await t.handle.db
      .selectFrom('invoices')
      .select(['id', 'amount_paid_cents'])
      .where('id', 'in', [open.id, other.id])
      .orderBy('number')
      .execute();
    assert.deepEqual(
      rows.map((r) => r.amount_paid_cents),
      [5000, 4000],
    );
  });

  test('a spelling that names no invoice, or a paid one, is refused in German and writes nothing', async () => {
    await importFile(t, camt([{ amount: '7.00', text: 'ohne alles', name: 'Falschschreiber OHG', date: '2026-11-24' }], { id: 'R-WRONG', msgId: 'R-WRONG' }));
    const form = await assignForm('Falschschreiber OHG');
    const before = await written();
    const unknown = await web.post('/app/bank/assign', { ...form, invoice_number: 're 1999 00042' });
    assert.equal(unknown.status, 422);
    assert.match(unknown.body, /Eine Rechnung re 1999 00042 gibt es nicht\./);
    const closed = await web.post('/app/bank/assign', { ...form, invoice_number: spaced(paid.number) });
    assert.equal(closed.status, 422);
    assert.match(closed.body, new RegExp(`Die Rechnung ${paid.number} ist nicht offen\\.`), 'named as it is written');
    assert.deepEqual(await written(), before);
  });

  test('a debit is assigned by any spelling too; its suggestions name the customer and the amount paid', async () => {
    await importFile(
      t,
      camt([{ amount: '10.00', indicator: 'DBIT', reversal: true, e2e: 'FREMD-R', text: 'Retoure', name: 'Rückgeber AG', date: '2026-11-25' }], {
        id: 'R-DEBIT',
        msgId: 'R-DEBIT',
      }),
    );
    const page = await web.get('/app/bank');
    assert.match(page.body, new RegExp(`<option value="${paid.number}">Beispiel AG · 85,06\u00a0€ gezahlt</option>`));
    const res = await web.post('/app/bank/assign', { ...(await assignForm('Rückgeber AG')), invoice_number: paid.number.toLowerCase().replaceAll('-', '') });
    assert.equal(res.status, 303, res.body);
    assert.equal(res.location, `/app/bank?reversed=${encodeURIComponent(paid.number)}`);
    const invoice = await t.handle.db.selectFrom('invoices').select(['amount_paid_cents']).where('id', '=', paid.id).executeTakeFirstOrThrow();
    assert.equal(invoice.amount_paid_cents, 7506);
  });

  test('a refused file gets a German message and writes nothing', async () => {
    const v08 = fixtureText('camt053-v08.xml');
    const mt940 = fixtureText('mt940-de.sta', 'win1252');
    const cases: [string, string | Buffer, RegExp][] = [
      [
        'auszug.pdf',
        '%PDF-1.7 kein Auszug',
        /Die Datei ist ein PDF-Dokument, kein Kontoauszug\. Bitte laden Sie den Kontoauszug im Onlinebanking als camt\.053 oder MT940 herunter/,
      ],
      ['umsaetze.csv', 'Datum;Betrag;Verwendungszweck\n20.11.2026;85,06;RE-2026-00001\n', /Die Datei ist ein CSV-Export, kein Kontoauszug\./],
      [
        'notiz.txt',
        'Kontoauszug vom 20.11.2026\n',
        /Die Datei ist kein Kontoauszug, den Kontor lesen kann \(camt\.052, camt\.053, camt\.054, MT940, MT942\)\./,
      ],
      [
        'rechnung.xml',
        '<?xml version="1.0"?><rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"/>',
        /Die Datei ist eine E-Rechnung \(CII, wie XRechnung oder ZUGFeRD sie schreiben\), kein Kontoauszug\./,
      ],
      [
        'halb.xml',
        v08.slice(0, Math.floor(v08.length / 2)),
        /Die XML-Datei ist abgeschnitten oder beschädigt: Sie endet innerhalb von <\w+>, bevor ihre Elemente geschlossen sind\./,
      ],
      ['kaputt.xml', v08.replace('</Ntry>', '</Ntyr>'), /Die XML-Datei ist abgeschnitten oder beschädigt \(Zeile \d+\)\./],
      [
        'neu.xml',
        v08.replaceAll('camt.053.001.08', 'camt.053.001.14'),
        /Die Datei ist camt\.053\.001\.14, eine neuere Version, die Kontor nicht liest \(Kontor liest camt\.053\.001\.02 bis \.13\)\./,
      ],
      [
        'saldo.xml',
        v08.replace('845.12', '845.13'),
        /camt-Auszug 2026-11-21-EUR: Anfangssaldo 500,00 \+ Umsätze 345,12 ergibt nicht den Schlusssaldo 845,13; die Datei geht nicht auf\./,
      ],
      [
        'saldo.sta',
        fixture('mt940-broken-balance.sta'),
        /MT940-Auszug 1: Anfangssaldo 100,00 \+ Umsätze 20,00 ergibt nicht den Schlusssaldo 130,00; die Datei geht nicht auf\./,
      ],
      [
        'abgeschnitten.sta',
        mt940.slice(0, mt940.indexOf(':62F:')),
        /Die Datei endet mitten in MT940-Auszug 1 \(STARTUMSE 00012\/001\), nach Umsatz 3, ohne Schlusssaldo \(:62F:\) und ohne Endezeichen \(-\): Sie ist offenbar abgeschnitten\./,
      ],
      [
        'archiv.zip',
        Buffer.from('PK\x03\x04rest-of-zip', 'latin1'),
        /Die Datei ist ein ZIP-Archiv\. Bitte entpacken Sie es und importieren Sie die Kontoauszüge darin einzeln\./,
      ],
    ];
    const before = await written();
    for (const [name, content, message] of cases) {
      const res = await upload(content, name);
      assert.equal(res.statusCode, 422, `${name}: ${res.body.slice(0, 200)}`);
      const flash = /<p class="flash flash-error" role="alert">([^<]*)<\/p>/.exec(res.body)?.[1] ?? '';
      assert.match(flash, /^Die Datei wurde nicht importiert\. /, name);
      assert.match(flash.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&quot;', '"'), message, name);
      assert.doesNotMatch(flash, /\b(the|file|is|not|download)\b/, `${name}: no English in “${flash}”`);
    }
    // An empty upload and a file over 20 MB.
    const empty = await upload('', 'leer.xml');
    assert.equal(empty.statusCode, 400);
    assert.match(empty.body, /Bitte wählen Sie eine Datei aus\./);
    const large = await upload(Buffer.alloc(20 * 1024 * 1024 + 1, 0x20), 'gross.xml');
    assert.equal(large.statusCode, 413);
    assert.match(large.body, /Die Datei ist zu groß \(höchstens 20 MB\)\./);
    assert.deepEqual(await written(), before);
  });

  test('a long file shows the first 50 rows of a group and counts the rest: 2,000 credits (or 10,000) list 50 of them, the page does not grow with the file', async () => {
    const entries = Array.from({ length: 2000 }, (_, i) => ({ amount: '1.00', text: `Spende ${i + 1}`, name: `Spender ${i + 1}`, date: '2026-11-26' }));
    const res = await upload(camt(entries, { id: 'R-LONG', msgId: 'R-LONG' }), 'lang.xml');
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /<h3 id="waiting-heading">Nicht zugeordnet <span class="muted">\(2\.000\)<\/span><\/h3>/);
    assert.equal(groupRows(res.body, 'waiting-heading').length, 50);
    assert.match(res.body, /… und 1\.950 weitere nicht zugeordnete Umsätze\./);
    assert.ok(res.body.length < 400_000, `the page has ${res.body.length} characters`);
  });

  test('a file whose payment would fall into a locked period is refused in German', async () => {
    const open = await issueInvoice(t, 'r-locked');
    await t.handle.db.insertInto('period_locks').values({ company_id: t.company.companyId, locked_until: '2026-11-30' }).execute();
    const before = await written();
    const res = await upload(
      camt([{ amount: '85.06', text: `Rechnung ${open.number}`, date: '2026-11-27' }], { id: 'R-LOCK', msgId: 'R-LOCK' }),
      'gesperrt.xml',
    );
    assert.equal(res.statusCode, 422);
    assert.match(
      res.body,
      new RegExp(
        `Die Datei wurde nicht importiert\\. Der Buchungszeitraum ist bis 30\\.11\\.2026 gesperrt; die Zahlung zu Rechnung ${open.number} vom 27\\.11\\.2026 fiele hinein\\.`,
      ),
    );
    assert.deepEqual(await written(), before);
  });
});
