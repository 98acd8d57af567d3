import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { hashApiKey } from '../../src/modules/access/api-keys.ts';
import { createApiKey } from '../../src/modules/access/manage-api-keys.ts';
import { countRows, type TestApp, type TestCompany, testApp } from '../helpers/app.ts';
import { signedIn, signedInMember, type WebClient } from './client.ts';

// Issue 15 (API keys in the app): an admin creates a key with chosen scopes and an optional
// expiry; it is shown once (no-store), works against the API with exactly those scopes, is
// stored only as a hash, and a revocation is refused by the API at once. Members may not,
// another company's key is not found, bad input is refused in German, and the audit rows
// hold no secret.

const KEY_ON_PAGE = /<code class="secret" id="new-key">(kt_[0-9A-Za-z]{40})<\/code>/;

describe('API keys in the app', () => {
  let t: TestApp;
  let admin: WebClient;
  let member: WebClient;
  let other: TestCompany;
  let otherKeyId: string;
  let key: string;
  let keyId: string;

  const api = (method: string, url: string, k: string) => t.request(method, url, { key: k, body: method === 'PUT' ? {} : undefined });

  before(async () => {
    t = await testApp();
    admin = await signedIn(t);
    member = (await signedInMember(t, 'mitglied@example.com')).client;
    other = await t.newCompany('fremd');
    otherKeyId = (await createApiKey(t.handle.db, t.clock, { companyId: other.companyId, creatorEmail: other.adminEmail })).id;
  });
  after(() => t.close());

  test('a key with two scopes is shown once, stored as a hash, and works with exactly those scopes', async () => {
    const list = await admin.get('/app/api-keys');
    assert.equal(list.status, 200);
    assert.match(list.body, /<h1>API-Schlüssel<\/h1>/);
    assert.match(list.body, /partner:commissions:read<\/code> – Partner, Buchungen und Abrechnungen der Umsatzbeteiligung abrufen/);
    const created = await admin.postPairs('/app/api-keys', [
      ['scope', 'partner:invoices:read'],
      ['scope', 'partner:commissions:read'],
      ['expires', ''],
    ]);
    // Post/Redirect/Get (issue 25): the key is on the page the answer leads to, not in its URL.
    assert.equal(created.statusCode, 303);
    const location = created.headers.location as string;
    assert.match(location, /^\/app\/api-keys\?shown=[A-Za-z0-9_-]{22}$/);
    const shown = await admin.get(location);
    assert.equal(shown.status, 200);
    key = KEY_ON_PAGE.exec(shown.body)?.[1] as string;
    assert.ok(key, 'the key is on the page after the redirect');
    assert.ok(!location.includes(key));
    assert.match(shown.body, /Er wird nur dieses eine Mal angezeigt und kann später nicht wieder angezeigt werden/);
    assert.match(shown.body, /Strg\+C/);
    // A reload of that page shows it no more, says so, and creates no second key.
    const reloaded = await admin.get(location);
    assert.ok(!reloaded.body.includes(key));
    assert.match(reloaded.body, /Nur einmal angezeigt: Der neue Schlüssel wurde bereits einmal angezeigt/);
    assert.equal((await t.handle.db.selectFrom('api_keys').select('id').where('key_prefix', '=', key.slice(0, 8)).execute()).length, 1);

    const row = await t.handle.db.selectFrom('api_keys').selectAll().where('key_hash', '=', hashApiKey(key)).executeTakeFirstOrThrow();
    keyId = row.id;
    assert.deepEqual(row.scopes, ['partner:invoices:read', 'partner:commissions:read']);
    assert.equal(row.company_id, t.company.companyId);
    assert.equal(row.creator_user_id, t.company.userId);
    assert.equal(row.expires_at, null);
    assert.equal(row.key_prefix, key.slice(0, 8));
    assert.ok(!JSON.stringify(row).includes(key), 'only the hash and the prefix are stored');

    // Exactly those scopes.
    assert.equal((await api('GET', '/v1/customers/by-ref/crm/nobody', key)).json().detail.code, 'customer_not_found');
    const refused = await api('PUT', '/v1/customers/by-ref/crm/nobody', key);
    assert.equal(refused.statusCode, 403);
    assert.equal(refused.json().detail.code, 'api_key_scope_missing');
    assert.equal(refused.json().detail.scope, 'partner:customers:write');

    // Not shown again: the list has only the prefix.
    const again = await admin.get('/app/api-keys');
    assert.ok(!again.body.includes(key));
    assert.ok(again.body.includes(`${key.slice(0, 8)}…`));
    assert.match(again.body, /<span class="badge ok">Aktiv<\/span>/);
    assert.ok(again.body.includes(t.company.adminEmail), 'created by');

    const audit = await t.handle.db.selectFrom('audit_log').selectAll().where('subject_id', '=', keyId).execute();
    assert.equal(audit.length, 1);
    assert.equal(audit[0]?.action, 'api_key.created');
    assert.equal(audit[0]?.user_id, t.company.userId);
    const after = audit[0]?.after;
    assert.deepEqual((typeof after === 'string' ? JSON.parse(after) : after).scopes, ['partner:invoices:read', 'partner:commissions:read']);
    assert.ok(!JSON.stringify(audit).includes(key) && !JSON.stringify(audit).includes(row.key_hash), 'no key and no hash in the audit trail');
  });

  test('an expiry date keeps the key until the end of that day in the company’s time zone', async () => {
    await admin.get('/app/api-keys');
    const posted = await admin.post('/app/api-keys', { scope: 'partner:invoices:read', expires: '31.12.2026' });
    assert.equal(posted.status, 303);
    const res = await admin.get(posted.location as string);
    const expiring = KEY_ON_PAGE.exec(res.body)?.[1] as string;
    assert.match(res.body, /31\.12\.2026/);
    const row = await t.handle.db.selectFrom('api_keys').select('expires_at').where('key_hash', '=', hashApiKey(expiring)).executeTakeFirstOrThrow();
    assert.equal(row.expires_at?.toISOString(), '2026-12-31T22:59:59.999Z', 'end of 31.12. in Berlin');
    assert.equal((await api('GET', '/v1/customers/by-ref/crm/nobody', expiring)).json().detail.code, 'customer_not_found');
    t.clock.set('2027-01-01T00:00:00Z');
    try {
      assert.equal((await api('GET', '/v1/customers/by-ref/crm/nobody', expiring)).json().detail.code, 'api_key_expired');
      // (The admin's session would have ended meanwhile: a fresh sign-in.)
      const later = await signedIn(t, undefined, t.company, '198.51.100.77');
      assert.match((await later.get('/app/api-keys')).body, /<span class="badge warn">Abgelaufen<\/span>/);
    } finally {
      t.clock.set('2026-11-21T10:00:00Z');
    }
  });

  test('bad input is refused in German with the typed values kept; nothing is written', async () => {
    const before = await countRows(t.handle, 'api_keys');
    await admin.get('/app/api-keys');
    const past = await admin.post('/app/api-keys', { scope: 'partner:invoices:write', expires: '2026-11-20' });
    assert.equal(past.status, 422);
    assert.match(past.body, /Das Ablaufdatum liegt in der Vergangenheit/);
    assert.match(past.body, /value="partner:invoices:write" checked/);
    assert.match(past.body, /value="2026-11-20"/);
    const none = await admin.post('/app/api-keys', { expires: '' });
    assert.equal(none.status, 422);
    assert.match(none.body, /Bitte wählen Sie mindestens einen Bereich/);
    const garbled = await admin.post('/app/api-keys', { scope: 'partner:invoices:read', expires: 'morgen' });
    assert.equal(garbled.status, 422);
    assert.match(garbled.body, /Bitte geben Sie das Ablaufdatum als Datum an/);
    const unknownScope = await admin.post('/app/api-keys', { scope: 'admin:everything' });
    assert.equal(unknownScope.status, 400);
    assert.equal(await countRows(t.handle, 'api_keys'), before);
  });

  test('revoking asks first and the API refuses the key at once; audited without secrets', async () => {
    const list = await admin.get('/app/api-keys');
    assert.match(
      list.body,
      new RegExp(`action="/app/api-keys/${keyId}/revoke" class="inline" data-confirm="Schlüssel ${key.slice(0, 8)}… wirklich widerrufen\\?`),
    );
    const revoked = await admin.post(`/app/api-keys/${keyId}/revoke`);
    assert.equal(revoked.status, 303);
    assert.equal(revoked.location, '/app/api-keys?revoked=1');
    const refused = await api('GET', '/v1/customers/by-ref/crm/nobody', key);
    assert.equal(refused.statusCode, 401);
    assert.equal(refused.json().detail.code, 'api_key_invalid');
    const after = await admin.get('/app/api-keys?revoked=1');
    assert.match(after.body, /Der Schlüssel wurde widerrufen/);
    assert.match(after.body, /<span class="badge">Widerrufen<\/span>/);
    assert.ok(!after.body.includes(`/app/api-keys/${keyId}/revoke`), 'no second revoke button');
    const audit = await t.handle.db
      .selectFrom('audit_log')
      .select(['action', 'before', 'after', 'user_id'])
      .where('subject_id', '=', keyId)
      .orderBy('seq')
      .execute();
    assert.deepEqual(
      audit.map((a) => a.action),
      ['api_key.created', 'api_key.revoked'],
    );
    assert.ok(!JSON.stringify(audit).includes(key));
    assert.match((await admin.get('/app/audit')).body, /API-Schlüssel widerrufen/);
  });

  test('members may not; another company’s key is not found; a malformed id neither', async () => {
    assert.equal((await member.get('/app/api-keys')).status, 403);
    await member.get('/app/dashboard');
    const before = await countRows(t.handle, 'api_keys');
    assert.equal((await member.post('/app/api-keys', { scope: 'partner:invoices:read' })).status, 403);
    assert.equal((await member.post(`/app/api-keys/${keyId}/revoke`)).status, 403);
    assert.equal(await countRows(t.handle, 'api_keys'), before);

    await admin.get('/app/api-keys');
    const foreign = await admin.post(`/app/api-keys/${otherKeyId}/revoke`);
    assert.equal(foreign.status, 404);
    const row = await t.handle.db.selectFrom('api_keys').select('revoked_at').where('id', '=', otherKeyId).executeTakeFirstOrThrow();
    assert.equal(row.revoked_at, null, 'the other company’s key still works');
    assert.ok(!(await admin.get('/app/api-keys')).body.includes(otherKeyId));
    assert.equal((await admin.post('/app/api-keys/key_x%27%3B/revoke')).status, 404);
    // Without the form's token: refused.
    assert.equal((await admin.post('/app/api-keys', { _csrf: 'falsch', scope: 'partner:invoices:read' })).status, 403);
  });
});
