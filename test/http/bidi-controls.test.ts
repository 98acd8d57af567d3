import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { countRows, type TestApp, testApp } from '../helpers/app.ts';
import { invoiceBody, postInvoice, putCustomer } from '../invoicing/helpers.ts';

// Issue 24, point 5: names accepted the right-to-left override and the other bidirectional
// controls, which make a name display as something else on a PDF or page ("Müller GmbH" +
// U+202E + "fdp.exe" shows as "Müller GmbHexe.pdf"). They are refused like the other control
// characters (http/text-input.ts), in every text of every body: validation_failed, type
// `pattern`, loc at the field. Zero-width (non-)joiners stay allowed after the letters, marks
// and emoji they join from (Persian, Indic scripts, emoji sequences) and are refused where
// they join nothing.

type Issue = { loc: (string | number)[]; type: string; msg: string };
const issues = (body: string): string[] => (JSON.parse(body).detail.errors as Issue[]).map((e) => `${e.loc.join('.')}:${e.type}`);

/** Every Bidi_Control character of Unicode: the embeddings, overrides and isolates, and the three marks. */
const BIDI_CONTROLS: [string, string][] = [
  ['\u202a', 'LEFT-TO-RIGHT EMBEDDING'],
  ['\u202b', 'RIGHT-TO-LEFT EMBEDDING'],
  ['\u202c', 'POP DIRECTIONAL FORMATTING'],
  ['\u202d', 'LEFT-TO-RIGHT OVERRIDE'],
  ['\u202e', 'RIGHT-TO-LEFT OVERRIDE'],
  ['\u2066', 'LEFT-TO-RIGHT ISOLATE'],
  ['\u2067', 'RIGHT-TO-LEFT ISOLATE'],
  ['\u2068', 'FIRST STRONG ISOLATE'],
  ['\u2069', 'POP DIRECTIONAL ISOLATE'],
  ['\u200e', 'LEFT-TO-RIGHT MARK'],
  ['\u200f', 'RIGHT-TO-LEFT MARK'],
  ['\u061c', 'ARABIC LETTER MARK'],
];
const RLO = '\u202e';
const ZWNJ = '\u200c';
const ZWJ = '\u200d';

describe('bidirectional controls are refused in every text', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp();
    await putCustomer(t, 'kunde-1');
  });
  after(() => t.close());

  const putCustomerName = (ref: string, name: string) => t.request('PUT', `/v1/customers/by-ref/crm/${ref}`, { body: { name } });
  const customerExists = async (ref: string) => (await t.request('GET', `/v1/customers/by-ref/crm/${ref}`)).statusCode === 200;

  test('each of the twelve bidi controls in a customer name: 422 validation_failed, pattern at body.name, nothing stored, nothing echoed', async () => {
    for (const [i, [control, label]] of BIDI_CONTROLS.entries()) {
      const ref = `bidi-${i}`;
      const res = await putCustomerName(ref, `Müller GmbH${control}fdp.exe`);
      assert.equal(res.statusCode, 422, `${label}: ${res.body}`);
      assert.equal(res.json().detail.code, 'validation_failed');
      assert.deepEqual(issues(res.body), ['body.name:pattern'], label);
      assert.ok(!res.body.includes('fdp.exe'), `${label}: the value is not echoed`);
      assert.equal(await customerExists(ref), false, `${label}: nothing stored`);
    }
  });

  test('a control at the start, alone or in a multi-line description is refused too; the message says why', async () => {
    for (const name of [`${RLO}Müller`, RLO, `Mül${RLO}ler`]) {
      const res = await putCustomerName('bidi-pos', name);
      assert.equal(res.statusCode, 422);
      assert.deepEqual(issues(res.body), ['body.name:pattern']);
      assert.equal(res.json().detail.errors[0].msg, 'Input must be one line of text without control characters (direction controls included)');
    }
    const before = await countRows(t.handle, 'invoices');
    const res = await postInvoice(
      t,
      invoiceBody('bidi-desc', { lines: [{ description: `Beratung\nZeile 2 \u2067versteckt\u2069`, quantity: '1', unit_price_net: '10', vat_rate: 19 }] }),
    );
    assert.equal(res.statusCode, 422, res.body);
    assert.deepEqual(issues(res.body), ['body.lines.0.description:pattern']);
    assert.equal(res.json().detail.errors[0].msg, 'Input must be text without control characters other than tab and line breaks (direction controls included)');
    assert.equal(await countRows(t.handle, 'invoices'), before);
  });

  test('line and paragraph separators (U+2028, U+2029) are refused like a line break in a one-line text and in descriptions', async () => {
    for (const separator of ['\u2028', '\u2029']) {
      const res = await putCustomerName('sep', `Zwei${separator}Zeilen GmbH`);
      assert.deepEqual(issues(res.body), ['body.name:pattern']);
      const line = await postInvoice(
        t,
        invoiceBody('sep-desc', { lines: [{ description: `a${separator}b`, quantity: '1', unit_price_net: '10', vat_rate: 19 }] }),
      );
      assert.deepEqual(issues(line.body), ['body.lines.0.description:pattern']);
    }
  });

  test('customers, partners, products, invoice lines and contracts: every name and text field refuses U+202E', async () => {
    const before = {
      customers: await countRows(t.handle, 'customers'),
      partners: await countRows(t.handle, 'commission_partners'),
      products: await countRows(t.handle, 'products'),
      invoices: await countRows(t.handle, 'invoices'),
      contracts: await countRows(t.handle, 'contracts'),
    };
    const bad = (text: string) => `${text}${RLO}gnp.exe`;
    const customer = await t.request('PUT', '/v1/customers/by-ref/crm/bidi-all', {
      body: { name: bad('Name'), street: bad('Straße'), house_number: bad('5'), zip: bad('80331'), city: bad('Ort'), contact_name: bad('Kontakt') },
    });
    assert.deepEqual(issues(customer.body).sort(), [
      'body.city:pattern',
      'body.contact_name:pattern',
      'body.house_number:pattern',
      'body.name:pattern',
      'body.street:pattern',
      'body.zip:pattern',
    ]);
    const partner = await t.request('PUT', '/v1/commission-partners/by-ref/crm/bidi-p', {
      body: { name: bad('Partner'), street: bad('Weg'), city: bad('Ort'), notes: bad('Notiz\nzweite Zeile') },
    });
    assert.equal(partner.statusCode, 422, partner.body);
    assert.deepEqual(issues(partner.body).sort(), ['body.city:pattern', 'body.name:pattern', 'body.notes:pattern', 'body.street:pattern']);
    const product = await t.request('PUT', '/v1/products/by-ref/crm/bidi-pr', {
      body: { product_number: 'BIDI-1', name: bad('Tarif'), description: bad('Text'), unit: bad('Stück'), unit_price_net: '1', billing_interval: 'month' },
    });
    assert.deepEqual(issues(product.body).sort(), ['body.description:pattern', 'body.name:pattern', 'body.unit:pattern']);
    const invoice = await postInvoice(
      t,
      invoiceBody('bidi-inv', {
        lines: [{ description: bad('Leistung'), quantity: '1', unit: bad('Std'), unit_price_net: '10', vat_rate: 0, tax_exemption_reason: bad('Grund') }],
      }),
    );
    assert.deepEqual(issues(invoice.body).sort(), [
      'body.lines.0.description:pattern',
      'body.lines.0.tax_exemption_reason:pattern',
      'body.lines.0.unit:pattern',
    ]);
    const contract = await t.request('PUT', '/v1/contracts/by-ref/crm/bidi-c', {
      body: {
        customer: { source: 'crm', external_ref: 'kunde-1' },
        name: bad('Vertrag'),
        status: 'active',
        billing_interval: 'month',
        start_date: '2026-12-01',
        items: [{ ref: 'a', description: bad('Posten'), quantity: '1', unit_price_net: '5.00', vat_rate: 19 }],
      },
    });
    assert.deepEqual(issues(contract.body).sort(), ['body.items.0.description:pattern', 'body.name:pattern']);
    assert.deepEqual(
      {
        customers: await countRows(t.handle, 'customers'),
        partners: await countRows(t.handle, 'commission_partners'),
        products: await countRows(t.handle, 'products'),
        invoices: await countRows(t.handle, 'invoices'),
        contracts: await countRows(t.handle, 'contracts'),
      },
      before,
      'nothing stored',
    );
  });

  test('query strings and path parameters refuse them alike', async () => {
    const res = await t.request('GET', '/v1/invoices?customer_source=crm&customer_ref=a%E2%80%AEb');
    assert.equal(res.statusCode, 422, res.body);
    assert.deepEqual(issues(res.body), ['query.customer_ref:pattern']);
  });

  test('right-to-left scripts without controls are names like any other', async () => {
    const names: [string, string][] = [
      ['rtl-ar', 'شركة المثال للتجارة'],
      ['rtl-he', 'דוגמה בע"מ'],
      ['rtl-mixed', 'Müller GmbH / مولر'],
    ];
    for (const [ref, name] of names) {
      const res = await putCustomerName(ref, name);
      assert.equal(res.statusCode, 201, `${ref}: ${res.body}`);
      assert.equal(res.json().name, name);
    }
  });

  test('zero-width joiners: kept after the letters, marks and emoji they join from, refused at the start, after a blank, digit or sign, or doubled', async () => {
    const accepted: [string, string][] = [
      ['Persian word with ZWNJ', `نرم${ZWNJ}افزار سازان`],
      ['Devanagari conjunct with ZWJ after the virama', `क्${ZWJ}ष ट्रेडर्स`],
      ['Malayalam chillu: ZWJ after the virama at the end of a word', `ന്${ZWJ} ടെക്`],
      ['Devanagari half form at the end of the name', `क्${ZWJ}`],
      ['emoji family', `Familie 👨${ZWJ}👩${ZWJ}👧 GmbH`],
      ['emoji with skin tone', `👩🏽${ZWJ}💻 Studio`],
    ];
    for (const [i, [label, name]] of accepted.entries()) {
      const res = await putCustomerName(`zw-ok-${i}`, name);
      assert.equal(res.statusCode, 201, `${label}: ${res.body}`);
      assert.equal(res.json().name, name, `${label}: stored as sent`);
    }
    const refused: [string, string][] = [
      ['ZWNJ at the start', `${ZWNJ}Müller GmbH`],
      ['ZWJ alone', ZWJ],
      ['ZWJ after a blank', `Müller ${ZWJ}GmbH`],
      ['ZWJ after a full stop at the end', `Müller & Co.${ZWJ}`],
      ['ZWNJ after a digit', `12${ZWNJ}34 GmbH`],
      ['two joiners in a row', `Mül${ZWJ}${ZWNJ}ler`],
    ];
    for (const [i, [label, name]] of refused.entries()) {
      const res = await putCustomerName(`zw-bad-${i}`, name);
      assert.equal(res.statusCode, 422, `${label}: ${res.body}`);
      assert.deepEqual(issues(res.body), ['body.name:pattern'], label);
      assert.equal(await customerExists(`zw-bad-${i}`), false, `${label}: nothing stored`);
    }
  });
});
