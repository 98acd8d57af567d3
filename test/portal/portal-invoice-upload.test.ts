import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import iconv from 'iconv-lite';
import { simpleParser } from 'mailparser';
import { runDueWork } from '../../src/jobs/index.ts';
import { createDatevExport } from '../../src/modules/bookkeeping/index.ts';
import { setPayoutAccount } from '../../src/modules/commissions/index.ts';
import { createMailer } from '../../src/modules/mail/index.ts';
import { runPayout } from '../../src/modules/payouts/payout-run.ts';
import { invitePartnerAccount } from '../../src/modules/portal/index.ts';
import { splitDatevLine } from '../bookkeeping/fixtures.ts';
import { postEvent, putAgreement, putPartner } from '../commissions/helpers.ts';
import { sealer, type TestApp, testApp } from '../helpers/app.ts';
import { outboxMails } from '../helpers/outbox.ts';
import { BUSINESS_CUSTOMER } from '../invoicing/helpers.ts';
import { WebClient } from '../web/client.ts';
import { kontorInvoice, plainPdf } from './partner-invoices.ts';

// Issue 27 §3 and §4: the partner hands in its invoice for a request to invoice in the
// portal. Kontor reads the e-invoice, checks it against the EN 16931 rules it runs and
// against the statement; accepted, it is recorded, booked and the statement is payable;
// refused, the partner reads every reason in German and nothing is recorded. The uploads
// are e-invoices made by Kontor's own renderer (a second company in Kontor invoicing the
// first) and by another tool (the Mustang project's ZUGFeRD sample, test/fixtures/partner-einvoices/).

const PASSWORD = 'Partnerportal-2026!';
const REGULAR = {
  tax_status: 'domestic_regular',
  billing_mode: 'partner_invoice',
  street: 'Leopoldstraße',
  house_number: '10',
  zip: '80802',
  city: 'München',
  country_code: 'DE',
};

/** A partner's browser in the portal, signed in through its invitation link. */
async function portalOf(t: TestApp, partnerId: string, email: string): Promise<WebClient> {
  const actor = { userId: t.company.userId, organizationId: t.company.organizationId, companyId: t.company.companyId };
  const invitation = await invitePartnerAccount({ db: t.handle.db, clock: t.clock, sealer }, actor, {
    companyId: t.company.companyId,
    partnerId,
    email,
    portalUrl: 'http://kontor.test/portal',
  });
  const client = new WebClient(t.app);
  await client.get(`/portal/invitation/${invitation.token}`);
  const set = await client.post(`/portal/invitation/${invitation.token}`, { password: PASSWORD, repeat: PASSWORD });
  assert.equal(set.status, 303);
  return client;
}

/** Uploads a file as the browser's form does (multipart, the CSRF token among the parts). */
async function upload(
  t: TestApp,
  client: WebClient,
  statementId: string,
  file: { name: string; bytes: Uint8Array; type: string },
  fields: Record<string, string> = {},
) {
  const page = await client.get(`/portal/statements/${statementId}`);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
  const form = new FormData();
  form.set('_csrf', csrf);
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  form.set('file', new Blob([Buffer.from(file.bytes)], { type: file.type }), file.name);
  const encoded = new Response(form);
  const res = await t.app.inject({
    method: 'POST',
    url: `/portal/statements/${statementId}/invoice`,
    headers: {
      host: 'kontor.test',
      cookie: `kontor_portal=${client.cookies.get('kontor_portal')}`,
      'content-type': encoded.headers.get('content-type') as string,
    },
    payload: Buffer.from(await encoded.arrayBuffer()),
  });
  return { status: res.statusCode, location: res.headers.location as string | undefined, body: res.body };
}

/** The German reasons of a refused upload as the page lists them. */
const reasonsOf = (body: string) =>
  [...(/<div class="panel warn" role="alert">[\s\S]*?<ul class="reasons">([\s\S]*?)<\/ul>/.exec(body)?.[1] ?? '').matchAll(/<li>([\s\S]*?)<\/li>/g)].map((m) =>
    (m[1] as string)
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&amp;/g, '&'),
  );

describe('the partner hands in its invoice: e-invoices made by Kontor', () => {
  let t: TestApp;
  let kai: WebClient;
  let klein: WebClient;
  let kaiStatement: string;
  let kleinStatement: string;
  let companyName: string;
  /** The partner's own company in Kontor, which invoices ours. */
  let partnerBooks: Awaited<ReturnType<TestApp['newCompany']>>;
  const actor = () => ({ userId: t.company.userId, organizationId: t.company.organizationId, companyId: t.company.companyId, email: t.company.adminEmail });

  const partnerInvoice = (ref: string, net: string, customerRef = 'our-company') => kontorInvoice(t, partnerBooks, { ref, net, customerRef, month: '2026-10' });

  before(async () => {
    t = await testApp({ now: '2026-10-01T09:00:00Z' });
    const db = t.handle.db;
    companyName = (await db.selectFrom('companies').select('name').where('id', '=', t.company.companyId).executeTakeFirstOrThrow()).name;
    partnerBooks = await t.newCompany('kai-books');
    await db.updateTable('companies').set({ vat_id: 'DE811569869' }).where('id', '=', partnerBooks.companyId).execute();
    const sellerName = (await db.selectFrom('companies').select('name').where('id', '=', partnerBooks.companyId).executeTakeFirstOrThrow()).name;
    const kaiId = await putPartner(t, 'kai', { ...REGULAR, name: sellerName, vat_id: 'DE811569869' });
    const kleinId = await putPartner(t, 'klein', { ...REGULAR, name: 'Grafik Klein', tax_status: 'domestic_small_business', tax_number: '21/815/08150' });
    for (const ref of ['kai', 'klein'])
      await putAgreement(t, `${ref}-ag`, {
        partner_ref: ref,
        start_date: '2026-01-01',
        applies_to: 'all_customers',
        tiers: [{ from_month: 1, to_month: null, percent: 10 }],
      });
    await postEvent(t, { external_ref: 'e-1', occurred_at: '2026-10-10T10:00:00Z', net_amount: '2000.00' });
    t.clock.set('2026-11-01T12:00:00Z');
    await runDueWork({ db, clock: t.clock, services: { invoicing: t.invoicing } }, { asOf: '2026-11-01', companyId: t.company.companyId, log: () => {} });
    t.clock.set('2026-11-21T10:00:00Z');
    const statements = await db.selectFrom('commission_statements').select(['id', 'partner_id', 'kind', 'gross_cents']).execute();
    kaiStatement = statements.find((s) => s.partner_id === kaiId)?.id as string;
    kleinStatement = statements.find((s) => s.partner_id === kleinId)?.id as string;
    assert.deepEqual(statements.map((s) => [s.kind, Number(s.gross_cents)]).sort(), [
      ['partner_invoice', 200_00],
      ['partner_invoice', 238_00],
    ]);
    // Our company as a customer of the partner's company, once right and once with another VAT ID.
    for (const [ref, vatId] of [
      ['our-company', 'DE136695976'],
      ['our-company-wrong-vat', 'DE327606228'],
    ] as const) {
      const res = await t.request('PUT', `/v1/customers/by-ref/crm/${ref}`, {
        key: partnerBooks.apiKey,
        body: { ...BUSINESS_CUSTOMER, name: companyName, vat_id: vatId },
      });
      assert.ok(res.statusCode < 300, res.body);
    }
    kai = await portalOf(t, kaiId, 'kai@partner.example');
    klein = await portalOf(t, kleinId, 'klein@partner.example');
  });
  after(() => t.close());

  test('the statement page asks for the invoice; the API says it is missing', async () => {
    const page = await kai.get(`/portal/statements/${kaiStatement}`);
    assert.match(page.body, /<span class="badge warn">Rechnung fehlt<\/span>/);
    assert.match(page.body, /Zur Bitte um Rechnungsstellung [A-Z]+-2026-\d+ stellen Sie Ihre Rechnung über 238,00\u00a0€ an die Firma/);
    assert.match(page.body, /enctype="multipart\/form-data"/);
    assert.doesNotMatch(page.body, /Nur für eine PDF-Datei ohne E-Rechnung/, 'a regular business hands in an e-invoice');
    const api = (await t.request('GET', `/v1/commission-statements/${kaiStatement}`)).json();
    assert.equal(api.partner_invoice.status, 'missing');
  });

  test('refused: an amount that differs, another buyer VAT ID, a plain PDF — every reason in German, nothing recorded', async () => {
    const cheaper = await partnerInvoice('k-cheap', '199.99');
    const amounts = await upload(t, kai, kaiStatement, { name: 'rechnung.pdf', bytes: cheaper.pdf, type: 'application/pdf' });
    assert.equal(amounts.status, 422);
    assert.match(amounts.body, /Ihre Rechnung wurde nicht angenommen/);
    const amountReasons = reasonsOf(amounts.body);
    assert.ok(
      amountReasons.some((r) => /Nettobetrag.*199,99\u00a0€.*200,00\u00a0€/.test(r)),
      amountReasons.join('\n'),
    );
    assert.ok(
      amountReasons.some((r) => /Bruttobetrag.*237,99\u00a0€.*238,00\u00a0€/.test(r)),
      amountReasons.join('\n'),
    );

    const wrongVat = await partnerInvoice('k-wrong-vat', '200.00', 'our-company-wrong-vat');
    const buyer = await upload(t, kai, kaiStatement, { name: 'rechnung.xml', bytes: wrongVat.xml, type: 'application/xml' });
    assert.equal(buyer.status, 422);
    assert.deepEqual(reasonsOf(buyer.body), ['Die USt-IdNr. des Rechnungsempfängers in der Rechnung (DE327606228) ist nicht unsere USt-IdNr. (DE136695976).']);

    const plain = await upload(t, kai, kaiStatement, {
      name: 'scan.pdf',
      bytes: await plainPdf('Rechnung K-7 über 200,00 € — ohne Umsatzsteuer (§ 19 UStG)'),
      type: 'application/pdf',
    });
    assert.equal(plain.status, 422);
    assert.deepEqual(reasonsOf(plain.body), [
      'Bitte laden Sie eine E-Rechnung hoch (XRechnung oder ZUGFeRD): seit 2025 sind Rechnungen zwischen Unternehmen als E-Rechnung zu stellen; eine PDF-Datei ohne eingebettete XML-Daten genügt nicht.',
    ]);

    const db = t.handle.db;
    assert.equal((await db.selectFrom('commission_partner_invoices').select('number').execute()).length, 0, 'no invoice recorded');
    const uploads = await db.selectFrom('partner_invoice_uploads').select(['accepted', 'content', 'format']).orderBy('received_at').execute();
    assert.deepEqual(
      uploads.map((u) => [u.accepted, u.content, u.format]),
      [
        [false, null, 'zugferd'],
        [false, null, 'xrechnung_cii'],
        [false, null, 'pdf'],
      ],
    );
    const api = (await t.request('GET', `/v1/commission-statements/${kaiStatement}`)).json();
    assert.equal(api.partner_invoice.status, 'refused');
    assert.equal(api.partner_invoice.reasons[0], reasonsOf(plain.body)[0]);
    const events = await db.selectFrom('events').select('type').where('subject_id', '=', kaiStatement).where('type', 'like', '%partner_invoice%').execute();
    assert.deepEqual(
      events.map((e) => e.type),
      ['commission_statement.partner_invoice_refused', 'commission_statement.partner_invoice_refused', 'commission_statement.partner_invoice_refused'],
    );
    const page = await kai.get(`/portal/statements/${kaiStatement}`);
    assert.equal([...page.body.matchAll(/<span class="badge warn">abgelehnt<\/span>/g)].length, 3, 'the partner sees its refused uploads');
  });

  test('accepted: Kontor’s ZUGFeRD PDF is recorded, booked against the creditor with input VAT, the company mailed, the statement payable', async () => {
    const right = await partnerInvoice('k-right', '200.00');
    const mailsBefore = outboxMails(t.dataDir, t.company.companyId).length;
    const done = await upload(t, kai, kaiStatement, { name: `${right.number}.pdf`, bytes: right.pdf, type: 'application/pdf' });
    assert.equal(done.status, 303, reasonsOf(done.body).join('\n'));
    const page = await kai.get(done.location as string);
    assert.match(page.body, /Ihre Rechnung ist angenommen und gebucht\./);
    assert.match(page.body, new RegExp(`Rechnung ${right.number} vom 21\\.11\\.2026 über 238,00\\u00a0€, von Ihnen hochgeladen und angenommen\\.`));
    assert.match(page.body, /<span class="badge">Rechnung erhalten<\/span>/);

    const api = (await t.request('GET', `/v1/commission-statements/${kaiStatement}`)).json();
    assert.deepEqual(
      { ...api.partner_invoice, received_at: typeof api.partner_invoice.received_at },
      {
        status: 'accepted',
        number: right.number,
        invoice_date: '2026-11-21',
        net_cents: 200_00,
        vat_cents: 38_00,
        gross_cents: 238_00,
        via: 'portal',
        received_at: 'string',
        reasons: [],
      },
    );
    const stored = await t.handle.db.selectFrom('partner_invoice_uploads').select('content').where('accepted', '=', true).executeTakeFirstOrThrow();
    assert.ok(Buffer.from(stored.content as Buffer).equals(right.pdf), 'kept byte for byte');

    // The books: the invoice against the partner's creditor account, input VAT 19 % (BU 9).
    const datev = await createDatevExport(t.handle.db, t.company.companyId, { from: '2026-11-01', to: '2026-11-30', now: t.clock.now() });
    const rows = iconv.decode(datev.file, 'win1252').split('\r\n').slice(2, -1).map(splitDatevLine);
    const booked = rows.filter((row) => row[10] === right.number);
    assert.deepEqual(
      booked.map((row) => [row[0], row[1], row[8]]),
      [['238,00', 'H', '9']],
    );

    await runDueWork(
      { db: t.handle.db, clock: t.clock, mailer: createMailer({ dataDir: t.dataDir, sealer }), services: { portal: { sealer }, invoicing: t.invoicing } },
      { asOf: '2026-11-21', companyId: t.company.companyId, log: () => {} },
    );
    // Read raw (outboxMails joins quoted-printable soft breaks, which would also eat a base64 line's "=").
    const dir = path.join(t.dataDir, 'outbox', t.company.companyId);
    const mail = readdirSync(dir)
      .sort()
      .slice(mailsBefore)
      .map((name) => readFileSync(path.join(dir, name)))
      .find((m) => /Subject: Rechnung /.test(m.toString('latin1')));
    assert.ok(mail, 'the company is mailed');
    const parsed = await simpleParser(mail);
    assert.match(
      parsed.text ?? '',
      new RegExp(
        `hat im Partnerportal seine Rechnung ${right.number} vom 21\\.11\\.2026 über 238,00\\u00a0€ zur Bitte um Rechnungsstellung [A-Z]+-2026-\\d+ eingereicht`,
      ),
    );
    assert.deepEqual(
      parsed.attachments.map((a) => [a.filename, a.contentType, a.size]),
      [[`${right.number}.pdf`, 'application/pdf', right.pdf.length]],
    );
    assert.ok(parsed.attachments[0]?.content.equals(right.pdf));

    const deps = { db: t.handle.db, clock: t.clock, sealer };
    await setPayoutAccount(deps, t.company.companyId, api.partner_id, { iban: 'DE02 1203 0000 0000 2020 51', bic: null }, actor());
    const run = await runPayout(deps, t.company.companyId, { statementIds: [kaiStatement], executionDate: '2026-12-14' }, actor());
    assert.equal(run.totalCents, 238_00n);
  });

  test('a second invoice for a statement that has one is refused; the trail names the partner', async () => {
    const again = await partnerInvoice('k-again', '200.00');
    const res = await upload(t, kai, kaiStatement, { name: 'noch-eine.xml', bytes: again.xml, type: 'application/xml' });
    assert.equal(res.status, 422);
    assert.match(reasonsOf(res.body)[0] ?? '', /^Zu dieser Abrechnung ist bereits Ihre Rechnung .* erfasst; eine weitere wird nicht angenommen\.$/);
    const trail = await t.handle.db
      .selectFrom('audit_log')
      .select(['action', 'user_id', 'partner_account_id'])
      .where('subject_id', '=', kaiStatement)
      .where('action', 'like', 'statement.invoice_%')
      .execute();
    assert.equal(trail.length, 5, 'four refused, one accepted');
    assert.ok(trail.every((row) => row.user_id === null && row.partner_account_id !== null));
  });

  test('a small business may hand in a plain PDF with its number, date and amount typed beside it', async () => {
    const page = await klein.get(`/portal/statements/${kleinStatement}`);
    assert.match(page.body, /Nur für eine PDF-Datei ohne E-Rechnung/);
    const pdf = await plainPdf('Rechnung K-7 über 200,00 € — ohne Umsatzsteuer (§ 19 UStG)');
    const untyped = await upload(t, klein, kleinStatement, { name: 'K-7.pdf', bytes: pdf, type: 'application/pdf' });
    assert.equal(untyped.status, 422);
    assert.match(reasonsOf(untyped.body)[0] ?? '', /Als Kleinunternehmer oder Privatperson dürfen Sie sie trotzdem einreichen/);
    const wrongAmount = await upload(
      t,
      klein,
      kleinStatement,
      { name: 'K-7.pdf', bytes: pdf, type: 'application/pdf' },
      { number: 'K-7', invoice_date: '20.11.2026', gross: '210,00' },
    );
    assert.equal(wrongAmount.status, 422);
    assert.deepEqual(reasonsOf(wrongAmount.body), [
      `Der Betrag der Rechnung (210,00\u00a0€) stimmt nicht mit der Abrechnung ${await numberOf(kleinStatement)} überein (200,00\u00a0€).`,
    ]);
    const typed = await upload(
      t,
      klein,
      kleinStatement,
      { name: 'K-7.pdf', bytes: pdf, type: 'application/pdf' },
      { number: 'K-7', invoice_date: '20.11.2026', gross: '200,00' },
    );
    assert.equal(typed.status, 303, reasonsOf(typed.body).join('\n'));
    const api = (await t.request('GET', `/v1/commission-statements/${kleinStatement}`)).json();
    assert.equal(api.partner_invoice.status, 'accepted');
    assert.equal(api.partner_invoice.number, 'K-7');
    assert.equal(api.partner_invoice.vat_cents, 0);
  });

  test('another partner’s statement takes no upload (404), and nothing is written', async () => {
    const right = await partnerInvoice('k-foreign', '200.00');
    const before = await t.handle.db.selectFrom('partner_invoice_uploads').select('id').execute();
    const res = await upload(t, klein, kaiStatement, { name: 'x.pdf', bytes: right.pdf, type: 'application/pdf' });
    assert.equal(res.status, 404);
    assert.equal((await t.handle.db.selectFrom('partner_invoice_uploads').select('id').execute()).length, before.length);
  });

  async function numberOf(id: string) {
    return (await t.handle.db.selectFrom('commission_statements').select('number').where('id', '=', id).executeTakeFirstOrThrow()).number;
  }
});

describe('the partner hands in its invoice: an e-invoice made by another tool (Mustang project)', () => {
  let t: TestApp;
  let statementId: string;
  let client: WebClient;

  before(async () => {
    // The Mustang sample: weclapp.com invoices Beispiel AG 809,34 € + 19 % = 963,11 € on 26.10.2022.
    t = await testApp({ now: '2022-10-01T09:00:00Z' });
    await t.handle.db.updateTable('companies').set({ name: 'Beispiel AG', vat_id: 'DE811569869' }).where('id', '=', t.company.companyId).execute();
    const partnerId = await putPartner(t, 'weclapp', { ...REGULAR, name: 'weclapp.com', vat_id: 'DE327606228' });
    await putAgreement(t, 'weclapp-ag', {
      partner_ref: 'weclapp',
      start_date: '2022-01-01',
      applies_to: 'all_customers',
      tiers: [{ from_month: 1, to_month: null, percent: 10 }],
    });
    await postEvent(t, { external_ref: 'e-1', occurred_at: '2022-10-10T10:00:00Z', net_amount: '8093.40' });
    t.clock.set('2022-11-01T12:00:00Z');
    await runDueWork(
      { db: t.handle.db, clock: t.clock, services: { invoicing: t.invoicing } },
      { asOf: '2022-11-01', companyId: t.company.companyId, log: () => {} },
    );
    t.clock.set('2022-11-02T10:00:00Z');
    statementId = (await t.handle.db.selectFrom('commission_statements').select('id').where('partner_id', '=', partnerId).executeTakeFirstOrThrow()).id;
    client = await portalOf(t, partnerId, 'buchhaltung@weclapp.example');
  });
  after(() => t.close());

  test('the sample is read, checked and accepted for the statement of the same amounts', async () => {
    const bytes = readFileSync(new URL('../fixtures/partner-einvoices/MustangBeispiel20221026.pdf', import.meta.url));
    const res = await upload(t, client, statementId, { name: 'MustangBeispiel20221026.pdf', bytes, type: 'application/pdf' });
    assert.equal(res.status, 303, reasonsOf(res.body).join('\n'));
    const api = (await t.request('GET', `/v1/commission-statements/${statementId}`)).json();
    assert.equal(api.partner_invoice.status, 'accepted');
    assert.equal(api.partner_invoice.number, 'RE1001');
    assert.equal(api.partner_invoice.invoice_date, '2022-10-26');
    assert.equal(api.partner_invoice.gross_cents, 963_11);
  });
});
