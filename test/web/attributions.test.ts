import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { partnerBalance, postEvent, putAgreement, putAttribution, putPartner } from '../commissions/helpers.ts';
import { type TestApp, testApp } from '../helpers/app.ts';
import { putCustomer } from '../invoicing/helpers.ts';
import { signedIn, signedInMember, type WebClient } from './client.ts';

// Issue 15 (revenue share in the app): attributions proposed while the company wants a person
// to confirm them (attributions_need_confirmation) — confirmed (the customer's paid revenue
// since the attribution's start earns commission, also revenue paid before the confirmation:
// issue 24) or rejected (it earns nothing), each with its audit row; the
// module's refusals shown in German. The clock stands at 2026-11-21 (Berlin).

const TIERS = [{ from_month: 1, to_month: null, percent: 10 }];

describe('attributions in the app', () => {
  let t: TestApp;
  let admin: WebClient;
  let member: WebClient;
  let memberId: string;
  const ids: Record<string, string> = {};
  const memberEmail = 'vertrieb.innendienst@example.com';

  const stored = (id: string) => t.handle.db.selectFrom('commission_attributions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const decide = async (client: WebClient, id: string, step: 'confirm' | 'reject') => {
    await client.get('/app/attributions');
    return client.post(`/app/attributions/${id}/${step}`);
  };

  before(async () => {
    t = await testApp();
    await t.handle.db.updateTable('companies').set({ attributions_need_confirmation: true }).where('id', '=', t.company.companyId).execute();
    await putPartner(t, 'nord', { name: 'Vertriebspartner Nord GmbH' });
    await putPartner(t, 'ada', { name: 'Entwicklerin <i>Ada</i>' });
    await putAgreement(t, 'nord-ag', { partner_ref: 'nord', name: 'Nord 2026', start_date: '2026-01-01', tiers: TIERS });
    await putAgreement(t, 'ada-ag', { partner_ref: 'ada', start_date: '2026-01-01', tiers: TIERS });
    for (const ref of ['kunde-1', 'kunde-2', 'kunde-3']) await putCustomer(t, ref, { name: `Kunde ${ref.slice(-1)} GmbH` });
    const attribute = async (ref: string, agreement: string, customer: string) =>
      (await putAttribution(t, ref, { agreement_ref: agreement, customer: { source: 'crm', external_ref: customer } })).id as string;
    ids.confirm = await attribute('att-1', 'nord-ag', 'kunde-1');
    ids.reject = await attribute('att-2', 'ada-ag', 'kunde-2');
    ids.duelNord = await attribute('duel-nord', 'nord-ag', 'kunde-3');
    ids.duelAda = await attribute('duel-ada', 'ada-ag', 'kunde-3');
    admin = await signedIn(t);
    ({ client: member, userId: memberId } = await signedInMember(t, memberEmail, 'ein Mitglieds-Passwort 8'));
  });
  after(() => t.close());

  test('the proposals wait with partner (as text), customer, agreement and since when; a conflict is marked', async () => {
    const page = await admin.get('/app/attributions');
    assert.equal(page.status, 200);
    assert.match(page.body, /<h1>Zuordnungen<\/h1>/);
    assert.doesNotMatch(page.body, /Einstellung „Zuordnungen bestätigen“ ist aus/);
    assert.equal((page.body.match(/Bestätigen<\/button>/g) ?? []).length, 4);
    assert.match(page.body, /Entwicklerin &lt;i&gt;Ada&lt;\/i&gt;/);
    assert.doesNotMatch(page.body, /<i>Ada/);
    assert.match(page.body, /Kunde 1 GmbH/);
    assert.match(page.body, /Nord 2026/);
    assert.match(page.body, /Vereinbarung ohne Namen/);
    assert.match(page.body, /ab 21\.11\.2026/);
    assert.match(page.body, /<td>API<\/td>/);
    assert.equal((page.body.match(/class="badge warn"[^>]*>Konflikt</g) ?? []).length, 1);
    assert.match(page.body, /data-confirm="Zuordnung wirklich ablehnen\?/);
    assert.match(page.body, /Noch keine Entscheidungen\./);
  });

  test('confirm: active, the customer’s revenue since the start earns commission; audit row and decided list', async () => {
    await postEvent(t, {
      external_ref: 'vorher',
      occurred_at: '2026-11-21T08:00:00Z',
      net_amount: '100.00',
      customer: { source: 'crm', external_ref: 'kunde-1' },
    });
    assert.deepEqual(await partnerBalance(t, 'nord'), { open: 0, statemented: 0, paid: 0 }, 'a proposed attribution earns nothing');
    const confirmed = await decide(admin, ids.confirm as string, 'confirm');
    assert.equal(confirmed.status, 303);
    assert.equal(confirmed.location, '/app/attributions?done=confirmed');
    const row = await stored(ids.confirm as string);
    assert.deepEqual([row.status, row.decided_by], ['active', t.company.adminEmail]);
    assert.ok(row.confirmed_at);
    // The attribution starts today: the 100.00 paid this morning earns 10 % now (issue 24).
    assert.deepEqual(await partnerBalance(t, 'nord'), { open: 1000, statemented: 0, paid: 0 });
    await postEvent(t, {
      external_ref: 'nachher',
      occurred_at: '2026-11-21T11:00:00Z',
      net_amount: '200.00',
      customer: { source: 'crm', external_ref: 'kunde-1' },
    });
    assert.deepEqual(await partnerBalance(t, 'nord'), { open: 1000 + 2000, statemented: 0, paid: 0 });
    const audit = await t.handle.db
      .selectFrom('audit_log')
      .select(['action', 'user_id', 'before', 'after'])
      .where('subject_id', '=', ids.confirm as string)
      .execute();
    assert.equal(audit.length, 1);
    assert.equal(audit[0]?.action, 'attribution.confirmed');
    assert.equal(audit[0]?.user_id, t.company.userId);
    const page = await admin.get(confirmed.location as string);
    assert.match(page.body, /Die Zuordnung ist bestätigt\./);
    assert.match(page.body, /<span class="badge ok">bestätigt<\/span>/);
    assert.match(page.body, new RegExp(`<td>${t.company.adminEmail.replace(/\./g, '\\.')}</td>`));
    assert.equal((page.body.match(/Bestätigen<\/button>/g) ?? []).length, 3);
    // A confirmed one cannot be rejected any more: said in German.
    const refused = await admin.post(`/app/attributions/${ids.confirm}/reject`);
    assert.equal(refused.status, 409);
    assert.match(refused.body, /Die Zuordnung ist bereits bestätigt und kann nicht mehr abgelehnt werden/);
  });

  test('a member rejects: the customer’s revenue earns the partner nothing; a rejected one cannot be confirmed', async () => {
    const rejected = await decide(member, ids.reject as string, 'reject');
    assert.equal(rejected.status, 303);
    const row = await stored(ids.reject as string);
    assert.deepEqual([row.status, row.decided_by], ['rejected', memberEmail]);
    await postEvent(t, {
      external_ref: 'kunde-2-umsatz',
      occurred_at: '2026-11-21T11:00:00Z',
      net_amount: '300.00',
      customer: { source: 'crm', external_ref: 'kunde-2' },
    });
    assert.deepEqual(await partnerBalance(t, 'ada'), { open: 0, statemented: 0, paid: 0 });
    const audit = await t.handle.db
      .selectFrom('audit_log')
      .select(['action', 'user_id'])
      .where('subject_id', '=', ids.reject as string)
      .execute();
    assert.deepEqual(audit, [{ action: 'attribution.rejected', user_id: memberId }]);
    const page = await member.get(rejected.location as string);
    assert.match(page.body, /Die Zuordnung wurde abgelehnt\./);
    assert.match(page.body, /<span class="badge error">abgelehnt<\/span>/);
    const refused = await member.post(`/app/attributions/${ids.reject}/confirm`);
    assert.equal(refused.status, 409);
    assert.match(refused.body, /wurde bereits abgelehnt und kann nicht mehr bestätigt werden/);
    assert.equal((await stored(ids.reject as string)).status, 'rejected');
  });

  test('two partners for one customer: once one is confirmed, the other is refused in German', async () => {
    assert.equal((await decide(admin, ids.duelAda as string, 'confirm')).status, 303);
    const refused = await decide(admin, ids.duelNord as string, 'confirm');
    assert.equal(refused.status, 409);
    assert.match(refused.body, /Ein anderer Partner hat den Kunden im selben Zeitraum bereits\./);
    assert.doesNotMatch(refused.body, /cannot be confirmed/);
    assert.equal((await stored(ids.duelNord as string)).status, 'proposed');
  });

  test('another company sees none of it and cannot decide (404); ids are checked first', async () => {
    const other = await t.newCompany('fremd');
    const stranger = await signedIn(t, 'ein fremdes Passwort 4', other);
    const page = await stranger.get('/app/attributions');
    assert.equal(page.status, 200);
    assert.doesNotMatch(page.body, /Vertriebspartner Nord/);
    assert.match(page.body, /Keine Zuordnungen warten auf Bestätigung\./);
    assert.match(page.body, /Einstellung „Zuordnungen bestätigen“ ist aus/);
    const forged = await stranger.post(`/app/attributions/${ids.duelNord}/reject`);
    assert.equal(forged.status, 404);
    assert.equal((await stored(ids.duelNord as string)).status, 'proposed');
    await stranger.get('/app/attributions');
    assert.equal((await stranger.post('/app/attributions/cat_nope/confirm')).status, 404);
  });
});
