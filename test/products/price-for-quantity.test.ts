import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Tier } from '../../src/db/schema.ts';
import { type PricingTerms, priceForQuantity } from '../../src/modules/products/index.ts';
import { AppError } from '../../src/shared/errors.ts';

// Table-driven: each row is one rule of design §6 with a worked example.

const base = { included_quantity: null, overage_price: null, tiers: null } as const;
const tiers: Tier[] = [
  { from: '0', to: '10', unit_price: '1.00' },
  { from: '10', to: '100', unit_price: '0.80', flat_price: '5' },
  { from: '100', to: null, unit_price: '0.50', flat_price: null },
];

const cases: { rule: string; terms: PricingTerms; quantity: string | number; expected: string }[] = [
  {
    rule: 'flat bills the price per interval times quantity',
    terms: { ...base, pricing_model: 'flat', unit_price_net: '49.90' },
    quantity: 1,
    expected: '49.90',
  },
  { rule: 'flat with quantity 3', terms: { ...base, pricing_model: 'flat', unit_price_net: '49.90' }, quantity: '3', expected: '149.70' },
  { rule: 'per_unit multiplies', terms: { ...base, pricing_model: 'per_unit', unit_price_net: '0.125' }, quantity: '7', expected: '0.88' },
  { rule: 'per_unit rounds half up once at the end', terms: { ...base, pricing_model: 'per_unit', unit_price_net: '0.005' }, quantity: 1, expected: '0.01' },
  { rule: 'per_unit with fractional quantity', terms: { ...base, pricing_model: 'per_unit', unit_price_net: '95' }, quantity: '1.5', expected: '142.50' },
  { rule: 'per_unit of zero is zero', terms: { ...base, pricing_model: 'per_unit', unit_price_net: '95' }, quantity: 0, expected: '0.00' },
  {
    rule: 'package bills every started package',
    terms: { ...base, pricing_model: 'package', unit_price_net: '10', included_quantity: '100' },
    quantity: 101,
    expected: '20.00',
  },
  {
    rule: 'package exactly full',
    terms: { ...base, pricing_model: 'package', unit_price_net: '10', included_quantity: '100' },
    quantity: 200,
    expected: '20.00',
  },
  {
    rule: 'package of zero units is zero',
    terms: { ...base, pricing_model: 'package', unit_price_net: '10', included_quantity: '100' },
    quantity: 0,
    expected: '0.00',
  },
  {
    rule: 'package of one unit is one package',
    terms: { ...base, pricing_model: 'package', unit_price_net: '10', included_quantity: '100' },
    quantity: '0.5',
    expected: '10.00',
  },
  { rule: 'graduated inside the first tier', terms: { ...base, pricing_model: 'graduated', unit_price_net: '0', tiers }, quantity: 5, expected: '5.00' },
  {
    rule: 'graduated at a tier boundary reaches the next tier (from ≤ q < to) and its flat_price',
    terms: { ...base, pricing_model: 'graduated', unit_price_net: '0', tiers },
    quantity: 10,
    expected: '15.00',
  },
  {
    rule: 'graduated prices each slice: 10×1 + 5 + 40×0.80',
    terms: { ...base, pricing_model: 'graduated', unit_price_net: '0', tiers },
    quantity: 50,
    expected: '47.00',
  },
  {
    rule: 'graduated across all tiers: 10×1 + 5 + 90×0.80 + 50×0.50',
    terms: { ...base, pricing_model: 'graduated', unit_price_net: '0', tiers },
    quantity: 150,
    expected: '112.00',
  },
  {
    rule: 'graduated flat_price on the first tier is a base fee even for 0 units',
    terms: { ...base, pricing_model: 'graduated', unit_price_net: '0', tiers: [{ from: '0', to: null, unit_price: '2', flat_price: '9.99' }] },
    quantity: 0,
    expected: '9.99',
  },
  {
    rule: 'graduated beyond a closed last tier goes on at its price',
    terms: { ...base, pricing_model: 'graduated', unit_price_net: '0', tiers: [{ from: '0', to: '10', unit_price: '1' }] },
    quantity: 12,
    expected: '12.00',
  },
  {
    rule: 'volume prices the whole quantity in the first tier',
    terms: { ...base, pricing_model: 'volume', unit_price_net: '0', tiers },
    quantity: 9,
    expected: '9.00',
  },
  {
    rule: 'volume at the boundary takes the next tier with its flat_price',
    terms: { ...base, pricing_model: 'volume', unit_price_net: '0', tiers },
    quantity: 10,
    expected: '13.00',
  },
  {
    rule: 'volume in the open last tier: 150 × 0.50',
    terms: { ...base, pricing_model: 'volume', unit_price_net: '0', tiers },
    quantity: 150,
    expected: '75.00',
  },
  {
    rule: 'volume beyond a closed last tier takes the last tier',
    terms: { ...base, pricing_model: 'volume', unit_price_net: '0', tiers: tiers.slice(0, 2) },
    quantity: 150,
    expected: '125.00',
  },
  {
    rule: 'quota within the included quantity is the base fee',
    terms: { ...base, pricing_model: 'quota', unit_price_net: '29', included_quantity: '1000', overage_price: '0.02' },
    quantity: 800,
    expected: '29.00',
  },
  {
    rule: 'quota bills usage beyond the included quantity at the overage price',
    terms: { ...base, pricing_model: 'quota', unit_price_net: '29', included_quantity: '1000', overage_price: '0.02' },
    quantity: 1250,
    expected: '34.00',
  },
  {
    rule: 'quota with a fractional overage rounds half up',
    terms: { ...base, pricing_model: 'quota', unit_price_net: '0', included_quantity: '0', overage_price: '0.015' },
    quantity: 1,
    expected: '0.02',
  },
];

describe('priceForQuantity', () => {
  for (const { rule, terms, quantity, expected } of cases) {
    test(rule, () => {
      assert.equal(priceForQuantity(terms, quantity), expected);
    });
  }

  test('refuses a negative quantity with pricing.quantity_negative', () => {
    assert.throws(
      () => priceForQuantity({ ...base, pricing_model: 'per_unit', unit_price_net: '1' }, '-1'),
      (error: unknown) => error instanceof AppError && error.code === 'pricing.quantity_negative',
    );
  });

  test('refuses a package model without a package size', () => {
    assert.throws(
      () => priceForQuantity({ ...base, pricing_model: 'package', unit_price_net: '1' }, 1),
      (error: unknown) => error instanceof AppError && error.code === 'pricing.package_size_missing',
    );
  });

  test('refuses a tiered model without tiers', () => {
    assert.throws(
      () => priceForQuantity({ ...base, pricing_model: 'volume', unit_price_net: '1' }, 1),
      (error: unknown) => error instanceof AppError && error.code === 'pricing.tiers_empty',
    );
  });
});
