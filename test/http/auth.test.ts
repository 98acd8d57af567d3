import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { deactivateUser, removeCompanyAccess, revokeApiKey, setUserRole } from '../../src/modules/access/index.ts';
import { type TestApp, testApp } from '../helpers/app.ts';

const CUSTOMER = '/v1/customers/by-ref/crm/auth-1';

async function code(res: { statusCode: number; json(): { detail: { code: string } } }) {
  return `${res.statusCode} ${res.json().detail.code}`;
}

describe('API key authentication (interface §5, check order of design §3)', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp();
    await t.request('PUT', CUSTOMER, { body: { name: 'Auth Kunde' } });
  });
  after(() => t.close());

  test('a valid key reaches its company', async () => {
    const res = await t.request('GET', CUSTOMER);
    assert.equal(res.statusCode, 200);
  });

  test('refuses a request without Authorization with 401 api_key_missing', async () => {
    assert.equal(await code(await t.request('GET', CUSTOMER, { key: null })), '401 api_key_missing');
    const basic = await t.request('GET', CUSTOMER, { key: null, headers: { authorization: 'Basic dXNlcjpwdw==' } });
    assert.equal(await code(basic), '401 api_key_missing');
  });

  test('refuses unknown and malformed keys with 401 api_key_invalid', async () => {
    assert.equal(await code(await t.request('GET', CUSTOMER, { key: `kt_${'A'.repeat(40)}` })), '401 api_key_invalid');
    assert.equal(await code(await t.request('GET', CUSTOMER, { key: 'sk_live_something' })), '401 api_key_invalid');
  });

  test('refuses a revoked key with 401 api_key_invalid', async () => {
    const key = await t.newKey();
    assert.equal((await t.request('GET', CUSTOMER, { key })).statusCode, 200);
    const row = await t.handle.db.selectFrom('api_keys').select('id').where('key_prefix', '=', key.slice(0, 8)).executeTakeFirstOrThrow();
    await revokeApiKey(t.handle.db, t.clock, row.id);
    assert.equal(await code(await t.request('GET', CUSTOMER, { key })), '401 api_key_invalid');
  });

  test('refuses an expired key with 401 api_key_expired', async () => {
    const key = await t.newKey({ expiresOn: '2026-11-30' });
    assert.equal((await t.request('GET', CUSTOMER, { key })).statusCode, 200);
    t.clock.set('2026-12-01T00:00:01Z');
    try {
      assert.equal(await code(await t.request('GET', CUSTOMER, { key })), '401 api_key_expired');
    } finally {
      t.clock.set('2026-11-21T10:00:00Z');
    }
  });

  test('refuses the key of a deactivated creator with 401 api_key_user_inactive', async () => {
    const other = await t.newCompany('inactive');
    await deactivateUser(t.handle.db, t.clock, other.adminEmail);
    assert.equal(await code(await t.request('GET', CUSTOMER, { key: other.apiKey })), '401 api_key_user_inactive');
  });

  test('refuses the key of a creator who is no longer admin with 403 api_key_admin_required', async () => {
    const other = await t.newCompany('member');
    await setUserRole(t.handle.db, t.clock, other.adminEmail, 'member');
    assert.equal(await code(await t.request('GET', CUSTOMER, { key: other.apiKey })), '403 api_key_admin_required');
  });

  test('refuses a key for all companies with 403 api_key_entity_not_single', async () => {
    const key = await t.newKey({ allCompanies: true });
    assert.equal(await code(await t.request('GET', CUSTOMER, { key })), '403 api_key_entity_not_single');
  });

  test('refuses the key of a creator who lost the company with 403 api_key_entity_not_accessible', async () => {
    const other = await t.newCompany('removed');
    await removeCompanyAccess(t.handle.db, other.adminEmail, other.companyId);
    assert.equal(await code(await t.request('GET', CUSTOMER, { key: other.apiKey })), '403 api_key_entity_not_accessible');
  });

  test('refuses a key without the route scope with 403 api_key_scope_missing naming the scope', async () => {
    const key = await t.newKey({ scopes: ['partner:invoices:read'] });
    const res = await t.request('PUT', CUSTOMER, { key, body: { name: 'x' } });
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().detail.code, 'api_key_scope_missing');
    assert.equal(res.json().detail.scope, 'partner:customers:write');
    const read = await t.request('GET', CUSTOMER, { key });
    assert.equal(read.statusCode, 200, 'the read scope still reads');
  });

  test('checks in order: version, key, expiry, creator active, admin, single company, reachable, scope, body', async () => {
    // Version before key.
    const noKeyBadVersion = await t.request('GET', CUSTOMER, { key: null, headers: { 'service-version': '1999-01-01' } });
    assert.equal(await code(noKeyBadVersion), '400 api_version_unknown');
    // Expired before creator inactive.
    const other = await t.newCompany('order');
    const expiring = await t.newKey({ company: other, expiresOn: '2026-11-22' });
    await deactivateUser(t.handle.db, t.clock, other.adminEmail);
    t.clock.set('2026-11-23T00:00:00Z');
    try {
      assert.equal(await code(await t.request('GET', CUSTOMER, { key: expiring })), '401 api_key_expired');
    } finally {
      t.clock.set('2026-11-21T10:00:00Z');
    }
    // Creator inactive before admin role.
    const third = await t.newCompany('order2');
    await setUserRole(t.handle.db, t.clock, third.adminEmail, 'member');
    await deactivateUser(t.handle.db, t.clock, third.adminEmail);
    assert.equal(await code(await t.request('GET', CUSTOMER, { key: third.apiKey })), '401 api_key_user_inactive');
    // Scope before body validation.
    const readOnly = await t.newKey({ scopes: ['partner:invoices:read'] });
    const res = await t.request('PUT', CUSTOMER, { key: readOnly, body: { unknown_field: 1 } });
    assert.equal(await code(res), '403 api_key_scope_missing');
    // Key before body parsing.
    const malformed = await t.request('PUT', CUSTOMER, { key: null, body: '{"name":' });
    assert.equal(await code(malformed), '401 api_key_missing');
  });

  test('another company gets 404 for this company records', async () => {
    const other = await t.newCompany('stranger');
    assert.equal(await code(await t.request('GET', CUSTOMER, { key: other.apiKey })), '404 customer_not_found');
  });
});

describe('verified keys are cached briefly', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp({ authCacheMs: 300 });
  });
  after(() => t.close());

  test('a revocation takes effect once the cache entry ends', async () => {
    const key = await t.newKey();
    const path = '/v1/customers/by-ref/crm/nobody';
    assert.equal((await t.request('GET', path, { key })).statusCode, 404);
    const row = await t.handle.db.selectFrom('api_keys').select('id').where('key_prefix', '=', key.slice(0, 8)).executeTakeFirstOrThrow();
    await revokeApiKey(t.handle.db, t.clock, row.id);
    assert.equal((await t.request('GET', path, { key })).statusCode, 404, 'still cached right after the revocation');
    await sleep(350);
    assert.equal(await code(await t.request('GET', path, { key })), '401 api_key_invalid');
  });
});
