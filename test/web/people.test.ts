import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createApiKey } from '../../src/modules/access/manage-api-keys.ts';
import { countRows, type TestApp, testApp } from '../helpers/app.ts';
import { signedIn, WebClient } from './client.ts';

// Issue 15, point 1 (people): an admin invites a person (a one-time password shown once),
// sets roles, deactivates, gives and takes companies — and the API keys follow interface §5:
// a member's keys 403 api_key_admin_required, a deactivated person's 401
// api_key_user_inactive, a company taken away 403 api_key_entity_not_accessible. Nobody can
// lock the organisation out of its last admin.

/** Where an invitation or a reset leads: the display's random id, never the password. */
const SHOWN = /^\/app\/users\?shown=[A-Za-z0-9_-]{22}$/;

describe('people of the organisation in the app', () => {
  let t: TestApp;
  let admin: WebClient;
  let invitedId: string;
  let invitedPassword: string;
  const email = 'neu.kollegin@example.com';

  const post = async (path: string, form: Record<string, string>) => {
    await admin.get('/app/users');
    return admin.post(path, form);
  };
  const apiStatus = async (key: string) => (await t.request('GET', '/v1/customers/by-ref/crm/none', { key })).json().detail.code as string;

  before(async () => {
    t = await testApp();
    admin = await signedIn(t);
  });
  after(() => t.close());

  test('an invitation shows the one-time password once; the person must replace it and sees only their company', async () => {
    await admin.get('/app/users');
    const posted = await admin.post('/app/users/invite', { email: ` ${email.toUpperCase()} `, role: 'member', company: t.company.companyId });
    // Post/Redirect/Get: the password is in no URL; the page the POST leads to shows it once.
    assert.equal(posted.status, 303);
    assert.match(posted.location ?? '', SHOWN);
    const invited = await admin.get(posted.location as string);
    assert.equal(invited.status, 200);
    assert.match(invited.body, /neu\.kollegin@example\.com wurde eingeladen/);
    invitedPassword = /<p class="mono strong">([0-9A-Za-z]{20})<\/p>/.exec(invited.body)?.[1] as string;
    const usersAfter = await countRows(t.handle, 'users');
    assert.ok(invitedPassword, 'the one-time password is on the page');
    const user = await t.handle.db
      .selectFrom('users')
      .select(['id', 'password_hash', 'password_change_required'])
      .where('email', '=', email)
      .executeTakeFirstOrThrow();
    invitedId = user.id;
    assert.equal(user.password_change_required, true);
    assert.doesNotMatch(user.password_hash, new RegExp(invitedPassword));
    const audit = await t.handle.db.selectFrom('audit_log').select(['action', 'after']).where('subject_id', '=', invitedId).execute();
    assert.equal(audit[0]?.action, 'person.invited');
    assert.doesNotMatch(JSON.stringify(audit), new RegExp(invitedPassword));
    // A reload of that page, or the list afterwards, does not show it again (and makes no second one).
    const reload = await admin.get(posted.location as string);
    assert.doesNotMatch(reload.body, new RegExp(invitedPassword));
    assert.match(reload.body, /Das Einmal-Passwort wurde nur einmal angezeigt/);
    assert.doesNotMatch((await admin.get('/app/users')).body, new RegExp(invitedPassword));
    assert.equal(await countRows(t.handle, 'users'), usersAfter);
    const person = new WebClient(t.app, '198.51.100.99');
    assert.equal((await person.signIn(email, invitedPassword)).location, '/app/password');
    await person.get('/app/password');
    assert.equal(
      (await person.post('/app/password', { current: invitedPassword, next: 'mein eigenes Passwort', repeat: 'mein eigenes Passwort' })).status,
      303,
    );
    assert.equal((await person.get('/app/dashboard')).status, 200);
    assert.equal((await person.get('/app/users')).status, 403);
    // Inviting the same address again is refused; so is a malformed one.
    const again = await post('/app/users/invite', { email, role: 'member', company: t.company.companyId });
    assert.equal(again.status, 422);
    assert.match(again.body, /gehört bereits zur Organisation/);
    const malformed = await post('/app/users/invite', { email: 'kein-at-zeichen', role: 'member', company: t.company.companyId });
    assert.equal(malformed.status, 422);
  });

  test('role, deactivation and companies change what the API keys of the person may do', async () => {
    assert.equal((await post(`/app/users/${invitedId}/role`, { role: 'admin' })).status, 303);
    const key = (await createApiKey(t.handle.db, t.clock, { companyId: t.company.companyId, creatorEmail: email })).api_key;
    assert.equal(await apiStatus(key), 'customer_not_found', 'the key works');
    assert.equal((await post(`/app/users/${invitedId}/role`, { role: 'member' })).status, 303);
    assert.equal(await apiStatus(key), 'api_key_admin_required');
    await post(`/app/users/${invitedId}/role`, { role: 'admin' });
    assert.equal((await post(`/app/users/${invitedId}/companies`, { company_id: t.company.companyId, reach: '0' })).status, 303);
    assert.equal(await apiStatus(key), 'api_key_entity_not_accessible');
    assert.equal((await post(`/app/users/${invitedId}/companies`, { company_id: t.company.companyId, reach: '1' })).status, 303);
    assert.equal(await apiStatus(key), 'customer_not_found');
    assert.equal((await post(`/app/users/${invitedId}/active`, { active: '0' })).status, 303);
    assert.equal(await apiStatus(key), 'api_key_user_inactive');
    const person = new WebClient(t.app, '198.51.100.98');
    assert.equal((await person.signIn(email, 'mein eigenes Passwort')).status, 401, 'a deactivated person cannot sign in');
    assert.equal((await post(`/app/users/${invitedId}/active`, { active: '1' })).status, 303);
    assert.equal(await apiStatus(key), 'customer_not_found');
    const actions = await t.handle.db.selectFrom('audit_log').select('action').where('subject_id', '=', invitedId).orderBy('seq').execute();
    assert.deepEqual(
      actions.map((a) => a.action),
      [
        'person.invited',
        'user.password_changed',
        'person.role_changed',
        'person.role_changed',
        'person.role_changed',
        'person.company_taken',
        'person.company_given',
        'person.deactivated',
        'person.reactivated',
      ],
    );
  });

  test('nobody locks the organisation out: no demoting or deactivating oneself, never the last admin', async () => {
    const before = await countRows(t.handle, 'audit_log');
    const self = await post(`/app/users/${t.company.userId}/role`, { role: 'member' });
    assert.equal(self.status, 422);
    assert.match(self.body, /nicht selbst die Administratorrolle nehmen/);
    const selfOff = await post(`/app/users/${t.company.userId}/active`, { active: '0' });
    assert.equal(selfOff.status, 422);
    const selfCompany = await post(`/app/users/${t.company.userId}/companies`, { company_id: t.company.companyId, reach: '0' });
    assert.equal(selfCompany.status, 422);
    assert.match(selfCompany.body, /nicht selbst eine Firma entziehen/);
    assert.doesNotMatch(
      selfCompany.body,
      new RegExp(
        `action="/app/users/${t.company.userId}/companies"[^>]*>[^<]*<input[^>]*><input type="hidden" name="company_id" value="${t.company.companyId}"><input type="hidden" name="reach" value="0">`,
      ),
    );
    assert.equal(await countRows(t.handle, 'audit_log'), before);
    // Two admins demoting each other at the same moment: one wins, the organisation keeps an admin.
    const other = new WebClient(t.app, '198.51.100.97');
    await other.signIn(email, 'mein eigenes Passwort');
    await other.get('/app/users');
    await admin.get('/app/users');
    const answers = await Promise.all([
      admin.post(`/app/users/${invitedId}/role`, { role: 'member' }),
      other.post(`/app/users/${t.company.userId}/role`, { role: 'member' }),
    ]);
    // The loser is refused either as no admin any more (403, when the winner committed before it
    // was read) or by the last-admin rule (422, when both ran at once).
    const [won, lost] = answers.map((a) => a.status).sort();
    assert.equal(won, 303);
    assert.ok(lost === 403 || lost === 422, String(lost));
    const admins = await t.handle.db
      .selectFrom('memberships')
      .select('user_id')
      .where('organization_id', '=', t.company.organizationId)
      .where('role', '=', 'admin')
      .where('active', '=', true)
      .execute();
    assert.equal(admins.length, 1);
    // The winner makes the bootstrap admin an admin again (for the next test).
    if (admins[0]?.user_id !== t.company.userId) {
      await other.get('/app/users');
      assert.equal((await other.post(`/app/users/${t.company.userId}/role`, { role: 'admin' })).status, 303);
    }
  });

  test('people and companies of another organisation are out of reach', async () => {
    const other = await t.newCompany('fremd');
    const foreignUser = await post(`/app/users/${other.userId}/active`, { active: '0' });
    assert.equal(foreignUser.status, 422);
    assert.match(foreignUser.body, /gehört nicht zu Ihrer Organisation/);
    const foreignCompany = await post(`/app/users/${invitedId}/companies`, { company_id: other.companyId, reach: '1' });
    assert.equal(foreignCompany.status, 422);
    assert.match(foreignCompany.body, /gehört nicht zu Ihrer Organisation/);
    const invite = await post('/app/users/invite', { email: 'x@example.com', role: 'member', company: other.companyId });
    assert.equal(invite.status, 422);
    const row = await t.handle.db.selectFrom('memberships').select('active').where('user_id', '=', other.userId).executeTakeFirstOrThrow();
    assert.equal(row.active, true);
  });

  test('the invite form refuses an address that is no e-mail address, with the message at the field', async () => {
    const before = await countRows(t.handle, 'users');
    for (const bad of [
      '"><img/src=x/onerror=alert(1)>@example.com',
      'kein-at-zeichen',
      'a b@example.com',
      'name@localhost',
      `${'x'.repeat(250)}@example.com`,
    ]) {
      const refused = await post('/app/users/invite', { email: bad, role: 'admin', company: t.company.companyId });
      assert.equal(refused.status, 422, bad);
      assert.match(
        refused.body,
        /aria-invalid="true" aria-describedby="invite-email-error"[^>]*>\s*<p id="invite-email-error" class="hint"><span class="badge error">Fehler<\/span> Bitte geben Sie eine gültige E-Mail-Adresse an, z\. B\. name@firma\.de\.<\/p>/,
      );
      assert.doesNotMatch(refused.body, /<img/, 'the typed text is shown escaped');
      assert.match(refused.body, /<option value="admin" selected>/, 'the form keeps what was chosen');
    }
    assert.equal(await countRows(t.handle, 'users'), before);
  });

  test('an admin resets a password: a one-time password shown once, every session of the person ended, a new password at the next sign-in', async () => {
    const resetEmail = 'vergesslich@example.com';
    await admin.get('/app/users');
    const posted = await admin.post('/app/users/invite', { email: resetEmail, role: 'member', company: t.company.companyId });
    const first = /<p class="mono strong">([0-9A-Za-z]{20})<\/p>/.exec((await admin.get(posted.location as string)).body)?.[1] as string;
    const person = new WebClient(t.app, '198.51.100.96');
    await person.signIn(resetEmail, first);
    await person.get('/app/password');
    await person.post('/app/password', { current: first, next: 'vergessenes Passwort', repeat: 'vergessenes Passwort' });
    const phone = new WebClient(t.app, '198.51.100.95');
    assert.equal((await phone.signIn(resetEmail, 'vergessenes Passwort')).location, '/app/dashboard');
    assert.equal((await person.get('/app/dashboard')).status, 200);
    const id = (await t.handle.db.selectFrom('users').select('id').where('email', '=', resetEmail).executeTakeFirstOrThrow()).id;

    const list = await admin.get('/app/users');
    assert.match(
      list.body,
      new RegExp(`action="/app/users/${id}/password-reset"[^>]*data-confirm="Passwort von vergesslich@example\\.com wirklich zurücksetzen\\?`),
    );
    assert.match(list.body, /aria-label="Passwort zurücksetzen für vergesslich@example\.com">Passwort zurücksetzen<\/button>/);
    const reset = await admin.post(`/app/users/${id}/password-reset`);
    assert.equal(reset.status, 303);
    assert.match(reset.location ?? '', SHOWN);
    const shown = await admin.get(reset.location as string);
    assert.match(shown.body, /Das Passwort von vergesslich@example\.com wurde zurückgesetzt/);
    assert.match(shown.body, /Alle Sitzungen der Person wurden beendet/);
    const oneTime = /<p class="mono strong">([0-9A-Za-z]{20})<\/p>/.exec(shown.body)?.[1] as string;
    assert.ok(oneTime);
    // A reload shows it no more and makes no second one.
    const reload = await admin.get(reset.location as string);
    assert.doesNotMatch(reload.body, /class="mono strong"/);
    assert.match(reload.body, /nur einmal angezeigt/);
    // Both sessions of the person ended; the old password opens nothing; the new one leads to the password change.
    assert.match((await person.get('/app/dashboard')).location ?? '', /ended=1/);
    assert.equal((await phone.get('/app/dashboard')).status, 303);
    assert.equal((await new WebClient(t.app, '198.51.100.94').signIn(resetEmail, 'vergessenes Passwort')).status, 401);
    const again = new WebClient(t.app, '198.51.100.93');
    assert.equal((await again.signIn(resetEmail, oneTime)).location, '/app/password');
    assert.equal((await again.get('/app/dashboard')).location, '/app/password');
    // The trail names the reset, never the password.
    const audit = await t.handle.db
      .selectFrom('audit_log')
      .select(['action', 'user_id', 'after'])
      .where('subject_id', '=', id)
      .orderBy('seq', 'desc')
      .executeTakeFirstOrThrow();
    assert.equal(audit.action, 'person.password_reset');
    assert.equal(audit.user_id, t.company.userId);
    assert.deepEqual(typeof audit.after === 'string' ? JSON.parse(audit.after) : audit.after, { sessions_ended: 2 });
    assert.doesNotMatch(JSON.stringify(await t.handle.db.selectFrom('audit_log').selectAll().execute()), new RegExp(oneTime));
    // The page's address in another session (a copied link) shows nothing; in its own session once.
    await admin.get('/app/users');
    const third = await admin.post(`/app/users/${id}/password-reset`);
    const other = await signedIn(t, t.company.password);
    assert.doesNotMatch((await other.get(third.location as string)).body, /class="mono strong"/);
    assert.match((await admin.get(third.location as string)).body, /class="mono strong"/);
  });

  test('a reset is refused for oneself, for a person of another organisation, and for a person who also belongs to another one', async () => {
    const before = await countRows(t.handle, 'audit_log');
    const self = await post(`/app/users/${t.company.userId}/password-reset`, {});
    assert.equal(self.status, 422);
    assert.match(self.body, /Ihr eigenes Passwort setzen Sie nicht zurück, sondern ändern es unter „Passwort ändern“/);
    assert.doesNotMatch(self.body, new RegExp(`/app/users/${t.company.userId}/password-reset`), 'no reset button for oneself');
    const other = await t.newCompany('fremd-reset');
    const foreign = await post(`/app/users/${other.userId}/password-reset`, {});
    assert.equal(foreign.status, 422);
    assert.match(foreign.body, /gehört nicht zu Ihrer Organisation/);
    // The other organisation's admin is invited here too: their login opens both organisations.
    await post('/app/users/invite', { email: other.adminEmail, role: 'member', company: t.company.companyId });
    const shared = await post(`/app/users/${other.userId}/password-reset`, {});
    assert.equal(shared.status, 422);
    assert.match(shared.body, /gehört auch zu einer anderen Organisation/);
    assert.equal(await countRows(t.handle, 'audit_log'), before + 1, 'only the invitation');
    assert.equal((await post('/app/users/usr_nope/password-reset', {})).status, 404);
  });
});
