import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decideVat } from '../../src/modules/invoicing/vat-verdict.ts';
import { isPlausibleVatId, isSwissVatId, normalizeVatId } from '../../src/shared/tax-ids.ts';

// The IDs are made up for these tests (numbers invented, check digits computed); each
// wrong one differs from a right one only in its check digit(s).

describe('EU VAT IDs (through jsvat)', () => {
  const cases: [string, string, string][] = [
    ['DE', 'DE274619384', 'DE274619385'],
    ['AT', 'ATU58219378', 'ATU58219379'],
    ['FR', 'FR10412837593', 'FR11412837593'],
    ['NL', 'NL319472589B01', 'NL319472580B01'],
    ['IT', 'IT04728160302', 'IT04728160303'],
    ['ES (company, CIF)', 'ESB62934716', 'ESB62934717'],
    ['ES (person, NIF)', 'ES48295173A', 'ES48295173B'],
    ['PL', 'PL5839201743', 'PL5839201744'],
    ['BE (0-block)', 'BE0471829378', 'BE0471829379'],
    ['BE (1-block, issued since 2023)', 'BE1025387493', 'BE1025387494'],
    ['GR (prefix EL)', 'EL094728154', 'EL094728155'],
  ];
  for (const [state, right, wrong] of cases) {
    test(`accepts a VAT ID of ${state} with its check digit`, () => assert.equal(isPlausibleVatId(right), true));
    test(`refuses a VAT ID of ${state} with a wrong check digit`, () => assert.equal(isPlausibleVatId(wrong), false));
  }

  test('accepts an EU VAT ID whatever the party’s country (only the Swiss UID is tied to CH)', () => {
    for (const country of [undefined, null, 'DE', 'AT', 'US']) assert.equal(isPlausibleVatId('ATU58219378', country), true, String(country));
  });

  const refused: [string, string][] = [
    ['not in its normal form', 'de274619384'],
    ['of a member state in the wrong format (BE with 9 digits)', 'BE471829378'],
    ['of Greece under its ISO code GR', 'GR094728154'],
  ];
  for (const [why, vatId] of refused) {
    test(`refuses a VAT ID ${why}`, () => assert.equal(isPlausibleVatId(vatId), false));
  }
});

describe('UK VAT IDs (GB through jsvat, XI on the GB rule)', () => {
  const cases: [string, string, boolean][] = [
    ['accepts a GB VAT number with its check digits', 'GB385729154', true],
    ['refuses a GB VAT number with wrong check digits', 'GB385729155', false],
    ['accepts a Northern Ireland (XI) VAT number with its check digits', 'XI385729154', true],
    ['refuses a Northern Ireland (XI) VAT number with wrong check digits', 'XI385729155', false],
  ];
  for (const [rule, vatId, ok] of cases) test(rule, () => assert.equal(isPlausibleVatId(vatId, 'GB'), ok));
});

describe('Swiss UID (CHE, MOD 11 with weights 5 4 3 2 7 6 5 4)', () => {
  const normalised: [string, string][] = [
    ['CHE-483.729.158 MWST', 'CHE-483.729.158 MWST'],
    ['CHE-483.729.158 TVA', 'CHE-483.729.158 TVA'],
    ['che-483.729.158 iva', 'CHE-483.729.158 IVA'],
    ['CHE-483.729.158', 'CHE-483.729.158'],
    ['CHE 483 729 158 MWST', 'CHE-483.729.158 MWST'],
    ['CHE483729158MWST', 'CHE-483.729.158 MWST'],
    ['CHE-629.140.576', 'CHE-629.140.576'],
  ];
  for (const [raw, normal] of normalised) {
    test(`normalises ${JSON.stringify(raw)} to the printed form ${JSON.stringify(normal)}`, () => assert.equal(normalizeVatId(raw), normal));
    test(`accepts ${JSON.stringify(raw)} for a customer in CH`, () => assert.equal(isPlausibleVatId(normalizeVatId(raw), 'CH'), true));
  }

  const refused: [string, string, string | null | undefined][] = [
    ['with a wrong check digit', 'CHE-483.729.159 MWST', 'CH'],
    ['with a wrong check digit and no suffix', 'CHE-629.140.577', 'CH'],
    ['with a suffix other than MWST, TVA or IVA', 'CHE483729158VAT', 'CH'],
    ['with 8 digits', 'CHE-483.729.15', 'CH'],
    ['for a customer in DE', 'CHE-483.729.158 MWST', 'DE'],
    ['for a customer in AT', 'CHE-483.729.158', 'AT'],
    ['for a party without a country (the company file)', 'CHE-483.729.158 MWST', undefined],
    ['for a customer without a country', 'CHE-483.729.158 MWST', null],
  ];
  for (const [why, raw, country] of refused) {
    test(`refuses a Swiss UID ${why}`, () => assert.equal(isPlausibleVatId(normalizeVatId(raw), country), false));
  }

  test('refuses a Swiss UID not in its printed form', () => assert.equal(isPlausibleVatId('CHE483729158MWST', 'CH'), false));

  test('refuses a VAT ID other than a Swiss UID for a customer in CH', () => {
    for (const vatId of ['DE274619384', 'CH123456', 'NO123456789MVA']) assert.equal(isPlausibleVatId(vatId, 'CH'), false, vatId);
  });

  test('isSwissVatId ignores the country: format and check digit only', () => {
    assert.equal(isSwissVatId('CHE-483.729.158 MWST'), true);
    assert.equal(isSwissVatId('CHE-483.729.159 MWST'), false);
    assert.equal(isSwissVatId('DE274619384'), false);
  });
});

describe('VAT IDs of other countries outside the EU', () => {
  test('accepts an ID of another non-EU country by its shape only', () => {
    assert.equal(isPlausibleVatId('NO123456789MVA', 'NO'), true);
    assert.equal(isPlausibleVatId('US123456789', 'US'), true);
  });
  test('refuses an ID without a country prefix', () => assert.equal(isPlausibleVatId('123456789', 'US'), false));
});

describe('VAT verdict for a Swiss customer with a UID', () => {
  test('a business customer in CH with a Swiss UID is not taxable in Germany, not reverse charge', () => {
    const result = decideVat({
      company: { smallBusiness: false, euDistanceThresholdExceeded: false },
      customer: { countryCode: 'CH', customerType: 'business', vatId: 'CHE-483.729.158 MWST' },
      lines: [{ vatRate: 0, taxExemptionReason: null }],
    });
    assert.deepEqual(result, { verdict: 'not_taxable', messages: [] });
  });
});
