import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { countRows, type TestApp, testApp } from '../helpers/app.ts';
import { invoiceBody, postInvoice, putCustomer } from '../invoicing/helpers.ts';
import { extractPages } from '../invoicing/render/pdf-reader.ts';
import { issueInvoice } from '../payments/helpers.ts';
import { signedIn, signedInMember, type WebClient } from './client.ts';

// Issue 15: a person writes an invoice in the app — the customer found by a search, lines in
// German notation — and saves a draft through the invoicing module's own builder; refusals
// come back in German with what was typed; the draft is issued with the next number of the
// one range; it can be changed or discarded until then; members do it too; another
// company's customers and drafts are not found; text from a person stays text, also in the PDF.

const XSS = '<script>alert("x")</script> Beratung & Konzeption';

/** The form of the new-invoice page for the customer, with these rows filled in (row: field → value). */
function form(customerId: string, rows: Record<string, string>[], extra: Record<string, string> = {}): Record<string, string> {
  const fields: Record<string, string> = { customer_id: customerId, start: '2026-11-01', end: '2026-11-30', terms: '', note: '', rows: '5' };
  rows.forEach((row, i) => {
    for (const [key, value] of Object.entries(row)) fields[`l${i}_${key}`] = value;
  });
  return { ...fields, ...extra };
}

const GOOD = [
  { description: XSS, quantity: '2,5', unit: 'Stunde', price: '1.234,56', vat: '19' },
  { description: 'Fachbuch „Umsatzsteuer“', quantity: '3', unit: 'Stück', price: '19,90', vat: '7' },
];

describe('writing invoices in the app', () => {
  let t: TestApp;
  let web: WebClient;
  let customerId: string;
  let apiNumber: string;
  const invoice = (id: string) =>
    t.handle.db
      .selectFrom('invoices')
      .select(['status', 'number', 'origin', 'note', 'total_net_cents', 'total_tax_cents', 'total_gross_cents', 'external_source', 'service_period_end'])
      .where('id', '=', id)
      .executeTakeFirst();
  const auditOf = async (id: string) =>
    (await t.handle.db.selectFrom('audit_log').select(['action', 'user_id', 'after']).where('subject_id', '=', id).orderBy('seq').execute()).map((a) => ({
      ...a,
      after: typeof a.after === 'string' ? JSON.parse(a.after) : a.after,
    }));
  const idOf = (location: string | undefined) => /\/app\/invoices\/(inv_[0-9a-z]{26})/.exec(location ?? '')?.[1] as string;

  before(async () => {
    t = await testApp();
    customerId = (await putCustomer(t, 'kunde-1')).id;
    for (let i = 0; i < 30; i++) await putCustomer(t, `viele-${i}`, { name: `Handelshaus Nummer ${i} GmbH` });
    apiNumber = (await issueInvoice(t, 'api-1')).number;
    web = await signedIn(t);
  });
  after(() => t.close());

  test('the list leads to the new invoice; the customer is found by name or number among many', async () => {
    const list = await web.get('/app/invoices');
    assert.match(list.body, /<a class="button primary" href="\/app\/invoices\/new">Neue Rechnung<\/a>/);
    const step = await web.get('/app/invoices/new');
    assert.equal(step.status, 200);
    assert.match(step.body, /<h2>Kunde wählen<\/h2>/);
    assert.match(step.body, /Zuletzt angelegte Kunden/);
    const many = await web.get('/app/invoices/new?q=Handelshaus');
    assert.match(many.body, /20 Treffer/);
    assert.match(many.body, /Es gibt weitere Treffer/);
    const byName = await web.get('/app/invoices/new?q=beispiel');
    assert.match(byName.body, /1 Treffer/);
    assert.match(byName.body, new RegExp(`href="/app/invoices/new\\?customer=${customerId}" aria-label="Beispiel AG auswählen"`));
    const number = (await t.handle.db.selectFrom('customers').select('kundennummer').where('id', '=', customerId).executeTakeFirstOrThrow()).kundennummer;
    assert.match((await web.get(`/app/invoices/new?q=${number}`)).body, /Beispiel AG/);
    assert.match((await web.get('/app/invoices/new?q=gibt-es-nicht')).body, /Kein Kunde gefunden/);
    const chosen = await web.get(`/app/invoices/new?customer=${customerId}`);
    assert.match(chosen.body, /<dt>Rechnung an<\/dt><dd>Beispiel AG/);
    assert.match(chosen.body, /name="start" type="date" value="2026-11-21"/);
    assert.equal([...chosen.body.matchAll(/name="l\d+_description"/g)].length, 5);
  });

  test('a draft in German notation: 19 % and 7 % lines, totals right, origin app, audit row; it opens on its page', async () => {
    await web.get(`/app/invoices/new?customer=${customerId}`);
    const saved = await web.post('/app/invoices/new', form(customerId, GOOD, { note: 'Ihre Bestellung 4711 vom 03.11.2026' }));
    assert.equal(saved.status, 303, saved.body);
    const id = idOf(saved.location);
    assert.equal(saved.location, `/app/invoices/${id}?done=draft`);
    // 2,5 × 1.234,56 = 3.086,40 at 19 % (586,42); 3 × 19,90 = 59,70 at 7 % (4,18).
    assert.deepEqual(await invoice(id), {
      status: 'draft',
      number: null,
      origin: 'app',
      note: 'Ihre Bestellung 4711 vom 03.11.2026',
      total_net_cents: 314610,
      total_tax_cents: 59060,
      total_gross_cents: 373670,
      external_source: null,
      service_period_end: '2026-11-30',
    });
    const lines = await t.handle.db
      .selectFrom('invoice_lines')
      .select(['quantity', 'unit_price_net', 'vat_rate', 'net_cents'])
      .where('invoice_id', '=', id)
      .orderBy('position')
      .execute();
    assert.deepEqual(lines, [
      { quantity: '2.5', unit_price_net: '1234.56', vat_rate: 19, net_cents: 308640 },
      { quantity: '3', unit_price_net: '19.90', vat_rate: 7, net_cents: 5970 },
    ]);
    const audit = await auditOf(id);
    assert.deepEqual(audit, [
      {
        action: 'invoice.draft_created',
        user_id: t.company.userId,
        after: { status: 'draft', number: null, customer: 'Beispiel AG', total: '3736.70', lines: 2 },
      },
    ]);
    const page = await web.get(saved.location as string);
    assert.match(page.body, /Der Entwurf wurde gespeichert/);
    assert.match(page.body, /<span class="badge" title="[^"]+">in der App erstellt<\/span>/);
    assert.match(page.body, /3\.736,70\u00a0€/);
    assert.match(page.body, /<button type="submit" class="primary">Rechnung ausstellen<\/button>/);
    // The description is text: escaped on the page, never markup.
    assert.doesNotMatch(page.body, /<script>alert/);
    assert.match(page.body, /&lt;script&gt;alert\(&quot;x&quot;\)&lt;\/script&gt; Beratung &amp; Konzeption/);
    const list = await web.get('/app/invoices?status=draft');
    assert.match(list.body, new RegExp(`href="/app/invoices/${id}">Entwurf</a> <span class="badge"[^>]*>in der App erstellt</span>`));
  });

  test('refusals in German with the typed values kept (422), and nothing written: no customer, a bad amount, 5 % VAT', async () => {
    const before = await countRows(t.handle, 'invoices');
    await web.get(`/app/invoices/new?customer=${customerId}`);
    const noCustomer = await web.post('/app/invoices/new', form('', GOOD));
    assert.equal(noCustomer.status, 422);
    assert.match(noCustomer.body, /Der Entwurf wurde nicht gespeichert/);
    assert.match(noCustomer.body, /<li>Bitte wählen Sie einen Kunden\.<\/li>/);
    assert.match(noCustomer.body, /value="1\.234,56"/);
    const badAmount = await web.post('/app/invoices/new', form(customerId, [{ ...GOOD[0], price: '12,3,4' }, GOOD[1]] as Record<string, string>[]));
    assert.equal(badAmount.status, 422);
    assert.match(badAmount.body, /Position 1, Einzelpreis netto \(€\): bitte als Zahl im Format 1\.234,56 angeben/);
    assert.match(badAmount.body, /id="l0_price" name="l0_price" value="12,3,4"[^>]*aria-invalid="true"/);
    assert.match(badAmount.body, /value="Fachbuch „Umsatzsteuer“"/);
    // "1234.56" and "12.5" are read (issue 25); a dot before three digits groups thousands, so "1.234.5" is no number.
    const twoDots = await web.post('/app/invoices/new', form(customerId, [{ ...GOOD[0], price: '1.234.5' }] as Record<string, string>[]));
    assert.equal(twoDots.status, 422, 'a dot before three digits groups thousands');
    const fivePercent = await web.post('/app/invoices/new', form(customerId, [GOOD[0], { ...GOOD[1], vat: '5' }] as Record<string, string>[]));
    assert.equal(fivePercent.status, 422);
    assert.match(fivePercent.body, /Position 2, USt\.-Satz: nur 19 %, 7 % oder 0 % sind möglich\./);
    const empty = await web.post('/app/invoices/new', form(customerId, []));
    assert.equal(empty.status, 422);
    assert.match(empty.body, /Bitte füllen Sie mindestens eine Position aus\./);
    const backwards = await web.post('/app/invoices/new', form(customerId, GOOD, { start: '30.11.2026', end: '01.11.2026' }));
    assert.equal(backwards.status, 422);
    assert.match(backwards.body, /Das Ende des Leistungszeitraums liegt vor seinem Beginn\./);
    assert.equal(await countRows(t.handle, 'invoices'), before);
    // "Weitere Zeile" works without JavaScript: three more rows, every value kept.
    const more = await web.post('/app/invoices/new', form(customerId, GOOD, { more: '1' }));
    assert.equal(more.status, 200);
    assert.equal([...more.body.matchAll(/name="l\d+_description"/g)].length, 8);
    assert.match(more.body, /value="19,90"/);
    assert.equal(await countRows(t.handle, 'invoices'), before);
  });

  test('issued, the app draft takes the next number after the API invoice; the note and the description are printed as written', async () => {
    await web.get(`/app/invoices/new?customer=${customerId}`);
    const id = idOf((await web.post('/app/invoices/new', form(customerId, GOOD, { note: 'Ihre Bestellung 4711' }))).location);
    await web.get(`/app/invoices/${id}`);
    const issued = await web.post(`/app/invoices/${id}/issue`);
    assert.equal(issued.status, 303);
    const row = await invoice(id);
    assert.equal(row?.status, 'issued');
    const next = (n: string) => `RE-2026-${String(Number(n.slice(-5)) + 1).padStart(5, '0')}`;
    // Another draft was saved above (not issued): drafts take no number.
    assert.equal(row?.number, next(apiNumber));
    assert.equal((await issueInvoice(t, 'api-2')).number, next(row?.number as string));
    const pdf = await t.app.inject({
      method: 'GET',
      url: `/app/invoices/${id}/pdf`,
      headers: { cookie: `kontor_session=${web.cookies.get('kontor_session')}` },
    });
    assert.equal(pdf.statusCode, 200);
    // Lines of text as the PDF shows them, the wrapped description joined again.
    const text = extractPages(pdf.rawPayload).join('\n').replace(/\s+/g, ' ');
    assert.ok(text.includes('<script>alert("x")</script> Beratung & Konzeption'), text);
    assert.ok(text.includes('Ihre Bestellung 4711'), 'the note is printed');
    assert.ok(text.includes('3.736,70'), 'the total');
  });

  test('an app draft can be changed and discarded until it is issued; an API draft cannot', async () => {
    await web.get(`/app/invoices/new?customer=${customerId}`);
    const id = idOf((await web.post('/app/invoices/new', form(customerId, [GOOD[1] as Record<string, string>]))).location);
    const edit = await web.get(`/app/invoices/${id}/edit`);
    assert.equal(edit.status, 200);
    assert.match(edit.body, /<h1>Entwurf bearbeiten<\/h1>/);
    assert.match(edit.body, /id="l0_price" name="l0_price" value="19,90"/);
    assert.match(edit.body, /id="l0_vat" name="l0_vat"><option value="19">19 %<\/option><option value="7" selected>/);
    const changed = await web.post(`/app/invoices/${id}/edit`, form(customerId, [{ ...GOOD[1], quantity: '10' } as Record<string, string>]));
    assert.equal(changed.status, 303);
    assert.equal(changed.location, `/app/invoices/${id}?done=changed`);
    assert.equal((await invoice(id))?.total_gross_cents, 21293, '10 × 19,90 = 199,00 + 7 % = 212,93');
    await web.get(`/app/invoices/${id}`);
    const discarded = await web.post(`/app/invoices/${id}/discard`);
    assert.equal(discarded.status, 303);
    assert.equal(discarded.location, '/app/invoices?done=discarded');
    assert.match((await web.get(discarded.location as string)).body, /Der Entwurf wurde verworfen\./);
    assert.equal(await invoice(id), undefined);
    assert.deepEqual(
      (await auditOf(id)).map((a) => a.action),
      ['invoice.draft_created', 'invoice.draft_changed', 'invoice.draft_discarded'],
    );
    assert.equal((await web.get(`/app/invoices/${id}`)).status, 404);
    // A draft of the API belongs to the caller's system: no discard, no change.
    const apiDraft = (await postInvoice(t, invoiceBody('api-draft'))).json().id as string;
    const page = await web.get(`/app/invoices/${apiDraft}`);
    assert.doesNotMatch(page.body, /Entwurf verwerfen/);
    const refused = await web.post(`/app/invoices/${apiDraft}/discard`);
    assert.equal(refused.status, 422);
    assert.match(refused.body, /Nur ein in der App geschriebener Entwurf/);
    assert.equal((await invoice(apiDraft))?.status, 'draft');
    assert.equal((await web.get(`/app/invoices/${apiDraft}/edit`)).location, `/app/invoices/${apiDraft}`);
  });

  test('a member writes and issues invoices too; another company sees neither the customers nor the drafts', async () => {
    const { client: member, userId: memberId } = await signedInMember(t, 'kollegin@example.com');
    await member.get(`/app/invoices/new?customer=${customerId}`);
    const saved = await member.post('/app/invoices/new', form(customerId, GOOD));
    assert.equal(saved.status, 303, saved.body);
    const id = idOf(saved.location);
    await member.get(`/app/invoices/${id}`);
    assert.equal((await member.post(`/app/invoices/${id}/issue`)).status, 303);
    assert.equal((await auditOf(id))[0]?.user_id, memberId);

    const other = await t.newCompany('fremd');
    const stranger = await signedIn(t, 'ein anderes Passwort', other);
    const foreign = await stranger.get(`/app/invoices/new?customer=${customerId}`);
    assert.equal(foreign.status, 200);
    assert.match(foreign.body, /Den gewählten Kunden gibt es nicht/);
    assert.doesNotMatch(foreign.body, /Beispiel AG/);
    assert.doesNotMatch((await stranger.get('/app/invoices/new?q=Beispiel')).body, /Beispiel AG/);
    assert.equal((await stranger.get(`/app/invoices/${id}`)).status, 404);
    assert.equal((await stranger.get(`/app/invoices/${id}/edit`)).status, 404);
    await stranger.get('/app/dashboard');
    assert.equal((await stranger.post(`/app/invoices/${id}/edit`, form(customerId, GOOD))).status, 404);
    await stranger.get('/app/dashboard');
    assert.equal((await stranger.post(`/app/invoices/${id}/discard`)).status, 404);
    // Their own form with our customer's id: refused, nothing written for them.
    const before = await countRows(t.handle, 'invoices');
    await stranger.get('/app/invoices/new');
    const forged = await stranger.post('/app/invoices/new', form(customerId, GOOD));
    assert.equal(forged.status, 422);
    assert.equal(await countRows(t.handle, 'invoices'), before);
    assert.equal((await stranger.post('/app/invoices/new', { ...form(customerId, GOOD), _csrf: '' })).status, 403);
  });
});
