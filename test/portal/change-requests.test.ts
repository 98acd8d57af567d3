import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { simpleParser } from 'mailparser';
import type { PartnerChangeKind } from '../../src/db/schema-portal.ts';
import { runDueWork } from '../../src/jobs/index.ts';
import { setPayoutAccount } from '../../src/modules/commissions/index.ts';
import { createMailer } from '../../src/modules/mail/index.ts';
import { ChangeRequestError, confirmPartnerChange, invitePartnerAccount, type PortalSession, requestPartnerChange } from '../../src/modules/portal/index.ts';
import { putPartner, SELF_BILLING_PARTNER } from '../commissions/helpers.ts';
import { sealer, type TestApp, testApp } from '../helpers/app.ts';
import { signedIn, signedInMember, WebClient } from '../web/client.ts';

// Issue 27 §3, third point: the partner asks in the portal to change its payout account,
// address, VAT ID or tax number; an admin of the company confirms or rejects it in the app
// (four eyes); until then nothing changes; the partner and the company are mailed at each
// step, the IBAN masked only.

const PASSWORD = 'Partnerportal-2026!';
const OLD_IBAN = 'DE89370400440532013000';
const NEW_IBAN = 'DE02120300000000202051';

describe('change requests of a partner', () => {
  let t: TestApp;
  let partnerId: string;
  let otherPartnerId: string;
  let idaAccountId: string;
  let ida: WebClient;
  let jan: WebClient;
  let admin: WebClient;
  const db = () => t.handle.db;
  const actor = () => ({ userId: t.company.userId, organizationId: t.company.organizationId, companyId: t.company.companyId, email: t.company.adminEmail });
  const deps = () => ({ db: t.handle.db, clock: t.clock, sealer });
  const work = () =>
    runDueWork(
      { db: t.handle.db, clock: t.clock, mailer: createMailer({ dataDir: t.dataDir, sealer }), services: { portal: { sealer } } },
      { asOf: '2026-11-20', companyId: t.company.companyId, log: () => {} },
    );
  const outbox = () => path.join(t.dataDir, 'outbox', t.company.companyId);
  /** The outbox's files now (names sort by the second they were written, then by Message-ID: not by order within a second). */
  const mark = () => new Set(readdirSync(outbox()));
  /** The mails written since `seen`, decoded (from the files as written: outboxMails joins soft line breaks, which folded headers end in too). */
  const mailsSince = async (seen: Set<string>) => {
    const dir = outbox();
    return Promise.all(
      readdirSync(dir)
        .filter((name) => !seen.has(name))
        .map(async (name) => {
          const raw = readFileSync(path.join(dir, name), 'utf8');
          const mail = await simpleParser(raw);
          return { raw, to: mail.to && !Array.isArray(mail.to) ? mail.to.text : '', subject: mail.subject ?? '', text: mail.text ?? '' };
        }),
    );
  };
  const requests = () => db().selectFrom('partner_change_requests').selectAll().orderBy('requested_at').orderBy('id').execute();
  const partnerRow = (id = partnerId) => db().selectFrom('commission_partners').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const portalClient = async (id: string, email: string) => {
    const invitation = await invitePartnerAccount(deps(), actor(), {
      companyId: t.company.companyId,
      partnerId: id,
      email,
      portalUrl: 'http://kontor.test/portal',
    });
    const client = new WebClient(t.app);
    await client.get(`/portal/invitation/${invitation.token}`);
    const set = await client.post(`/portal/invitation/${invitation.token}`, { password: PASSWORD, repeat: PASSWORD });
    assert.equal(set.status, 303);
    return { client, accountId: invitation.account_id };
  };
  /** Posts a request from the partner's account page. */
  const ask = async (client: WebClient, form: Record<string, string>) => {
    await client.get('/portal/account');
    return client.post('/portal/change-requests', form);
  };
  const pendingId = async (kind: PartnerChangeKind) =>
    (await db().selectFrom('partner_change_requests').select('id').where('kind', '=', kind).where('status', '=', 'pending').executeTakeFirstOrThrow()).id;
  const decide = async (client: WebClient, id: string, decision: 'confirm' | 'reject', form: Record<string, string> = {}, partner = partnerId) => {
    await client.get(`/app/partners/${partner}`);
    return client.post(`/app/partners/${partner}/change-requests/${id}/${decision}`, form);
  };

  before(async () => {
    t = await testApp();
    t.clock.set('2026-11-20T09:00:00Z');
    partnerId = await putPartner(t, 'ida', { ...SELF_BILLING_PARTNER, name: 'Ida Vertrieb', tax_number: '27/123/45678' });
    otherPartnerId = await putPartner(t, 'jan', { name: 'Jan Empfehlungen' });
    await setPayoutAccount(deps(), t.company.companyId, partnerId, { iban: OLD_IBAN, bic: null }, actor());
    const signedInIda = await portalClient(partnerId, 'ida@partner.example');
    ida = signedInIda.client;
    idaAccountId = signedInIda.accountId;
    jan = (await portalClient(otherPartnerId, 'jan@partner.example')).client;
    admin = await signedIn(t);
    await work();
  });
  after(() => t.close());

  test('the partner asks for a payout account: a wrong IBAN is refused in German, nothing written; a right one waits, nothing changes, both are mailed with the IBAN masked', async () => {
    const page = await ida.get('/portal/account');
    assert.equal(page.status, 200);
    assert.match(page.body, /<h2 id="data-heading">Ihre Daten<\/h2>/);
    assert.match(page.body, /<dt>Auszahlungskonto<\/dt><dd class="mono">DE89 •••• 3000<\/dd>/);
    assert.match(page.body, /<dt>Anschrift<\/dt><dd>Weg 1, 10115 Berlin, DE<\/dd>/);

    const wrong = await ask(ida, { kind: 'payout_account', iban: 'DE89 3704 0044 0532 0130 01', bic: '' });
    assert.equal(wrong.status, 422);
    assert.match(wrong.body, /Bitte prüfen Sie Ihre Angaben\./);
    assert.match(wrong.body, /aria-invalid="true"/);
    assert.match(wrong.body, /Die IBAN ist ungültig: Bitte prüfen Sie Länderkennung, Länge und Prüfziffer\./);
    assert.match(wrong.body, /<details open><summary>Auszahlungskonto<\/summary>/);
    const same = await ask(ida, { kind: 'payout_account', iban: 'de89 3704 0044 0532 0130 00' });
    assert.equal(same.status, 422);
    assert.match(same.body, /Das ist bereits hinterlegt\./);
    assert.equal((await requests()).length, 0, 'nothing written');

    const mailsBefore = mark();
    const asked = await ask(ida, { kind: 'payout_account', iban: 'DE02 1203 0000 0000 2020 51', bic: 'byladem1001' });
    assert.equal(asked.status, 303);
    const shown = await ida.get(asked.location as string);
    assert.match(shown.body, /Ihre Änderung ist beantragt\. main GmbH bestätigt sie; bis dahin bleibt alles wie bisher\./);
    assert.match(shown.body, /<h2 id="pending-heading">Offene Anträge<\/h2>/);
    assert.match(shown.body, /<td class="strong">DE02 •••• 2051 · BIC BYLADEM1001<\/td>/);

    const [row] = await requests();
    assert.ok(row);
    assert.equal(row.status, 'pending');
    assert.equal(row.account_id, idaAccountId);
    assert.deepEqual(row.current, { iban_masked: 'DE89 •••• 3000', bic: null });
    assert.equal(row.requested.iban_masked, 'DE02 •••• 2051');
    assert.equal(sealer.open(row.requested.iban_sealed as string), NEW_IBAN, 'the sealed IBAN opens to the requested one');
    assert.doesNotMatch(JSON.stringify(row), /DE02120300000000202051|DE89370400440532013000/, 'no IBAN in clear text in the table');
    const partner = await partnerRow();
    assert.equal(partner.iban_masked, 'DE89 •••• 3000', 'nothing changed on the partner');
    assert.equal(sealer.open(partner.iban_sealed as string), OLD_IBAN);
    const audit = await db().selectFrom('audit_log').selectAll().where('action', '=', 'partner.change_requested').executeTakeFirstOrThrow();
    assert.equal(audit.partner_account_id, idaAccountId);
    assert.equal(audit.user_id, null);

    await work();
    const mails = await mailsSince(mailsBefore);
    assert.equal(mails.length, 2);
    const company = mails.find((m) => m.to === 'rechnung@muster.example');
    const receipt = mails.find((m) => m.to === 'ida@partner.example');
    assert.ok(company && receipt, mails.map((m) => m.to).join(', '));
    assert.equal(company.subject, 'Ida Vertrieb beantragt eine Änderung: Auszahlungskonto');
    assert.match(
      company.text,
      /Der Partner Ida Vertrieb \(Kreditor \d+\) hat am 20\. November 2026 um 10:00 im Partnerportal \(ida@partner\.example\) beantragt, sein Auszahlungskonto zu ändern\./,
    );
    assert.match(company.text, /Bisher: DE89 •••• 3000\nBeantragt: DE02 •••• 2051 · BIC BYLADEM1001/);
    assert.match(company.text, /Bis zur Bestätigung ändert sich nichts\. .*\(nur ein Administrator\):\n\/app\/partners\/cpt_[0-9a-z]{26}/);
    assert.ok(company.text.includes(`/app/partners/${partnerId}`));
    assert.equal(receipt.subject, 'Ihr Antrag: Auszahlungskonto ändern');
    assert.match(receipt.text, /Guten Tag Ida Vertrieb,/);
    assert.match(receipt.text, /Sie haben am 20\. November 2026 um 10:00 im Partnerportal beantragt, Ihr Auszahlungskonto zu ändern\./);
    assert.match(receipt.text, /Beantragt: DE02 •••• 2051 · BIC BYLADEM1001/);
    assert.match(receipt.text, /main GmbH prüft und bestätigt die Änderung; bis dahin bleibt alles wie bisher\./);
    for (const mail of mails) {
      assert.doesNotMatch(`${mail.raw}\n${mail.text}`, /DE0212030000|1203 0000 0000 2020|DE8937040044|3704 0044/, 'no IBAN in clear text in a mail');
    }
  });

  test('a member sees the request but cannot confirm it (403, nothing changes); the module refuses a non-admin too', async () => {
    const member = await signedInMember(t, 'mitglied@muster.example');
    const page = await member.client.get(`/app/partners/${partnerId}`);
    assert.equal(page.status, 200);
    assert.match(page.body, /<h2 id="change-requests-heading">Änderungsanträge des Partners<\/h2>/);
    assert.match(page.body, /<dd class="strong">DE02 •••• 2051 · BIC BYLADEM1001<\/dd>/);
    assert.match(page.body, /Bestätigen oder ablehnen kann nur ein Administrator der Firma\./);
    assert.doesNotMatch(page.body, /change-requests\/pcr_[0-9a-z]+\/confirm/);
    const id = await pendingId('payout_account');
    const refused = await member.client.post(`/app/partners/${partnerId}/change-requests/${id}/confirm`);
    assert.equal(refused.status, 403);
    await assert.rejects(
      confirmPartnerChange(
        deps(),
        { userId: member.userId, organizationId: t.company.organizationId, companyId: t.company.companyId, email: member.email },
        t.company.companyId,
        id,
      ),
      (error) => error instanceof ChangeRequestError && error.refusal === 'not_admin',
    );
    assert.equal((await partnerRow()).iban_masked, 'DE89 •••• 3000');
    assert.equal((await requests())[0]?.status, 'pending');
  });

  test('the admin confirms: the payout account is the requested one; the payout-account notice and the partner’s confirmation are mailed', async () => {
    const page = await admin.get(`/app/partners/${partnerId}`);
    assert.match(page.body, />Bestätigen<\/button>/);
    assert.match(page.body, /<textarea id="note-pcr_[0-9a-z]{26}" name="note"/);
    const id = await pendingId('payout_account');
    const mailsBefore = mark();
    const confirmed = await decide(admin, id, 'confirm');
    assert.equal(confirmed.status, 303);
    const shown = await admin.get(confirmed.location as string);
    assert.match(shown.body, /Die Änderung ist bestätigt und gilt ab jetzt\. Der Partner erhält eine E-Mail\./);
    assert.match(shown.body, /<span class="mono">DE02 •••• 2051<\/span> · BIC BYLADEM1001/);
    const partner = await partnerRow();
    assert.equal(partner.iban_masked, 'DE02 •••• 2051');
    assert.equal(partner.bic, 'BYLADEM1001');
    assert.equal(sealer.open(partner.iban_sealed as string), NEW_IBAN);
    const row = (await requests())[0];
    assert.equal(row?.status, 'confirmed');
    assert.equal(row?.decided_by, t.company.userId);
    const actions = (await db().selectFrom('audit_log').select('action').where('subject_id', '=', partnerId).execute()).map((a) => a.action);
    assert.ok(actions.includes('partner.change_confirmed') && actions.includes('partner.payout_account_changed'), actions.join());

    await work();
    const mails = await mailsSince(mailsBefore);
    assert.equal(mails.length, 2, mails.map((m) => m.subject).join(' | '));
    const notice = mails.find((m) => m.subject === 'Auszahlungskonto von Ida Vertrieb geändert');
    assert.ok(notice);
    assert.match(notice.text, /auf Antrag des Partners im Partnerportal \(ida@partner\.example\) von admin-main-[^ ]+ bestätigt und geändert\./);
    assert.match(notice.text, /Vorher: DE89 •••• 3000\nJetzt: DE02 •••• 2051/);
    const toPartner = mails.find((m) => m.to === 'ida@partner.example');
    assert.equal(toPartner?.subject, 'Bestätigt: Auszahlungskonto geändert');
    assert.match(
      toPartner?.text ?? '',
      /main GmbH hat am 20\. November 2026 um 10:00 Ihren Antrag bestätigt\. Ab jetzt gilt als Auszahlungskonto: DE02 •••• 2051 · BIC BYLADEM1001/,
    );

    const again = await decide(admin, id, 'confirm');
    assert.equal(again.status, 409);
    assert.match(again.body, /Dieser Antrag ist nicht mehr offen\./);
    const portalPage = await ida.get('/portal/account');
    assert.match(portalPage.body, /<dd class="mono">DE02 •••• 2051 · BIC BYLADEM1001<\/dd>/);
    assert.match(portalPage.body, /<span class="badge ok">bestätigt<\/span>/);
  });

  test('a second request supersedes the first; the partner withdraws; a rejection needs its reason, which the partner is mailed', async () => {
    assert.equal((await ask(ida, { kind: 'tax_number', tax_number: '27/123/99999' })).status, 303);
    assert.equal((await ask(ida, { kind: 'tax_number', tax_number: ' 27/123/11111 ' })).status, 303);
    const taxRows = (await requests()).filter((r) => r.kind === 'tax_number');
    assert.deepEqual(
      taxRows.map((r) => [r.status, r.requested.tax_number]),
      [
        ['superseded', '27/123/99999'],
        ['pending', '27/123/11111'],
      ],
    );
    const twice = await ask(ida, { kind: 'tax_number', tax_number: '27/123/11111' });
    assert.equal(twice.status, 422);
    assert.match(twice.body, /Genau diese Änderung ist bereits beantragt und wartet auf die Bestätigung\./);

    await work();
    const mailsBefore = mark();
    const id = taxRows[1]?.id as string;
    const withdrawn = await ida.post(`/portal/change-requests/${id}/withdraw`);
    assert.equal(withdrawn.status, 303);
    assert.match((await ida.get(withdrawn.location as string)).body, /Ihr Antrag ist zurückgezogen\. Es ändert sich nichts\./);
    assert.equal((await ida.post(`/portal/change-requests/${id}/withdraw`)).status, 409);
    assert.equal((await partnerRow()).tax_number, '27/123/45678');
    await work();
    const mails = await mailsSince(mailsBefore);
    assert.equal(mails.length, 1);
    assert.equal(mails[0]?.subject, 'Ida Vertrieb hat seinen Antrag zurückgezogen: Steuernummer');
    assert.match(mails[0]?.text ?? '', /seinen Antrag zurückgezogen, seine Steuernummer zu ändern\./);

    assert.equal((await ask(ida, { kind: 'address', street: 'Allee', house_number: '2', zip: '20095', city: 'Hamburg', country_code: 'DE' })).status, 303);
    const addressId = await pendingId('address');
    const noNote = await decide(admin, addressId, 'reject', { note: '  ' });
    assert.equal(noNote.status, 422);
    assert.match(noNote.body, /Bitte nennen Sie dem Partner den Grund der Ablehnung\./);
    const afterRequest = mark();
    const rejected = await decide(admin, addressId, 'reject', { note: 'Bitte senden Sie uns zuerst einen Nachweis.' });
    assert.equal(rejected.status, 303);
    assert.equal((await partnerRow()).city, 'Berlin');
    await work();
    const rejection = (await mailsSince(afterRequest)).find((m) => m.subject === 'Abgelehnt: Anschrift ändern');
    assert.ok(rejection);
    assert.equal(rejection.to, 'ida@partner.example');
    assert.match(rejection.text, /Ihren Antrag abgelehnt, Ihre Anschrift zu ändern\. Es bleibt bei: Weg 1, 10115 Berlin, DE/);
    assert.match(rejection.text, /Begründung: Bitte senden Sie uns zuerst einen Nachweis\./);
    assert.match(
      (await ida.get('/portal/account')).body,
      /<span class="badge warn">abgelehnt<\/span><\/td><td>Bitte senden Sie uns zuerst einen Nachweis\.<\/td>/,
    );
  });

  test('address, VAT ID and tax number: asked, confirmed, and written to the partner; a wrong VAT ID is refused', async () => {
    const wrongVat = await ask(ida, { kind: 'vat_id', vat_id: 'DE12345' });
    assert.equal(wrongVat.status, 422);
    assert.match(wrongVat.body, /Die USt-IdNr\. hat nicht das Format ihres Landes, oder ihre Prüfziffer stimmt nicht\./);
    const missing = await ask(ida, { kind: 'address', street: '', house_number: '', zip: '80331', city: 'München', country_code: 'XX' });
    assert.equal(missing.status, 422);
    assert.match(missing.body, /Bitte ausfüllen\./);
    assert.match(missing.body, /Bitte den zweistelligen Ländercode nach ISO 3166 angeben, z\. B\. DE\./);

    t.clock.set('2026-11-20T09:10:00Z');
    assert.equal(
      (await ask(ida, { kind: 'address', street: 'Neue Straße', house_number: '5a', zip: '80331', city: 'München', country_code: 'de' })).status,
      303,
    );
    assert.equal((await ask(ida, { kind: 'vat_id', vat_id: 'de 129 273 398' })).status, 303);
    assert.equal((await ask(ida, { kind: 'tax_number', tax_number: '143/456/78901' })).status, 303);
    const page = await admin.get(`/app/partners/${partnerId}`);
    assert.match(page.body, /<dd class="strong">Neue Straße 5a, 80331 München, DE<\/dd>/);
    assert.match(page.body, /Anschrift, USt-IdNr\. und Steuernummer schreibt auch Ihr System über die API/);
    await work();
    const mailsBefore = mark();
    for (const kind of ['address', 'vat_id', 'tax_number'] as const) assert.equal((await decide(admin, await pendingId(kind), 'confirm')).status, 303, kind);
    const partner = await partnerRow();
    assert.deepEqual(
      [partner.street, partner.house_number, partner.zip, partner.city, partner.country_code, partner.vat_id, partner.tax_number],
      ['Neue Straße', '5a', '80331', 'München', 'DE', 'DE129273398', '143/456/78901'],
    );
    assert.equal(partner.updated_at.toISOString(), '2026-11-20T09:10:00.000Z');
    await work();
    const mails = await mailsSince(mailsBefore);
    assert.equal(mails.filter((m) => m.to === 'ida@partner.example').length, 3);
    const toCompany = mails.find((m) => m.subject === 'Anschrift von Ida Vertrieb geändert');
    assert.ok(toCompany);
    assert.match(toCompany.text, /Die Anschrift des Partners Ida Vertrieb \(Kreditor \d+\) wurde am .* auf seinen Antrag im Partnerportal von admin-main-/);
    assert.match(toCompany.text, /Vorher: Weg 1, 10115 Berlin, DE\nJetzt: Neue Straße 5a, 80331 München, DE/);

    const trail = await admin.get('/app/audit');
    assert.match(trail.body, /Änderung der Anschrift von Ida Vertrieb bestätigt von admin-main-/);
    assert.match(trail.body, /Änderung des Auszahlungskontos von Ida Vertrieb beantragt vom Partner \(ida@partner\.example\)/);
  });

  test('another partner’s request in the portal and another company’s in the app: 404, nothing changes', async () => {
    assert.equal((await ask(ida, { kind: 'tax_number', tax_number: '143/456/00000' })).status, 303);
    const idaRequest = await pendingId('tax_number');
    await jan.get('/portal/account');
    assert.equal((await jan.post(`/portal/change-requests/${idaRequest}/withdraw`)).status, 404);
    await jan.get('/portal/account');
    assert.equal((await jan.post('/portal/change-requests/pcr_nonsense/withdraw')).status, 404);
    assert.doesNotMatch((await jan.get('/portal/account')).body, /143\/456\/00000/);
    assert.equal((await decide(admin, idaRequest, 'confirm', {}, otherPartnerId)).status, 404, 'under another partner');

    const other = await t.newCompany('elsewhere');
    const foreign = await t.request('PUT', '/v1/commission-partners/by-ref/crm/fremd', { key: other.apiKey, body: { name: 'Fremd' } });
    const foreignPartner = foreign.json().id as string;
    const invitation = await invitePartnerAccount(
      deps(),
      { userId: other.userId, organizationId: other.organizationId, companyId: other.companyId },
      { companyId: other.companyId, partnerId: foreignPartner, email: 'fremd@partner.example', portalUrl: 'http://kontor.test/portal' },
    );
    const session: PortalSession = {
      id: 'test',
      csrfToken: 'test',
      accountId: invitation.account_id,
      email: 'fremd@partner.example',
      companyId: other.companyId,
      companyName: 'elsewhere GmbH',
      organizationId: other.organizationId,
      timezone: 'Europe/Berlin',
      partnerId: foreignPartner,
      partnerName: 'Fremd',
    };
    const foreignRequest = await requestPartnerChange(deps(), session, { kind: 'tax_number', values: { tax_number: '99/999/99999' } });
    assert.equal((await decide(admin, foreignRequest.id, 'confirm', {}, partnerId)).status, 404);
    await admin.get(`/app/partners/${partnerId}`);
    assert.equal((await admin.post(`/app/partners/${foreignPartner}/change-requests/${foreignRequest.id}/confirm`)).status, 404);
    const still = await db().selectFrom('partner_change_requests').select('status').where('id', '=', foreignRequest.id).executeTakeFirstOrThrow();
    assert.equal(still.status, 'pending');
    assert.equal((await partnerRow()).tax_number, '143/456/78901');
  });
});
