import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { countRows, type TestApp, testApp } from '../helpers/app.ts';
import { putCustomer } from '../invoicing/helpers.ts';
import { camt, issueInvoice } from '../payments/helpers.ts';
import { signedIn, type WebClient } from './client.ts';

// Issue 15, point 2 (bank): a statement uploaded in the app is imported like `kontor bank
// import`; a credit left unmatched is assigned to an invoice by hand and booked like an
// automatic match (allocation, booking bank against debtor, invoice paid, event, revenue
// share) with an audit row; what is not a bank statement, or comes without the CSRF token,
// writes nothing. The import's notes and warnings show in German (codes with values from the
// module; the command line keeps its English sentences).

/** A multipart/form-data body as a browser sends it: the CSRF field and one file. */
function multipart(fields: Record<string, string>, file: { name: string; content: string | Buffer }): { payload: Buffer; contentType: string } {
  const boundary = '----kontor-test-boundary';
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields))
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  parts.push(
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="statement"; filename="${file.name}"\r\nContent-Type: application/xml\r\n\r\n`),
  );
  parts.push(Buffer.from(file.content));
  parts.push(Buffer.from(`\r\n--${boundary}--\r\n`));
  return { payload: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

describe('bank statements in the app', () => {
  let t: TestApp;
  let web: WebClient;
  let first: { id: string; number: string };
  let second: { id: string; number: string };

  const upload = async (content: string | Buffer, name = 'auszug.xml', csrf?: string) => {
    await web.get('/app/bank');
    const token = csrf ?? /name="_csrf" value="([^"]+)"/.exec(web.lastBody)?.[1] ?? '';
    const body = multipart({ _csrf: token }, { name, content });
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
    allocations: await countRows(t.handle, 'payment_allocations'),
    journal: await countRows(t.handle, 'journal_entries'),
    audit: await countRows(t.handle, 'audit_log'),
  });

  before(async () => {
    t = await testApp();
    await putCustomer(t, 'kunde-1');
    first = await issueInvoice(t, 'b-1');
    second = await issueInvoice(t, 'b-2');
    web = await signedIn(t);
  });
  after(() => t.close());

  test('an upload imports the statement; the credit without a number waits to be assigned', async () => {
    const res = await upload(
      camt([
        { amount: '85.06', text: `Rechnung ${first.number}`, date: '2026-11-20' },
        { amount: '85.06', text: 'Danke fuer die Lieferung', name: 'Beispiel AG', date: '2026-11-20' },
      ]),
    );
    assert.equal(res.statusCode, 200, res.body);
    assert.match(res.body, /Kontoauszug importiert/);
    assert.match(res.body, /<dt>Zugeordnet<\/dt><dd>1<\/dd>/);
    assert.match(res.body, /<dt>Nicht zugeordnet<\/dt><dd>1<\/dd>/);
    assert.match(res.body, /Danke fuer die Lieferung/);
    const invoice = await t.handle.db.selectFrom('invoices').select('status').where('id', '=', first.id).executeTakeFirstOrThrow();
    assert.equal(invoice.status, 'paid');
    // The same file again books nothing.
    const again = await upload(
      camt([
        { amount: '85.06', text: `Rechnung ${first.number}`, date: '2026-11-20' },
        { amount: '85.06', text: 'Danke fuer die Lieferung', name: 'Beispiel AG', date: '2026-11-20' },
      ]),
    );
    assert.match(again.body, /bereits importiert/);
  });

  test('assigning the credit by hand books it like a match: invoice paid, booking, event, audit', async () => {
    await web.get('/app/bank');
    const entry = /name="entry_id" value="([^"]+)"><input type="hidden" name="position" value="(\d+)"/.exec(web.lastBody);
    assert.ok(entry, 'an assign form');
    // A paid invoice is not open: refused, nothing written.
    const before = await written();
    const refused = await web.post('/app/bank/assign', { entry_id: entry[1] as string, position: entry[2] as string, invoice_number: first.number });
    assert.equal(refused.status, 422);
    assert.match(refused.body, new RegExp(`Die Rechnung ${first.number} ist nicht offen`));
    const unknown = await web.post('/app/bank/assign', { entry_id: entry[1] as string, position: entry[2] as string, invoice_number: 'RE-1999-00001' });
    assert.equal(unknown.status, 422);
    assert.deepEqual(await written(), before);
    const assigned = await web.post('/app/bank/assign', { entry_id: entry[1] as string, position: entry[2] as string, invoice_number: second.number });
    assert.equal(assigned.status, 303);
    const page = await web.get(assigned.location as string);
    assert.match(page.body, new RegExp(`Die Zahlung wurde der Rechnung ${second.number} zugeordnet und gebucht`));
    assert.match(page.body, /Alle Zahlungseingänge sind zugeordnet/);
    const invoice = await t.handle.db
      .selectFrom('invoices')
      .select(['status', 'amount_paid_cents', 'paid_at'])
      .where('id', '=', second.id)
      .executeTakeFirstOrThrow();
    assert.equal(invoice.status, 'paid');
    assert.equal(invoice.amount_paid_cents, 8506);
    const after = await written();
    assert.equal(after.allocations, before.allocations + 1);
    assert.equal(after.journal, before.journal + 1);
    assert.equal(after.audit, before.audit + 1);
    const booking = await t.handle.db
      .selectFrom('journal_entries as e')
      .innerJoin('journal_lines as l', (join) => join.onRef('l.company_id', '=', 'e.company_id').onRef('l.entry_id', '=', 'e.id'))
      .select(['e.entry_date', 'e.document_type', 'l.account', 'l.side', 'l.amount_cents'])
      .where('e.document_type', '=', 'payment')
      .where('e.description', 'like', `%${second.number}%`)
      .orderBy('l.position')
      .execute();
    assert.deepEqual(
      booking.map((b) => [b.entry_date, b.account, b.side, b.amount_cents]),
      [
        ['2026-11-20', '1200', 'S', 8506],
        ['2026-11-20', '10000', 'H', 8506],
      ],
    );
    const events = await t.handle.db.selectFrom('events').select('type').where('subject_id', '=', second.id).where('type', '=', 'invoice.paid').execute();
    assert.equal(events.length, 1);
    // The credit is used up: a second assignment is refused.
    const twice = await web.post('/app/bank/assign', { entry_id: entry[1] as string, position: entry[2] as string, invoice_number: second.number });
    assert.equal(twice.status, 422);
  });

  test('a file that is no bank statement, or an upload without the CSRF token, writes nothing', async () => {
    const before = await written();
    const notAStatement = await upload('%PDF-1.7 not a statement', 'rechnung.pdf');
    assert.equal(notAStatement.statusCode, 422);
    assert.match(notAStatement.body, /Die Datei wurde nicht importiert\. Die Datei ist ein PDF-Dokument, kein Kontoauszug\./);
    const forged = await upload(camt([{ amount: '1.00', text: 'x', date: '2026-11-20' }]), 'auszug.xml', 'forged-token');
    assert.equal(forged.statusCode, 403);
    assert.deepEqual(await written(), before);
  });

  test('the notes of an import show in German: a credit without number, an over-payment, another account, a file and entries twice', async () => {
    const over = await issueInvoice(t, 'b-notes-1');
    const file = camt(
      [
        { amount: '100.00', text: `Rechnung ${over.number}`, name: 'Beispiel AG', date: '2026-11-20' },
        { amount: '12.00', text: 'Spende ohne Nummer', name: 'Fremder Zahler', date: '2026-11-20' },
        { amount: '40.00', text: 'Rechnung RE-1999-00042', name: 'Irrläufer GmbH', date: '2026-11-20' },
        { amount: '5.00', indicator: 'DBIT', text: 'Kontoführung', date: '2026-11-20' },
      ],
      { id: 'notes-1', iban: 'DE83500105175555555555', msgId: 'NOTES-1' },
    );
    const res = await upload(file, 'hinweise.xml');
    assert.equal(res.statusCode, 200, res.body);
    const body = res.body;
    assert.match(body, /Hinweise zur Datei/);
    assert.match(
      body,
      /Der Auszug notes-1 gehört zum Konto DE83 5001 0517 5555 5555 55, nicht zum Konto der Firma DE89 3704 0044 0532 0130 00; die Umsätze wurden trotzdem importiert\./,
    );
    assert.match(body, /<h3 id="waiting-heading">Nicht zugeordnet/);
    assert.match(body, /14,94\u00a0€ mehr als offen; als Guthaben von Beispiel AG vermerkt\./);
    assert.match(
      body,
      /<td>Fremder Zahler<\/td><td class="wrap">Spende ohne Nummer<\/td><td class="num">12,00\u00a0€<\/td><td class="wrap">Keine Rechnungsnummer im Verwendungszweck gefunden; bitte von Hand zuordnen\.<\/td>/,
    );
    assert.match(body, /Eine Rechnung RE-1999-00042 gibt es nicht\./);
    assert.doesNotMatch(body, /Kontoführung|Belastung übergangen/, 'plain debits are counted, not listed');
    assert.doesNotMatch(body, /no invoice number|more than open|not the company's account/, 'no English note');

    // The same file again: nothing booked, and the page says when it was imported.
    const again = await upload(file, 'hinweise.xml');
    assert.match(again.body, /Diese Datei wurde bereits importiert; nichts wurde neu gebucht/);
    assert.match(again.body, /Diese Datei wurde bereits am 21\.11\.2026 importiert; nichts wurde neu gebucht\./);

    // Another file with an entry imported before: listed as such, nothing twice.
    const overlapping = camt([{ amount: '12.00', text: 'Spende ohne Nummer', name: 'Fremder Zahler', date: '2026-11-20', ref: 'REF-notes-1-2' }], {
      id: 'notes-1',
      iban: 'DE83500105175555555555',
      msgId: 'NOTES-2',
    });
    const twice = await upload(overlapping, 'hinweise-2.xml');
    assert.equal(twice.statusCode, 200);
    assert.match(twice.body, /Bereits mit einem früheren Kontoauszug importiert \(bst_[0-9a-z]{26}\); nichts doppelt gebucht\./);
    assert.doesNotMatch(twice.body, /already imported/);
  });

  test('in English the notes read as the command line prints them', async () => {
    await web.get('/app/lang?to=en');
    try {
      const res = await upload(camt([{ amount: '3.00', text: 'ohne Nummer', date: '2026-11-19' }], { id: 'notes-en', msgId: 'NOTES-EN' }), 'en.xml');
      assert.match(res.body, /no invoice number found in the remittance text/);
    } finally {
      await web.get('/app/lang?to=de');
    }
  });
});
