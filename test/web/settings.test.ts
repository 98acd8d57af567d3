import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AddressObject } from 'mailparser';
import type { SmtpSettings } from '../../src/db/schema.ts';
import { setUserRole } from '../../src/modules/access/manage-users.ts';
import { countRows, sealer, type TestApp, type TestCompany, testApp } from '../helpers/app.ts';
import { invoiceBody, postInvoice, putCustomer } from '../invoicing/helpers.ts';
import { freePort, SMTP_PASSWORD, SMTP_USER, startSmtpServer, type TestSmtpServer } from '../mail/fixtures.ts';
import { signedIn, type WebClient } from './client.ts';

// Issue 15, point 3 (settings): an admin changes the company settings section by section
// (the same checks as the company file, refusals in German with the typed values kept, one
// audit row per save with only the changed values), sets up the mailbox (the password never
// shown again, never in the audit trail) and sends a test mail through a real SMTP server,
// and locks accounting periods (only forward, never past today).

const ISSUING = {
  name: 'main GmbH',
  legal_form: 'GmbH',
  street: 'Hauptstraße',
  house_number: '1',
  zip: '10115',
  city: 'Berlin',
  country_code: 'DE',
  vat_id: 'DE136695976',
  tax_number: '30/123/45678',
  email: 'rechnung@muster.example',
  phone: '+49 30 1234567',
  contact_name: 'Erika Mustermann',
  iban: 'DE89370400440532013000',
  bic: 'COBADEFFXXX',
  bank_name: 'Commerzbank',
  account_holder: '',
  payment_terms_days: '14',
};
const MAILBOX_FROM = 'Muster Software GmbH <versand@muster.example>';

describe('company settings, mailbox and period locks in the app', () => {
  let t: TestApp;
  let web: WebClient;
  let smtp: TestSmtpServer;
  let other: TestCompany;
  let draftId: string;

  const company = () => t.handle.db.selectFrom('companies').selectAll().where('id', '=', t.company.companyId).executeTakeFirstOrThrow();
  const audit = (action: string) =>
    t.handle.db.selectFrom('audit_log').select(['action', 'user_id', 'before', 'after']).where('action', '=', action).orderBy('seq').execute();
  const json = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value) as Record<string, unknown>;
  const save = async (section: string, form: Record<string, string>) => {
    await web.get('/app/settings');
    return web.post(`/app/settings/${section}`, form);
  };

  before(async () => {
    t = await testApp();
    smtp = await startSmtpServer();
    other = await t.newCompany('fremd');
    await putCustomer(t, 'kunde-1');
    const draft = await postInvoice(t, invoiceBody('entwurf-1'));
    assert.equal(draft.statusCode, 201, draft.body);
    draftId = draft.json().id;
    web = await signedIn(t);
  });
  after(async () => {
    await t.close();
    await smtp.close();
  });

  test('the page shows every section with the stored values; members get 403', async () => {
    const page = await web.get('/app/settings');
    assert.equal(page.status, 200);
    for (const heading of [
      'Rechnungsangaben',
      'Nummernkreise',
      'Briefkopf und Pflichtangaben',
      'Buchhaltung und DATEV',
      'Abläufe',
      'Mahnwesen',
      'E-Mail-Postfach',
    ])
      assert.match(page.body, new RegExp(`<h2 id="[a-z]+-heading">${heading}</h2>`));
    assert.match(page.body, /<input id="f-name" name="name" type="text" value="main GmbH"/);
    assert.match(page.body, /<textarea id="f-managing_directors"[^>]*>Erika Mustermann\nMax Mustermann<\/textarea>/);
    assert.match(page.body, /Die nächste Rechnung bekäme heute die Nummer RE-2026-00001\./);
    assert.match(page.body, /<input id="f-dunning_fee_1" name="dunning_fee_1" type="text" value="2,50"/);
    assert.match(page.body, /Noch kein Postfach eingerichtet/);
    await web.get('/app/lang?to=en');
    const english = await web.get('/app/settings');
    assert.match(english.body, /<h2 id="issuing-heading">Invoice details<\/h2>/);
    assert.match((await web.get('/app/settings/period-locks')).body, /No accounting period is locked yet\./);
    await web.get('/app/lang?to=de');

    const member = await t.newCompany('mitglied');
    const client = await signedIn(t, 'ein gutes Passwort 7', member);
    await setUserRole(t.handle.db, t.clock, member.adminEmail, 'member');
    await client.get('/app/dashboard');
    assert.equal((await client.get('/app/settings')).status, 403);
    assert.equal((await client.get('/app/settings/period-locks')).status, 403);
    assert.equal((await client.post('/app/settings/issuing', { ...ISSUING, phone: '0' })).status, 403);
    assert.equal((await client.post('/app/settings/mailbox/test', {})).status, 403);
    assert.equal((await client.post('/app/settings/period-locks', { until: '2026-10-31' })).status, 403);
    assert.equal((await web.post('/app/settings/unbekannt', {})).status, 404);
  });

  test('each section saves only its keys and shows them; one audit row per save holds just what changed', async () => {
    const otherBefore = await t.handle.db.selectFrom('companies').selectAll().where('id', '=', other.companyId).executeTakeFirstOrThrow();
    const issuing = await save('issuing', { ...ISSUING, phone: '+49 30 7654321', payment_terms_days: '21', iban: 'de89 3704 0044 0532 0130 00' });
    assert.equal(issuing.status, 303);
    assert.equal(issuing.location, '/app/settings?saved=issuing#issuing');
    assert.match((await web.get(issuing.location as string)).body, /„Rechnungsangaben“ wurde gespeichert\./);
    let row = await company();
    assert.deepEqual([row.phone, row.payment_terms_days, row.iban], ['+49 30 7654321', 21, 'DE89370400440532013000']);
    const [changed] = await audit('company.settings_changed');
    assert.equal(changed?.user_id, t.company.userId);
    assert.deepEqual(json(changed?.before), { phone: '+49 30 1234567', payment_terms_days: 14 });
    assert.deepEqual(json(changed?.after), { phone: '+49 30 7654321', payment_terms_days: 21 });

    assert.equal((await save('numbers', { invoice_number_pattern: 'RG-{yy}{mm}-{seq:4}', contract_number_pattern: 'V-{seq:5}' })).status, 303);
    assert.equal(
      (
        await save('letterhead', {
          register_court: 'Amtsgericht Berlin-Charlottenburg',
          register_number: 'hrb 654321 b',
          managing_directors: 'Erika Mustermann\r\n\r\n Jörg  Weiß \r\n',
        })
      ).status,
      303,
    );
    assert.equal(
      (
        await save('books', {
          chart: 'SKR04',
          datev_consultant_number: '29098',
          datev_client_number: '7',
          fiscal_year_start: '07-01',
          vat_return_period: 'quarterly',
          vat_return_extension: '1',
        })
      ).status,
      303,
    );
    assert.equal((await save('flags', { statements_need_review: '1' })).status, 303);
    const dunning = {
      dunning_enabled: '1',
      dunning_reminder_days: '10',
      dunning_interval_days: '14',
      dunning_levels: '3',
      dunning_fee_1: '2,5',
      dunning_fee_2: '5',
      dunning_fee_3: '7,50 €',
      dunning_lump_sum: '1',
      dunning_deadline_days: '10',
    };
    assert.equal((await save('dunning', dunning)).status, 303);
    row = await company();
    assert.equal(row.invoice_number_pattern, 'RG-{yy}{mm}-{seq:4}');
    assert.deepEqual([row.register_number, row.managing_directors], ['HRB 654321 B', ['Erika Mustermann', 'Jörg Weiß']]);
    assert.deepEqual(
      [row.chart, row.datev_consultant_number, row.datev_client_number, row.fiscal_year_start, row.vat_return_period, row.vat_return_extension],
      ['SKR04', 29098, 7, '07-01', 'quarterly', true],
    );
    assert.deepEqual([row.statements_need_review, row.attributions_need_confirmation, row.eu_distance_threshold_exceeded], [true, false, false]);
    assert.deepEqual(json(row.dunning), {
      enabled: true,
      reminder_days: 10,
      interval_days: 14,
      levels: 3,
      fees: ['0.00', '2.50', '5.00', '7.50'],
      interest: false,
      lump_sum: true,
      deadline_days: 10,
    });
    assert.equal(row.phone, '+49 30 7654321', 'the other sections left the issuing details alone');

    const page = (await web.get('/app/settings')).body;
    assert.match(page, /value="RG-\{yy\}\{mm\}-\{seq:4\}"/);
    assert.match(page, /Die nächste Rechnung bekäme heute die Nummer RG-2611-0001\./);
    assert.match(page, />Erika Mustermann\nJörg Weiß<\/textarea>/);
    assert.match(page, /<option value="SKR04" selected>/);
    assert.match(page, /<option value="quarterly" selected>vierteljährlich<\/option>/);
    assert.match(page, /id="f-vat_return_extension" name="vat_return_extension" value="1" checked/);
    assert.match(page, /name="dunning_fee_3" type="text" value="7,50"/);
    assert.match(page, /<option value="3" selected>/);
    assert.match(page, /id="f-statements_need_review" name="statements_need_review" value="1" checked/);

    const rows = await audit('company.settings_changed');
    assert.equal(rows.length, 6, 'one row per save');
    assert.deepEqual(json(rows[1]?.after), { invoice_number_pattern: 'RG-{yy}{mm}-{seq:4}' }, 'an unchanged key is not recorded');
    assert.deepEqual(json(rows[2]?.after), { register_number: 'HRB 654321 B', managing_directors: ['Erika Mustermann', 'Jörg Weiß'] });
    assert.deepEqual(json(rows[4]?.before), { statements_need_review: false });
    assert.equal(json(rows[5]?.before).dunning, null);

    // Back to the defaults of the dunning policy.
    assert.equal((await save('dunning', { ...dunning, reset: '1' })).status, 303);
    assert.equal((await company()).dunning, null);
    assert.match((await web.get('/app/settings')).body, /Es gelten die Standardwerte von Kontor\./);
    // The other company is untouched.
    assert.deepEqual(await t.handle.db.selectFrom('companies').selectAll().where('id', '=', other.companyId).executeTakeFirstOrThrow(), otherBefore);
  });

  test('invalid values are refused in German with 422, the typed values kept, nothing changed', async () => {
    const before = { row: await company(), audit: await countRows(t.handle, 'audit_log') };
    const bad = await save('issuing', { ...ISSUING, name: '<script>alert(1)</script> GmbH', iban: 'DE00 1234', vat_id: 'DE136695977' });
    assert.equal(bad.status, 422);
    assert.match(bad.body, /„Rechnungsangaben“ wurde nicht gespeichert\. Bitte die markierten Angaben prüfen\./);
    assert.match(bad.body, /<li>IBAN: Keine gültige IBAN \(Länge oder Prüfziffern stimmen nicht\)\.<\/li>/);
    assert.match(bad.body, /<li>USt-IdNr\.: Keine gültige USt-IdNr\. \(das Format des Landes oder die Prüfziffer stimmt nicht\)\.<\/li>/);
    assert.match(bad.body, /name="iban" type="text" value="DE00 1234"[^>]*aria-describedby="f-iban-hint f-iban-error" aria-invalid="true"/);
    assert.match(bad.body, /value="&lt;script&gt;alert\(1\)&lt;\/script&gt; GmbH"/);
    assert.doesNotMatch(bad.body, /<script>alert/);
    const days = await save('issuing', { ...ISSUING, payment_terms_days: 'dreißig' });
    assert.equal(days.status, 422);
    assert.match(days.body, /Zahlungsziel in Tagen: Bitte eine ganze Zahl von 0 bis 365 angeben\./);
    assert.match(days.body, /name="payment_terms_days" type="text" value="dreißig"/);

    const cases: [string, Record<string, string>, RegExp][] = [
      ['numbers', { invoice_number_pattern: 'RE-2026', contract_number_pattern: 'V-{seq:5}' }, /Das Muster braucht den Platzhalter \{seq\} oder \{seq:N\}/],
      [
        'letterhead',
        { register_court: 'Amtsgericht Berlin-Charlottenburg', register_number: 'HRB 123456 B', managing_directors: '' },
        /Für die Rechtsform GmbH fehlen die Namen der Geschäftsführer/,
      ],
      [
        'letterhead',
        { register_court: 'Amtsgericht Köln', register_number: 'HRA 4711', managing_directors: 'Anna' },
        /Eine GmbH steht im Register HRB, nicht HRA\./,
      ],
      [
        'books',
        { chart: 'SKR04', datev_consultant_number: '12', datev_client_number: '7', fiscal_year_start: '02-29', vat_return_period: 'monthly' },
        /Die Beraternummer hat 4 bis 7 Ziffern/,
      ],
      [
        'books',
        { chart: 'SKR04', datev_consultant_number: '29098', datev_client_number: '7', fiscal_year_start: '01-01', vat_return_period: 'weekly' },
        /Voranmeldungszeitraum der Umsatzsteuer: Bitte monatlich, vierteljährlich oder jährlich \(von Voranmeldungen befreit\) wählen\./,
      ],
      [
        'dunning',
        {
          dunning_enabled: '1',
          dunning_reminder_days: '7',
          dunning_interval_days: '0',
          dunning_levels: '2',
          dunning_fee_1: '2,555',
          dunning_fee_2: '5',
          dunning_deadline_days: '10',
        },
        /Bitte einen Betrag wie 2,50 angeben/,
      ],
      ['mailbox', { smtp_host: 'smtp.example.com', smtp_port: '70000', smtp_from: 'x@example.com' }, /Port: Bitte einen Port von 1 bis 65535 angeben\./],
    ];
    for (const [section, form, message] of cases) {
      const refused = await save(section, form);
      assert.equal(refused.status, 422, section);
      assert.match(refused.body, message);
    }
    const books = await save('books', {
      chart: 'SKR04',
      datev_consultant_number: '12',
      datev_client_number: '7',
      fiscal_year_start: '02-29',
      vat_return_period: 'monthly',
    });
    assert.match(books.body, /Bitte den ersten Tag des Wirtschaftsjahres als MM-TT angeben/);
    assert.match(books.body, /name="datev_consultant_number" type="text" value="12"/);
    const dunning = await save('dunning', {
      dunning_enabled: '1',
      dunning_reminder_days: '7',
      dunning_interval_days: '0',
      dunning_levels: '2',
      dunning_fee_1: '2,50',
      dunning_fee_2: '5',
      dunning_deadline_days: '10',
    });
    assert.match(dunning.body, /Abstand zwischen den Stufen in Tagen: Bitte eine ganze Zahl von 1 bis 90 angeben\./);
    assert.deepEqual({ row: await company(), audit: await countRows(t.handle, 'audit_log') }, before);
  });

  test('the mailbox password is never shown again, an empty field keeps it, and the audit trail never holds it', async () => {
    const form = { smtp_host: '127.0.0.1', smtp_port: String(smtp.port), smtp_user: SMTP_USER, smtp_password: SMTP_PASSWORD, smtp_from: MAILBOX_FROM };
    assert.equal((await save('mailbox', form)).status, 303);
    const stored = json((await company()).smtp) as unknown as SmtpSettings;
    assert.equal(sealer.open(stored.password_sealed as string), SMTP_PASSWORD);
    const page = (await web.get('/app/settings')).body;
    assert.match(page, /Ein Passwort ist gespeichert\./);
    assert.match(page, /<input id="f-smtp_password" name="smtp_password" type="password" value=""/);
    assert.doesNotMatch(page, new RegExp(SMTP_PASSWORD));

    // Saved again with the password field empty: the password stays.
    assert.equal((await save('mailbox', { ...form, smtp_password: '', smtp_from: 'rechnung@muster.example' })).status, 303);
    assert.equal(sealer.open((json((await company()).smtp) as unknown as SmtpSettings).password_sealed as string), SMTP_PASSWORD);
    assert.equal((await save('mailbox', { ...form, smtp_password: '' })).status, 303);

    const rows = await audit('company.mailbox_changed');
    assert.equal(rows.length, 3);
    assert.deepEqual(json(rows[0]?.after), {
      smtp: { host: '127.0.0.1', port: smtp.port, secure: false, user: SMTP_USER, from: MAILBOX_FROM },
      password_changed: true,
    });
    assert.equal(json(rows[0]?.before).smtp, null);
    assert.deepEqual(json(rows[1]?.after), { smtp: { host: '127.0.0.1', port: smtp.port, secure: false, user: SMTP_USER, from: 'rechnung@muster.example' } });
    const trail = JSON.stringify(rows);
    assert.doesNotMatch(trail, new RegExp(SMTP_PASSWORD));
    assert.doesNotMatch(trail, /password_sealed/);
  });

  test('"Testmail senden" delivers through the mailbox, and shows a refusal or an unreachable server in German', async () => {
    await web.get('/app/settings');
    const before = smtp.received.length;
    const sent = await web.post('/app/settings/mailbox/test', { to: '' });
    assert.equal(sent.status, 200);
    assert.match(
      sent.body,
      new RegExp(`Die Testmail an ${t.company.adminEmail.replace(/[.]/g, '\\.')} ist über 127\\.0\\.0\\.1:${smtp.port} hinausgegangen\\.`),
    );
    assert.equal(smtp.received.length, before + 1);
    const mail = await smtp.parsed(before);
    assert.deepEqual(mail.from?.value, [{ address: 'versand@muster.example', name: 'Muster Software GmbH' }]);
    assert.equal(mail.subject, 'Testmail von Kontor für main GmbH');
    assert.deepEqual(
      [mail.to as AddressObject].flatMap((a) => a.value.map((v) => v.address)),
      [t.company.adminEmail],
    );
    assert.match(mail.text ?? '', /Der Versand von Rechnungen, Mahnungen und Abrechnungen funktioniert\./);

    const refused = await web.post('/app/settings/mailbox/test', { to: 'niemand@rejected.example' });
    assert.equal(refused.status, 422);
    assert.match(
      refused.body,
      /Die Testmail wurde nicht verschickt\. Der Mailserver 127\.0\.0\.1:\d+ hat die Empfängeradresse niemand@rejected\.example abgelehnt\./,
    );
    assert.match(refused.body, /value="niemand@rejected\.example"/);
    const malformed = await web.post('/app/settings/mailbox/test', { to: 'kein-at-zeichen' });
    assert.equal(malformed.status, 422);
    assert.match(malformed.body, /„kein-at-zeichen“ ist keine gültige E-Mail-Adresse\./);

    const port = await freePort();
    await save('mailbox', { smtp_host: '127.0.0.1', smtp_port: String(port), smtp_user: SMTP_USER, smtp_password: '', smtp_from: MAILBOX_FROM });
    await web.get('/app/settings');
    const unreachable = await web.post('/app/settings/mailbox/test', {});
    assert.equal(unreachable.status, 422);
    assert.match(unreachable.body, new RegExp(`Der Mailserver 127\\.0\\.0\\.1:${port} ist nicht erreichbar \\(Verbindung abgelehnt\\)`));

    const rows = await audit('company.test_mail_sent');
    assert.deepEqual(
      rows.map((r) => [json(r.after).to, json(r.after).delivered, json(r.after).error_code ?? null]),
      [
        [t.company.adminEmail, true, null],
        ['niemand@rejected.example', false, 'mail_rejected'],
        [t.company.adminEmail, false, 'mail_unreachable'],
      ],
    );
    assert.doesNotMatch(JSON.stringify(rows), new RegExp(SMTP_PASSWORD));
  });

  test('period locks: forward with audit, backwards and future refused in German, a draft is then not issued', async () => {
    const empty = await web.get('/app/settings/period-locks');
    assert.equal(empty.status, 200);
    assert.match(empty.body, /Noch ist kein Buchungszeitraum gesperrt\./);
    assert.match(empty.body, /data-confirm="Buchungszeitraum wirklich bis zum gewählten Tag sperren\? Das lässt sich nicht rückgängig machen\."/);
    assert.match(empty.body, /<button type="submit" class="danger">Endgültig sperren<\/button>/);

    const locked = await web.post('/app/settings/period-locks', { until: '2026-10-31' });
    assert.equal(locked.status, 303);
    const page = await web.get(locked.location as string);
    assert.match(page.body, /Der Buchungszeitraum ist jetzt bis einschließlich 31\.10\.2026 gesperrt\./);
    assert.match(page.body, new RegExp(`<td>31\\.10\\.2026</td><td>–</td><td>[^<]+</td><td>${t.company.adminEmail.replace(/[.]/g, '\\.')}</td>`));

    for (const [until, message] of [
      ['30.09.2026', /Der Buchungszeitraum ist bereits bis 31\.10\.2026 gesperrt\. Eine Sperre ist endgültig/],
      ['2026-11-22', /Der 22\.11\.2026 liegt in der Zukunft \(heute ist der 21\.11\.2026\)/],
      ['gestern', /Bitte ein Datum angeben, zum Beispiel 31\.10\.2026\./],
    ] as const) {
      const refused = await web.post('/app/settings/period-locks', { until });
      assert.equal(refused.status, 422, until);
      assert.match(refused.body, message);
    }
    const same = await web.post('/app/settings/period-locks', { until: '31.10.2026' });
    assert.match((await web.get(same.location as string)).body, /war bereits bis 31\.10\.2026 gesperrt; nichts geändert/);

    const rows = await audit('period.locked');
    assert.equal(rows.length, 1);
    assert.deepEqual([json(rows[0]?.before), json(rows[0]?.after)], [{ locked_until: null }, { locked_until: '2026-10-31' }]);
    const history = await t.handle.db
      .selectFrom('period_lock_history')
      .select(['locked_until', 'locked_by'])
      .where('company_id', '=', t.company.companyId)
      .execute();
    assert.deepEqual(history, [{ locked_until: '2026-10-31', locked_by: t.company.userId }]);

    // Locked up to today: the draft, issued today, would be booked in the locked period.
    await web.post('/app/settings/period-locks', { until: '2026-11-21' });
    await web.get(`/app/invoices/${draftId}`);
    const issue = await web.post(`/app/invoices/${draftId}/issue`);
    assert.equal(issue.status, 422);
    assert.match(issue.body, /Die Buchungsperiode ist bis 21\.11\.2026 gesperrt/);
    const draft = await t.handle.db.selectFrom('invoices').select(['status', 'number']).where('id', '=', draftId).executeTakeFirstOrThrow();
    assert.deepEqual(draft, { status: 'draft', number: null });
  });
});
