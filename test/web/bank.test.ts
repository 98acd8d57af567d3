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
// writes nothing.

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
      headers: { host: 'kontor.test', cookie: `kontor_session=${web.cookies.get('kontor_session')}`, 'content-type': body.contentType },
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
    assert.match(notAStatement.body, /kein lesbarer Kontoauszug/);
    const forged = await upload(camt([{ amount: '1.00', text: 'x', date: '2026-11-20' }]), 'auszug.xml', 'forged-token');
    assert.equal(forged.statusCode, 403);
    assert.deepEqual(await written(), before);
  });
});
