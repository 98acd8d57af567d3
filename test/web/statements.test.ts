import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runDueWork } from '../../src/jobs/index.ts';
import { lockPeriod } from '../../src/modules/bookkeeping/index.ts';
import { createMailer } from '../../src/modules/mail/index.ts';
import { partnerBalance, postEvent, putAgreement, putPartner, SELF_BILLING_PARTNER } from '../commissions/helpers.ts';
import { sealer, type TestApp, testApp } from '../helpers/app.ts';
import { putCustomer } from '../invoicing/helpers.ts';
import { SMTP_PASSWORD, SMTP_USER, startSmtpServer, type TestSmtpServer } from '../mail/fixtures.ts';
import { camt, importFile, issueInvoice } from '../payments/helpers.ts';
import { signedIn, signedInMember, type WebClient } from './client.ts';

// Issue 15 (revenue share in the app): the statement list and a statement's page with its
// person-side steps — issue a draft, send it (over a real SMTP server in this process),
// cancel (the cancelling statement linked both ways), record an objection, mark paid (admins
// only) — each with its audit row; the module's refusals shown in German, never a 500.

const PARTNERS = {
  send: { name: 'Müller & Söhne <b>Vertrieb</b>', email: 'abrechnung@mueller.example' },
  bounce: { name: 'Partner Abgelehnt GmbH', email: 'post@rejected.example' },
  object: { name: 'Partner Widerspruch GmbH', email: null },
  paid: { name: 'Partner Bezahlt GmbH', email: null },
} as const;
type Ref = keyof typeof PARTNERS;

describe('revenue-share statements in the app', () => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let admin: WebClient;
  let member: WebClient;
  let memberEmail: string;
  const partnerIds = {} as Record<Ref, string>;
  const statementIds = {} as Record<Ref, string>;

  const post = async (client: WebClient, id: string, step: string) => {
    await client.get(`/app/statements/${id}`);
    return client.post(`/app/statements/${id}/${step}`);
  };
  /** The due jobs, with a mailer: the statement's queued mail goes out (or fails) as in the worker. */
  const deliver = () =>
    runDueWork(
      { db: t.handle.db, clock: t.clock, mailer: createMailer({ dataDir: t.dataDir, sealer }), services: { invoicing: t.invoicing } },
      { asOf: '2026-11-21', companyId: t.company.companyId, log: () => {} },
    );
  const stored = (id: string) => t.handle.db.selectFrom('commission_statements').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const audit = (id: string) =>
    t.handle.db.selectFrom('audit_log').select(['action', 'user_id', 'before', 'after']).where('subject_id', '=', id).orderBy('seq').execute();

  before(async () => {
    t = await testApp({ now: '2026-10-20T10:00:00Z' });
    smtp = await startSmtpServer();
    await t.handle.db
      .updateTable('companies')
      .set({
        statements_need_review: true,
        smtp: JSON.stringify({
          host: '127.0.0.1',
          port: smtp.port,
          secure: false,
          user: SMTP_USER,
          password_sealed: sealer.seal(SMTP_PASSWORD),
          from: SMTP_USER,
        }),
      })
      .where('id', '=', t.company.companyId)
      .execute();
    for (const [ref, partner] of Object.entries(PARTNERS) as [Ref, (typeof PARTNERS)[Ref]][]) {
      partnerIds[ref] = await putPartner(t, ref, { ...SELF_BILLING_PARTNER, name: partner.name, email: partner.email });
      await putAgreement(t, `${ref}-ag`, {
        partner_ref: ref,
        start_date: '2026-01-01',
        applies_to: 'all_customers',
        tiers: [{ from_month: 1, to_month: null, percent: 10 }],
      });
    }
    // October's revenue: a revenue event (500.00) and a paid invoice (74.00 net): 57.40 commission each.
    await putCustomer(t, 'kunde-1');
    await postEvent(t, { external_ref: 'umsatz-oktober', occurred_at: '2026-10-10T10:00:00Z', net_amount: '500.00' });
    const invoice = await issueInvoice(t, 'okt-1', { service_period: { start: '2026-10-01', end: '2026-10-31' } });
    const imported = await importFile(t, camt([{ amount: invoice.total_gross, text: `Rechnung ${invoice.number}`, date: '2026-10-20' }]));
    assert.equal(imported.totals.matched, 1);
    t.clock.set('2026-11-01T12:00:00Z');
    await runDueWork(
      { db: t.handle.db, clock: t.clock, services: { invoicing: t.invoicing } },
      { asOf: '2026-11-01', companyId: t.company.companyId, log: () => {} },
    );
    t.clock.set('2026-11-21T10:00:00Z');
    for (const ref of Object.keys(PARTNERS) as Ref[]) {
      const row = await t.handle.db
        .selectFrom('commission_statements')
        .select(['id', 'status'])
        .where('partner_id', '=', partnerIds[ref])
        .executeTakeFirstOrThrow();
      assert.equal(row.status, 'draft');
      statementIds[ref] = row.id;
    }
    admin = await signedIn(t);
    memberEmail = 'sachbearbeiterin@example.com';
    member = (await signedInMember(t, memberEmail, 'ein Mitglieds-Passwort 7')).client;
  });
  after(async () => {
    await t.close();
    await smtp.close();
  });

  test('the list: drafts with partner (as text), kind, period, amounts; filters by status and partner; paging by key', async () => {
    const list = await admin.get('/app/statements');
    assert.equal(list.status, 200);
    assert.equal((list.body.match(/>Entwurf<\/a>/g) ?? []).length, 4);
    assert.match(list.body, /Müller &amp; Söhne &lt;b&gt;Vertrieb&lt;\/b&gt;/);
    assert.doesNotMatch(list.body, /<b>Vertrieb/);
    assert.match(list.body, new RegExp(`<a href="/app/partners/${partnerIds.send}">`));
    assert.match(list.body, /<td>Gutschrift<\/td>/);
    assert.match(list.body, /01\.10\.2026 – 31\.10\.2026/);
    // 500.00 + 74.00 revenue at 10 %: 57,40 € net, 10,91 € VAT, 68,31 € gross.
    assert.match(list.body, /57,40\u00a0€<\/td>\s*<td class="num">10,91\u00a0€<\/td>\s*<td class="num">68,31\u00a0€/);
    const byPartner = await admin.get(`/app/statements?partner=${partnerIds.bounce}`);
    assert.equal((byPartner.body.match(/>Entwurf<\/a>/g) ?? []).length, 1);
    assert.match(byPartner.body, /Partner Abgelehnt GmbH/);
    assert.doesNotMatch(byPartner.body, /Partner Bezahlt GmbH<\/a>/);
    const issued = await admin.get('/app/statements?status=issued');
    assert.match(issued.body, /Keine Abrechnungen für diese Auswahl\./);
    // The second page starts after the key given.
    const seqs = await t.handle.db.selectFrom('commission_statements').select('seq').orderBy('seq', 'desc').execute();
    const rest = await admin.get(`/app/statements?after=${seqs[1]?.seq}`);
    assert.equal((rest.body.match(/>Entwurf<\/a>/g) ?? []).length, 2);
    assert.match(rest.body, /Zum Anfang/);
  });

  test('a draft: its lines, where the commission came from (invoice number linked), the German tax note; sending it first is refused in German', async () => {
    const id = statementIds.send;
    const page = await admin.get(`/app/statements/${id}`);
    assert.equal(page.status, 200);
    assert.match(page.body, /<h1>Gutschrift \(Entwurf\)<\/h1>/);
    const invoice = await t.handle.db.selectFrom('invoices').select(['id', 'number']).executeTakeFirstOrThrow();
    assert.match(page.body, new RegExp(`<a href="/app/invoices/${invoice.id}">Rechnung ${invoice.number}</a>`));
    assert.match(page.body, /Umsatzmeldung umsatz-oktober/);
    assert.match(page.body, /Beispiel AG/);
    assert.match(page.body, /Abrechnung im Gutschriftsverfahren gemäß Vereinbarung vom 01\.01\.2026\./);
    assert.match(page.body, /Ausstellen<\/button>/);
    assert.doesNotMatch(page.body, /<iframe/);
    const refused = await admin.post(`/app/statements/${id}/send`);
    assert.equal(refused.status, 409);
    assert.match(refused.body, /Ein Entwurf kann nicht versendet werden\. Bitte stellen Sie die Abrechnung zuerst aus\./);
    assert.doesNotMatch(refused.body, /issue it first/);
    assert.equal((await stored(id)).status, 'draft');
  });

  test('issue, send (the mail arrives over SMTP), cancel: each in the audit trail, the cancelling statement linked both ways', async () => {
    const id = statementIds.send;
    const issued = await post(admin, id, 'issue');
    assert.equal(issued.status, 303);
    assert.equal(issued.location, `/app/statements/${id}?done=issued`);
    const row = await stored(id);
    assert.deepEqual([row.status, row.number, row.decided_by], ['issued', 'GS-2026-00001', t.company.adminEmail]);
    const page = await admin.get(issued.location as string);
    assert.match(page.body, /Die Abrechnung wurde als GS-2026-00001 ausgestellt\./);
    assert.match(page.body, /<h1>Gutschrift GS-2026-00001<\/h1>/);
    assert.match(page.body, new RegExp(`<iframe class="pdf" src="/app/statements/${id}/pdf"`));
    assert.match(page.body, new RegExp(`Ausgestellt von ${t.company.adminEmail.replace(/\./g, '\\.')}`));
    const pdf = await t.app.inject({
      method: 'GET',
      url: `/app/statements/${id}/pdf`,
      headers: { cookie: `kontor_session=${admin.cookies.get('kontor_session')}` },
    });
    assert.equal(pdf.statusCode, 200);
    assert.equal(pdf.headers['content-type'], 'application/pdf');
    assert.equal(pdf.rawPayload.subarray(0, 5).toString(), '%PDF-');

    // Issuing queued the mail (issue 25): no "Versenden" beside it, and a send now is refused.
    assert.match(page.body, /Der Versand per E-Mail an abrechnung@mueller\.example ist beauftragt und läuft im Hintergrund/);
    assert.doesNotMatch(page.body, /Versenden<\/button>/);
    const early = await post(admin, id, 'send');
    assert.equal(early.status, 409);
    assert.match(early.body, /Die Abrechnung wird bereits per E-Mail versendet; sie wurde nicht ein zweites Mal gesendet\./);
    assert.equal(smtp.received.length, 0);
    await deliver();
    assert.match((await admin.get(`/app/statements/${id}`)).body, /Versendet an<\/dt><dd>abrechnung@mueller\.example/);
    assert.equal(smtp.received.length, 1);
    assert.deepEqual(smtp.received[0]?.envelopeTo, ['abrechnung@mueller.example']);
    const mail = await smtp.parsed(0);
    assert.match(mail.subject ?? '', /^Gutschrift GS-2026-00001 von /);
    assert.equal(mail.attachments[0]?.contentType, 'application/pdf');
    assert.equal((await stored(id)).status, 'sent');

    const cancelled = await post(admin, id, 'cancel');
    assert.equal(cancelled.status, 303);
    const after = await stored(id);
    assert.equal(after.status, 'cancelled');
    const cancellation = await stored(after.cancelled_by_id as string);
    assert.equal(cancellation.number, 'GS-2026-00002');
    const cancelledPage = await admin.get(cancelled.location as string);
    assert.match(cancelledPage.body, /Die Abrechnung wurde storniert \(Storno GS-2026-00002\)\./);
    assert.match(cancelledPage.body, new RegExp(`Storniert durch</dt><dd><a href="/app/statements/${cancellation.id}">GS-2026-00002</a>`));
    assert.match(cancelledPage.body, /wieder offen und erscheinen auf der nächsten Abrechnung/);
    assert.doesNotMatch(cancelledPage.body, /Stornieren<\/button>/);
    const cancellationPage = await admin.get(`/app/statements/${cancellation.id}`);
    assert.match(cancellationPage.body, /<h1>Storno-Gutschrift GS-2026-00002<\/h1>/);
    assert.match(cancellationPage.body, new RegExp(`Storniert</dt><dd><a href="/app/statements/${id}">GS-2026-00001</a>`));
    assert.match(cancellationPage.body, /Storno zur Gutschrift GS-2026-00001 vom 21\.11\.2026\./);
    // The commission is open again.
    assert.deepEqual(await partnerBalance(t, 'send'), { open: 5740, statemented: 0, paid: 0 });
    const trail = await audit(id);
    assert.deepEqual(
      trail.map((a) => [a.action, a.user_id]),
      [
        ['statement.issued', t.company.userId],
        ['statement.cancelled', t.company.userId],
      ],
    );
    assert.deepEqual(trail[1]?.after, { number: 'GS-2026-00001', status: 'cancelled', gross: '68.31', paid: false, cancelled_by: 'GS-2026-00002' });
    const history = (await admin.get(`/app/statements/${id}`)).body;
    for (const step of ['Ausgestellt', 'Storniert']) assert.match(history, new RegExp(`</time> ${step} von admin-main`));
    // The queued mail was sent by Kontor itself, not by a person.
    assert.match(history, /<\/time> Versendet<\/li>/);
    // The audit page names the actions in German.
    assert.match((await admin.get('/app/audit')).body, /Abrechnung storniert/);
  });

  test('a failed SMTP send is shown with the mail server’s reason in German; the statement stays issued', async () => {
    const id = statementIds.bounce;
    assert.equal((await post(admin, id, 'issue')).status, 303);
    // The queued mail is refused by the server: the page says why and offers "Erneut senden", asking first.
    await deliver();
    const page = await admin.get(`/app/statements/${id}`);
    assert.match(page.body, /Der Versand per E-Mail ist fehlgeschlagen: .*post@rejected\.example/);
    assert.match(page.body, /data-confirm="Abrechnung wirklich erneut per E-Mail senden\?"[^>]*><input type="hidden" name="_csrf"/);
    assert.match(page.body, /Erneut senden<\/button>/);
    const failed = await admin.post(`/app/statements/${id}/send`);
    assert.equal(failed.status, 422);
    assert.match(failed.body, /Die E-Mail wurde nicht versendet\. Der Mailserver 127\.0\.0\.1:\d+ hat die Empfängeradresse post@rejected\.example abgelehnt\./);
    const row = await stored(id);
    assert.deepEqual([row.status, row.sent_at, row.mail_started_at], ['issued', null, null]);
    assert.deepEqual(
      (await audit(id)).map((a) => a.action),
      ['statement.issued'],
    );
  });

  test('a member issues a draft and records an objection; without a partner e-mail there is no send', async () => {
    const id = statementIds.object;
    const issued = await post(member, id, 'issue');
    assert.equal(issued.status, 303);
    const page = await member.get(issued.location as string);
    assert.match(page.body, /Der Partner hat keine E-Mail-Adresse/);
    assert.doesNotMatch(page.body, /Versenden<\/button>/);
    assert.match(page.body, /Als bezahlt markieren kann nur ein Administrator/);
    assert.match(page.body, /data-confirm="Widerspruch des Partners wirklich erfassen\?/);
    const noMail = await member.post(`/app/statements/${id}/send`);
    assert.equal(noMail.status, 422);
    assert.match(noMail.body, /Der Partner hat keine E-Mail-Adresse; die Abrechnung kann nicht versendet werden\./);
    const objected = await post(member, id, 'objection');
    assert.equal(objected.status, 303);
    assert.match((await member.get(objected.location as string)).body, /Der Widerspruch wurde erfasst\./);
    const row = await stored(id);
    assert.equal(row.status, 'objected');
    assert.ok(row.objected_at);
    const partner = await t.handle.db
      .selectFrom('commission_partners')
      .select('self_billing_objected_at')
      .where('id', '=', partnerIds.object)
      .executeTakeFirstOrThrow();
    assert.ok(partner.self_billing_objected_at);
    const memberId = (await t.handle.db.selectFrom('users').select('id').where('email', '=', memberEmail).executeTakeFirstOrThrow()).id;
    assert.deepEqual(
      (await audit(id)).map((a) => [a.action, a.user_id]),
      [
        ['statement.issued', memberId],
        ['statement.objected', memberId],
      ],
    );
    assert.equal(row.decided_by, memberEmail);
  });

  test('mark paid: admins only; a paid statement cannot be cancelled, said in German', async () => {
    const id = statementIds.paid;
    assert.equal((await post(admin, id, 'issue')).status, 303);
    const byMember = await post(member, id, 'mark-paid');
    assert.equal(byMember.status, 403);
    assert.equal((await stored(id)).paid_at, null);
    const paid = await post(admin, id, 'mark-paid');
    assert.equal(paid.status, 303);
    const page = await admin.get(paid.location as string);
    assert.match(page.body, /Die Abrechnung ist als bezahlt vermerkt\./);
    assert.match(page.body, /Eine bezahlte Abrechnung kann nicht mehr storniert werden/);
    assert.doesNotMatch(page.body, /Stornieren<\/button>|Als bezahlt markieren<\/button>/);
    assert.ok((await stored(id)).paid_at);
    assert.deepEqual(await partnerBalance(t, 'paid'), { open: 0, statemented: 0, paid: 5740 });
    const refused = await admin.post(`/app/statements/${id}/cancel`);
    assert.equal(refused.status, 409);
    assert.match(refused.body, /Die Abrechnung ist bereits bezahlt und kann nicht mehr storniert werden\./);
    assert.equal((await stored(id)).status, 'issued');
    assert.deepEqual(
      (await audit(id)).map((a) => a.action),
      ['statement.issued', 'statement.paid'],
    );
    const list = await admin.get('/app/statements?status=paid');
    assert.match(list.body, /GS-2026-\d{5}<\/a>/);
    assert.match(list.body, /<span class="badge ok">ja<\/span>/);
  });

  test('another company sees none of it (404), and ids are checked before any query', async () => {
    const other = await t.newCompany('fremd');
    const stranger = await signedIn(t, 'ein fremdes Passwort 3', other);
    const id = statementIds.bounce;
    assert.equal((await stranger.get(`/app/statements/${id}`)).status, 404);
    assert.equal((await stranger.get(`/app/statements/${id}/pdf`)).status, 404);
    await stranger.get('/app/statements');
    const forged = await stranger.post(`/app/statements/${id}/cancel`);
    assert.equal(forged.status, 404);
    assert.equal((await stored(id)).status, 'issued');
    assert.equal((await admin.get('/app/statements/not-an-id')).status, 404);
    assert.doesNotMatch((await stranger.get('/app/statements')).body, /Partner Abgelehnt/);
  });

  test('the pages speak English too (amounts and dates in English format)', async () => {
    await admin.get('/app/lang?to=en');
    const list = await admin.get('/app/statements');
    assert.match(list.body, /<h1>Statements<\/h1>/);
    assert.match(list.body, /<td>Self-billed invoice<\/td>/);
    const page = await admin.get(`/app/statements/${statementIds.object}`);
    assert.match(page.body, /<h1>Self-billed invoice GS-2026-\d{5}<\/h1>/);
    assert.match(page.body, /Objected/);
    assert.match(page.body, /€68\.31/);
    const attributions = await admin.get('/app/attributions');
    assert.match(attributions.body, /<h1>Attributions<\/h1>/);
    await admin.get('/app/lang?to=de');
  });

  test('a cancellation dated in a locked period is refused in German (409), nothing changed, no 500', async () => {
    const id = statementIds.bounce;
    assert.equal((await stored(id)).status, 'issued');
    await lockPeriod(t.handle.db, t.clock, { companyId: t.company.companyId, until: '2026-11-21' });
    const refused = await post(admin, id, 'cancel');
    assert.equal(refused.status, 409);
    assert.match(refused.body, /Der Buchungszeitraum ist bis einschließlich 21\.11\.2026 gesperrt/);
    const after = await stored(id);
    assert.equal(after.status, 'issued');
    assert.equal(after.cancelled_by_id, null);
    assert.ok(!(await audit(id)).some((a) => a.action === 'statement.cancelled'));
  });
});
