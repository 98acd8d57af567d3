import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Actor } from '../../src/modules/audit/audit-log.ts';
import { createAppDraft, type InvoicingDeps } from '../../src/modules/invoicing/index.ts';
import { issueDraft } from '../../src/modules/invoicing/issue-draft.ts';
import { sealer, type TestApp, testApp } from '../helpers/app.ts';
import { putCustomer } from '../invoicing/helpers.ts';
import { SMTP_PASSWORD, SMTP_USER, startSmtpServer, type TestSmtpServer } from '../mail/fixtures.ts';
import { camt, importFile, issueInvoice } from '../payments/helpers.ts';
import { signedIn, type WebClient } from './client.ts';

// Issue 15: on an issued invoice's page a person mails it — to a real SMTP server in this
// process — mails it again, sees a refused mail in German (never a 500), and cancels it by a
// Stornorechnung linked both ways; a paid invoice is refused in German. Each step is one
// audit row in the transaction of the change; members may do this daily work; another
// company's invoice is not found.

describe('sending and cancelling invoices in the app', () => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let web: WebClient;
  let deps: InvoicingDeps;
  let actor: Actor & { email: string };

  /** An invoice written and issued in the app for the customer (200,00 € net at 19 %). */
  const appInvoice = async (customerRef = 'kunde-1') => {
    const draft = await createAppDraft(
      deps,
      t.company.companyId,
      {
        customer: { source: 'crm', external_ref: customerRef },
        lines: [{ description: 'Wartung November', quantity: '2', unit: 'Stunde', unit_price_net: '100.00', vat_rate: 19 }],
        service_period: { start: '2026-11-01', end: '2026-11-30' },
      },
      actor,
    );
    const issued = await issueDraft(deps, t.company.companyId, draft.id, { confirmDomesticSupply: false, actor });
    return { id: draft.id, number: issued.number as string };
  };
  const state = (id: string) =>
    t.handle.db
      .selectFrom('invoices')
      .select(['status', 'sent_at', 'cancelled_by_invoice_id', 'total_gross_cents'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
  const auditOf = async (id: string) =>
    (await t.handle.db.selectFrom('audit_log').select(['action', 'user_id', 'after']).where('subject_id', '=', id).orderBy('seq').execute()).map((a) => ({
      ...a,
      after: (typeof a.after === 'string' ? JSON.parse(a.after) : a.after) as Record<string, unknown>,
    }));

  before(async () => {
    smtp = await startSmtpServer();
    t = await testApp();
    const settings = { host: '127.0.0.1', port: smtp.port, secure: false, user: SMTP_USER, password_sealed: sealer.seal(SMTP_PASSWORD), from: SMTP_USER };
    await t.handle.db
      .updateTable('companies')
      .set({ smtp: JSON.stringify(settings) })
      .where('id', '=', t.company.companyId)
      .execute();
    await putCustomer(t, 'kunde-1');
    await putCustomer(t, 'abgelehnt', { name: 'Abgelehnt KG', email: 'buchhaltung@rejected.example' });
    deps = { ...t.invoicing, db: t.handle.db, clock: t.clock };
    actor = { userId: t.company.userId, organizationId: t.company.organizationId, companyId: t.company.companyId, email: t.company.adminEmail };
    web = await signedIn(t);
  });
  after(async () => {
    await t.close();
    await smtp.close();
  });

  test('"Per E-Mail senden" mails the invoice over SMTP; "Erneut senden" mails it once more under its own Message-ID', async () => {
    const invoice = await appInvoice();
    const page = await web.get(`/app/invoices/${invoice.id}`);
    assert.match(page.body, /An buchhaltung@beispiel\.example, mit der Rechnung als PDF im Anhang\./);
    assert.match(page.body, /<button type="submit" class="primary">Per E-Mail senden<\/button>/);
    const received = smtp.received.length;
    const sent = await web.post(`/app/invoices/${invoice.id}/send`);
    assert.equal(sent.status, 303, sent.body);
    assert.equal(sent.location, `/app/invoices/${invoice.id}?done=sent`);
    assert.equal(smtp.received.length, received + 1);
    assert.deepEqual(smtp.received[received]?.envelopeTo, ['buchhaltung@beispiel.example']);
    const mail = await smtp.parsed(received);
    assert.equal(mail.subject, `Rechnung ${invoice.number} von main GmbH`);
    assert.deepEqual(
      mail.attachments.map((a) => a.filename),
      [`${invoice.number}.pdf`],
    );
    assert.ok(mail.text?.includes('Rechnungsbetrag: 238,00 €'));
    const row = await state(invoice.id);
    assert.equal(row.status, 'sent');
    assert.ok(row.sent_at);
    const after = await web.get(sent.location as string);
    assert.match(after.body, /Die Rechnung wurde per E-Mail an buchhaltung@beispiel\.example gesendet\./);
    assert.match(after.body, /<input type="hidden" name="again" value="1"><button type="submit">Erneut senden<\/button>/);
    assert.match(
      after.body,
      new RegExp(`Rechnung ${invoice.number} per E-Mail an buchhaltung@beispiel\\.example gesendet von admin-main`),
      'the history names the person',
    );

    const again = await web.post(`/app/invoices/${invoice.id}/send`, { again: '1' });
    assert.equal(again.status, 303);
    assert.equal(again.location, `/app/invoices/${invoice.id}?done=sent-again`);
    assert.equal(smtp.received.length, received + 2);
    const second = await smtp.parsed(received + 1);
    assert.notEqual(second.messageId, mail.messageId, 'a receiver does not drop it as a duplicate');
    assert.deepEqual((await state(invoice.id)).sent_at, row.sent_at, 'sent_at stays the first mail');
    const audit = await auditOf(invoice.id);
    assert.deepEqual(
      audit.map((a) => [a.action, a.after.to, a.after.mailed_before]),
      [
        ['invoice.draft_created', undefined, undefined],
        ['invoice.issued', undefined, undefined],
        ['invoice.sent', 'buchhaltung@beispiel.example', false],
        ['invoice.sent', 'buchhaltung@beispiel.example', true],
      ],
    );
    assert.equal(
      await t.handle.db.selectFrom('events').select('id').where('subject_id', '=', invoice.id).executeTakeFirst(),
      undefined,
      'an app invoice has no events',
    );
  });

  test('a mail the server refuses is shown in German with 422, the invoice stays issued, the attempt is audited', async () => {
    const invoice = await appInvoice('abgelehnt');
    await web.get(`/app/invoices/${invoice.id}`);
    const refused = await web.post(`/app/invoices/${invoice.id}/send`);
    assert.equal(refused.status, 422);
    assert.match(
      refused.body,
      /role="alert">Die Rechnung wurde nicht gesendet: Der Mailserver 127\.0\.0\.1:\d+ hat die Empfängeradresse buchhaltung@rejected\.example abgelehnt\./,
    );
    assert.equal((await state(invoice.id)).status, 'issued');
    const audit = await auditOf(invoice.id);
    assert.deepEqual(audit.at(-1)?.action, 'invoice.send_failed');
    assert.equal(audit.at(-1)?.after.error, 'mail_rejected');
    // A draft is not sent.
    const draft = await createAppDraft(
      deps,
      t.company.companyId,
      {
        customer: { source: 'crm', external_ref: 'kunde-1' },
        lines: [{ description: 'x', quantity: 1, unit_price_net: '1.00', vat_rate: 19 }],
        service_period: { start: '2026-11-01', end: '2026-11-01' },
      },
      actor,
    );
    await web.get(`/app/invoices/${draft.id}`);
    const notIssued = await web.post(`/app/invoices/${draft.id}/send`);
    assert.equal(notIssued.status, 422);
    assert.match(notIssued.body, /Ein Entwurf wird zuerst ausgestellt, dann versendet\./);
  });

  test('"Stornieren" asks first, issues the Stornorechnung linked both ways, and is audited; a paid invoice is refused in German', async () => {
    const invoice = await appInvoice();
    const page = await web.get(`/app/invoices/${invoice.id}`);
    assert.match(
      page.body,
      new RegExp(
        `data-confirm="Rechnung ${invoice.number} wirklich stornieren\\?[^"]*"><input type="hidden" name="_csrf"[^>]*><input type="hidden" name="_once"[^>]*><button type="submit" class="danger">Stornieren</button>`,
      ),
    );
    const cancelled = await web.post(`/app/invoices/${invoice.id}/cancel`);
    assert.equal(cancelled.status, 303, cancelled.body);
    assert.equal(cancelled.location, `/app/invoices/${invoice.id}?done=cancelled`);
    const row = await state(invoice.id);
    assert.equal(row.status, 'cancelled');
    const stornoId = row.cancelled_by_invoice_id as string;
    const storno = await t.handle.db
      .selectFrom('invoices')
      .select(['number', 'type', 'total_gross_cents', 'origin'])
      .where('id', '=', stornoId)
      .executeTakeFirstOrThrow();
    assert.deepEqual({ ...storno, number: undefined }, { number: undefined, type: 'storno', total_gross_cents: -23800, origin: 'app' });
    const after = await web.get(cancelled.location as string);
    assert.match(after.body, new RegExp(`Die Rechnung wurde storniert\\. Stornorechnung: ${storno.number}\\.`));
    assert.match(after.body, new RegExp(`<dt>Storniert durch</dt><dd><a href="/app/invoices/${stornoId}">${storno.number}</a>`));
    assert.doesNotMatch(after.body, /class="danger">Stornieren/);
    assert.doesNotMatch(after.body, /Per E-Mail senden/);
    const stornoPage = await web.get(`/app/invoices/${stornoId}`);
    assert.match(stornoPage.body, new RegExp(`<h1>Storno ${storno.number}</h1>`));
    assert.match(stornoPage.body, new RegExp(`<dt>Storno zu</dt><dd><a href="/app/invoices/${invoice.id}">${invoice.number}</a>`));
    assert.match(stornoPage.body, /Per E-Mail senden/, 'the Stornorechnung can be mailed');
    const audit = (await auditOf(invoice.id)).at(-1);
    assert.equal(audit?.action, 'invoice.cancelled');
    assert.deepEqual(audit?.after, { status: 'cancelled', number: invoice.number, storno_id: stornoId, storno_number: storno.number, storno_total: '-238.00' });

    // Paid on the bank statement: no cancel button; a forged post is refused and changes nothing.
    const paid = await issueInvoice(t, 'bezahlt');
    await importFile(t, camt([{ amount: paid.total_gross, text: paid.number }], { id: 'PAID' }));
    const paidPage = await web.get(`/app/invoices/${paid.id}`);
    assert.match(paidPage.body, /Bezahlte oder teilweise bezahlte Rechnungen lassen sich nicht stornieren\./);
    assert.doesNotMatch(paidPage.body, /class="danger">Stornieren/);
    const refused = await web.post(`/app/invoices/${paid.id}/cancel`);
    assert.equal(refused.status, 422);
    assert.match(refused.body, /Die Rechnung wurde nicht storniert: Die Rechnung ist bezahlt und kann nicht storniert werden/);
    assert.equal((await state(paid.id)).status, 'paid');
  });

  test('members send and cancel too; another company finds neither; an API invoice keeps its events', async () => {
    const colleague = await t.newCompany('kollege');
    await t.handle.db.insertInto('company_access').values({ company_id: t.company.companyId, user_id: colleague.userId }).execute();
    await t.handle.db
      .insertInto('memberships')
      .values({ organization_id: t.company.organizationId, user_id: colleague.userId, role: 'member', active: true })
      .execute();
    // A member of this company (and admin of their own): works in this company after switching.
    const member = await signedIn(t, 'ein Passwort für Kollegen', colleague);
    await member.get('/app/dashboard');
    assert.equal((await member.post('/app/company', { company_id: t.company.companyId })).status, 303);
    const invoice = await issueInvoice(t, 'mitglied');
    await member.get(`/app/invoices/${invoice.id}`);
    assert.equal((await member.post(`/app/invoices/${invoice.id}/send`)).status, 303);
    await member.get(`/app/invoices/${invoice.id}`);
    assert.equal((await member.post(`/app/invoices/${invoice.id}/cancel`)).status, 303);
    assert.deepEqual(
      (await auditOf(invoice.id)).map((a) => [a.action, a.user_id]),
      [
        ['invoice.sent', colleague.userId],
        ['invoice.cancelled', colleague.userId],
      ],
    );
    const events = await t.handle.db.selectFrom('events').select('type').where('subject_id', '=', invoice.id).orderBy('seq').execute();
    assert.deepEqual(
      events.map((e) => e.type),
      ['invoice.issued', 'invoice.sent', 'invoice.cancelled'],
    );

    const other = await t.newCompany('fremd');
    const stranger = await signedIn(t, 'ein fremdes Passwort', other);
    const mine = await appInvoice();
    for (const step of ['send', 'cancel']) {
      await stranger.get('/app/dashboard');
      assert.equal((await stranger.post(`/app/invoices/${mine.id}/${step}`)).status, 404);
    }
    assert.equal((await state(mine.id)).status, 'issued');
    await web.get('/app/dashboard');
    assert.equal((await web.post(`/app/invoices/${mine.id}/cancel`, { _csrf: '' })).status, 403);
  });
});
