import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { countRows, type TestApp, testApp } from '../helpers/app.ts';
import { AT_BUSINESS_CUSTOMER, invoiceBody, postInvoice, putCustomer } from '../invoicing/helpers.ts';
import { ciiSchemaErrors } from '../invoicing/render/cii-schema.ts';
import { signedIn, type WebClient } from './client.ts';

// Issue 15, point 2: a person issues a draft in the app (the API cannot), sees the German
// VAT warning the API would refuse with, confirms it — recorded with who and when — or is
// stopped by what no confirmation can fix. Every refusal leaves the draft a draft and uses
// no number.

describe('issuing drafts in the app', () => {
  let t: TestApp;
  let web: WebClient;

  async function draft(ref: string, customer = 'kunde-1', vatRate = 19): Promise<string> {
    const res = await postInvoice(
      t,
      invoiceBody(ref, {
        customer: { source: 'crm', external_ref: customer },
        lines: [{ description: 'Workshop in München', quantity: '1', unit: 'Tag', unit_price_net: '1200.00', vat_rate: vatRate }],
      }),
    );
    assert.equal(res.statusCode, 201, res.body);
    return res.json().id;
  }
  const state = async (id: string) =>
    t.handle.db
      .selectFrom('invoices')
      .select(['status', 'number', 'vat_verdict', 'tax_confirmation', 'total_tax_cents'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
  const numbersUsed = async () =>
    (await t.handle.db.selectFrom('number_ranges').select('next_value').where('range_key', 'like', 'invoice:%').executeTakeFirst())?.next_value ?? null;

  before(async () => {
    t = await testApp();
    await putCustomer(t, 'kunde-1');
    await putCustomer(t, 'wien', AT_BUSINESS_CUSTOMER);
    await putCustomer(t, 'no-street', { name: 'Ohne Straße GmbH', street: null, house_number: null });
    web = await signedIn(t);
  });
  after(() => t.close());

  test('a draft without problems is issued with its number, PDF, booking, event and audit row', async () => {
    const id = await draft('plain');
    const detail = await web.get(`/app/invoices/${id}`);
    assert.equal(detail.status, 200);
    assert.match(detail.body, /<h1>Entwurf<\/h1>/);
    assert.match(detail.body, /<button type="submit" class="primary">Rechnung ausstellen<\/button>/);
    const issued = await web.post(`/app/invoices/${id}/issue`);
    assert.equal(issued.status, 303);
    assert.equal(issued.location, `/app/invoices/${id}?done=issued`);
    const row = await state(id);
    assert.equal(row.status, 'issued');
    assert.match(row.number ?? '', /^RE-2026-\d{5}$/);
    assert.equal(row.vat_verdict, 'domestic');
    assert.equal(row.tax_confirmation, null);
    const page = await web.get(issued.location as string);
    assert.match(page.body, new RegExp(`<h1>Rechnung ${row.number}</h1>`));
    assert.match(page.body, /Die Rechnung wurde ausgestellt\./);
    assert.match(page.body, /<iframe class="pdf" src="\/app\/invoices\/[^"]+\/pdf"/);
    assert.match(page.body, /<td>8400<\/td>|<td>4400<\/td>/, 'the revenue booking is listed');
    const pdf = await t.app.inject({
      method: 'GET',
      url: `/app/invoices/${id}/pdf`,
      headers: { cookie: `kontor_session=${web.cookies.get('kontor_session')}` },
    });
    assert.equal(pdf.headers['content-type'], 'application/pdf');
    assert.equal(pdf.rawPayload.subarray(0, 5).toString(), '%PDF-');
    const events = await t.handle.db.selectFrom('events').select('type').where('subject_id', '=', id).execute();
    assert.deepEqual(
      events.map((e) => e.type),
      ['invoice.issued'],
    );
    const audit = await t.handle.db.selectFrom('audit_log').select(['action', 'user_id']).where('subject_id', '=', id).execute();
    assert.deepEqual(audit, [{ action: 'invoice.issued', user_id: t.company.userId }]);
    // Issuing again is refused: it is no draft any more.
    await web.get(`/app/invoices/${id}`);
    const again = await web.post(`/app/invoices/${id}/issue`);
    assert.equal(again.status, 422);
    assert.match(again.body, /kein Entwurf mehr/);
  });

  test('German VAT for a business customer in Austria: shown as a warning, issued only when confirmed, with who and when', async () => {
    const id = await draft('wien', 'wien', 19);
    // The API refuses to issue it (the warning a person confirms).
    const api = await postInvoice(t, invoiceBody('wien-api', { issue: true, customer: { source: 'crm', external_ref: 'wien' } }));
    assert.equal(api.statusCode, 422);
    assert.equal(api.json().detail.code, 'invoice_not_issuable');
    const detail = await web.get(`/app/invoices/${id}`);
    assert.match(detail.body, /Umsatzsteuer-Hinweis bestätigen/);
    assert.match(detail.body, /Position 1 hat 19 % Umsatzsteuer; bei Übergang der Steuerschuld/);
    assert.match(detail.body, /name="confirm_domestic_supply" value="1" required/);
    const before = await numbersUsed();
    const unconfirmed = await web.post(`/app/invoices/${id}/issue`);
    assert.equal(unconfirmed.status, 422);
    assert.match(unconfirmed.body, /Die Rechnung wurde nicht ausgestellt/);
    assert.equal((await state(id)).status, 'draft');
    assert.equal(await numbersUsed(), before, 'no number used');
    const confirmed = await web.post(`/app/invoices/${id}/issue`, { confirm_domestic_supply: '1' });
    assert.equal(confirmed.status, 303);
    const row = await state(id);
    assert.equal(row.status, 'issued');
    assert.equal(row.vat_verdict, 'domestic');
    assert.equal(row.total_tax_cents, 22800);
    const confirmation = (typeof row.tax_confirmation === 'string' ? JSON.parse(row.tax_confirmation) : row.tax_confirmation) as Record<string, unknown>;
    assert.equal(confirmation.kind, 'domestic_supply');
    assert.equal(confirmation.email, t.company.adminEmail);
    assert.equal(confirmation.user_id, t.company.userId);
    assert.match(String((confirmation.messages as string[])[0]), /Position 1 hat 19 %/);
    const page = await web.get(`/app/invoices/${id}`);
    assert.match(page.body, /Bestätigter Umsatzsteuer-Hinweis/);
    assert.match(page.body, new RegExp(`Bestätigt von ${t.company.adminEmail.replace(/[.+]/g, '\\$&')} am 21\\.11\\.2026`));
    const audit = await t.handle.db.selectFrom('audit_log').select(['after']).where('subject_id', '=', id).executeTakeFirstOrThrow();
    assert.match(JSON.stringify(audit.after), /confirmed_warnings/);
    // The e-invoice carries German VAT (category S, 19 %) and both VAT IDs, and is schema-valid.
    const xml = await t.app.inject({
      method: 'GET',
      url: `/app/invoices/${id}/xml`,
      headers: { cookie: `kontor_session=${web.cookies.get('kontor_session')}` },
    });
    assert.equal(xml.statusCode, 200);
    assert.match(xml.body, /<ram:CategoryCode>S<\/ram:CategoryCode>/);
    assert.match(xml.body, /<ram:RateApplicablePercent>19(\.00)?<\/ram:RateApplicablePercent>/);
    assert.match(xml.body, /ATU58219378/);
    assert.deepEqual(await ciiSchemaErrors(xml.body), []);
  });

  test('missing details are not confirmable: no button, a forged post is refused and writes nothing', async () => {
    const id = await draft('no-street', 'no-street');
    const detail = await web.get(`/app/invoices/${id}`);
    assert.match(detail.body, /Nicht ausstellbar/);
    assert.match(detail.body, /Kunde Ohne Straße GmbH: die Straße fehlt\./);
    assert.doesNotMatch(detail.body, /Rechnung ausstellen<\/button>|confirm_domestic_supply/);
    const before = { numbers: await numbersUsed(), journal: await countRows(t.handle, 'journal_entries'), audit: await countRows(t.handle, 'audit_log') };
    const forged = await web.post(`/app/invoices/${id}/issue`, { confirm_domestic_supply: '1' });
    assert.equal(forged.status, 422);
    assert.equal((await state(id)).status, 'draft');
    assert.deepEqual(before, {
      numbers: await numbersUsed(),
      journal: await countRows(t.handle, 'journal_entries'),
      audit: await countRows(t.handle, 'audit_log'),
    });
  });

  test("another company's invoice is not found; a post without the CSRF token is refused", async () => {
    const id = await draft('csrf');
    const other = await t.newCompany('other');
    const stranger = await signedIn(t, 'ein anderes Passwort', other);
    assert.equal((await stranger.get(`/app/invoices/${id}`)).status, 404);
    await stranger.get('/app/dashboard');
    assert.equal((await stranger.post(`/app/invoices/${id}/issue`)).status, 404);
    assert.equal(
      (await t.app.inject({ method: 'GET', url: `/app/invoices/${id}/pdf`, headers: { cookie: `kontor_session=${stranger.cookies.get('kontor_session')}` } }))
        .statusCode,
      404,
    );
    await web.get(`/app/invoices/${id}`);
    assert.equal((await web.post(`/app/invoices/${id}/issue`, { _csrf: '' })).status, 403);
    assert.equal((await state(id)).status, 'draft');
  });
});
