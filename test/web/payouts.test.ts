import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runDueWork } from '../../src/jobs/index.ts';
import { setUserRole } from '../../src/modules/access/manage-users.ts';
import { createMailer } from '../../src/modules/mail/index.ts';
import { partnerBalance, partnerWithOctoberGutschrift } from '../commissions/helpers.ts';
import { countRows, sealer, type TestApp, testApp } from '../helpers/app.ts';
import { sepaSchemaErrors } from '../payouts/sepa-schema.ts';
import { signedIn, type WebClient } from './client.ts';

// Issue 15, point 2 (partners and payouts): a payout account set by an admin (IBAN checked,
// stored sealed, shown masked, every change logged and mailed to the company), and a payout
// run that marks the chosen statements paid and hands out a pain.001.001.09 file that
// passes the EPC schema.

const IBAN = 'DE02 1203 0000 0000 2020 51';
const IBAN_ELECTRONIC = 'DE02120300000000202051';

describe('partners and payout runs in the app', () => {
  let t: TestApp;
  let web: WebClient;
  let partnerId: string;
  const mailer = () => createMailer({ dataDir: t.dataDir, sealer });
  const work = (asOf: string) =>
    runDueWork(
      { db: t.handle.db, clock: t.clock, mailer: mailer(), services: { invoicing: t.invoicing } },
      { asOf, companyId: t.company.companyId, log: () => {} },
    );
  const outbox = () => {
    try {
      return readdirSync(path.join(t.dataDir, 'outbox', t.company.companyId)).map((name) =>
        readFileSync(path.join(t.dataDir, 'outbox', t.company.companyId, name), 'utf8'),
      );
    } catch {
      return [];
    }
  };

  before(async () => {
    t = await testApp({ now: '2026-10-20T10:00:00Z' });
    partnerId = await partnerWithOctoberGutschrift(t, 'gs', { name: 'Müller & Söhne Vertrieb GmbH', netAmount: '500.00' });
    web = await signedIn(t);
  });
  after(() => t.close());

  test('a wrong IBAN is refused with a clear message and changes nothing', async () => {
    const page = await web.get(`/app/partners/${partnerId}`);
    assert.equal(page.status, 200);
    assert.match(page.body, /Noch kein Auszahlungskonto hinterlegt/);
    const before = { audit: await countRows(t.handle, 'audit_log'), jobs: await countRows(t.handle, 'jobs') };
    for (const [iban, bic, message] of [
      ['DE02 1203 0000 0000 2020 52', '', /Die IBAN ist ungültig/],
      ['DE02120300000000202', '', /Die IBAN ist ungültig/],
      ['XX02120300000000202051', '', /Die IBAN ist ungültig/],
      [IBAN, 'NOTABIC', /Die BIC ist ungültig/],
    ] as const) {
      const refused = await web.post(`/app/partners/${partnerId}/payout-account`, { iban, bic });
      assert.equal(refused.status, 422, iban);
      assert.match(refused.body, message);
      assert.match(refused.body, /aria-invalid="true"/);
    }
    const row = await t.handle.db
      .selectFrom('commission_partners')
      .select(['iban_sealed', 'iban_masked'])
      .where('id', '=', partnerId)
      .executeTakeFirstOrThrow();
    assert.deepEqual(row, { iban_sealed: null, iban_masked: null });
    assert.deepEqual(before, { audit: await countRows(t.handle, 'audit_log'), jobs: await countRows(t.handle, 'jobs') });
  });

  test('an admin sets the payout account: sealed, masked, logged, and the company is mailed', async () => {
    await web.get(`/app/partners/${partnerId}`);
    const saved = await web.post(`/app/partners/${partnerId}/payout-account`, { iban: IBAN, bic: 'bylademm' });
    assert.equal(saved.status, 303);
    const row = await t.handle.db
      .selectFrom('commission_partners')
      .select(['iban_sealed', 'iban_masked', 'bic', 'payee_changed_at'])
      .where('id', '=', partnerId)
      .executeTakeFirstOrThrow();
    assert.equal(sealer.open(row.iban_sealed as string), IBAN_ELECTRONIC);
    assert.doesNotMatch(row.iban_sealed as string, /DE02/);
    assert.equal(row.iban_masked, 'DE02 •••• 2051');
    assert.equal(row.bic, 'BYLADEMM');
    const page = await web.get(saved.location as string);
    assert.match(page.body, /DE02 •••• 2051/);
    assert.doesNotMatch(page.body, /120300000000/);
    const audit = await t.handle.db.selectFrom('audit_log').select(['action', 'before', 'after']).where('subject_id', '=', partnerId).execute();
    assert.equal(audit.length, 1);
    assert.equal(audit[0]?.action, 'partner.payout_account_changed');
    assert.doesNotMatch(JSON.stringify(audit), /120300000000/);
    // The API shows it masked too, and still refuses to set it.
    const api = await t.request('GET', '/v1/commission-partners/by-ref/crm/gs');
    assert.equal(api.json().iban_masked, 'DE02 •••• 2051');
    // The notice goes out with the next work, once.
    const mailsBefore = new Set(outbox());
    await work('2026-11-21');
    await work('2026-11-21');
    const mails = outbox().filter((mail) => !mailsBefore.has(mail)); // by content: the folder is not in time order
    assert.equal(mails.length, 1);
    assert.match(mails[0] as string, /Subject: =\?UTF-8\?|Subject: Auszahlungskonto/);
    assert.match(mails[0] as string, /DE02 =?E2=80=A2|DE02 ••••/);
    assert.doesNotMatch(mails[0] as string, /120300000000/);
  });

  test('a member cannot change a payout account or open the payouts', async () => {
    const member = await t.newCompany('member');
    const client = await signedIn(t, 'ein gutes Passwort 9', member);
    await setUserRole(t.handle.db, t.clock, member.adminEmail, 'member');
    await client.get('/app/dashboard');
    assert.equal((await client.get('/app/payouts')).status, 403);
    assert.equal((await client.post(`/app/partners/${partnerId}/payout-account`, { iban: IBAN })).status, 403);
  });

  test('a payout run marks the chosen statements paid and hands out a valid pain.001 file', async () => {
    const overview = await web.get('/app/payouts');
    assert.equal(overview.status, 200);
    const statement = await t.handle.db
      .selectFrom('commission_statements')
      .select(['id', 'number', 'gross_cents'])
      .where('partner_id', '=', partnerId)
      .executeTakeFirstOrThrow();
    // Nothing is pre-ticked (issue 25): the admin chooses, then reviews.
    assert.match(overview.body, new RegExp(`name="statement" value="${statement.id}" id="s-${statement.id}" aria-label`));
    assert.doesNotMatch(overview.body, /\schecked/);
    assert.match(overview.body, /vorausgewählt ist keine/);
    const before = await partnerBalance(t, 'gs');
    // An execution date in the past is refused, and nothing is paid.
    const past = await web.post('/app/payouts/review', { statement: statement.id, execution_date: '2026-11-20' });
    assert.equal(past.status, 422);
    assert.match(past.body, /Ausführungsdatum liegt in der Vergangenheit/);
    assert.match(past.body, new RegExp(`value="${statement.id}" id="s-${statement.id}" checked`), 'the choice is kept');
    const none = await web.post('/app/payouts/review', { execution_date: '2026-11-24' });
    assert.equal(none.status, 422);
    assert.match(none.body, /Bitte wählen Sie mindestens eine/);
    // The confirmation: count, total, execution date and the company's account, masked; nothing paid yet.
    const review = await web.post('/app/payouts/review', { statement: statement.id, execution_date: '2026-11-24' });
    assert.equal(review.status, 200);
    assert.match(review.body, /<h1>Auszahlung bestätigen<\/h1>/);
    assert.match(review.body, /Noch ist nichts als bezahlt vermerkt/);
    assert.match(review.body, /Überweisungen<\/dt><dd class="strong">1<\/dd>/);
    assert.match(review.body, /Gesamtbetrag<\/dt><dd class="strong">59,50\u00a0€<\/dd>/);
    assert.match(review.body, /Ausführungsdatum<\/dt><dd class="strong">24\.11\.2026<\/dd>/);
    assert.match(review.body, /Von Konto<\/dt><dd><span class="mono">DE\d\d •••• \d{4}/);
    assert.doesNotMatch(review.body, /DE\d{20}/, 'the company IBAN is masked');
    assert.equal(await countRows(t.handle, 'payout_runs'), 0);
    const unconfirmed = await t.handle.db.selectFrom('commission_statements').select('paid_at').where('id', '=', statement.id).executeTakeFirstOrThrow();
    assert.equal(unconfirmed.paid_at, null);
    // A POST to the run without the confirmation only shows the confirmation.
    const forged = await web.post('/app/payouts', { statement: statement.id, execution_date: '2026-11-24' });
    assert.equal(forged.status, 200);
    assert.match(forged.body, /Auszahlung bestätigen/);
    assert.equal(await countRows(t.handle, 'payout_runs'), 0);
    const confirmForm = /<form method="post" action="\/app\/payouts" class="stack">([\s\S]*?)<\/form>/.exec(review.body)?.[1] as string;
    const fields = [...confirmForm.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1], m[2]] as [string, string]);
    assert.deepEqual(
      fields.filter(([name]) => name !== '_csrf' && name !== '_once'),
      [
        ['confirmed', '1'],
        ['execution_date', '2026-11-24'],
        ['statement', statement.id],
      ],
    );
    const created = await web.post('/app/payouts', Object.fromEntries(fields));
    assert.equal(created.status, 303);
    // The confirmation sent again (reload, double click): the same run, no second one.
    const again = await web.post('/app/payouts', Object.fromEntries(fields));
    assert.equal(again.status, 303);
    assert.equal(again.location, created.location);
    assert.equal(await countRows(t.handle, 'payout_runs'), 1);
    const runPage = await web.get(created.location as string);
    assert.match(runPage.body, /1 Überweisung über 59,50\u00a0€ als bezahlt vermerkt/);
    const paid = await t.handle.db
      .selectFrom('commission_statements')
      .select(['paid_at', 'decided_by'])
      .where('id', '=', statement.id)
      .executeTakeFirstOrThrow();
    assert.ok(paid.paid_at);
    assert.equal(paid.decided_by, t.company.adminEmail);
    const after = await partnerBalance(t, 'gs');
    assert.equal(after.paid - before.paid, before.statemented - after.statemented);
    assert.equal(after.paid - before.paid, 5000);
    const file = await t.app.inject({
      method: 'GET',
      url: `${created.location}/file`,
      headers: { cookie: `kontor_session=${web.cookies.get('kontor_session')}` },
    });
    assert.equal(file.statusCode, 200);
    assert.match(String(file.headers['content-disposition']), /^attachment; filename="KONTOR-[0-9A-Z]+\.xml"$/);
    assert.deepEqual(await sepaSchemaErrors(file.body), []);
    assert.match(file.body, /<InstdAmt Ccy="EUR">59\.50<\/InstdAmt>/);
    assert.match(file.body, new RegExp(`<EndToEndId>${statement.number}</EndToEndId>`));
    assert.match(file.body, /<Nm>Mueller \+ Soehne Vertrieb GmbH<\/Nm>/);
    assert.match(file.body, new RegExp(`<IBAN>${IBAN_ELECTRONIC}</IBAN>`));
    assert.match(file.body, /<ReqdExctnDt>\s*<Dt>2026-11-24<\/Dt>/);
    // Paid once: the statement is no longer offered, and a forged second run is refused.
    const later = await web.get('/app/payouts');
    assert.doesNotMatch(later.body, new RegExp(`name="statement" value="${statement.id}"`));
    const second = await web.post('/app/payouts', { statement: statement.id, execution_date: '2026-11-24', confirmed: '1' });
    assert.equal(second.status, 422);
    assert.match(second.body, /bereits als bezahlt vermerkt/);
    assert.equal(await countRows(t.handle, 'payout_runs'), 1);
    const events = await t.handle.db
      .selectFrom('events')
      .select('type')
      .where('subject_id', '=', statement.id)
      .where('type', '=', 'commission_statement.paid')
      .execute();
    assert.equal(events.length, 1);
  });

  test('replacing the payout account asks first, showing old and new masked; only the confirmation changes it (issue 25)', async () => {
    const audits = () =>
      t.handle.db.selectFrom('audit_log').select('after').where('action', '=', 'partner.payout_account_changed').where('subject_id', '=', partnerId).execute();
    const before = (await audits()).length;
    await web.get(`/app/partners/${partnerId}`);
    // A wrong IBAN is refused before any question.
    const wrong = await web.post(`/app/partners/${partnerId}/payout-account`, { iban: 'DE89 3704 0044 0532 0130 01' });
    assert.equal(wrong.status, 422);
    assert.match(wrong.body, /Die IBAN ist ungültig/);
    const asked = await web.post(`/app/partners/${partnerId}/payout-account`, { iban: 'DE89 3704 0044 0532 0130 00', bic: '' });
    assert.equal(asked.status, 200);
    assert.match(asked.body, /Auszahlungskonto ersetzen\?/);
    assert.match(asked.body, /Bisheriges Konto<\/dt><dd><span class="mono">DE02 •••• 2051<\/span>/);
    assert.match(asked.body, /Neues Konto<\/dt><dd class="strong"><span class="mono">DE89 •••• 3000<\/span>/);
    assert.match(asked.body, /Konto ersetzen<\/button>/);
    assert.match(asked.body, new RegExp(`<a href="/app/partners/${partnerId}">Abbrechen</a>`));
    assert.equal((await audits()).length, before, 'nothing changed yet');
    const stored = await t.handle.db.selectFrom('commission_partners').select('iban_masked').where('id', '=', partnerId).executeTakeFirstOrThrow();
    assert.equal(stored.iban_masked, 'DE02 •••• 2051');
    // The same account again asks nothing and changes nothing.
    const same = await web.post(`/app/partners/${partnerId}/payout-account`, { iban: IBAN, bic: 'bylademm' });
    assert.equal(same.status, 303);
    assert.equal((await audits()).length, before);
    // Confirmed: replaced, in the audit trail; the confirmation sent twice replaces once.
    const confirm = /<form method="post" action="[^"]*payout-account" class="stack">([\s\S]*?)<\/form>/.exec(asked.body)?.[1] as string;
    const fields = Object.fromEntries([...confirm.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1], m[2]]));
    assert.equal(fields.confirm_replace, '1');
    const done = await web.post(`/app/partners/${partnerId}/payout-account`, fields);
    assert.equal(done.status, 303);
    assert.equal((await web.post(`/app/partners/${partnerId}/payout-account`, fields)).location, done.location);
    const trail = await audits();
    assert.equal(trail.length, before + 1);
    assert.deepEqual(trail.at(-1)?.after, { iban: 'DE89 •••• 3000', bic: null });
  });

  test('another company sees neither the partner nor the run', async () => {
    const other = await t.newCompany('other');
    const stranger = await signedIn(t, 'ein anderes Passwort', other);
    assert.equal((await stranger.get(`/app/partners/${partnerId}`)).status, 404);
    const run = await t.handle.db.selectFrom('payout_runs').select('id').executeTakeFirstOrThrow();
    assert.equal((await stranger.get(`/app/payouts/${run.id}`)).status, 404);
    assert.equal((await stranger.get(`/app/payouts/${run.id}/file`)).status, 404);
    await stranger.get('/app/dashboard');
    assert.equal((await stranger.post(`/app/partners/${partnerId}/payout-account`, { iban: IBAN })).status, 404);
  });
});
