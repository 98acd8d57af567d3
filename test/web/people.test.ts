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
    const invited = await admin.post('/app/users/invite', { email: ` ${email.toUpperCase()} `, role: 'member', company: t.company.companyId });
    assert.equal(invited.status, 200);
    assert.match(invited.body, /neu\.kollegin@example\.com wurde eingeladen/);
    invitedPassword = /<p class="mono strong">([0-9A-Za-z]{20})<\/p>/.exec(invited.body)?.[1] as string;
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
    // The list afterwards does not show it again.
    assert.doesNotMatch((await admin.get('/app/users')).body, new RegExp(invitedPassword));
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
});
