import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { countRows, type TestApp, testApp } from '../helpers/app.ts';
import { putCustomer } from '../invoicing/helpers.ts';
import { camt, importFile, issueInvoice } from '../payments/helpers.ts';
import { signedIn, type WebClient } from './client.ts';

// Issue 24, point 3, in the app: the bank page shows what an import took back from invoices,
// lists the debits left for a person with the reason in German, and assigns one to the
// invoice it takes money back from (the step of `kontor bank assign`), with an audit row; the
// invoice's page shows the reversal, and an invoice refunded in full can be cancelled there.
// Invoices: 85.06 EUR gross.

/** A multipart/form-data body as a browser sends it: the CSRF field and one file. */
function multipart(fields: Record<string, string>, file: { name: string; content: string }): { payload: Buffer; contentType: string } {
  const boundary = '----kontor-debit-boundary';
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

describe('bank debits in the app', () => {
  let t: TestApp;
  let web: WebClient;
  let refunded: { id: string; number: string };
  let returned: { id: string; number: string };

  const upload = async (content: string, name: string) => {
    await web.get('/app/bank');
    const token = /name="_csrf" value="([^"]+)"/.exec(web.lastBody)?.[1] ?? '';
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

  before(async () => {
    t = await testApp();
    await putCustomer(t, 'kunde-1');
    refunded = await issueInvoice(t, 'w-refund');
    returned = await issueInvoice(t, 'w-return');
    await importFile(
      t,
      camt(
        [
          { amount: '85.06', text: `Rechnung ${refunded.number}`, date: '2026-11-20' },
          { amount: '85.06', text: `Rechnung ${returned.number}`, date: '2026-11-20' },
        ],
        { id: 'W-PAY', msgId: 'W-PAY' },
      ),
    );
    web = await signedIn(t);
  });
  after(() => t.close());

  test('the import says what it took back; a return it could not place is listed with its reason in German', async () => {
    const res = await upload(
      camt(
        [
          { amount: '85.06', indicator: 'DBIT', text: `Erstattung ${refunded.number}`, name: 'Beispiel AG', date: '2026-11-21' },
          {
            amount: '30.00',
            indicator: 'DBIT',
            reversal: true,
            returnReason: 'AM04',
            e2e: 'FREMD-1',
            text: 'Retoure Lastschrift',
            name: 'Beispiel AG',
            date: '2026-11-22',
          },
        ],
        { id: 'W-DEBITS', msgId: 'W-DEBITS' },
      ),
      'abbuchungen.xml',
    );
    assert.equal(res.statusCode, 200, res.body);
    // 85.06 taken back from one invoice, 30.00 waiting.
    assert.match(res.body, /<dt>Von Rechnungen zurückgebucht<\/dt><dd>85,06\u00a0€<\/dd>/);
    assert.match(res.body, /<dt>Abbuchungen noch zuzuordnen<\/dt><dd>30,00\u00a0€<\/dd>/);
    assert.match(
      res.body,
      /Rückgabe, Grund AM04 \(keine ausreichende Deckung\)\. Die Rückbuchung nennt keine Rechnung und keine Zahlung, die Kontor gebucht hat; bitte von Hand zuordnen\./,
    );
    assert.doesNotMatch(res.body, /a person must assign it|return \(RtrInf/, 'no English note');

    const page = await web.get('/app/bank');
    assert.match(page.body, /<h2 id="debits-heading">Abbuchungen von Hand zuzuordnen<\/h2>/);
    assert.match(
      page.body,
      /<td>22\.11\.2026<\/td><td>Beispiel AG<\/td><td class="wrap">Retoure Lastschrift<\/td><td class="wrap">Rückgabe, Grund AM04 \(keine ausreichende Deckung\)\. Die Rückbuchung nennt keine Rechnung/,
    );
    assert.match(page.body, /<td class="num">−30,00\u00a0€<\/td>/);
    assert.match(page.body, /Alle Zahlungseingänge sind zugeordnet\./, 'no credit waits');
  });

  test('a person assigns the debit: taken back from the invoice, audited; a wrong number is refused in German and writes nothing', async () => {
    await web.get('/app/bank');
    const form =
      /<form method="post" action="\/app\/bank\/assign" class="inline"><input type="hidden" name="_csrf" value="[^"]+">(?:<input type="hidden" name="_once" value="[^"]+">)?<input type="hidden" name="entry_id" value="(bke_[0-9a-z]+)"><input type="hidden" name="position" value="(\d+)">[\s\S]*?list="paid-invoices"/.exec(
        web.lastBody,
      );
    assert.ok(form, 'an assign form for the debit');
    const [entryId, position] = [form[1] as string, form[2] as string];
    const audit = () => countRows(t.handle, 'audit_log');
    const before = await audit();
    const refused = await web.post('/app/bank/assign', { entry_id: entryId, position, invoice_number: 'RE-1999-00009' });
    assert.equal(refused.status, 422);
    assert.match(refused.body, /Eine Rechnung RE-1999-00009 gibt es nicht\./);
    assert.equal(await audit(), before);

    const assigned = await web.post('/app/bank/assign', { entry_id: entryId, position, invoice_number: returned.number });
    assert.equal(assigned.status, 303, assigned.body);
    const page = await web.get(assigned.location as string);
    assert.match(page.body, new RegExp(`Die Abbuchung wurde der Rechnung ${returned.number} zugeordnet und zurückgebucht\\.`));
    assert.match(page.body, /Keine Abbuchungen zuzuordnen\./);
    assert.equal(await audit(), before + 1);
    const row = await t.handle.db.selectFrom('audit_log').select(['action', 'subject_id']).where('action', '=', 'payment.reversed').executeTakeFirstOrThrow();
    assert.equal(row.subject_id, returned.id);
    // 85.06 − 30.00 = 55.06 still paid.
    const invoice = await t.handle.db.selectFrom('invoices').select(['status', 'amount_paid_cents']).where('id', '=', returned.id).executeTakeFirstOrThrow();
    assert.deepEqual(invoice, { status: 'partially_paid', amount_paid_cents: 5506 });
    const auditPage = await web.get('/app/audit');
    assert.match(auditPage.body, /Abbuchung (?:einer Rechnung zugeordnet \(zurückgebucht\)|der Rechnung \S+ von Hand zugeordnet und zurückgebucht)/);
  });

  test('the invoice’s page shows the reversal; refunded in full it offers the cancellation, which works', async () => {
    const detail = await web.get(`/app/invoices/${refunded.id}`);
    assert.equal(detail.status, 200);
    assert.match(detail.body, /Erstattung an den Kunden vom 21\.11\.2026: 85,06\u00a0€ der Zahlung zurückgebucht/);
    assert.match(detail.body, new RegExp(`action="/app/invoices/${refunded.id}/cancel"`));
    const partly = await web.get(`/app/invoices/${returned.id}`);
    assert.match(partly.body, /Rückbuchung der Bank vom 22\.11\.2026: 30,00\u00a0€ der Zahlung zurückgebucht/);
    assert.doesNotMatch(partly.body, new RegExp(`action="/app/invoices/${returned.id}/cancel"`), 'still partly paid');

    await web.get(`/app/invoices/${refunded.id}`);
    const cancelled = await web.post(`/app/invoices/${refunded.id}/cancel`);
    assert.equal(cancelled.status, 303, cancelled.body);
    const row = await t.handle.db.selectFrom('invoices').select(['status']).where('id', '=', refunded.id).executeTakeFirstOrThrow();
    assert.equal(row.status, 'cancelled');
  });
});
