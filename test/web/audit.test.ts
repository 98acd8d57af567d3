import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { countRows, type TestApp, testApp } from '../helpers/app.ts';
import { signedIn } from './client.ts';

// Issue 15, point 3: every person-side change is recorded with who, when, what and the
// values before and after, shown in the app, and never editable (the table refuses it).

describe('audit trail', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp();
  });
  after(() => t.close());

  test('a password change and a sign-out everywhere are recorded, without the password, and shown', async () => {
    const company = await t.newCompany('audit');
    const client = await signedIn(t, 'ein gutes Passwort 1', company);
    await signedIn(t, 'ein gutes Passwort 1', company);
    await client.get('/app/dashboard');
    await client.post('/app/sign-out-everywhere');
    const rows = await t.handle.db
      .selectFrom('audit_log')
      .select(['action', 'user_id', 'subject_id', 'after', 'company_id'])
      .where('organization_id', '=', company.organizationId)
      .orderBy('seq')
      .execute();
    assert.deepEqual(
      rows.map((r) => r.action),
      ['user.password_changed', 'user.signed_out_everywhere'],
    );
    assert.ok(rows.every((r) => r.user_id === company.userId && r.subject_id === company.userId));
    assert.equal(rows[1]?.company_id, company.companyId);
    const all = JSON.stringify(rows);
    assert.doesNotMatch(all, /Passwort 1|scrypt/);
    const again = await signedIn(t, 'ein gutes Passwort 1', company);
    const page = await again.get('/app/audit');
    assert.equal(page.status, 200);
    const email = company.adminEmail.replace(/[.+]/g, '\\$&');
    assert.match(page.body, new RegExp(`<td>${email} hat sich überall abgemeldet<br>`));
    assert.match(page.body, new RegExp(`<td>Passwort von ${email} geändert<br>`));
    assert.match(page.body, new RegExp(`<td>${email}</td>`));
    // Another organisation's trail is not shown.
    const other = await t.newCompany('audit-other');
    const stranger = await signedIn(t, 'ein gutes Passwort 1', other);
    const theirs = await stranger.get('/app/audit');
    assert.doesNotMatch(theirs.body, /überall abgemeldet/);
    assert.match(theirs.body, /Passwort von [^<]+ geändert/);
  });

  test('the trail cannot be changed or deleted', async () => {
    const before = await countRows(t.handle, 'audit_log');
    assert.ok(before > 0);
    await assert.rejects(sql`update audit_log set action = 'nothing'`.execute(t.handle.db), /append-only: UPDATE is refused/);
    await assert.rejects(sql`delete from audit_log`.execute(t.handle.db), /append-only: DELETE is refused/);
    await assert.rejects(sql`truncate audit_log`.execute(t.handle.db), /append-only: TRUNCATE is refused/);
    assert.equal(await countRows(t.handle, 'audit_log'), before);
  });
});
