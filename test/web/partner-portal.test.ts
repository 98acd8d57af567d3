import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runDueWork } from '../../src/jobs/index.ts';
import { createMailer } from '../../src/modules/mail/index.ts';
import '../../src/modules/portal/index.ts';
import { putPartner } from '../commissions/helpers.ts';
import { sealer, type TestApp, testApp } from '../helpers/app.ts';
import { outboxMails } from '../helpers/outbox.ts';
import { signedIn, type WebClient } from './client.ts';

// Issue 27 §1: the partner page's "Partnerportal" box: invite by e-mail address (the link
// mailed from the company's mailbox), the accounts with their state, deactivation.

describe('the partner page: Partnerportal', () => {
  let t: TestApp;
  let web: WebClient;
  let partnerId: string;
  const outbox = () => outboxMails(t.dataDir, t.company.companyId);
  const work = () =>
    runDueWork(
      { db: t.handle.db, clock: t.clock, mailer: createMailer({ dataDir: t.dataDir, sealer }), services: { portal: { sealer } } },
      { asOf: '2026-11-21', companyId: t.company.companyId, log: () => {} },
    );

  before(async () => {
    t = await testApp();
    partnerId = await putPartner(t, 'web-portal', { email: 'kontakt@partner.example' });
    web = await signedIn(t);
  });
  after(() => t.close());

  test('invite: the link goes by mail from the company, the page lists the account as invited; a wrong address is refused in German', async () => {
    const page = await web.get(`/app/partners/${partnerId}`);
    assert.equal(page.status, 200);
    assert.match(page.body, /<h2 id="portal-heading">Partnerportal<\/h2>/);
    assert.match(page.body, /Noch kein Zugang\./);

    const wrong = await web.post(`/app/partners/${partnerId}/portal-invite`, { email: 'kein-mail' });
    assert.equal(wrong.status, 422);
    assert.match(wrong.body, /Bitte geben Sie eine gültige E-Mail-Adresse ein\./);
    assert.equal((await t.handle.db.selectFrom('partner_accounts').select('id').execute()).length, 0, 'nothing written');

    const before = outbox().length;
    const invited = await web.post(`/app/partners/${partnerId}/portal-invite`, { email: 'Ida@Partner.Example' });
    assert.equal(invited.status, 303);
    const shown = await web.get(invited.location as string);
    assert.match(shown.body, /Die Einladung an ida@partner\.example ist unterwegs\./);
    assert.match(shown.body, /<td>ida@partner\.example<\/td><td><span class="badge warn">eingeladen<\/span>/);
    assert.equal(/invitation\/[A-Za-z0-9_-]{43}/.test(shown.body), false, 'the person never sees the link');

    await work();
    const mails = outbox().slice(before);
    assert.equal(mails.length, 1);
    assert.match(mails[0]!, /^To: ida@partner\.example/m);
    // The app's invitation links to the address the person uses (no KONTOR_PUBLIC_URL here).
    assert.match(mails[0]!, /http:\/\/kontor\.test\/portal\/invitation\/[A-Za-z0-9_-]{43}/);
  });

  test('deactivate: the account shows as deactivated and can be invited again; another partner’s account or another company’s partner: 404', async () => {
    const account = await t.handle.db.selectFrom('partner_accounts').select('id').where('email', '=', 'ida@partner.example').executeTakeFirstOrThrow();
    const other = await putPartner(t, 'web-portal-other');
    await web.get(`/app/partners/${partnerId}`);
    const wrongPartner = await web.post(`/app/partners/${other}/portal-accounts/${account.id}/deactivate`);
    assert.equal(wrongPartner.status, 404);

    await web.get(`/app/partners/${partnerId}`);
    const off = await web.post(`/app/partners/${partnerId}/portal-accounts/${account.id}/deactivate`);
    assert.equal(off.status, 303);
    const shown = await web.get(off.location as string);
    assert.match(shown.body, /Der Zugang ist deaktiviert\./);
    assert.match(shown.body, /<span class="badge">deaktiviert<\/span>/);
    assert.match(shown.body, /Erneut einladen/);

    const company = await t.newCompany('web-portal-elsewhere');
    const foreign = await t.request('PUT', '/v1/commission-partners/by-ref/crm/foreign', { key: company.apiKey, body: { name: 'Fremd' } });
    const foreignId = foreign.json().id as string;
    assert.equal((await web.get(`/app/partners/${foreignId}`)).status, 404);
    await web.get(`/app/partners/${partnerId}`);
    assert.equal((await web.post(`/app/partners/${foreignId}/portal-invite`, { email: 'x@partner.example' })).status, 404);
    assert.equal((await t.handle.db.selectFrom('partner_accounts').select('id').where('email', '=', 'x@partner.example').execute()).length, 0);
  });
});
