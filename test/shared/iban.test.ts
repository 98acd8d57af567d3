import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isValidBic, isValidIban, normalizeBic, normalizeIban } from '../../src/shared/iban.ts';

// The IBANs are made up for these tests (bank and account numbers invented, check digits
// computed), not taken from anywhere.

describe('IBAN (ISO 13616, through ibantools)', () => {
  const valid: [string, string][] = [
    ['DE', 'DE54760501010482916375'],
    ['AT', 'AT521904327481035962'],
    ['CH', 'CH0300762048193726510'],
    ['FR (with its RIB key)', 'FR7620041010050513748291624'],
    ['GB', 'GB66NWBK60161348203917'],
    ['NO (with its MOD 11 account check digit)', 'NO6886013729540'],
    ['MT (31 characters)', 'MT84MALT011000012345MTLCAST001S'],
  ];
  for (const [country, iban] of valid) {
    test(`accepts an IBAN of ${country}`, () => assert.equal(isValidIban(iban), true));
  }

  const invalid: [string, string][] = [
    ['with wrong check digits', 'DE55760501010482916375'],
    ['of the wrong length for its country, even with fitting check digits', 'DE6176050101048291637'],
    ['whose national check digit is wrong although MOD 97 holds', 'NO4186013729541'],
    ['of an unknown country', 'XX54760501010482916375'],
    ['not in electronic form (lower case)', 'de54760501010482916375'],
    ['not in electronic form (spaces)', 'DE54 7605 0101 0482 9163 75'],
    ['that is a Swiss QR-IBAN (takes only payments with a QR reference)', 'CH3930808001234567891'],
    ['that is empty', ''],
  ];
  for (const [why, iban] of invalid) {
    test(`refuses an IBAN ${why}`, () => assert.equal(isValidIban(iban), false));
  }

  const forms: [string, string][] = [
    ['de54 7605 0101 0482 9163 75', 'DE54760501010482916375'],
    [' DE54-7605-0101-0482-9163-75\t', 'DE54760501010482916375'],
  ];
  for (const [raw, normal] of forms) {
    test(`normalises ${JSON.stringify(raw)} to the electronic form`, () => assert.equal(normalizeIban(raw), normal));
  }
});

describe('BIC (ISO 9362, through ibantools)', () => {
  const valid = ['DEUTDEFF', 'BNPAFRPP', 'NWBKGB2L', 'COBADEFFXXX', 'UBSWCHZH80A'];
  for (const bic of valid) {
    test(`accepts the ${bic.length}-character BIC ${bic}`, () => assert.equal(isValidBic(bic), true));
  }

  const invalid: [string, string][] = [
    ['of 7 characters', 'DEUTDEF'],
    ['of 9 characters', 'DEUTDEFF5'],
    ['of 12 characters', 'DEUTDEFF5000'],
    ['with an unknown country', 'DEUTXXFF'],
    ['with a digit in the bank code', 'DEU1DEFF'],
    ['in lower case (not the stored form)', 'deutdeff'],
    ['with a space', 'DEUT DEFF'],
    ['that is empty', ''],
  ];
  for (const [why, bic] of invalid) {
    test(`refuses a BIC ${why}`, () => assert.equal(isValidBic(bic), false));
  }

  test('normalises a BIC to upper case without spaces', () => assert.equal(normalizeBic(' cobade ff xxx '), 'COBADEFFXXX'));
});
