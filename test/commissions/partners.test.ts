import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { countRows, type TestApp, testApp } from '../helpers/app.ts';

// upsertCommissionPartner / retrieveCommissionPartner (issue 14, point 1): the partner with
// its defaults, its supplier and gapless creditor number (70000–79999), PUT semantics, 200
// always, every commission.* refusal before validation_failed, and nothing written by a refusal.

const FULL = {
  name: 'Vertriebspartner Nord GmbH',
  email: 'abrechnung@nord.example',
  kind: 'sales_partner',
  tax_status: 'domestic_regular',
  billing_mode: 'self_billing',
  self_billing_agreed_on: '2026-01-15',
  self_billing_contract_ref: 'GS-Vereinbarung 2026/1',
  statement_cadence: 'quarter',
  min_payout_cents: 5000,
  payout_rail: 'sepa_credit_transfer',
  e_invoice_format: 'zugferd',
  language: 'de',
  notes: 'Zahlung nur nach Freigabe\nRückfragen an Frau Berg',
  street: 'Hafenstraße',
  house_number: '12',
  zip: '20457',
  city: 'Hamburg',
  country_code: 'DE',
  vat_id: 'de 136 695 976',
  tax_number: '22/815/08154',
};

// Interface §2 CommissionPartner, in its order.
const FIELDS = [
  'id',
  'name',
  'email',
  'kind',
  'tax_status',
  'billing_mode',
  'self_billing_agreed_on',
  'self_billing_contract_ref',
  'self_billing_objected_at',
  'statement_cadence',
  'min_payout_cents',
  'payout_rail',
  'e_invoice_format',
  'has_payee_account',
  'iban_masked',
  'bic',
  'payee_changed_at',
  'language',
  'status',
  'notes',
  'supplier_id',
  'kreditorennummer',
  'street',
  'house_number',
  'zip',
  'city',
  'country_code',
  'vat_id',
  'tax_number',
  'external_source',
  'external_ref',
  'balance',
  'created_at',
];

describe('upsertCommissionPartner and retrieveCommissionPartner', () => {
  let t: TestApp;
  const put = (ref: string, body: unknown, key?: string) => t.request('PUT', `/v1/commission-partners/by-ref/shop/${ref}`, { body, ...(key ? { key } : {}) });
  const get = (ref: string, key?: string) => t.request('GET', `/v1/commission-partners/by-ref/shop/${ref}`, key ? { key } : {});
  const row = (companyId: string, ref: string) =>
    t.handle.db.selectFrom('commission_partners').selectAll().where('company_id', '=', companyId).where('external_ref', '=', ref).executeTakeFirst();
  /** The next creditor number the company's range would give (undefined before its first draw). */
  const nextCreditor = async (companyId = t.company.companyId) =>
    (
      await t.handle.db
        .selectFrom('number_ranges')
        .select('next_value')
        .where('company_id', '=', companyId)
        .where('range_key', '=', 'creditor')
        .executeTakeFirst()
    )?.next_value;
  const written = async () => ({
    partners: await countRows(t.handle, 'commission_partners'),
    suppliers: await countRows(t.handle, 'suppliers'),
    next: await nextCreditor(),
  });

  before(async () => {
    t = await testApp();
  });
  after(() => t.close());

  test('creates a partner with the first creditor number and its supplier: 200, every field of the interface in order', async () => {
    const res = await put('partner-1', FULL);
    assert.equal(res.statusCode, 200, res.body);
    const partner = res.json();
    assert.deepEqual(Object.keys(partner), FIELDS);
    assert.match(partner.id, /^cpt_/);
    assert.match(partner.supplier_id, /^sup_/);
    assert.deepEqual(
      { ...partner, id: undefined, supplier_id: undefined },
      {
        ...FULL,
        id: undefined,
        supplier_id: undefined,
        vat_id: 'DE136695976',
        self_billing_objected_at: null,
        has_payee_account: false,
        iban_masked: null,
        bic: null,
        payee_changed_at: null,
        status: 'active',
        kreditorennummer: '70000',
        external_source: 'shop',
        external_ref: 'partner-1',
        balance: { open: 0, statemented: 0, paid: 0 },
        created_at: '2026-11-21T10:00:00.000Z',
      },
    );
    const supplier = await t.handle.db.selectFrom('suppliers').selectAll().where('id', '=', partner.supplier_id).executeTakeFirstOrThrow();
    assert.equal(supplier.company_id, t.company.companyId);
    assert.equal(supplier.kreditorennummer, 70000);
    assert.equal(supplier.name, FULL.name);

    const read = await get('partner-1');
    assert.equal(read.statusCode, 200);
    assert.deepEqual(read.json(), partner);
  });

  test('only a name: every optional field takes its default; the next partner gets the next creditor number', async () => {
    const res = await put('partner-2', { name: '  Entwicklerin Ada  ' });
    assert.equal(res.statusCode, 200, res.body);
    const partner = res.json();
    assert.equal(partner.kreditorennummer, '70001');
    assert.deepEqual(
      { ...partner, id: undefined, supplier_id: undefined, created_at: undefined },
      {
        id: undefined,
        name: 'Entwicklerin Ada',
        email: null,
        kind: 'other',
        tax_status: 'domestic_regular',
        billing_mode: 'self_billing',
        self_billing_agreed_on: null,
        self_billing_contract_ref: null,
        self_billing_objected_at: null,
        statement_cadence: 'month',
        min_payout_cents: 0,
        payout_rail: 'sepa_credit_transfer',
        e_invoice_format: 'auto',
        has_payee_account: false,
        iban_masked: null,
        bic: null,
        payee_changed_at: null,
        language: 'de',
        status: 'active',
        notes: null,
        supplier_id: undefined,
        kreditorennummer: '70001',
        street: null,
        house_number: null,
        zip: null,
        city: null,
        country_code: null,
        vat_id: null,
        tax_number: null,
        external_source: 'shop',
        external_ref: 'partner-2',
        balance: { open: 0, statemented: 0, paid: 0 },
        created_at: undefined,
      },
    );
    // Null is the same as omitted.
    const nulls = Object.fromEntries(Object.keys(FULL).map((key) => [key, null]));
    const again = await put('partner-2', { ...nulls, name: 'Entwicklerin Ada' });
    assert.equal(again.statusCode, 200, again.body);
    assert.deepEqual(again.json(), partner);
  });

  test('the same PUT again answers 200 with the partner unchanged (updated_at too), no number drawn', async () => {
    const before = await row(t.company.companyId, 'partner-1');
    const counts = await written();
    t.clock.set('2026-11-22T08:00:00Z');
    const res = await put('partner-1', FULL);
    assert.equal(res.statusCode, 200, res.body);
    const after = await row(t.company.companyId, 'partner-1');
    assert.equal(after?.updated_at.toISOString(), before?.updated_at.toISOString());
    assert.deepEqual(after, before);
    assert.deepEqual(await written(), counts);
  });

  test('an update makes the partner what is sent: omitted fields back to defaults; number, supplier, objection and balance kept; supplier renamed', async () => {
    await sql`update commission_partners set self_billing_objected_at = '2026-10-01T09:00:00Z', balance_open_cents = 1234,
              balance_statemented_cents = 500, balance_paid_cents = 99
              where company_id = ${t.company.companyId} and external_ref = 'partner-1'`.execute(t.handle.db);
    const first = (await get('partner-1')).json();
    const counts = await written();
    t.clock.set('2026-11-23T12:00:00Z');
    const res = await put('partner-1', {
      name: 'Vertriebspartner Nord AG',
      kind: 'developer',
      tax_status: 'eu_reverse_charge',
      min_payout_cents: 0,
      language: 'en',
    });
    assert.equal(res.statusCode, 200, res.body);
    const partner = res.json();
    assert.equal(partner.id, first.id);
    assert.equal(partner.supplier_id, first.supplier_id);
    assert.equal(partner.kreditorennummer, '70000');
    assert.equal(partner.created_at, first.created_at);
    assert.equal(partner.name, 'Vertriebspartner Nord AG');
    assert.equal(partner.kind, 'developer');
    assert.equal(partner.tax_status, 'eu_reverse_charge');
    assert.equal(partner.language, 'en');
    assert.equal(partner.email, null);
    assert.equal(partner.statement_cadence, 'month');
    assert.equal(partner.e_invoice_format, 'auto');
    assert.equal(partner.self_billing_agreed_on, null);
    assert.equal(partner.vat_id, null);
    assert.equal(partner.self_billing_objected_at, '2026-10-01T09:00:00.000Z', 'an objection is not the API’s to undo');
    assert.deepEqual(partner.balance, { open: 1234, statemented: 500, paid: 99 });
    assert.deepEqual(await written(), counts);
    const stored = await row(t.company.companyId, 'partner-1');
    assert.equal(stored?.updated_at.toISOString(), '2026-11-23T12:00:00.000Z');
    const supplier = await t.handle.db.selectFrom('suppliers').selectAll().where('id', '=', partner.supplier_id).executeTakeFirstOrThrow();
    assert.deepEqual([supplier.name, supplier.kreditorennummer], ['Vertriebspartner Nord AG', 70000]);
    assert.deepEqual((await get('partner-1')).json(), partner);
  });

  const refusals: { rule: string; body: Record<string, unknown>; code: string }[] = [
    { rule: 'a missing name', body: { kind: 'developer' }, code: 'commission.partner_name_missing' },
    { rule: 'a null name', body: { name: null }, code: 'commission.partner_name_missing' },
    { rule: 'an empty name', body: { name: '' }, code: 'commission.partner_name_missing' },
    { rule: 'a blank name', body: { name: '   ' }, code: 'commission.partner_name_missing' },
    { rule: 'an unknown kind', body: { name: 'P', kind: 'affiliate' }, code: 'commission.partner_kind_invalid' },
    { rule: 'a kind in other case', body: { name: 'P', kind: 'Developer' }, code: 'commission.partner_kind_invalid' },
    { rule: 'an unknown tax status', body: { name: 'P', tax_status: 'kleinunternehmer' }, code: 'commission.tax_status_invalid' },
    { rule: 'an unknown billing mode', body: { name: 'P', billing_mode: 'invoice' }, code: 'commission.billing_mode_invalid' },
    { rule: 'an unknown e-invoice format', body: { name: 'P', e_invoice_format: 'ubl' }, code: 'commission.e_invoice_format_invalid' },
    { rule: 'a negative minimum payout', body: { name: 'P', min_payout_cents: -1 }, code: 'commission.min_payout_invalid' },
    { rule: 'a fractional minimum payout', body: { name: 'P', min_payout_cents: 10.5 }, code: 'commission.min_payout_invalid' },
    // Precedence when several problems meet (design §3 order; specific codes before validation_failed).
    { rule: 'a missing name wins over an unknown kind', body: { kind: 'affiliate', min_payout_cents: -5 }, code: 'commission.partner_name_missing' },
    { rule: 'an unknown kind wins over an unknown tax status', body: { name: 'P', kind: 'x', tax_status: 'y' }, code: 'commission.partner_kind_invalid' },
    {
      rule: 'an unknown tax status wins over an unknown billing mode',
      body: { name: 'P', tax_status: 'y', billing_mode: 'z' },
      code: 'commission.tax_status_invalid',
    },
    {
      rule: 'an unknown billing mode wins over an unknown e-invoice format',
      body: { name: 'P', billing_mode: 'z', e_invoice_format: 'ubl' },
      code: 'commission.billing_mode_invalid',
    },
    {
      rule: 'an unknown e-invoice format wins over a negative minimum payout',
      body: { name: 'P', e_invoice_format: 'ubl', min_payout_cents: -1 },
      code: 'commission.e_invoice_format_invalid',
    },
    {
      rule: 'a negative minimum payout wins over a bad VAT ID and country',
      body: { name: 'P', min_payout_cents: -1, vat_id: 'DE123456789', country_code: 'XX' },
      code: 'commission.min_payout_invalid',
    },
  ];

  const invalid: { rule: string; body: Record<string, unknown>; loc: (string | number)[]; type: string }[] = [
    ...['iban', 'bic', 'iban_masked', 'has_payee_account', 'payee_changed_at', 'supplier_id', 'kreditorennummer', 'balance', 'status', 'id'].map((field) => ({
      rule: `the field ${field}`,
      body: { name: 'P', [field]: field === 'balance' ? { open: 0 } : 'DE02120300000000202051' },
      loc: ['body', field],
      type: 'extra_forbidden',
    })),
    {
      rule: 'self_billing_objected_at (never set by the API)',
      body: { name: 'P', self_billing_objected_at: null },
      loc: ['body', 'self_billing_objected_at'],
      type: 'extra_forbidden',
    },
    {
      rule: 'an unknown field before an unknown kind',
      body: { name: 'P', kind: 'x', iban: 'DE02120300000000202051' },
      loc: ['body', 'iban'],
      type: 'extra_forbidden',
    },
    { rule: 'a name that is no string', body: { name: 42 }, loc: ['body', 'name'], type: 'type_error' },
    { rule: 'a name longer than 255', body: { name: 'N'.repeat(256) }, loc: ['body', 'name'], type: 'too_long' },
    { rule: 'a kind that is no string', body: { name: 'P', kind: 3 }, loc: ['body', 'kind'], type: 'type_error' },
    { rule: 'a minimum payout as a string', body: { name: 'P', min_payout_cents: '100' }, loc: ['body', 'min_payout_cents'], type: 'type_error' },
    {
      rule: 'a minimum payout above 999,999,999.99 EUR',
      body: { name: 'P', min_payout_cents: 100_000_000_000 },
      loc: ['body', 'min_payout_cents'],
      type: 'greater_than_maximum',
    },
    { rule: 'a bad e-mail', body: { name: 'P', email: 'keine-adresse' }, loc: ['body', 'email'], type: 'format' },
    { rule: 'a bad VAT ID', body: { name: 'P', vat_id: 'DE123456789' }, loc: ['body', 'vat_id'], type: 'pattern' },
    {
      rule: 'a Swiss UID for a partner outside CH',
      body: { name: 'P', vat_id: 'CHE-116.281.710 MWST', country_code: 'DE' },
      loc: ['body', 'vat_id'],
      type: 'pattern',
    },
    { rule: 'a country code that is none', body: { name: 'P', country_code: 'XX' }, loc: ['body', 'country_code'], type: 'enum' },
    { rule: 'a country code in lower case', body: { name: 'P', country_code: 'de' }, loc: ['body', 'country_code'], type: 'pattern' },
    { rule: 'an unknown language', body: { name: 'P', language: 'fr' }, loc: ['body', 'language'], type: 'enum' },
    { rule: 'an unknown statement cadence', body: { name: 'P', statement_cadence: 'week' }, loc: ['body', 'statement_cadence'], type: 'enum' },
    { rule: 'an unknown payout rail', body: { name: 'P', payout_rail: 'paypal' }, loc: ['body', 'payout_rail'], type: 'enum' },
    {
      rule: 'an agreement day that is no date',
      body: { name: 'P', self_billing_agreed_on: '2026-02-30' },
      loc: ['body', 'self_billing_agreed_on'],
      type: 'format',
    },
    { rule: 'a name with a line break', body: { name: 'Zeile\nZwei' }, loc: ['body', 'name'], type: 'pattern' },
    { rule: 'notes longer than 2000', body: { name: 'P', notes: 'n'.repeat(2001) }, loc: ['body', 'notes'], type: 'too_long' },
  ];

  test('every partner refusal answers its commission.* code (422) and writes nothing', async () => {
    const counts = await written();
    for (const { rule, body, code } of refusals) {
      const res = await put('refused', body);
      assert.equal(res.statusCode, 422, `${rule}: ${res.body}`);
      assert.equal(res.json().detail.code, code, rule);
      assert.deepEqual(await written(), counts, rule);
    }
  });

  test('other bad input is validation_failed with loc and type, the value not echoed, and writes nothing', async () => {
    const counts = await written();
    for (const { rule, body, loc, type } of invalid) {
      const res = await put('refused', body);
      assert.equal(res.statusCode, 422, `${rule}: ${res.body}`);
      const detail = res.json().detail;
      assert.equal(detail.code, 'validation_failed', `${rule}: ${res.body}`);
      assert.ok(
        detail.errors.some((e: { loc: unknown[]; type: string }) => JSON.stringify(e.loc) === JSON.stringify(loc) && e.type === type),
        `${rule}: ${JSON.stringify(detail.errors)}`,
      );
      assert.doesNotMatch(res.body, /DE02120300000000202051|DE123456789|keine-adresse/, rule);
      assert.deepEqual(await written(), counts, rule);
    }
    for (const [rule, payload] of [
      ['a body that is an array', '[]'],
      ['a body that is a string', '"P"'],
    ] as const) {
      const res = await put('refused', payload);
      assert.equal(res.json().detail.code, 'validation_failed', rule);
    }
    assert.equal((await get('refused')).statusCode, 404);
    // The refusals used no creditor number: the next partner gets the next one.
    const next = await put('partner-3', { name: 'Dritter Partner' });
    assert.equal(next.json().kreditorennummer, '70002');
  });

  test('an archived partner refuses upserts with 409 commission.partner_archived and stays as it is', async () => {
    await put('archived-1', { name: 'Alter Partner' });
    await sql`update commission_partners set status = 'archived' where company_id = ${t.company.companyId} and external_ref = 'archived-1'`.execute(
      t.handle.db,
    );
    const before = await row(t.company.companyId, 'archived-1');
    const counts = await written();
    for (const body of [{ name: 'Alter Partner' }, { name: 'Neuer Name', kind: 'developer' }]) {
      const res = await put('archived-1', body);
      assert.equal(res.statusCode, 409, res.body);
      assert.equal(res.json().detail.code, 'commission.partner_archived');
    }
    assert.deepEqual(await row(t.company.companyId, 'archived-1'), before);
    assert.deepEqual(await written(), counts);
    const read = await get('archived-1');
    assert.equal(read.statusCode, 200);
    assert.equal(read.json().status, 'archived');
  });

  test('a payout account set in the app shows as has_payee_account with the masked IBAN, and a PUT keeps it', async () => {
    await put('payee-1', { name: 'Mit Konto' });
    await sql`update commission_partners set iban_sealed = 'sealed', iban_masked = 'DE02 **** **** **** **20 51', bic = 'BYLADEM1001',
              payee_changed_at = '2026-11-20T07:00:00Z' where company_id = ${t.company.companyId} and external_ref = 'payee-1'`.execute(t.handle.db);
    const res = await put('payee-1', { name: 'Mit Konto', notes: 'geändert' });
    assert.equal(res.statusCode, 200, res.body);
    const partner = res.json();
    assert.deepEqual(
      [partner.has_payee_account, partner.iban_masked, partner.bic, partner.payee_changed_at, partner.notes],
      [true, 'DE02 **** **** **** **20 51', 'BYLADEM1001', '2026-11-20T07:00:00.000Z', 'geändert'],
    );
    assert.doesNotMatch(JSON.stringify(partner), /sealed/);
  });

  test('GET: unknown reference and another company’s partner give 404 commission.partner_not_found', async () => {
    const unknown = await get('nobody');
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.json().detail.code, 'commission.partner_not_found');

    const other = await t.newCompany('other');
    const otherKey = await t.newKey({ company: other });
    const foreign = await get('partner-1', otherKey);
    assert.equal(foreign.statusCode, 404);
    assert.equal(foreign.json().detail.code, 'commission.partner_not_found');
    // The same reference in the other company is its own partner, with that company's first creditor number.
    const own = await put('partner-1', { name: 'Partner der anderen Firma' }, otherKey);
    assert.equal(own.statusCode, 200, own.body);
    assert.equal(own.json().kreditorennummer, '70000');
    assert.notEqual(own.json().id, (await get('partner-1')).json().id);
    assert.equal((await get('partner-1')).json().name, 'Vertriebspartner Nord AG');
  });

  test('scopes: partner:commissions:write to PUT, partner:commissions:read to GET', async () => {
    const readOnly = await t.newKey({ scopes: ['partner:commissions:read'] });
    const refused = await put('scoped', { name: 'P' }, readOnly);
    assert.equal(refused.statusCode, 403);
    assert.equal(refused.json().detail.code, 'api_key_scope_missing');
    assert.equal(refused.json().detail.scope, 'partner:commissions:write');
    assert.equal((await get('partner-1', readOnly)).statusCode, 200);
    // The scope is checked before the body (design §3 check order).
    assert.equal((await put('scoped', { iban: 'x' }, readOnly)).json().detail.code, 'api_key_scope_missing');

    const invoicesOnly = await t.newKey({ scopes: ['partner:invoices:read'] });
    const notRead = await get('partner-1', invoicesOnly);
    assert.equal(notRead.statusCode, 403);
    assert.equal(notRead.json().detail.code, 'api_key_scope_missing');
    assert.equal(notRead.json().detail.scope, 'partner:commissions:read');

    const writeOnly = await t.newKey({ scopes: ['partner:commissions:write'] });
    assert.equal((await put('scoped', { name: 'P' }, writeOnly)).statusCode, 200);
    assert.equal((await get('scoped', writeOnly)).json().detail.scope, 'partner:commissions:read');
  });

  test('a used-up creditor range gives 409 commission.creditor_number_range_exhausted and writes nothing', async () => {
    const full = await t.newCompany('full');
    const key = await t.newKey({ company: full });
    await sql`insert into number_ranges (company_id, range_key, next_value, last_value) values (${full.companyId}, 'creditor', 79999, 79999)`.execute(
      t.handle.db,
    );
    const last = await put('last', { name: 'Letzter Kreditor' }, key);
    assert.equal(last.statusCode, 200, last.body);
    assert.equal(last.json().kreditorennummer, '79999');
    const counts = await written();
    const res = await put('one-too-many', { name: 'Einer zu viel' }, key);
    assert.equal(res.statusCode, 409, res.body);
    assert.equal(res.json().detail.code, 'commission.creditor_number_range_exhausted');
    assert.deepEqual(await written(), counts);
    assert.equal(await nextCreditor(full.companyId), 80000);
    assert.equal((await get('one-too-many', key)).statusCode, 404);
    // An existing partner can still be updated.
    assert.equal((await put('last', { name: 'Letzter Kreditor', kind: 'developer' }, key)).statusCode, 200);
  });

  test('concurrent creates of one reference: one partner, one supplier, one creditor number, every answer 200 with it', async () => {
    const counts = await written();
    const answers = await Promise.all(Array.from({ length: 6 }, () => put('race-1', { name: 'Gleichzeitig GmbH', kind: 'sales_partner' })));
    for (const res of answers) assert.equal(res.statusCode, 200, res.body);
    const ids = new Set(answers.map((res) => res.json().id));
    assert.equal(ids.size, 1);
    assert.equal(new Set(answers.map((res) => res.json().kreditorennummer)).size, 1);
    const after = await written();
    assert.deepEqual(after, { partners: counts.partners + 1, suppliers: counts.suppliers + 1, next: (counts.next ?? 0) + 1 });
    assert.equal(answers[0]!.json().kreditorennummer, String(counts.next));
  });

  test('concurrent creates of different references draw distinct gapless numbers', async () => {
    const counts = await written();
    const first = counts.next ?? 70000;
    const answers = await Promise.all(Array.from({ length: 5 }, (_, i) => put(`many-${i}`, { name: `Partner ${i}` })));
    for (const res of answers) assert.equal(res.statusCode, 200, res.body);
    const numbers = answers.map((res) => Number(res.json().kreditorennummer)).sort((a, b) => a - b);
    assert.deepEqual(
      numbers,
      Array.from({ length: 5 }, (_, i) => first + i),
    );
  });
});
