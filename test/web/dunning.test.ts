import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { drainDueJobs } from '../../src/jobs/index.ts';
import { issueInvoice, outbox, putCustomerOf, recordPayment, runDay, type Scenario, scenario } from '../dunning/helpers.ts';
import { countRows, type TestApp, testApp } from '../helpers/app.ts';
import { BUSINESS_CUSTOMER } from '../invoicing/helpers.ts';
import { signedIn, signedInMember, type WebClient } from './client.ts';

// Issue 15, point 2 (dunning): the notices that did not go out, with the reason in German,
// sent again once the cause is fixed ("Erneut versuchen": the same notice back to the send
// job with the customer's address of now, audit row, one transaction) — by a member too,
// since dunning is daily work; refused in German when the invoice was paid meanwhile, the
// customer still has no address, or the notice did not fail; another company's notice is a 404.

const { email: _dropped, ...WITHOUT_EMAIL } = BUSINESS_CUSTOMER;

describe('dunning notices in the app', () => {
  let t: TestApp;
  let s: Scenario;
  let admin: WebClient;
  let member: WebClient;
  let memberId: string;
  let failing: { id: string; number: string };
  let paidMeanwhile: { id: string; number: string };
  let sentFine: { id: string; number: string };
  let otherNoticeId: string;

  const noticeOf = (invoiceId: string) =>
    t.handle.db
      .selectFrom('dunning_notices')
      .select(['id', 'status', 'reason', 'level', 'sent_at'])
      .where('invoice_id', '=', invoiceId)
      .orderBy('created_at', 'desc')
      .executeTakeFirstOrThrow();
  const written = async () => ({ audit: await countRows(t.handle, 'audit_log'), jobs: await countRows(t.handle, 'jobs') });

  before(async () => {
    t = await testApp();
    s = { company: t.company, mailer: t.mailer };
    await putCustomerOf(t, s, 'ohne-mail');
    await putCustomerOf(t, s, 'mit-mail', { ...BUSINESS_CUSTOMER, name: 'Mahn & Söhne KG', email: 'zahlung@soehne.example' });
    await putCustomerOf(t, s, 'zahlt-noch', { ...BUSINESS_CUSTOMER, name: 'Spät GmbH' });
    failing = await issueInvoice(t, s, 'd-1', 'ohne-mail', '2026-11-21');
    sentFine = await issueInvoice(t, s, 'd-2', 'mit-mail', '2026-11-21');
    paidMeanwhile = await issueInvoice(t, s, 'd-3', 'zahlt-noch', '2026-11-21');
    // Two customers lose their address before the reminder is due: their notices fail.
    await putCustomerOf(t, s, 'ohne-mail', WITHOUT_EMAIL);
    await putCustomerOf(t, s, 'zahlt-noch', { ...WITHOUT_EMAIL, name: 'Spät GmbH' });
    await runDay(t, s, '2026-12-12');
    await recordPayment(t, s, paidMeanwhile.id, 'full');

    // Another company with a failed notice of its own.
    const other = await scenario(t, 'fremd');
    await putCustomerOf(t, other, 'k');
    const otherInvoice = await issueInvoice(t, other, 'f-1', 'k', '2026-11-21');
    await putCustomerOf(t, other, 'k', WITHOUT_EMAIL);
    await runDay(t, other, '2026-12-12');
    otherNoticeId = (await noticeOf(otherInvoice.id)).id;

    admin = await signedIn(t);
    ({ client: member, userId: memberId } = await signedInMember(t, `buchhaltung-${process.pid}@example.com`));
  });
  after(() => t.close());

  test('the failed notices come first, with the reason in German; the sent ones below', async () => {
    assert.equal((await noticeOf(failing.id)).status, 'failed');
    const page = await admin.get('/app/dunning');
    assert.equal(page.status, 200);
    const [unsent, sent] = page.body.split('id="sent-heading"') as [string, string];
    assert.match(unsent, new RegExp(`<a href="/app/invoices/${failing.id}">${failing.number}</a>`));
    assert.match(unsent, /Beispiel AG/);
    assert.match(unsent, /Zahlungserinnerung/);
    assert.match(unsent, /1\.190,00\u00a0€/);
    assert.match(unsent, /12\.12\.2026/);
    assert.match(unsent, /fehlgeschlagen<\/span> Beim Kunden ist keine gültige E-Mail-Adresse hinterlegt\./);
    assert.match(unsent, /Für den Kunden ist keine E-Mail-Adresse hinterlegt\. Bitte die E-Mail-Adresse beim Kunden ergänzen\./);
    assert.doesNotMatch(unsent, /recipient_missing/, 'the code is not shown');
    assert.match(unsent, new RegExp(`action="/app/dunning/${(await noticeOf(failing.id)).id}/retry"`));
    // The invoice paid since: shown with its status, without the button.
    assert.match(unsent, new RegExp(`${paidMeanwhile.number}</a> <span class="badge">Bezahlt</span>`));
    assert.doesNotMatch(unsent, new RegExp(`action="/app/dunning/${(await noticeOf(paidMeanwhile.id)).id}/retry"`));
    assert.doesNotMatch(unsent, new RegExp(sentFine.number));
    assert.match(sent, new RegExp(`${sentFine.number}</a></td><td>Mahn &amp; Söhne KG</td><td>Zahlungserinnerung</td>`));
    assert.match(sent, /12\.12\.2026, 13:00/, 'sent at, in the company time zone');
    // The stored PDF of a notice, for the company only.
    const noticeId = (await noticeOf(sentFine.id)).id;
    const pdf = await admin.get(`/app/dunning/${noticeId}/pdf`);
    assert.equal(pdf.status, 200);
    assert.match(pdf.body.slice(0, 5), /^%PDF-/);
    assert.equal((await admin.get(`/app/dunning/${otherNoticeId}/pdf`)).status, 404);
    assert.equal((await admin.get('/app/dunning/dun_kaputt/pdf')).status, 404);
  });

  test('sent notices page by key', async () => {
    const noticeId = (await noticeOf(sentFine.id)).id;
    const { sent_at } = await noticeOf(sentFine.id);
    const next = await admin.get(`/app/dunning?after=${(sent_at as Date).getTime()}_${noticeId}`);
    assert.equal(next.status, 200);
    assert.match(next.body, /Noch keine Mahnungen versendet\./);
    assert.match(next.body, /<a href="\/app\/dunning">Zurück<\/a>/);
  });

  test('a retry is refused in German while the cause is not fixed or the invoice is paid; nothing is written', async () => {
    const before = await written();
    const failed = await noticeOf(failing.id);
    await admin.get('/app/dunning');
    const noAddress = await admin.post(`/app/dunning/${failed.id}/retry`);
    assert.equal(noAddress.status, 422);
    assert.match(
      noAddress.body,
      /Für den Kunden Beispiel AG ist noch keine E-Mail-Adresse hinterlegt\. Bitte ergänzen Sie sie in Ihrem eigenen System, aus dem Kontor die Kunden übernimmt \(PUT \/v1\/customers\/by-ref\/…\), und versuchen Sie es danach erneut\./,
    );
    const paid = await admin.post(`/app/dunning/${(await noticeOf(paidMeanwhile.id)).id}/retry`);
    assert.equal(paid.status, 422);
    assert.match(paid.body, new RegExp(`Die Rechnung ${paidMeanwhile.number} ist inzwischen bezahlt; die Mahnung wird nicht mehr versendet\\.`));
    const notFailed = await admin.post(`/app/dunning/${(await noticeOf(sentFine.id)).id}/retry`);
    assert.equal(notFailed.status, 422);
    assert.match(notFailed.body, /nur fehlgeschlagene Mahnungen lassen sich erneut senden/);
    // Another company's notice is not found, and stays as it was.
    assert.equal((await admin.post(`/app/dunning/${otherNoticeId}/retry`)).status, 404);
    await admin.get('/app/dunning');
    assert.equal((await admin.post('/app/dunning/dun_kaputt/retry')).status, 404);
    const other = await t.handle.db.selectFrom('dunning_notices').select('status').where('id', '=', otherNoticeId).executeTakeFirstOrThrow();
    assert.equal(other.status, 'failed');
    assert.deepEqual(await written(), before);
    assert.equal((await noticeOf(failing.id)).status, 'failed');
  });

  test('once the address is there, a member sends the notice again: audit row, job, then mailed and sent', async () => {
    await putCustomerOf(t, s, 'ohne-mail', { ...BUSINESS_CUSTOMER, email: 'neu@beispiel.example' });
    const failed = await noticeOf(failing.id);
    const before = await written();
    const page = await member.get('/app/dunning');
    assert.equal(page.status, 200);
    const retried = await member.post(`/app/dunning/${failed.id}/retry`);
    assert.equal(retried.status, 303);
    const done = await member.get(retried.location as string);
    assert.match(
      done.body,
      new RegExp(`Die Mahnung zu Rechnung ${failing.number} \\(Zahlungserinnerung\\) wird erneut gesendet, an neu@beispiel\\.example\\.`),
    );
    const pending = await noticeOf(failing.id);
    assert.deepEqual([pending.id, pending.status, pending.reason], [failed.id, 'pending', null]);
    assert.deepEqual(await written(), { audit: before.audit + 1, jobs: before.jobs + 1 });
    const audit = await t.handle.db
      .selectFrom('audit_log')
      .select(['action', 'user_id', 'company_id', 'before', 'after'])
      .where('subject_id', '=', failed.id)
      .executeTakeFirstOrThrow();
    assert.equal(audit.action, 'dunning.notice_retried');
    assert.equal(audit.user_id, memberId);
    assert.equal(audit.company_id, t.company.companyId);
    const parse = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v);
    assert.deepEqual(parse(audit.before), { status: 'failed', reason: failed.reason, email: null });
    assert.deepEqual(parse(audit.after), { status: 'pending', email: 'neu@beispiel.example', invoice_number: failing.number, level: 0 });

    // The outbox is sorted by file name, not by time: the new mail is the one not there before.
    const mailsBefore = new Set((await outbox(t, s)).map((mail) => mail.messageId));
    const ran = await drainDueJobs({ db: t.handle.db, clock: t.clock, mailer: t.mailer }, { companyId: t.company.companyId });
    assert.equal(ran.done, 1);
    const sent = await noticeOf(failing.id);
    assert.equal(sent.status, 'sent');
    const mails = (await outbox(t, s)).filter((mail) => !mailsBefore.has(mail.messageId));
    assert.equal(mails.length, 1);
    assert.equal(mails[0]!.subject, `Zahlungserinnerung zu Rechnung ${failing.number} von main GmbH`);
    assert.deepEqual(mails[0]!.to && !Array.isArray(mails[0]!.to) ? mails[0]!.to.value.map((a) => a.address) : [], ['neu@beispiel.example']);
    const invoice = await t.handle.db.selectFrom('invoices').select('dunning_level').where('id', '=', failing.id).executeTakeFirstOrThrow();
    assert.equal(invoice.dunning_level, 0);

    const after = await admin.get('/app/dunning');
    const [unsent, sentList] = after.body.split('id="sent-heading"') as [string, string];
    assert.doesNotMatch(unsent, new RegExp(failing.number));
    assert.match(sentList, new RegExp(failing.number));
    // The audit page names the action in German.
    assert.match((await admin.get('/app/audit')).body, /Mahnung erneut gesendet/);
  });

  test('a company without notices sees both lists empty', async () => {
    const empty = await t.newCompany('leer');
    const client = await signedIn(t, 'ein leeres Passwort 1', empty);
    const page = await client.get('/app/dunning');
    assert.equal(page.status, 200);
    assert.match(page.body, /Keine fehlgeschlagenen Mahnungen\./);
    assert.match(page.body, /Noch keine Mahnungen versendet\./);
  });
});
