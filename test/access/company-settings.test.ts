import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CompanyFileError, parseCompanyFile, updateCompany } from '../../src/modules/access/index.ts';
import { COMPANY_FILE, sealer, type TestApp, testApp } from '../helpers/app.ts';
import { invoiceBody, postInvoice, putCustomer } from '../invoicing/helpers.ts';
import { extractPages } from '../invoicing/render/pdf-reader.ts';

// The company-law details and books settings of the company file (issue 10, design §2):
// register court and number, managing directors (§ 35a GmbHG, § 37a HGB), account holder,
// DATEV numbers, fiscal-year start, the EU distance-selling flag.

const parse = (file: Record<string, unknown>) => parseCompanyFile(JSON.stringify(file), sealer, { requireName: false });

describe('company file: company-law details and books settings', () => {
  test('stores each key normalised: register number spelled out, DATEV numbers as numbers, the distance-selling flag', () => {
    const columns = parse({
      register_court: '  Amtsgericht Köln ',
      register_number: 'hrb12345',
      managing_directors: ['  Dr. Anna  Schmidt ', 'Jörg Weiß'],
      account_holder: 'Muster Software GmbH',
      datev_consultant_number: '29098',
      datev_client_number: 7,
      fiscal_year_start: '07-01',
      eu_distance_sales_threshold_exceeded: true,
    });
    assert.deepEqual(columns, {
      register_court: 'Amtsgericht Köln',
      register_number: 'HRB 12345',
      managing_directors: ['Dr. Anna Schmidt', 'Jörg Weiß'],
      account_holder: 'Muster Software GmbH',
      datev_consultant_number: 29098,
      datev_client_number: 7,
      fiscal_year_start: '07-01',
      eu_distance_threshold_exceeded: true,
    });
    assert.equal(parse({ register_number: 'HRB 98765 B' }).register_number, 'HRB 98765 B', 'the court suffix (Berlin: B) is kept');
    assert.deepEqual(parse({ bic: 'cobadeff xxx', iban: 'de89 3704 0044 0532 0130 00' }), { bic: 'COBADEFFXXX', iban: 'DE89370400440532013000' });
    assert.deepEqual(parse({ vat_return_period: 'quarterly', vat_return_extension: true }), { vat_return_period: 'quarterly', vat_return_extension: true });
  });

  const refusals: [string, Record<string, unknown>, RegExp][] = [
    ['a DATEV consultant number of 3 digits', { datev_consultant_number: 123 }, /datev_consultant_number: must be 4 to 7 digits/],
    ['a DATEV consultant number of 8 digits', { datev_consultant_number: '12345678' }, /datev_consultant_number: must be 4 to 7 digits/],
    ['a DATEV consultant number below 1001', { datev_consultant_number: 1000 }, /datev_consultant_number: .*at least 1001/],
    ['a DATEV consultant number with letters', { datev_consultant_number: '12a45' }, /datev_consultant_number/],
    ['a DATEV client number of 6 digits', { datev_client_number: 123456 }, /datev_client_number: must be 1 to 5 digits/],
    ['a DATEV client number 0', { datev_client_number: 0 }, /datev_client_number/],
    ['a fiscal year starting on 29 February', { fiscal_year_start: '02-29' }, /fiscal_year_start: must be the first day/],
    ['a fiscal year starting in month 13', { fiscal_year_start: '13-01' }, /fiscal_year_start/],
    ['a fiscal year start without leading zeros', { fiscal_year_start: '7-1' }, /fiscal_year_start: pattern/],
    ['an empty managing director', { managing_directors: ['Anna Schmidt', '  '] }, /managing_directors: a name is empty/],
    ['the same managing director twice', { managing_directors: ['Anna Schmidt', 'Anna Schmidt'] }, /managing_directors/],
    ['an account holder longer than SEPA allows', { account_holder: 'x'.repeat(71) }, /account_holder: too_long/],
    ['the distance-selling flag as text', { eu_distance_sales_threshold_exceeded: 'yes' }, /eu_distance_sales_threshold_exceeded: type_error/],
    ['a VAT return period the law does not know', { vat_return_period: 'weekly' }, /vat_return_period: enum/],
    ['the Dauerfristverlängerung as text', { vat_return_extension: 'ja' }, /vat_return_extension: type_error/],
    ['a BIC of 9 characters', { bic: 'COBADEFFX' }, /bic: not a valid BIC/],
    ['a BIC of an unknown country', { bic: 'COBAZZFFXXX' }, /bic: not a valid BIC/],
    ['an IBAN with a wrong check digit', { iban: 'DE88370400440532013000' }, /iban: not a valid IBAN/],
    ['a VAT ID with a wrong check digit', { vat_id: 'DE136695977' }, /vat_id: not a VAT ID/],
    ['the column name instead of the documented key', { eu_distance_threshold_exceeded: true }, /eu_distance_threshold_exceeded: extra_forbidden/],
  ];
  for (const [name, file, message] of refusals) {
    test(`refuses ${name}`, () => {
      assert.throws(
        () => parse(file),
        (error: unknown) => error instanceof CompanyFileError && message.test(error.message),
      );
    });
  }
});

describe('company file: legal form rules on bootstrap and update', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp();
  });
  after(() => t.close());

  const company = () => t.handle.db.selectFrom('companies').selectAll().where('id', '=', t.company.companyId).executeTakeFirstOrThrow();
  const update = (file: Record<string, unknown>) => updateCompany(t.handle.db, t.clock, sealer, t.company.companyId, JSON.stringify(file));
  const refusedWith = (message: RegExp) => (error: unknown) => error instanceof CompanyFileError && message.test(error.message);

  test('the test company (a GmbH) carries its register entry and managing directors', async () => {
    const row = await company();
    assert.deepEqual(
      [row.register_court, row.register_number, row.managing_directors],
      [COMPANY_FILE.register_court, COMPANY_FILE.register_number, COMPANY_FILE.managing_directors],
    );
  });

  const cases: [string, Record<string, unknown>, RegExp][] = [
    [
      'a GmbH without register court',
      { register_court: null, register_number: null },
      /register_court: missing: the legal form GmbH must name its register court/,
    ],
    ['a GmbH without managing directors', { managing_directors: [] }, /managing_directors: missing: the legal form GmbH must name every managing director/],
    ['a GmbH in the HRA register', { register_number: 'HRA 4711' }, /the legal form GmbH is entered in the HRB register, not in HRA/],
    ['a register number that is none', { register_number: 'Berlin 12345' }, /register_number: not a German register number/],
    [
      'an e.K. without register entry',
      { legal_form: 'e.K.', register_court: null, register_number: null, managing_directors: [] },
      /the legal form e\.K\. must name its register court/,
    ],
    ['an AG without its board', { legal_form: 'AG', managing_directors: [] }, /every member of its board \(Vorstand\)/],
  ];
  for (const [name, file, message] of cases) {
    test(`refuses ${name} and changes nothing`, async () => {
      const before = await company();
      await assert.rejects(update(file), refusedWith(message));
      assert.deepEqual(await company(), before);
    });
  }

  test('a company without a rule (Einzelunternehmen, GbR) needs no register entry; register court and number go together', async () => {
    const result = await update({ legal_form: 'Einzelunternehmen', register_court: null, register_number: null, managing_directors: null });
    assert.deepEqual(result.updated, ['legal_form', 'managing_directors', 'register_court', 'register_number']);
    await assert.rejects(update({ register_court: 'Amtsgericht Köln' }), refusedWith(/register court and register number go together/));
    await update({ legal_form: 'GbR' });
    // Back to a GmbH only with everything § 35a GmbHG asks for.
    await assert.rejects(update({ legal_form: 'GmbH' }), refusedWith(/register_court: missing/));
    await update({ legal_form: 'GmbH', register_court: 'Amtsgericht Köln', register_number: 'HRB 1', managing_directors: ['Anna Schmidt'] });
    assert.equal((await company()).legal_form, 'GmbH');
  });

  test('a GmbH set up before the rule: any update says what is missing, and issuing is refused in German', async () => {
    await t.handle.db
      .updateTable('companies')
      .set({ register_court: null, register_number: null, managing_directors: [] })
      .where('id', '=', t.company.companyId)
      .execute();
    await assert.rejects(update({ phone: '+49 30 7654321' }), refusedWith(/register_court: missing.*\n.*managing_directors: missing/s));
    await putCustomer(t, 'kunde-1');
    const res = await postInvoice(t, invoiceBody('legacy-1', { issue: true }));
    assert.equal(res.statusCode, 422);
    const detail = res.json().detail;
    assert.equal(detail.code, 'invoice_not_issuable');
    assert.ok(
      detail.messages.some((m: string) => /Rechtsform GmbH fehlen Registergericht und Registernummer/.test(m)),
      detail.messages.join(' | '),
    );
    assert.ok(detail.messages.some((m: string) => /Namen der Geschäftsführer/.test(m)));
    await update({ register_court: 'Amtsgericht Köln', register_number: 'HRB 1', managing_directors: ['Anna Schmidt'] });
    assert.equal((await postInvoice(t, invoiceBody('legacy-2', { issue: true }))).statusCode, 201);
  });

  test('the EU distance-selling flag decides the verdict for private customers in other EU states', async () => {
    await putCustomer(t, 'privat-at', { name: 'Maria Huber', customer_type: 'private', vat_id: null, zip: '1010', city: 'Wien', country_code: 'AT' });
    const body = (ref: string) => invoiceBody(ref, { customer: { source: 'crm', external_ref: 'privat-at' }, issue: true });
    assert.equal((await postInvoice(t, body('oss-1'))).statusCode, 201, 'German VAT below the threshold');
    await update({ eu_distance_sales_threshold_exceeded: true });
    const refused = await postInvoice(t, body('oss-2'));
    assert.equal(refused.statusCode, 422);
    assert.equal(refused.json().detail.code, 'invoice_not_issuable');
    await update({ eu_distance_sales_threshold_exceeded: false });
  });

  test('an issued invoice carries the settings: register data and managing directors in the PDF, the account holder as payee (BT-85)', async () => {
    await update({ account_holder: 'Muster Software GmbH Treuhandkonto' });
    await putCustomer(t, 'kunde-1');
    const issued = await postInvoice(t, invoiceBody('settings-1', { issue: true }));
    assert.equal(issued.statusCode, 201, issued.body);
    const id = issued.json().id;
    const pdf = await t.request('GET', `/v1/invoices/${id}/pdf`);
    const text = extractPages(pdf.rawPayload).join(' ').replace(/\s+/g, ' ');
    for (const expected of ['Amtsgericht Köln', 'HRB 1', 'Geschäftsführer: Anna Schmidt', 'Kontoinhaber: Muster Software GmbH Treuhandkonto']) {
      assert.ok(text.includes(expected), `PDF lacks "${expected}"`);
    }
    const xml = (await t.request('GET', `/v1/invoices/${id}/xml`)).body;
    assert.match(xml, /<ram:AccountName>Muster Software GmbH Treuhandkonto<\/ram:AccountName>/);
    assert.doesNotMatch(xml, /<ram:AccountName>Commerzbank/);
  });
});
