import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { drainDueJobs } from '../../src/jobs/index.ts';
import { BASE_RATES, useBaseRates } from '../../src/modules/dunning/base-rates.ts';
import { invoiceOf, issueInvoice, noticesOf, outbox, putCustomerOf, runDay, type Scenario, scenario } from '../dunning/helpers.ts';
import { countRows, type TestApp, testApp } from '../helpers/app.ts';
import { BUSINESS_CUSTOMER } from '../invoicing/helpers.ts';
import { signedIn, signedInMember, WebClient } from './client.ts';

// Issue 25, points 2.3 and 2.4 (dunning): the Mahnsperre per invoice and per customer
// (reason required, who and when, liftable; while it holds the daily run makes no notice,
// overdue marking goes on; a notice made but not mailed is cancelled), "Erinnerung jetzt
// senden" for one overdue invoice (the daily task's path, once however often it is sent),
// and the admins' warning while the Basiszinssatz table lacks the current half-year.
//
// Timeline: invoices issued 2026-11-21, due 2026-12-05; the daily reminder would come on
// 2026-12-12 (reminder_days 7). The built-in table ends with 2026-01-01, so in December 2026
// the half-year 2026-07-01 is missing.

const MEMBER_PASSWORD = 'ein Passwort für Mitglieder';

describe('Mahnsperre and "Erinnerung jetzt senden" in the app', () => {
  let t: TestApp;
  let s: Scenario;
  let admin: WebClient;
  let member: WebClient;
  let now: { id: string; number: string };
  let stopped: { id: string; number: string };
  let ofCustomer: { id: string; number: string };
  let notDue: { id: string; number: string };
  let customerId: string;
  let otherInvoiceId: string;

  const written = async () => ({
    audit: await countRows(t.handle, 'audit_log'),
    jobs: await countRows(t.handle, 'jobs'),
    notices: await countRows(t.handle, 'dunning_notices'),
    stops: await countRows(t.handle, 'dunning_stops'),
  });
  let memberEmail: string;
  /** The clock to 09:00 UTC of the date, both people signed in again (a session ends after an idle hour). */
  const day = async (date: string) => {
    t.clock.set(`${date}T09:00:00Z`);
    admin = await signedIn(t);
    member = new WebClient(t.app, '198.51.100.8');
    const signed = await member.signIn(memberEmail, MEMBER_PASSWORD);
    assert.equal(signed.status, 303);
  };

  before(async () => {
    t = await testApp();
    s = { company: t.company, mailer: t.mailer };
    await putCustomerOf(t, s, 'eilig', { ...BUSINESS_CUSTOMER, name: 'Eilig GmbH', email: 'zahlung@eilig.example' });
    await putCustomerOf(t, s, 'strittig', { ...BUSINESS_CUSTOMER, name: 'Strittig KG', email: 'buchhaltung@strittig.example' });
    await putCustomerOf(t, s, 'raten', { ...BUSINESS_CUSTOMER, name: 'Raten & Co. OHG', email: 'raten@raten.example' });
    now = await issueInvoice(t, s, 'j-1', 'eilig', '2026-11-21');
    stopped = await issueInvoice(t, s, 'j-2', 'strittig', '2026-11-21');
    ofCustomer = await issueInvoice(t, s, 'j-3', 'raten', '2026-11-21');
    notDue = await issueInvoice(t, s, 'j-4', 'eilig', '2026-12-01');
    customerId = (
      await t.handle.db
        .selectFrom('customers')
        .select('id')
        .where('company_id', '=', t.company.companyId)
        .where('name', '=', 'Raten & Co. OHG')
        .executeTakeFirstOrThrow()
    ).id;
    const other = await scenario(t, 'fremd');
    await putCustomerOf(t, other, 'k');
    otherInvoiceId = (await issueInvoice(t, other, 'f-1', 'k', '2026-11-21')).id;
    t.clock.set('2026-12-08T09:00:00Z');
    admin = await signedIn(t);
    ({ client: member, email: memberEmail } = await signedInMember(t, `mahnung-${process.pid}@example.com`, MEMBER_PASSWORD));
  });
  after(async () => {
    useBaseRates({ table: BASE_RATES, file: null });
    await t.close();
  });

  test('12-08 "Zahlungserinnerung jetzt senden" makes the reminder at once, once however often it is sent', async () => {
    await day('2026-12-08');
    const page = await member.get(`/app/invoices/${now.id}`);
    assert.equal(page.status, 200);
    assert.match(page.body, /<h2 id="dunning-box-heading">Mahnwesen<\/h2>/);
    assert.match(page.body, /Die Rechnung ist überfällig\. Statt auf den täglichen Mahnlauf zu warten, erstellt Kontor die Zahlungserinnerung sofort/);
    assert.match(page.body, /<button type="submit" class="primary">Zahlungserinnerung jetzt senden<\/button>/);
    const before = await written();
    const sent = await member.post('/app/dunning/remind', { invoice_id: now.id });
    assert.equal(sent.status, 303);
    assert.equal(sent.location, `/app/invoices/${now.id}?dunning=reminded`);
    // A double click (the same form again) and a second tab make nothing more.
    assert.equal((await member.post('/app/dunning/remind', { invoice_id: now.id })).status, 303);
    await member.get(`/app/invoices/${now.id}`);
    assert.equal((await member.post('/app/dunning/remind', { invoice_id: now.id })).status, 303);
    assert.deepEqual(await written(), { ...before, audit: before.audit + 1, jobs: before.jobs + 1, notices: before.notices + 1 });
    const done = await member.get(sent.location as string);
    assert.match(done.body, /role="status">Das Schreiben ist erstellt und wird in wenigen Minuten per E-Mail versendet\./);
    assert.match(done.body, /Die Zahlungserinnerung ist erstellt und wartet auf den Versand\./);
    assert.doesNotMatch(done.body, /jetzt senden<\/button>/, 'no second button while it waits');
    const audit = await t.handle.db.selectFrom('audit_log').select(['action', 'subject_type']).where('subject_id', '=', now.id).executeTakeFirstOrThrow();
    assert.deepEqual(audit, { action: 'dunning.notice_now', subject_type: 'invoice' });

    // The daily task's notice: same rules (a reminder: no fee, no interest), dated today, mailed by its job.
    await drainDueJobs({ db: t.handle.db, clock: t.clock, mailer: t.mailer }, { companyId: t.company.companyId });
    assert.deepEqual(
      (await noticesOf(t, s, now.id)).map((n) => [n.level, n.notice_date, n.status, n.fee_cents, n.interest_cents, n.total_cents]),
      [[0, '2026-12-08', 'sent', 0, 0, 119000]],
    );
    const mail = (await outbox(t, s)).find((m) => m.subject === `Zahlungserinnerung zu Rechnung ${now.number} von main GmbH`);
    assert.ok(mail, 'the reminder was mailed');
  });

  test('12-08 a Mahnsperre for an invoice: reason required; it cancels the notice not yet mailed and is shown with who and when', async () => {
    await day('2026-12-08');
    // A reminder made at once but not mailed yet ...
    await admin.get(`/app/invoices/${stopped.id}`);
    assert.equal((await admin.post('/app/dunning/remind', { invoice_id: stopped.id })).status, 303);
    const page = await admin.get(`/app/invoices/${stopped.id}`);
    assert.match(page.body, /<label for="stop-reason">Grund der Mahnsperre<\/label>/);
    assert.match(page.body, /<button type="submit">Mahnsperre für diese Rechnung setzen<\/button>/);

    // Without a reason: refused, nothing written; another company's invoice is not found.
    const before = await written();
    const empty = await admin.post('/app/dunning/stops', { invoice_id: stopped.id, reason: '   ' });
    assert.equal(empty.status, 422);
    assert.match(empty.body, /Bitte geben Sie einen Grund für die Mahnsperre an\./);
    assert.equal((await admin.post('/app/dunning/stops', { invoice_id: otherInvoiceId, reason: 'fremd' })).status, 404);
    assert.deepEqual(await written(), before);

    await admin.get(`/app/invoices/${stopped.id}`);
    const set = await admin.post('/app/dunning/stops', { invoice_id: stopped.id, reason: 'Kunde bestreitet die Leistung' });
    assert.equal(set.status, 303);
    assert.equal(set.location, `/app/invoices/${stopped.id}?dunning=stop_set`);
    // Sent twice: one stop.
    assert.equal((await admin.post('/app/dunning/stops', { invoice_id: stopped.id, reason: 'Kunde bestreitet die Leistung' })).status, 303);
    assert.deepEqual(await written(), { ...before, audit: before.audit + 1, stops: before.stops + 1 });
    assert.deepEqual(
      (await noticesOf(t, s, stopped.id)).map((n) => [n.status, n.reason?.split(':')[0]]),
      [['cancelled', 'dunning_stop']],
    );
    const shown = await admin.get(set.location as string);
    assert.match(shown.body, /role="status">Die Mahnsperre ist gesetzt\./);
    assert.match(
      shown.body,
      new RegExp(
        `<span class="badge warn">Mahnsperre</span> Mahnsperre seit 08\\.12\\.2026, \\d\\d:\\d\\d \\(gesetzt von ${t.company.adminEmail}\\): <q>Kunde bestreitet die Leistung</q>`,
      ),
    );
    assert.match(shown.body, new RegExp(`Mahnsperre aufheben<span class="visually-hidden"> – Mahnsperre für ${stopped.number} aufheben`));
    assert.doesNotMatch(shown.body, /jetzt senden<\/button>/);
    // The job finds the notice cancelled: no mail.
    await drainDueJobs({ db: t.handle.db, clock: t.clock, mailer: t.mailer }, { companyId: t.company.companyId });
    assert.equal((await outbox(t, s)).filter((m) => m.subject?.includes(stopped.number)).length, 0);
  });

  test('12-08 a Mahnsperre for a customer, set on the customer page, holds for its invoices', async () => {
    await day('2026-12-08');
    const customerPage = await admin.get(`/app/customers/${customerId}`);
    assert.equal(customerPage.status, 200);
    assert.match(customerPage.body, /<button type="submit">Mahnsperre für alle Rechnungen des Kunden setzen<\/button>/);
    const set = await admin.post('/app/dunning/stops', { customer_id: customerId, reason: 'Ratenzahlung vereinbart' });
    assert.equal(set.status, 303);
    assert.equal(set.location, `/app/customers/${customerId}?dunning=stop_set`);
    const shown = await admin.get(set.location as string);
    assert.match(
      shown.body,
      /Mahnsperre für alle Rechnungen von Raten &amp; Co\. OHG seit 08\.12\.2026, \d\d:\d\d \(gesetzt von [^)]+\): <q>Ratenzahlung vereinbart<\/q>/,
    );
    const invoicePage = await admin.get(`/app/invoices/${ofCustomer.id}`);
    assert.match(invoicePage.body, /Mahnsperre für alle Rechnungen von Raten &amp; Co\. OHG seit/);
    assert.doesNotMatch(invoicePage.body, /jetzt senden<\/button>/);
    // "jetzt senden" is refused while it holds.
    const refused = await admin.post('/app/dunning/remind', { invoice_id: ofCustomer.id });
    assert.equal(refused.status, 422);
    assert.match(refused.body, new RegExp(`Für die Rechnung ${ofCustomer.number} gilt eine Mahnsperre; heben Sie sie zuerst auf\\.`));
  });

  test('12-12 the daily run: no second reminder, none under a stop (overdue all the same); refusals in German; the dunning page lists the stops', async () => {
    await runDay(t, s, '2026-12-12');
    assert.equal((await noticesOf(t, s, now.id)).length, 1);
    assert.equal((await noticesOf(t, s, stopped.id)).length, 1, 'only the cancelled one');
    assert.deepEqual(await noticesOf(t, s, ofCustomer.id), []);
    assert.equal((await invoiceOf(t, s, stopped.id)).overdue, true);
    assert.equal((await invoiceOf(t, s, ofCustomer.id)).overdue, true);

    await day('2026-12-12');
    const later = await admin.get(`/app/invoices/${now.id}`);
    assert.match(later.body, /Die 1\. Mahnung ist ab dem 22\.12\.2026 fällig\./);
    assert.doesNotMatch(later.body, /jetzt senden<\/button>/);
    assert.doesNotMatch((await admin.get(`/app/invoices/${notDue.id}`)).body, /jetzt senden<\/button>/, 'not due yet: no button');
    await admin.get('/app/dunning');
    const before = await written();
    const early = await admin.post('/app/dunning/remind', { invoice_id: now.id });
    assert.equal(early.status, 422);
    assert.match(early.body, new RegExp(`Die nächste Mahnstufe zu Rechnung ${now.number} ist erst ab dem 22\\.12\\.2026 fällig\\.`));
    const notYet = await admin.post('/app/dunning/remind', { invoice_id: notDue.id });
    assert.equal(notYet.status, 422);
    assert.match(notYet.body, new RegExp(`Die Rechnung ${notDue.number} ist noch nicht überfällig\\.`));
    const foreign = await admin.post('/app/dunning/remind', { invoice_id: otherInvoiceId });
    assert.equal(foreign.status, 404, foreign.body.slice(0, 3000));
    await admin.get('/app/dunning');
    assert.equal((await admin.post('/app/dunning/remind', { invoice_id: 'inv_kaputt' })).status, 404);
    assert.deepEqual(await written(), before);

    // The dunning page: the cancelled notice with its reason, the stops with who and when.
    const dunning = await member.get('/app/dunning');
    assert.match(dunning.body, /Eine Mahnsperre wurde gesetzt, bevor die Mahnung verschickt wurde\./);
    const [, stops] = dunning.body.split('id="stops-heading"') as [string, string];
    assert.match(
      stops,
      new RegExp(
        `<a href="/app/invoices/${stopped.id}">${stopped.number}</a> <span class="muted">Strittig KG</span></td><td class="wrap">Kunde bestreitet die Leistung</td><td class="wrap">08\\.12\\.2026, \\d\\d:\\d\\d von ${t.company.adminEmail}</td>`,
      ),
    );
    assert.match(
      stops,
      new RegExp(`<a href="/app/customers/${customerId}">alle Rechnungen von Raten &amp; Co\\. OHG</a></td><td class="wrap">Ratenzahlung vereinbart</td>`),
    );
    // Where a customer's address is fixed, said on the page.
    assert.match(
      dunning.body,
      /Kunden werden aus Ihrem eigenen System \(CRM, Shop, Warenwirtschaft\) über die Schnittstelle übernommen \(PUT \/v1\/customers\/by-ref\/…\)/,
    );
  });

  test('12-13 the stops lifted (a member on the invoice page, an admin from the list); the next daily run duns again', async () => {
    await day('2026-12-13');
    const stopId = (await t.handle.db.selectFrom('dunning_stops').select('id').where('invoice_id', '=', stopped.id).executeTakeFirstOrThrow()).id;
    await member.get(`/app/invoices/${stopped.id}`);
    const lifted = await member.post(`/app/dunning/stops/${stopId}/lift`, { back: `/app/invoices/${stopped.id}` });
    assert.equal(lifted.status, 303);
    assert.equal(lifted.location, `/app/invoices/${stopped.id}?dunning=stop_lifted`);
    const again = await member.post(`/app/dunning/stops/${stopId}/lift`, { back: 'https://evil.example/' });
    assert.equal(again.location, '/app/dunning?dunning=stop_lifted', 'lifted already: nothing written, and back only into the app');
    const page = await member.get(lifted.location as string);
    assert.match(page.body, /role="status">Die Mahnsperre ist aufgehoben\./);
    assert.match(page.body, /Mahnsperre für diese Rechnung setzen/);
    const actions = await t.handle.db.selectFrom('audit_log').select('action').where('subject_id', '=', stopped.id).orderBy('at').orderBy('id').execute();
    assert.deepEqual(
      actions.map((a) => a.action),
      ['dunning.notice_now', 'dunning.stop_set', 'dunning.stop_lifted'],
    );

    const customerStop = (await t.handle.db.selectFrom('dunning_stops').select('id').where('customer_id', '=', customerId).executeTakeFirstOrThrow()).id;
    await admin.get('/app/dunning');
    const fromList = await admin.post(`/app/dunning/stops/${customerStop}/lift`, { back: '/app/dunning' });
    assert.equal(fromList.location, '/app/dunning?dunning=stop_lifted');
    const list = await admin.get(fromList.location as string);
    assert.match(list.body, /Die Mahnsperre ist aufgehoben\./);
    assert.match(list.body.split('id="stops-heading"')[1] as string, /Keine Mahnsperren\./);
    assert.match((await admin.get(`/app/customers/${customerId}`)).body, /Mahnsperre für alle Rechnungen des Kunden setzen/);

    await runDay(t, s, '2026-12-13');
    assert.deepEqual(
      (await noticesOf(t, s, stopped.id)).map((n) => [n.level, n.notice_date, n.status]),
      [
        [0, '2026-12-08', 'cancelled'],
        [0, '2026-12-13', 'sent'],
      ],
    );
    assert.deepEqual(
      (await noticesOf(t, s, ofCustomer.id)).map((n) => [n.level, n.status]),
      [[0, 'sent']],
    );
  });

  test('admins are warned on the dashboard and the dunning page while the table lacks the current half-year; members are not; the rate added, no warning', async () => {
    await day('2026-12-13');
    const dashboard = await admin.get('/app/dashboard');
    assert.match(dashboard.body, /<h2 id="base-rate-heading">Basiszinssatz fehlt<\/h2>/);
    assert.match(
      dashboard.body,
      /Für das Halbjahr ab 01\.07\.2026 ist in Kontor noch kein Basiszinssatz \(§ 247 BGB\) hinterlegt\. Mahnungen berechnen Verzugszinsen deshalb mit dem zuletzt bekannten Satz von 1,27 % \(seit 01\.01\.2026\) weiter/,
    );
    assert.match(dashboard.body, /Deutsche Bundesbank/);
    assert.match(dashboard.body, /base-rates\.json im Datenordner/);
    assert.match(dashboard.body, /\[\{&quot;from&quot;: &quot;2026-07-01&quot;, &quot;rate&quot;: &quot;n\.nn&quot;\}\]/);
    assert.match((await admin.get('/app/dunning')).body, /Basiszinssatz fehlt/);
    assert.doesNotMatch((await member.get('/app/dashboard')).body, /Basiszinssatz fehlt/);
    // With the operator's entry (a made-up test rate) the warning is gone.
    useBaseRates({ table: [...BASE_RATES, { from: '2026-07-01', rate: '3.00' }], file: '/srv/kontor/base-rates.json' });
    assert.doesNotMatch((await admin.get('/app/dashboard')).body, /Basiszinssatz fehlt/);
    // In the next half-year it is missing again, and names the operator's file.
    await day('2027-01-04');
    assert.match((await admin.get('/app/dashboard')).body, /Halbjahr ab 01\.01\.2027[\s\S]*die Datei \/srv\/kontor\/base-rates\.json/);
  });
});
