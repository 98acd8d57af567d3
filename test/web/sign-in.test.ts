import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { deactivateUser, setUserRole } from '../../src/modules/access/manage-users.ts';
import { countRows, type TestApp, testApp } from '../helpers/app.ts';
import { signedIn, WebClient } from './client.ts';

// Issue 15, point 1 and its attacks: sign-in with e-mail and password (the one-time password
// must be changed first), sessions in HttpOnly SameSite cookies stored server-side, ended by
// sign-out, sign-out everywhere, inactivity and deactivation; CSRF on every change; sign-in
// throttled per account and per address with one message for a wrong password and an
// unknown e-mail; admin-only pages; nothing of another company.

describe('back-office sign-in and sessions', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp();
  });
  after(() => t.close());

  test('the one-time password signs in once and must be replaced before anything else', async () => {
    const company = await t.newCompany('first');
    const client = new WebClient(t.app);
    const page = await client.get('/app/invoices');
    assert.equal(page.status, 303);
    assert.match(page.location ?? '', /^\/app\/sign-in\?next=%2Fapp%2Finvoices$/);
    const signIn = await client.signIn(company.adminEmail, company.password);
    assert.equal(signIn.status, 303);
    assert.equal(signIn.location, '/app/password');
    const cookie = signIn.setCookie.find((c) => c.startsWith('kontor_session=')) ?? '';
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /SameSite=Lax/);
    assert.match(cookie, /Path=\/app/);
    // Every other page sends the person to the password change first.
    assert.equal((await client.get('/app/dashboard')).location, '/app/password');
    const form = await client.get('/app/password');
    assert.equal(form.status, 200);
    assert.match(form.body, /Einmal-Passwort/);
    for (const [next, repeat, current, message] of [
      ['kurz', 'kurz', company.password, 'zu kurz'],
      ['ein langes Passwort', 'ein anderes Passwort', company.password, 'stimmen nicht überein'],
      ['ein langes Passwort', 'ein langes Passwort', 'falsch falsch falsch', 'aktuelle Passwort ist falsch'],
      [company.password, company.password, company.password, 'muss sich vom aktuellen unterscheiden'],
    ] as const) {
      const refused = await client.post('/app/password', { current, next, repeat });
      assert.equal(refused.status, 422);
      assert.match(refused.body, new RegExp(message));
    }
    const changed = await client.post('/app/password', { current: company.password, next: 'mein neues Passwort', repeat: 'mein neues Passwort' });
    assert.equal(changed.location, '/app/dashboard');
    const dashboard = await client.get('/app/dashboard');
    assert.equal(dashboard.status, 200);
    assert.match(dashboard.body, /<h1>Übersicht<\/h1>/);
    // The one-time password no longer works; the new one does, without a forced change.
    const again = new WebClient(t.app);
    assert.equal((await again.signIn(company.adminEmail, company.password)).status, 401);
    const withNew = await again.signIn(company.adminEmail, 'mein neues Passwort');
    assert.equal(withNew.location, '/app/dashboard');
  });

  test('a wrong password and an unknown e-mail get the same answer; the account is locked after 5 failures', async () => {
    const company = await t.newCompany('throttle');
    const client = await signedIn(t, 'das richtige Passwort', company);
    const stranger = new WebClient(t.app, '203.0.113.9');
    const unknown = await stranger.signIn('niemand@example.com', 'irgendwas irgendwas');
    const wrong = await stranger.signIn(company.adminEmail, 'irgendwas irgendwas');
    assert.equal(unknown.status, 401);
    assert.equal(wrong.status, 401);
    const message = (body: string) => /<p class="flash[^>]*>([^<]*)<\/p>/.exec(body)?.[1];
    assert.equal(message(unknown.body), 'E-Mail-Adresse oder Passwort ist falsch.');
    assert.equal(message(wrong.body), message(unknown.body));
    for (let i = 0; i < 4; i++) await stranger.signIn(company.adminEmail, 'irgendwas irgendwas');
    // Fifth failure done: now even the right password is refused, from any address.
    const locked = await new WebClient(t.app, '192.0.2.44').signIn(company.adminEmail, 'das richtige Passwort');
    assert.equal(locked.status, 429);
    assert.match(message(locked.body) ?? '', /Zu viele Fehlversuche\. Bitte in 15 Minuten/);
    // An unknown e-mail is locked the same way (nothing tells which accounts exist).
    for (let i = 0; i < 5; i++) await stranger.signIn('niemand2@example.com', 'x');
    assert.equal((await new WebClient(t.app, '192.0.2.45').signIn('niemand2@example.com', 'x')).status, 429);
    // The session that was open stays open; after the lock, the password works again.
    assert.equal((await client.get('/app/dashboard')).status, 200);
    t.clock.set(new Date(t.clock.now().getTime() + 16 * 60 * 1000).toISOString());
    assert.equal((await new WebClient(t.app).signIn(company.adminEmail, 'das richtige Passwort')).status, 303);
    // No e-mail or address is stored in the throttle table.
    const keys = await t.handle.db.selectFrom('sign_in_throttle').select('key').execute();
    assert.ok(keys.every((k) => /^(account|address):[0-9a-f]{64}$/.test(k.key)));
  });

  test('one address is locked after 20 failures, whatever e-mails it tries', async () => {
    const company = await t.newCompany('address');
    await signedIn(t, 'das richtige Passwort', company);
    const guesser = new WebClient(t.app, '203.0.113.200');
    for (let i = 0; i < 20; i++) await guesser.signIn(`probe-${i}@example.com`, 'x');
    assert.equal((await guesser.signIn(company.adminEmail, 'das richtige Passwort')).status, 429);
    assert.equal((await new WebClient(t.app, '203.0.113.201').signIn(company.adminEmail, 'das richtige Passwort')).status, 303);
  });

  test('sessions end after an hour without a request, at sign-out, and everywhere at once', async () => {
    const company = await t.newCompany('sessions');
    const a = await signedIn(t, 'das richtige Passwort', company);
    const b = await signedIn(t, 'das richtige Passwort', company);
    t.clock.set(new Date(t.clock.now().getTime() + 59 * 60 * 1000).toISOString());
    assert.equal((await a.get('/app/dashboard')).status, 200);
    t.clock.set(new Date(t.clock.now().getTime() + 61 * 60 * 1000).toISOString());
    // a was active 61 minutes ago, b 120: both ended.
    const ended = await a.get('/app/dashboard');
    assert.equal(ended.status, 303);
    assert.match(ended.location ?? '', /ended=1/);
    assert.equal((await b.get('/app/dashboard')).status, 303);
    // Sign out everywhere ends the other session too.
    const c = await signedIn(t, 'das richtige Passwort', company);
    const d = await signedIn(t, 'das richtige Passwort', company);
    await c.get('/app/dashboard');
    const out = await c.post('/app/sign-out-everywhere');
    assert.equal(out.location, '/app/sign-in?out=1');
    assert.equal((await d.get('/app/dashboard')).status, 303);
    assert.equal((await c.get('/app/dashboard')).status, 303);
    // Sign-out ends only this one; the old cookie opens nothing afterwards.
    const e = await signedIn(t, 'das richtige Passwort', company);
    const f = await signedIn(t, 'das richtige Passwort', company);
    const stolen = e.cookies.get('kontor_session') as string;
    await e.get('/app/dashboard');
    await e.post('/app/sign-out');
    assert.equal((await f.get('/app/dashboard')).status, 200);
    const replay = new WebClient(t.app);
    replay.cookies.set('kontor_session', stolen);
    assert.equal((await replay.get('/app/dashboard')).status, 303);
    // A made-up token opens nothing either, and no session row holds a token in clear.
    const forged = new WebClient(t.app);
    forged.cookies.set('kontor_session', 'x'.repeat(43));
    assert.equal((await forged.get('/app/dashboard')).status, 303);
    const ids = await t.handle.db.selectFrom('app_sessions').select('id').execute();
    assert.ok(ids.every((row) => /^[0-9a-f]{64}$/.test(row.id) && row.id !== stolen));
  });

  test('a deactivated person is signed out at the next request and cannot sign in', async () => {
    const company = await t.newCompany('deactivated');
    const client = await signedIn(t, 'das richtige Passwort', company);
    await deactivateUser(t.handle.db, t.clock, company.adminEmail);
    assert.equal((await client.get('/app/dashboard')).status, 303);
    assert.equal((await new WebClient(t.app).signIn(company.adminEmail, 'das richtige Passwort')).status, 401);
  });

  test("every change needs the session's CSRF token and this origin; a refused change changes nothing", async () => {
    const company = await t.newCompany('csrf');
    const client = await signedIn(t, 'das richtige Passwort', company);
    await client.get('/app/dashboard');
    const sessionsBefore = await countRows(t.handle, 'app_sessions');
    for (const [form, headers] of [
      [{ _csrf: '' }, {}],
      [{ _csrf: 'a'.repeat(43) }, {}],
      [{}, { origin: 'https://evil.example' }],
    ] as const) {
      const refused = await client.post('/app/sign-out-everywhere', form, headers);
      assert.equal(refused.status, 403);
      assert.match(refused.body, /Formular ist abgelaufen/);
      assert.equal((await client.get('/app/dashboard')).status, 200, 'the session is still open');
    }
    const refusedPassword = await client.post('/app/password', {
      _csrf: '',
      current: 'das richtige Passwort',
      next: 'ein ganz anderes Passwort',
      repeat: 'ein ganz anderes Passwort',
    });
    assert.equal(refusedPassword.status, 403);
    assert.equal((await new WebClient(t.app).signIn(company.adminEmail, 'das richtige Passwort')).status, 303, 'the password is unchanged');
    assert.equal(await countRows(t.handle, 'app_sessions'), sessionsBefore + 1);
  });

  test('a sign-in from a foreign Origin is refused (login CSRF); a cross-site POST signs nobody out', async () => {
    const company = await t.newCompany('origin');
    await signedIn(t, 'das richtige Passwort', company);
    const sessionsBefore = await countRows(t.handle, 'app_sessions');
    // A form on another site that would sign this browser in (as the attacker) is refused.
    const forged = new WebClient(t.app);
    await forged.get('/app/sign-in');
    const refused = await forged.post('/app/sign-in', { email: company.adminEmail, password: 'das richtige Passwort' }, { origin: 'https://evil.example' });
    assert.equal(refused.status, 403);
    assert.match(refused.body, /Die Anmeldung kam von einer fremden Seite und wurde abgewiesen/);
    assert.deepEqual(refused.setCookie, [], 'no session cookie');
    assert.equal(await countRows(t.handle, 'app_sessions'), sessionsBefore);
    // This server's own Origin signs in.
    const own = await forged.post('/app/sign-in', { email: company.adminEmail, password: 'das richtige Passwort' }, { origin: 'http://kontor.test' });
    assert.equal(own.status, 303);
    assert.equal(own.location, '/app/dashboard');
    // A cross-site form reaches the server without the SameSite=Lax cookie: refused with a
    // German page, and the browser's cookie is not cleared (the person stays signed in).
    const crossSite = await t.app.inject({
      method: 'POST',
      url: '/app/sign-out-everywhere',
      headers: { host: 'kontor.test', origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
      payload: '',
    });
    assert.equal(crossSite.statusCode, 403);
    assert.match(crossSite.body, /Das Formular ist abgelaufen/);
    assert.equal(crossSite.headers['set-cookie'], undefined);
    // With the cookie (a same-site subdomain) and a foreign Origin: refused, the session stays.
    await forged.get('/app/dashboard');
    const withCookie = await forged.post('/app/sign-out-everywhere', {}, { origin: 'https://evil.example' });
    assert.equal(withCookie.status, 403);
    assert.deepEqual(withCookie.setCookie, []);
    assert.equal((await forged.get('/app/dashboard')).status, 200, 'still signed in');
  });

  test('the bank upload (multipart) checks the Origin like every other POST', async () => {
    const company = await t.newCompany('upload');
    const client = await signedIn(t, 'das richtige Passwort', company);
    const page = await client.get('/app/bank');
    const token = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1] as string;
    const boundary = '----kontor-origin-test';
    const payload = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${token}\r\n--${boundary}\r\nContent-Disposition: form-data; name="statement"; filename="a.xml"\r\nContent-Type: application/xml\r\n\r\n<Document/>\r\n--${boundary}--\r\n`,
    );
    const upload = (origin: string) =>
      t.app.inject({
        method: 'POST',
        url: '/app/bank/import',
        headers: {
          host: 'kontor.test',
          origin,
          cookie: `kontor_session=${client.cookies.get('kontor_session')}`,
          'content-type': `multipart/form-data; boundary=${boundary}`,
        },
        payload,
      });
    const foreign = await upload('https://evil.example');
    assert.equal(foreign.statusCode, 403);
    assert.match(foreign.body, /Das Formular ist abgelaufen/);
    assert.equal(foreign.headers['set-cookie'], undefined);
    assert.equal(await countRows(t.handle, 'bank_entries'), 0);
    // The same upload from this origin reaches the importer (which refuses the file as no statement).
    const own = await upload('http://kontor.test');
    assert.notEqual(own.statusCode, 403);
    assert.equal((await client.get('/app/dashboard')).status, 200);
  });

  test('a member may not open an admin page; an admin may', async () => {
    const company = await t.newCompany('roles');
    const admin = await signedIn(t, 'das richtige Passwort', company);
    assert.equal((await admin.get('/app/users')).status, 200);
    assert.match(admin.lastBody, /href="\/app\/users"/);
    await setUserRole(t.handle.db, t.clock, company.adminEmail, 'member');
    const page = await admin.get('/app/users');
    assert.equal(page.status, 403);
    assert.match(page.body, /Rolle Administrator/);
    const dashboard = await admin.get('/app/dashboard');
    assert.equal(dashboard.status, 200);
    assert.doesNotMatch(dashboard.body, /href="\/app\/users"/, 'the navigation hides what the role cannot open');
  });

  test('a person sees only their companies: switching to another company is not found', async () => {
    const mine = await t.newCompany('mine');
    const theirs = await t.newCompany('theirs');
    const client = await signedIn(t, 'das richtige Passwort', mine);
    await client.get('/app/dashboard');
    const refused = await client.post('/app/company', { company_id: theirs.companyId });
    assert.equal(refused.status, 404);
    assert.doesNotMatch(refused.body, /theirs GmbH/);
    const dashboard = await client.get('/app/dashboard');
    assert.match(dashboard.body, /mine GmbH/);
    assert.doesNotMatch(dashboard.body, /theirs GmbH/);
  });

  test('pages carry a strict content security policy and are not cached', async () => {
    const client = await signedIn(t, 'das richtige Passwort', await t.newCompany('headers'));
    const res = await t.app.inject({ method: 'GET', url: '/app/dashboard', headers: { cookie: `kontor_session=${client.cookies.get('kontor_session')}` } });
    assert.match(String(res.headers['content-security-policy']), /script-src 'self'/);
    assert.equal(res.headers['x-frame-options'], 'DENY');
    assert.equal(res.headers['cache-control'], 'no-store');
  });
});
