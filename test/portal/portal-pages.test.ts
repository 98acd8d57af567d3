import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { simpleParser } from 'mailparser';
import { runDueWork } from '../../src/jobs/index.ts';
import { setPayoutAccount } from '../../src/modules/commissions/index.ts';
import { createMailer } from '../../src/modules/mail/index.ts';
import { runPayout } from '../../src/modules/payouts/payout-run.ts';
import { invitePartnerAccount } from '../../src/modules/portal/index.ts';
import { euro } from '../../src/web/pages/money.ts';
import { partnerBalance, postEvent, putAgreement, putAttribution, putPartner, SELF_BILLING_PARTNER } from '../commissions/helpers.ts';
import { sealer, type TestApp, testApp } from '../helpers/app.ts';
import { outboxMails } from '../helpers/outbox.ts';
import { putCustomer } from '../invoicing/helpers.ts';
import { WebClient } from '../web/client.ts';

// Issue 27 §1–§3 over HTTP: the invitation link, sign-in, the partner's pages and downloads,
// the objection — and that a partner reaches nothing but its own partner of its own company.

const PASSWORD = 'Partnerportal-2026!';

describe('the partner portal', () => {
  let t: TestApp;
  let partnerId: string;
  let otherPartnerId: string;
  let statementId: string;
  let otherStatementId: string;
  let portal: WebClient;
  let token: string;
  const actor = () => ({ userId: t.company.userId, organizationId: t.company.organizationId, companyId: t.company.companyId, email: t.company.adminEmail });
  const work = (asOf: string) =>
    runDueWork(
      { db: t.handle.db, clock: t.clock, mailer: createMailer({ dataDir: t.dataDir, sealer }), services: { portal: { sealer }, invoicing: t.invoicing } },
      { asOf, companyId: t.company.companyId, log: () => {} },
    );

  before(async () => {
    t = await testApp();
    // Partner "ida": 10 % of every customer's revenue (a Gutschrift for October) and 20 % of
    // its own customer "Kanzlei Lang" (attributed), with a refund of part of it; partner "jan":
    // 10 % of its own customer "Meier".
    t.clock.set('2026-10-01T09:00:00Z');
    partnerId = await putPartner(t, 'ida', { ...SELF_BILLING_PARTNER, name: 'Ida Vertrieb' });
    otherPartnerId = await putPartner(t, 'jan', { ...SELF_BILLING_PARTNER, name: 'Jan Empfehlungen' });
    await putAgreement(t, 'ida-all', {
      partner_ref: 'ida',
      start_date: '2026-01-01',
      applies_to: 'all_customers',
      tiers: [{ from_month: 1, to_month: null, percent: 10 }],
    });
    await putAgreement(t, 'ida-own', {
      partner_ref: 'ida',
      name: 'Eigene Kunden',
      start_date: '2026-01-01',
      tiers: [
        { from_month: 1, to_month: 12, percent: 20 },
        { from_month: 13, to_month: null, percent: 5 },
      ],
    });
    await putAgreement(t, 'jan-own', {
      partner_ref: 'jan',
      name: 'Empfehlungen',
      start_date: '2026-01-01',
      tiers: [{ from_month: 1, to_month: null, percent: 10 }],
    });
    await putCustomer(t, 'lang', { name: 'Kanzlei Lang' });
    await putCustomer(t, 'meier', { name: 'Meier & Söhne' });
    await putAttribution(t, 'jan-meier', { agreement_ref: 'jan-own', customer: { source: 'crm', external_ref: 'meier' }, start_date: '2026-10-01' });
    await postEvent(t, { external_ref: 'e-1', occurred_at: '2026-10-10T10:00:00Z', net_amount: '1000.00' });
    await postEvent(t, {
      external_ref: 'meier-1',
      occurred_at: '2026-10-12T10:00:00Z',
      net_amount: '300.00',
      customer: { source: 'crm', external_ref: 'meier' },
    });
    t.clock.set('2026-11-01T12:00:00Z');
    await work('2026-11-01');
    t.clock.set('2026-11-02T09:00:00Z');
    await putAttribution(t, 'ida-lang', { agreement_ref: 'ida-own', customer: { source: 'crm', external_ref: 'lang' }, start_date: '2026-09-15' });
    await postEvent(t, {
      external_ref: 'lang-1',
      occurred_at: '2026-11-03T10:00:00Z',
      net_amount: '500.00',
      customer: { source: 'crm', external_ref: 'lang' },
    });
    await postEvent(t, {
      external_ref: 'lang-1-refund',
      occurred_at: '2026-11-05T10:00:00Z',
      net_amount: '-100.00',
      customer: { source: 'crm', external_ref: 'lang' },
      reverses_ref: 'lang-1',
    });
    t.clock.set('2026-11-21T10:00:00Z');
    const statements = await t.handle.db.selectFrom('commission_statements').select(['id', 'partner_id']).execute();
    statementId = statements.find((s) => s.partner_id === partnerId)?.id as string;
    otherStatementId = statements.find((s) => s.partner_id === otherPartnerId)?.id as string;
    assert.ok(statementId && otherStatementId, 'a Gutschrift each for October');
    const invitation = await invitePartnerAccount({ db: t.handle.db, clock: t.clock, sealer }, actor(), {
      companyId: t.company.companyId,
      partnerId,
      email: 'ida@partner.example',
      portalUrl: 'http://kontor.test/portal',
    });
    token = invitation.token;
    portal = new WebClient(t.app);
  });
  after(() => t.close());

  test('the invitation link: a password is chosen once, the partner is signed in, the link is used up', async () => {
    const page = await portal.get(`/portal/invitation/${token}`);
    assert.equal(page.status, 200);
    assert.match(page.body, /hat Sie ins Partnerportal eingeladen\. Legen Sie ein Passwort für ida@partner\.example fest/);
    assert.match(page.body, /Der Link gilt bis 28\.11\.2026\./);
    const short = await portal.post(`/portal/invitation/${token}`, { password: 'kurz', repeat: 'kurz' });
    assert.equal(short.status, 422);
    assert.match(short.body, /Das Passwort ist zu kurz oder zu lang\./);
    const differ = await portal.post(`/portal/invitation/${token}`, { password: PASSWORD, repeat: `${PASSWORD}x` });
    assert.equal(differ.status, 422);
    assert.match(differ.body, /Die beiden Passwörter stimmen nicht überein\./);
    const set = await portal.post(`/portal/invitation/${token}`, { password: PASSWORD, repeat: PASSWORD });
    assert.equal(set.status, 303);
    assert.equal(set.location, '/portal/overview?welcome=1');
    assert.ok(portal.cookies.get('kontor_portal'), 'signed in');
    assert.match(set.setCookie.join('\n'), /kontor_portal=[^;]+; Path=\/portal; HttpOnly; SameSite=Lax/);
    const welcome = await portal.get('/portal/overview?welcome=1');
    assert.match(welcome.body, /Ihr Zugang ist eingerichtet\./);
    const again = await new WebClient(t.app).get(`/portal/invitation/${token}`);
    assert.equal(again.status, 404);
    assert.match(again.body, /Dieser Einladungslink ist nicht mehr gültig/);
  });

  test('the overview shows the API’s balance; the security headers are the app’s', async () => {
    const page = await portal.get('/portal/overview');
    assert.equal(page.status, 200);
    const balance = await partnerBalance(t, 'ida');
    assert.match(page.body, new RegExp(`<dt>Offen</dt><dd class="strong">${euro(balance.open)}</dd>`));
    assert.match(page.body, new RegExp(`<dt>Abgerechnet</dt><dd class="strong">${euro(balance.statemented)}</dd>`));
    assert.match(page.body, new RegExp(`<dt>Ausgezahlt</dt><dd class="strong">${euro(balance.paid)}</dd>`));
    assert.equal(balance.statemented, 13000, 'the October Gutschrift: 10 % of 1.300,00 €');
    assert.equal(balance.open, 12000, '10 % + 20 % of 500,00 €, less the same of the 100,00 € refunded');
    assert.match(page.body, /Ida Vertrieb · Partner von/);
    const raw = await t.app.inject({
      method: 'GET',
      url: '/portal/overview',
      headers: { host: 'kontor.test', cookie: `kontor_portal=${portal.cookies.get('kontor_portal')}` },
    });
    assert.match(String(raw.headers['content-security-policy']), /default-src 'none'; script-src 'self'/);
    assert.equal(raw.headers['x-frame-options'], 'DENY');
    assert.equal(raw.headers['cache-control'], 'no-store');
  });

  test('the ledger: customer only where attributed, clawbacks marked, the month filter, the CSV', async () => {
    const page = await portal.get('/portal/ledger');
    assert.equal(page.status, 200);
    const rows = [
      ...page.body.matchAll(
        /<tr><td>(\d\d\.\d\d\.\d{4})<\/td><td>([^<]*)<\/td><td>([^<]*)<\/td><td class="num">([^<]*)<\/td><td class="num">([^<]*)<\/td><td class="num">([^<]*)<\/td><td class="num">(.*?)<\/td><td>(.*?)<\/td><\/tr>/g,
      ),
    ].map((m) => m.slice(1));
    const cells = rows.map((r) => r.slice(0, 6).join(' | '));
    assert.deepEqual(
      cells.sort(),
      [
        '03.11.2026 | Kanzlei Lang | Eigene Kunden | 3 | 20 % | 500,00 €',
        '03.11.2026 | – (alle Kunden) | ida-all | 1 | 10 % | 500,00 €',
        '05.11.2026 | Kanzlei Lang | Eigene Kunden | 3 | 20 % | -100,00 €',
        '05.11.2026 | – (alle Kunden) | ida-all | 1 | 10 % | -100,00 €',
        '10.10.2026 | – (alle Kunden) | ida-all | 1 | 10 % | 1.000,00 €',
        '12.10.2026 | – (alle Kunden) | ida-all | 1 | 10 % | 300,00 €',
      ]
        .map((line) => line.replaceAll(' €', '\u00a0€'))
        .sort(),
    );
    assert.deepEqual(
      rows.map((r) => r[0]),
      ['10.10.2026', '12.10.2026', '03.11.2026', '03.11.2026', '05.11.2026', '05.11.2026'],
      'oldest payment first',
    );
    const refund = rows.find((r) => r[1] === 'Kanzlei Lang' && r[0] === '05.11.2026');
    assert.match(refund?.[6] ?? '', /^-20,00\u00a0€ <span class="badge warn">Rückbuchung<\/span>$/);
    assert.match(rows[0]?.[7] ?? '', /^abgerechnet \(GS-/);
    assert.doesNotMatch(page.body, /Meier/, 'no customer of another partner');
    assert.match(page.body, /<th scope="row" colspan="6">Summe<\/th><td class="num strong">250,00\u00a0€<\/td>/);

    const november = await portal.get('/portal/ledger?from=2026-11&to=2026-11');
    assert.equal([...november.body.matchAll(/<tr><td>0[35]\.11\.2026/g)].length, 4);
    assert.doesNotMatch(november.body, /10\.10\.2026/);
    const bad = await portal.get('/portal/ledger?from=November');
    assert.equal(bad.status, 422);
    assert.match(bad.body, /Bitte geben Sie einen Monat wie 2026-10 an\./);

    const csv = await t.app.inject({
      method: 'GET',
      url: '/portal/ledger.csv?from=2026-11',
      headers: { host: 'kontor.test', cookie: `kontor_portal=${portal.cookies.get('kontor_portal')}` },
    });
    assert.equal(csv.statusCode, 200);
    assert.match(String(csv.headers['content-disposition']), /attachment; filename="provisionen-2026-11\.csv"/);
    const lines = csv.body.replace(/^\uFEFF/, '').split('\r\n');
    assert.equal(lines[0], 'Umsatz bezahlt am;Kunde;Vereinbarung;Vertragsmonat;Prozent;Bemessungsgrundlage;Provision;Art;Status;Abrechnung');
    assert.deepEqual(lines.slice(1, -1).sort(), [
      '03.11.2026;;ida-all;1;10;500,00;50,00;Provision;offen;',
      '03.11.2026;Kanzlei Lang;Eigene Kunden;3;20;500,00;100,00;Provision;offen;',
      '05.11.2026;;ida-all;1;10;-100,00;-10,00;Rückbuchung;offen;',
      '05.11.2026;Kanzlei Lang;Eigene Kunden;3;20;-100,00;-20,00;Rückbuchung;offen;',
    ]);
    assert.equal(lines.at(-1), '', 'CRLF after the last line');
  });

  test('the agreements: tiers, and the month each attributed customer is in today', async () => {
    const page = await portal.get('/portal/agreements');
    assert.equal(page.status, 200);
    assert.match(page.body, /<h2 id="agreement-1">Eigene Kunden<\/h2>/);
    assert.match(page.body, /<tr><td>Monat 1 bis 12<\/td><td class="num">20 %<\/td><\/tr><tr><td>ab Monat 13<\/td><td class="num">5 %<\/td><\/tr>/);
    // Attributed on 15.09.2026: September is month 1, so November (today) is month 3.
    assert.match(page.body, /<tr><td>Kanzlei Lang<\/td><td>15\.09\.2026<\/td><td class="num">3<\/td><td class="num">20 %<\/td><\/tr>/);
    assert.match(page.body, /<dt>Gilt für<\/dt><dd>alle Kunden<\/dd>/);
  });

  test('statements: the list, one statement with its lines, the PDF and the e-invoice', async () => {
    const list = await portal.get('/portal/statements');
    assert.match(list.body, new RegExp(`<a href="/portal/statements/${statementId}">GS-`));
    assert.doesNotMatch(list.body, new RegExp(otherStatementId));
    const page = await portal.get(`/portal/statements/${statementId}`);
    assert.equal(page.status, 200);
    assert.match(page.body, /<h1>Gutschrift GS-/);
    assert.match(
      page.body,
      /<td>– \(alle Kunden\)<\/td><td>ida-all<\/td><td class="num">1<\/td><td class="num">10 %<\/td><td class="num">1\.000,00\u00a0€<\/td><td class="num">100,00\u00a0€<\/td>/,
    );
    assert.match(
      page.body,
      /<td>– \(alle Kunden\)<\/td><td>ida-all<\/td><td class="num">1<\/td><td class="num">10 %<\/td><td class="num">300,00\u00a0€<\/td><td class="num">30,00\u00a0€<\/td>/,
    );
    assert.doesNotMatch(page.body, /Meier/);
    const cookie = `kontor_portal=${portal.cookies.get('kontor_portal')}`;
    const pdf = await t.app.inject({ method: 'GET', url: `/portal/statements/${statementId}/pdf`, headers: { host: 'kontor.test', cookie } });
    assert.equal(pdf.statusCode, 200);
    assert.equal(pdf.rawPayload.subarray(0, 5).toString(), '%PDF-');
    const xml = await t.app.inject({ method: 'GET', url: `/portal/statements/${statementId}/xml`, headers: { host: 'kontor.test', cookie } });
    assert.equal(xml.statusCode, 200);
    assert.match(xml.body, /<rsm:CrossIndustryInvoice|<ubl:Invoice|<Invoice/);
  });

  test('isolation: another partner’s and another company’s ids are 404 on every page and download; the portal cookie opens neither /app nor /v1', async () => {
    // Another company with a Gutschrift of its own partner for October.
    const other = await t.newCompany('portal-elsewhere');
    const as = (method: string, url: string, body: unknown) => t.request(method, url, { key: other.apiKey, body });
    assert.equal((await as('PUT', '/v1/commission-partners/by-ref/crm/foreign', { ...SELF_BILLING_PARTNER, name: 'Fremd' })).statusCode, 200);
    const agreement = await as('PUT', '/v1/commission-agreements/by-ref/crm/foreign-ag', {
      partner_ref: 'foreign',
      start_date: '2026-01-01',
      applies_to: 'all_customers',
      tiers: [{ from_month: 1, to_month: null, percent: 10 }],
    });
    assert.ok(agreement.statusCode < 300, agreement.body);
    const event = await as('POST', '/v1/revenue-events', {
      source: 'crm',
      currency: 'EUR',
      external_ref: 'foreign-e',
      occurred_at: '2026-10-10T10:00:00Z',
      net_amount: '100.00',
    });
    assert.ok(event.statusCode < 300, event.body);
    await runDueWork(
      { db: t.handle.db, clock: t.clock, services: { invoicing: t.invoicing } },
      { asOf: '2026-11-21', companyId: other.companyId, log: () => {} },
    );
    const foreignStatement = await t.handle.db
      .selectFrom('commission_statements')
      .select('id')
      .where('company_id', '=', other.companyId)
      .executeTakeFirstOrThrow();
    for (const id of [otherStatementId, foreignStatement.id, 'cst_00000000000000000000000000']) {
      for (const suffix of ['', '/pdf', '/xml']) assert.equal((await portal.get(`/portal/statements/${id}${suffix}`)).status, 404, `${id}${suffix}`);
      await portal.get('/portal/overview');
      assert.equal((await portal.post(`/portal/statements/${id}/objection`, { reason: 'fremd' })).status, 404);
    }
    const untouched = await t.handle.db.selectFrom('commission_statements').select('status').where('id', '=', otherStatementId).executeTakeFirstOrThrow();
    assert.equal(untouched.status, 'issued');

    const cookie = portal.cookies.get('kontor_portal') as string;
    const app = await t.app.inject({
      method: 'GET',
      url: '/app/dashboard',
      headers: { host: 'kontor.test', cookie: `kontor_session=${cookie}; kontor_portal=${cookie}` },
    });
    assert.equal(app.statusCode, 303);
    assert.match(String(app.headers.location), /^\/app\/sign-in/);
    const api = await t.app.inject({
      method: 'GET',
      url: '/v1/commission-entries',
      headers: { host: 'kontor.test', authorization: `Bearer ${cookie}`, cookie: `kontor_portal=${cookie}` },
    });
    assert.equal(api.statusCode, 401);
  });

  test('CSRF: a POST without the token or from another origin is refused and changes nothing', async () => {
    await portal.get(`/portal/statements/${statementId}`);
    const without = await portal.post(`/portal/statements/${statementId}/objection`, { reason: 'x', _csrf: '' });
    assert.equal(without.status, 403);
    const foreign = await portal.post(`/portal/statements/${statementId}/objection`, { reason: 'x' }, { origin: 'https://evil.example' });
    assert.equal(foreign.status, 403);
    const row = await t.handle.db.selectFrom('commission_statements').select('status').where('id', '=', statementId).executeTakeFirstOrThrow();
    assert.equal(row.status, 'issued');
  });

  test('objection: a reason is required; then the Gutschrift is objected, its entries open, the company mailed, the partner’s action in the trail', async () => {
    await portal.get(`/portal/statements/${statementId}`);
    const empty = await portal.post(`/portal/statements/${statementId}/objection`, { reason: '  ' });
    assert.equal(empty.status, 422);
    assert.match(empty.body, /Bitte begründen Sie Ihren Widerspruch/);
    const mailsBefore = outboxMails(t.dataDir, t.company.companyId).length;
    const done = await portal.post(`/portal/statements/${statementId}/objection`, { reason: 'Der Umsatz vom 10.10. war storniert.' });
    assert.equal(done.status, 303);
    const shown = await portal.get(done.location as string);
    assert.match(shown.body, /Ihr Widerspruch ist erfasst\./);
    assert.match(shown.body, /<span class="badge">widersprochen<\/span>/);
    assert.doesNotMatch(shown.body, /Widerspruch einlegen/);

    const statement = await t.handle.db
      .selectFrom('commission_statements')
      .select(['status', 'objected_at'])
      .where('id', '=', statementId)
      .executeTakeFirstOrThrow();
    assert.equal(statement.status, 'objected');
    assert.ok(statement.objected_at);
    const partner = await t.handle.db
      .selectFrom('commission_partners')
      .select('self_billing_objected_at')
      .where('id', '=', partnerId)
      .executeTakeFirstOrThrow();
    assert.ok(partner.self_billing_objected_at, 'future statements ask for the partner’s invoice');
    assert.equal((await partnerBalance(t, 'ida')).statemented, 0);
    const event = await t.handle.db
      .selectFrom('events')
      .select('type')
      .where('subject_id', '=', statementId)
      .where('type', '=', 'commission_statement.objected')
      .execute();
    assert.equal(event.length, 1);
    const trail = await t.handle.db
      .selectFrom('audit_log')
      .select(['user_id', 'partner_account_id', 'after'])
      .where('action', '=', 'statement.objected')
      .where('subject_id', '=', statementId)
      .executeTakeFirstOrThrow();
    assert.equal(trail.user_id, null);
    assert.ok(trail.partner_account_id);
    assert.match(JSON.stringify(trail.after), /Der Umsatz vom 10\.10\. war storniert\./);

    await work('2026-11-21');
    const mails = outboxMails(t.dataDir, t.company.companyId).slice(mailsBefore);
    const notice = mails.find((m) => /Subject: Widerspruch gegen die Gutschrift/.test(m));
    assert.ok(notice, 'the company is mailed');
    const text = (await simpleParser(notice)).text ?? '';
    assert.match(
      text,
      /Der Partner Ida Vertrieb \(Kreditor \d+\) hat der Gutschrift GS-2026-\d+ widersprochen; erfasst am .* vom Partner selbst im Partnerportal \(ida@partner\.example\)\./,
    );
    assert.match(text, /Begründung: Der Umsatz vom 10\.10\. war storniert\./);

    const twice = await portal.post(`/portal/statements/${statementId}/objection`, { reason: 'nochmal' });
    assert.equal(twice.status, 303, 'an objected Gutschrift answers as it is (nothing twice)');
    assert.equal((await t.handle.db.selectFrom('audit_log').select('id').where('action', '=', 'statement.objected').execute()).length, 1);
  });

  test('payouts: the execution day, the amount and the masked account', async () => {
    const deps = { db: t.handle.db, clock: t.clock, sealer };
    const jan = new WebClient(t.app);
    const invitation = await invitePartnerAccount(deps, actor(), {
      companyId: t.company.companyId,
      partnerId: otherPartnerId,
      email: 'jan@partner.example',
      portalUrl: 'http://kontor.test/portal',
    });
    await jan.get(`/portal/invitation/${invitation.token}`);
    await jan.post(`/portal/invitation/${invitation.token}`, { password: PASSWORD, repeat: PASSWORD });
    assert.match((await jan.get('/portal/payouts')).body, /Noch keine Auszahlungen\./);
    await setPayoutAccount(deps, t.company.companyId, otherPartnerId, { iban: 'DE02 1203 0000 0000 2020 51', bic: null }, actor());
    await runPayout(deps, t.company.companyId, { statementIds: [otherStatementId], executionDate: '2026-12-14' }, actor());
    const page = await jan.get('/portal/payouts');
    assert.match(
      page.body,
      /<tr><td>14\.12\.2026<\/td><td class="num">35,70\u00a0€<\/td><td class="mono">DE02 •••• 2051<\/td><td><a href="\/portal\/statements\/cst_[0-9a-z]{26}">GS-/,
    );
    assert.doesNotMatch(page.body, /DE02120300000000202051/);
  });

  test('sign-out, sign-in with throttling under the portal’s own keys, deactivation ends the session', async () => {
    await portal.get('/portal/overview');
    const out = await portal.post('/portal/sign-out');
    assert.equal(out.status, 303);
    assert.equal((await portal.get('/portal/overview')).status, 303);
    const wrong = await portal.post('/portal/sign-in', { email: 'ida@partner.example', password: 'falsch' });
    assert.equal(wrong.status, 401);
    assert.match(wrong.body, /E-Mail-Adresse oder Passwort ist falsch\./);
    const unknown = await portal.post('/portal/sign-in', { email: 'niemand@partner.example', password: PASSWORD });
    assert.equal(unknown.status, 401, 'an unknown address gets the same answer');
    const right = await portal.post('/portal/sign-in', { email: 'IDA@partner.example', password: PASSWORD, next: '/portal/ledger' });
    assert.equal(right.status, 303);
    assert.equal(right.location, '/portal/ledger');

    const stranger = new WebClient(t.app, '203.0.113.9');
    for (let i = 0; i < 5; i++) await stranger.post('/portal/sign-in', { email: 'jan@partner.example', password: 'falsch' });
    const locked = await stranger.post('/portal/sign-in', { email: 'jan@partner.example', password: PASSWORD });
    assert.equal(locked.status, 429);
    assert.match(locked.body, /Zu viele Fehlversuche/);
    const keys = await t.handle.db.selectFrom('sign_in_throttle').select('key').execute();
    assert.ok(
      keys.every((k) => k.key.startsWith('portal-')),
      'the portal counts under keys of its own',
    );

    const account = await t.handle.db.selectFrom('partner_accounts').select('id').where('email', '=', 'ida@partner.example').executeTakeFirstOrThrow();
    const { deactivatePartnerAccount } = await import('../../src/modules/portal/index.ts');
    await deactivatePartnerAccount({ db: t.handle.db, clock: t.clock }, actor(), t.company.companyId, account.id);
    const ended = await portal.get('/portal/overview');
    assert.equal(ended.status, 303);
    assert.match(ended.location as string, /^\/portal\/sign-in\?next=%2Fportal%2Foverview&ended=1$/);
    assert.equal((await portal.post('/portal/sign-in', { email: 'ida@partner.example', password: PASSWORD })).status, 401);
  });
});
