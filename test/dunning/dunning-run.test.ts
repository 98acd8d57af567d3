import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { drainDueJobs, runDailyTasks, runDueWork } from '../../src/jobs/index.ts';
import { updateCompany } from '../../src/modules/access/index.ts';
import { sealer, type TestApp, testApp } from '../helpers/app.ts';
import { newKey, postInvoice } from '../invoicing/helpers.ts';
import { extractPages } from '../invoicing/render/pdf-reader.ts';
import { SMTP_PASSWORD, SMTP_USER, startSmtpServer } from '../mail/fixtures.ts';
import {
  eventsOf,
  invoiceOf,
  issueInvoice,
  noticesOf,
  outbox,
  PRIVATE_CUSTOMER,
  putCustomerOf,
  recordPayment,
  runDay,
  type Scenario,
  scenario,
} from './helpers.ts';

// Overdue marking and dunning as `kontor jobs run --as-of` runs them, day by day, with
// invoices issued through the API and the notices read back from the outbox mails.

const mine = (summary: Awaited<ReturnType<typeof runDay>>) => ({
  overdue: summary.tasks['invoices.overdue'],
  dunning: summary.tasks['invoices.dunning'],
});

describe('overdue marking and dunning (kontor jobs run)', () => {
  let t: TestApp;
  const scenarios: Scenario[] = [];
  const open = async (label: string, dunning?: unknown) => {
    const s = await scenario(t, label, dunning);
    scenarios.push(s);
    return s;
  };
  before(async () => {
    t = await testApp();
  });
  after(async () => {
    for (const s of scenarios) s.mailer.close();
    await t.close();
  });

  test('a business invoice: overdue the day after due (event once), reminder at +7, 1. Mahnung at +21, 2. Mahnung at +35, then nothing', async () => {
    const s = await open('timeline');
    await putCustomerOf(t, s, 'kunde-1');
    const invoice = await issueInvoice(t, s, 'inv-timeline', 'kunde-1', '2026-11-21');
    assert.equal(invoice.due_date, '2026-12-05');

    await runDay(t, s, '2026-12-05');
    assert.equal((await invoiceOf(t, s, invoice.id)).overdue, false, 'not overdue on the due date');
    assert.equal((await eventsOf(t, s, 'invoice.overdue')).length, 0);

    const first = await runDay(t, s, '2026-12-06');
    assert.deepEqual(mine(first), {
      overdue: { companies: 1, ran: 1, skipped: 0, failed: 0 },
      dunning: { companies: 1, ran: 1, skipped: 0, failed: 0 },
    });
    const overdue = await invoiceOf(t, s, invoice.id);
    assert.equal(overdue.overdue, true);
    assert.equal(overdue.status, 'issued', 'overdue does not change the status');
    const overdueEvents = await eventsOf(t, s, 'invoice.overdue', invoice.id);
    assert.equal(overdueEvents.length, 1);
    assert.equal(overdueEvents[0]!.data.overdue, true);
    assert.equal(overdueEvents[0]!.data.id, invoice.id);
    const feed = await t.request('GET', '/v1/invoices?changed_since=2026-12-06T00:00:00Z', { key: s.company.apiKey });
    assert.deepEqual(
      (feed.json() as { data: { id: string; overdue: boolean }[] }).data.map((i) => [i.id, i.overdue]),
      [[invoice.id, true]],
      'the change feed shows the change',
    );

    const again = await runDay(t, s, '2026-12-06');
    assert.deepEqual(mine(again), {
      overdue: { companies: 1, ran: 0, skipped: 1, failed: 0 },
      dunning: { companies: 1, ran: 0, skipped: 1, failed: 0 },
    });
    await runDay(t, s, '2026-12-07');
    assert.equal((await eventsOf(t, s, 'invoice.overdue')).length, 1, 'the event comes once');

    await runDay(t, s, '2026-12-11');
    assert.equal((await invoiceOf(t, s, invoice.id)).dunning_level, null, 'no reminder at +6');
    assert.equal((await outbox(t, s)).length, 0);

    const reminderDay = await runDay(t, s, '2026-12-12');
    assert.equal(reminderDay.jobs.done, 1);
    assert.equal((await invoiceOf(t, s, invoice.id)).dunning_level, 0);
    let mails = await outbox(t, s);
    assert.equal(mails.length, 1);
    assert.equal(mails[0]!.subject, `Zahlungserinnerung zu Rechnung ${invoice.number} von timeline GmbH`);
    assert.deepEqual(mails[0]!.to && !Array.isArray(mails[0]!.to) ? mails[0]!.to.value.map((a) => a.address) : [], ['buchhaltung@beispiel.example']);
    assert.equal(mails[0]!.attachments[0]!.filename, `Zahlungserinnerung-${invoice.number}.pdf`);
    assert.match(mails[0]!.pdfText, /Zahlungserinnerung/);
    assert.match(mails[0]!.pdfText, /Offener Rechnungsbetrag 1\.190,00 €/);
    assert.match(mails[0]!.pdfText, /Zahlbar bis 22\.12\.2026/);
    assert.doesNotMatch(mails[0]!.pdfText, /Mahngebühr|Verzugszinsen|Verzugspauschale/);

    await runDay(t, s, '2026-12-12');
    await runDay(t, s, '2026-12-25');
    assert.equal((await outbox(t, s)).length, 1, 'nothing twice, nothing before +21');

    await runDay(t, s, '2026-12-26');
    assert.equal((await invoiceOf(t, s, invoice.id)).dunning_level, 1);
    mails = await outbox(t, s);
    assert.equal(mails.length, 2);
    assert.equal(mails[1]!.subject, `1. Mahnung zu Rechnung ${invoice.number} von timeline GmbH`);
    // Default since the reminder of 12.12.; interest 13.–26.12.2026, 14 days at 1.27 + 9 = 10.27 %:
    // 1,190.00 × 10.27 % × 14 / 365 = 4.6876 → 4.69. Total 1,190.00 + 2.50 + 4.69 + 40.00.
    assert.match(mails[1]!.pdfText, /Mahngebühr 1\. Mahnung 2,50 €/);
    assert.match(
      mails[1]!.pdfText,
      /Verzugszinsen 10,27 % p\. a\. \(Basiszinssatz 1,27 % seit 01\.01\.2026, ab 01\.07\.2026 fortgeschrieben, \+ 9 Prozentpunkte\) vom 13\.12\.2026 bis 26\.12\.2026, 14 Tage 4,69 €/,
    );
    assert.match(mails[1]!.pdfText, /Verzugspauschale \(§ 288 Abs\. 5 BGB\) 40,00 €/);
    // Which rate, and that it was carried forward (issue 25): in the PDF and in the mail text.
    const carried =
      /Für die Zeit ab dem 01\.07\.2026 lag uns bei Erstellung dieses Schreibens noch kein neuer Basiszinssatz vor; wir haben den zuletzt bekannten Basiszinssatz von 1,27 % \(gültig seit 01\.01\.2026\) fortgeschrieben\./;
    assert.match(mails[1]!.pdfText, carried);
    assert.match((mails[1]!.text ?? '').replace(/\s+/g, ' '), carried);
    assert.match((mails[1]!.text ?? '').replace(/\s+/g, ' '), /Basiszinssatz 1,27 % seit 01\.01\.2026, ab 01\.07\.2026 fortgeschrieben, \+ 9 Prozentpunkte/);
    assert.match(mails[1]!.pdfText, /Zu zahlender Gesamtbetrag 1\.237,19 €/);

    await runDay(t, s, '2027-01-08');
    assert.equal((await outbox(t, s)).length, 2);
    await runDay(t, s, '2027-01-09');
    assert.equal((await invoiceOf(t, s, invoice.id)).dunning_level, 2);
    mails = await outbox(t, s);
    assert.equal(mails.length, 3);
    assert.match(mails[2]!.subject ?? '', /^2\. Mahnung/);
    // 28 days (13.12.2026–09.01.2027) at 10.27 %: 9.3752 → 9.38; fees 2.50 + 5.00.
    assert.match(mails[2]!.pdfText, /Mahngebühren früherer Mahnungen 2,50 €/);
    assert.match(mails[2]!.pdfText, /Mahngebühr 2\. Mahnung 5,00 €/);
    assert.match(mails[2]!.pdfText, /vom 13\.12\.2026 bis 09\.01\.2027, 28 Tage 9,38 €/);
    assert.match(mails[2]!.pdfText, /Zu zahlender Gesamtbetrag 1\.246,88 €/);

    for (const day of ['2027-01-23', '2027-02-06', '2027-03-06']) await runDay(t, s, day);
    assert.equal((await outbox(t, s)).length, 3, 'no level 3 unless the policy sets it');

    const sent = await eventsOf(t, s, 'invoice.dunning_sent', invoice.id);
    assert.deepEqual(
      sent.map((e) => e.data.dunning_level),
      [0, 1, 2],
      'one event per level, data.dunning_level says which',
    );
    assert.deepEqual(
      (await noticesOf(t, s, invoice.id)).map((n) => [n.level, n.notice_date, n.status, n.fee_cents, n.interest_cents, n.lump_sum_cents, n.total_cents]),
      [
        [0, '2026-12-12', 'sent', 0, 0, 0, 119_000],
        [1, '2026-12-26', 'sent', 250, 469, 4000, 123_719],
        [2, '2027-01-09', 'sent', 500, 938, 4000, 124_688],
      ],
    );
  });

  test('consumer and business across the base-rate change of 1 July 2025: +5 vs +9 points, lump sum for the business only', async () => {
    const s = await open('ratechange');
    await putCustomerOf(t, s, 'privat', PRIVATE_CUSTOMER);
    await putCustomerOf(t, s, 'firma');
    const consumer = await issueInvoice(t, s, 'inv-consumer', 'privat', '2025-05-20');
    const business = await issueInvoice(t, s, 'inv-business', 'firma', '2025-05-20');
    assert.equal(consumer.due_date, '2025-06-03');
    for (const day of ['2025-06-04', '2025-06-10', '2025-06-24', '2025-07-08']) await runDay(t, s, day);
    const mails = await outbox(t, s);
    const second = (number: string) => mails.find((m) => m.subject?.startsWith(`2. Mahnung zu Rechnung ${number}`))!;
    // Interest 11.06.–30.06. (20 days, base 2.27 %) and 01.07.–08.07. (8 days, base 1.27 %) on 1,190.00 €.
    const consumerText = second(consumer.number).pdfText;
    assert.doesNotMatch(consumerText, /fortgeschrieben/, 'the table has both rates: nothing carried forward');
    assert.match(
      consumerText,
      /Verzugszinsen 7,27 % p\. a\. \(Basiszinssatz 2,27 % seit 01\.01\.2025 \+ 5 Prozentpunkte\) vom 11\.06\.2025 bis 30\.06\.2025, 20 Tage 4,74 €/,
    );
    assert.match(
      consumerText,
      /Verzugszinsen 6,27 % p\. a\. \(Basiszinssatz 1,27 % seit 01\.07\.2025 \+ 5 Prozentpunkte\) vom 01\.07\.2025 bis 08\.07\.2025, 8 Tage 1,64 €/,
    );
    assert.doesNotMatch(consumerText, /Verzugspauschale/);
    assert.match(consumerText, /Zu zahlender Gesamtbetrag 1\.203,88 €/); // 1,190.00 + 7.50 + 6.38
    assert.match(consumerText, /Sehr geehrte Damen und Herren/);
    const businessText = second(business.number).pdfText;
    assert.match(
      businessText,
      /Verzugszinsen 11,27 % p\. a\. \(Basiszinssatz 2,27 % seit 01\.01\.2025 \+ 9 Prozentpunkte\) vom 11\.06\.2025 bis 30\.06\.2025, 20 Tage 7,35 €/,
    );
    assert.match(
      businessText,
      /Verzugszinsen 10,27 % p\. a\. \(Basiszinssatz 1,27 % seit 01\.07\.2025 \+ 9 Prozentpunkte\) vom 01\.07\.2025 bis 08\.07\.2025, 8 Tage 2,68 €/,
    );
    assert.match(businessText, /Verzugspauschale \(§ 288 Abs\. 5 BGB\) 40,00 €/);
    assert.match(businessText, /Zu zahlender Gesamtbetrag 1\.247,53 €/); // 1,190.00 + 7.50 + 10.03 + 40.00
  });

  test('a payment stops further notices; one that arrives between the task and the job cancels the notice', async () => {
    const s = await open('payment');
    await putCustomerOf(t, s, 'kunde-1');
    const paidAfterReminder = await issueInvoice(t, s, 'inv-paid', 'kunde-1', '2026-11-21');
    const paidInBetween = await issueInvoice(t, s, 'inv-between', 'kunde-1', '2026-11-21');
    await runDay(t, s, '2026-12-12');
    assert.equal((await outbox(t, s)).length, 2, 'both reminded');

    await recordPayment(t, s, paidAfterReminder.id, 'full');
    // The daily task makes the 1. Mahnung; the payment arrives before the job mails it.
    t.clock.set('2026-12-26T12:00:00Z');
    await runDailyTasks(t.handle.db, t.clock, { asOf: '2026-12-26', companyId: s.company.companyId });
    await recordPayment(t, s, paidInBetween.id, 'full');
    const tally = await drainDueJobs({ db: t.handle.db, clock: t.clock, mailer: s.mailer }, { companyId: s.company.companyId });
    assert.equal(tally.done, 1, 'the job ran and decided not to mail');

    assert.equal((await outbox(t, s)).length, 2, 'no notice after the payment');
    assert.deepEqual(
      (await noticesOf(t, s, paidAfterReminder.id)).map((n) => [n.level, n.status]),
      [[0, 'sent']],
    );
    assert.deepEqual(
      (await noticesOf(t, s, paidInBetween.id)).map((n) => [n.level, n.status, n.reason]),
      [
        [0, 'sent', null],
        [1, 'cancelled', 'paid'],
      ],
    );
    for (const invoice of [paidAfterReminder, paidInBetween]) {
      const view = await invoiceOf(t, s, invoice.id);
      assert.equal(view.dunning_level, 0);
      assert.equal(view.status, 'paid');
    }
    await runDay(t, s, '2027-01-09');
    assert.equal((await outbox(t, s)).length, 2);
    assert.equal((await eventsOf(t, s, 'invoice.dunning_sent')).length, 2);
  });

  test('a partial payment: the pending notice is cancelled, the next run duns the rest', async () => {
    const s = await open('partial');
    await putCustomerOf(t, s, 'kunde-1');
    const invoice = await issueInvoice(t, s, 'inv-partial', 'kunde-1', '2026-11-21');
    t.clock.set('2026-12-12T12:00:00Z');
    await runDailyTasks(t.handle.db, t.clock, { asOf: '2026-12-12', companyId: s.company.companyId });
    await recordPayment(t, s, invoice.id, 40_000);
    await drainDueJobs({ db: t.handle.db, clock: t.clock, mailer: s.mailer }, { companyId: s.company.companyId });
    assert.equal((await outbox(t, s)).length, 0);

    await runDay(t, s, '2026-12-13');
    const mails = await outbox(t, s);
    assert.equal(mails.length, 1);
    assert.match(mails[0]!.pdfText, /abzüglich bereits gezahlt -400,00 €/);
    assert.match(mails[0]!.pdfText, /Offener Rechnungsbetrag 790,00 €/);
    assert.deepEqual(
      (await noticesOf(t, s, invoice.id)).map((n) => [n.level, n.notice_date, n.status, n.open_cents]),
      [
        [0, '2026-12-12', 'cancelled', 119_000],
        [0, '2026-12-13', 'sent', 79_000],
      ],
    );
    const view = await invoiceOf(t, s, invoice.id);
    assert.equal(view.status, 'partially_paid');
    assert.equal(view.dunning_level, 0);
  });

  test('level 3 ("Letzte Mahnung") only when the company policy sets it', async () => {
    const s = await open('level3', { levels: 3 });
    await putCustomerOf(t, s, 'kunde-1');
    const invoice = await issueInvoice(t, s, 'inv-level3', 'kunde-1', '2026-11-21');
    for (const day of ['2026-12-12', '2026-12-26', '2027-01-09', '2027-01-22', '2027-01-23', '2027-02-06']) await runDay(t, s, day);
    const mails = await outbox(t, s);
    assert.deepEqual(
      mails.map((m) => m.subject?.split(' zu ')[0]),
      ['Zahlungserinnerung', '1. Mahnung', '2. Mahnung', 'Letzte Mahnung'],
    );
    assert.match(mails[3]!.pdfText, /Mahngebühr Letzte Mahnung 5,00 €/);
    assert.match(mails[3]!.pdfText, /gerichtliche Mahnverfahren/);
    assert.equal((await invoiceOf(t, s, invoice.id)).dunning_level, 3);
    assert.deepEqual(
      (await eventsOf(t, s, 'invoice.dunning_sent')).map((e) => e.data.dunning_level),
      [0, 1, 2, 3],
    );
  });

  test('a policy from the company file: own days, fees, no lump sum', async () => {
    const s = await open('policy', { reminder_days: 3, interval_days: 7, fees: ['0.00', '3.00', '4.00'], lump_sum: false, deadline_days: 5 });
    await putCustomerOf(t, s, 'kunde-1');
    const invoice = await issueInvoice(t, s, 'inv-policy', 'kunde-1', '2026-11-21');
    for (const day of ['2026-12-07', '2026-12-08', '2026-12-14', '2026-12-15', '2026-12-21', '2026-12-22']) await runDay(t, s, day);
    assert.deepEqual(
      (await noticesOf(t, s, invoice.id)).map((n) => [n.level, n.notice_date, n.fee_cents, n.lump_sum_cents]),
      [
        [0, '2026-12-08', 0, 0],
        [1, '2026-12-15', 300, 0],
        [2, '2026-12-22', 400, 0],
      ],
    );
    const mails = await outbox(t, s);
    assert.match(mails[1]!.pdfText, /Zahlbar bis 20\.12\.2026/);
    assert.doesNotMatch(mails[1]!.pdfText, /Verzugspauschale/);
  });

  test('a company that turned dunning off gets overdue marking but no notices', async () => {
    const s = await open('off', { enabled: false });
    await putCustomerOf(t, s, 'kunde-1');
    const invoice = await issueInvoice(t, s, 'inv-off', 'kunde-1', '2026-11-21');
    for (const day of ['2026-12-06', '2026-12-12', '2026-12-26']) await runDay(t, s, day);
    const view = await invoiceOf(t, s, invoice.id);
    assert.equal(view.overdue, true);
    assert.equal(view.dunning_level, null);
    assert.equal((await outbox(t, s)).length, 0);
  });

  test('an invoice of 0.00 (as a contract credit that covers the charge leaves it) has nothing open: never overdue, no event, no notice', async () => {
    const s = await open('zero');
    await putCustomerOf(t, s, 'kunde-1');
    t.clock.set('2026-11-21T10:00:00Z');
    const res = await postInvoice(
      t,
      {
        customer: { source: 'crm', external_ref: 'kunde-1' },
        external_ref: 'inv-zero',
        lines: [{ description: 'Kostenlose Erstberatung', quantity: '1', unit: 'Stück', unit_price_net: '0.00', vat_rate: 19 }],
        service_period: { start: '2026-11-21', end: '2026-11-21' },
        payment_terms_days: 14,
        issue: true,
      },
      newKey(),
      s.company.apiKey,
    );
    assert.equal(res.statusCode, 201, res.body);
    const zero = res.json() as { id: string; total_gross: string };
    assert.equal(zero.total_gross, '0.00');
    const paying = await issueInvoice(t, s, 'inv-open', 'kunde-1', '2026-11-21');
    for (const day of ['2026-12-06', '2026-12-12', '2026-12-26']) await runDay(t, s, day);
    assert.equal((await invoiceOf(t, s, zero.id)).overdue, false);
    assert.deepEqual(
      (await eventsOf(t, s, 'invoice.overdue')).map((event) => event.data.id),
      [paying.id],
      'only the invoice with an amount open is overdue',
    );
    assert.equal((await noticesOf(t, s, zero.id)).length, 0);
  });

  test('a cancelled invoice (storno) is neither overdue nor dunned; the storno itself neither', async () => {
    const s = await open('storno');
    await putCustomerOf(t, s, 'kunde-1');
    const invoice = await issueInvoice(t, s, 'inv-storno', 'kunde-1', '2026-11-21');
    const cancel = await t.request('POST', `/v1/invoices/${invoice.id}/cancel`, { key: s.company.apiKey });
    assert.equal(cancel.statusCode, 201, cancel.body);
    for (const day of ['2026-12-06', '2026-12-12', '2026-12-26']) await runDay(t, s, day);
    assert.equal((await eventsOf(t, s, 'invoice.overdue')).length, 0);
    assert.equal((await outbox(t, s)).length, 0);
  });

  test('a mail that cannot go out (no e-mail address) fails the notice; the next run tries again with the fixed address', async () => {
    const s = await open('nomail');
    await putCustomerOf(t, s, 'kunde-1');
    const invoice = await issueInvoice(t, s, 'inv-nomail', 'kunde-1', '2026-11-21');
    const { email: _dropped, ...withoutEmail } = (await import('../invoicing/helpers.ts')).BUSINESS_CUSTOMER;
    await putCustomerOf(t, s, 'kunde-1', withoutEmail);
    const day = await runDay(t, s, '2026-12-12');
    assert.equal(day.jobs.failed, 1);
    assert.equal((await invoiceOf(t, s, invoice.id)).dunning_level, null);
    const [failed] = await noticesOf(t, s, invoice.id);
    assert.equal(failed!.status, 'failed');
    assert.match(failed!.reason ?? '', /^recipient_missing: /);

    await putCustomerOf(t, s, 'kunde-1');
    await runDay(t, s, '2026-12-13');
    assert.equal((await invoiceOf(t, s, invoice.id)).dunning_level, 0);
    assert.equal((await outbox(t, s)).length, 1);
    assert.deepEqual(
      (await noticesOf(t, s, invoice.id)).map((n) => [n.level, n.notice_date, n.status]),
      [
        [0, '2026-12-12', 'failed'],
        [0, '2026-12-13', 'sent'],
      ],
    );
  });

  test('with an SMTP mailbox the notice goes out over SMTP, from the company, with the PDF', async () => {
    const smtp = await startSmtpServer();
    const s = await open('smtp');
    try {
      await updateCompany(
        t.handle.db,
        t.clock,
        sealer,
        s.company.companyId,
        JSON.stringify({ smtp: { host: '127.0.0.1', port: smtp.port, secure: false, user: SMTP_USER, password: SMTP_PASSWORD, from: SMTP_USER } }),
      );
      await putCustomerOf(t, s, 'kunde-1');
      const invoice = await issueInvoice(t, s, 'inv-smtp', 'kunde-1', '2026-11-21');
      await runDay(t, s, '2026-12-12');
      assert.equal(smtp.received.length, 1);
      assert.deepEqual(smtp.received[0]!.envelopeTo, ['buchhaltung@beispiel.example']);
      const mail = await smtp.parsed(0);
      assert.equal(mail.subject, `Zahlungserinnerung zu Rechnung ${invoice.number} von smtp GmbH`);
      assert.equal(mail.from?.value[0]?.address, SMTP_USER);
      const pdf = mail.attachments.find((a) => a.contentType === 'application/pdf')!;
      assert.match(extractPages(pdf.content).join(' ').replace(/\s+/g, ' '), /Zahlungserinnerung .*Offener Rechnungsbetrag 1\.190,00 €/);
      assert.equal((await outbox(t, s)).length, 0, 'not in the outbox');
      assert.equal((await invoiceOf(t, s, invoice.id)).dunning_level, 0);
    } finally {
      s.mailer.close(); // the pooled connection would otherwise idle on for 15 s
      await smtp.close();
    }
  });

  test('a jobs run without a mailer leaves the notice waiting; a later run that has one sends it', async () => {
    const s = await open('nomailer');
    await putCustomerOf(t, s, 'kunde-1');
    const invoice = await issueInvoice(t, s, 'inv-nomailer', 'kunde-1', '2026-11-21');
    t.clock.set('2026-12-12T12:00:00Z');
    const without = await runDueWork({ db: t.handle.db, clock: t.clock }, { asOf: '2026-12-12', companyId: s.company.companyId });
    assert.deepEqual(without.jobs, { done: 0, failed: 0, retried: 1 });
    assert.deepEqual(
      (await noticesOf(t, s, invoice.id)).map((n) => n.status),
      ['pending'],
    );
    t.clock.set('2026-12-12T13:00:00Z'); // after the retry's backoff
    const later = await drainDueJobs({ db: t.handle.db, clock: t.clock, mailer: s.mailer }, { companyId: s.company.companyId });
    assert.equal(later.done, 1);
    assert.equal((await invoiceOf(t, s, invoice.id)).dunning_level, 0);
    assert.equal((await outbox(t, s)).length, 1);
  });
});
