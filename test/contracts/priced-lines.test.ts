import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type PricedItem, quantityLines, usageLines } from '../../src/modules/contracts/priced-lines.ts';
import { priceForQuantity } from '../../src/modules/products/pricing.ts';
import { D, roundMoney } from '../../src/shared/decimal.ts';

// The lines a usage-priced item puts on the invoice (issue 13, point 3): every pricing model
// with a text that says what was counted at which price, and lines that add up exactly to
// the model's price (priceForQuantity).

const item = (terms: Partial<PricedItem>): PricedItem => ({
  description: 'API-Aufrufe',
  quantity: '1',
  unit: 'Aufrufe',
  pricing_model: 'per_unit',
  unit_price_net: '0.002',
  included_quantity: null,
  overage_price: null,
  tiers: null,
  ...terms,
});

const rows = (lines: ReturnType<typeof usageLines>) => lines.map((line) => [line.description, line.quantity, line.unitPriceNet]);

const GRADUATED = item({
  pricing_model: 'graduated',
  unit_price_net: '0',
  tiers: [
    { from: '0', to: '1000', unit_price: '0', flat_price: '5.00' },
    { from: '1000', to: '5000', unit_price: '0.01', flat_price: null },
    { from: '5000', to: '20000', unit_price: '0.005', flat_price: '10.00' },
  ],
});
const VOLUME = item({
  pricing_model: 'volume',
  unit_price_net: '0',
  tiers: [
    { from: '0', to: '1000', unit_price: '0.02', flat_price: null },
    { from: '1000', to: null, unit_price: '0.015', flat_price: '3.00' },
  ],
});
const PACKAGE = item({ pricing_model: 'package', unit_price_net: '9.90', included_quantity: '1000' });
const QUOTA = item({ pricing_model: 'quota', unit_price_net: '49.00', included_quantity: '10000', overage_price: '0.004' });

describe('usage lines per pricing model', () => {
  test('graduated: one line per tier reached, flat prices as their own lines; beyond a closed last tier it goes on', () => {
    const lines = rows(usageLines(GRADUATED, '25000', null, 'month'));
    assert.deepEqual(lines, [
      ['API-Aufrufe, Staffel 0 bis unter 1.000 Aufrufe', '1000', '0'],
      ['API-Aufrufe, Grundpreis der Staffel 0 bis unter 1.000 Aufrufe', '1', '5.00'],
      ['API-Aufrufe, Staffel 1.000 bis unter 5.000 Aufrufe', '4000', '0.01'],
      ['API-Aufrufe, Staffel 5.000 bis unter 20.000 Aufrufe', '20000', '0.005'],
      ['API-Aufrufe, Grundpreis der Staffel 5.000 bis unter 20.000 Aufrufe', '1', '10.00'],
    ]);
    // No usage: only the base fee of the first tier (reached at 0).
    assert.deepEqual(rows(usageLines(GRADUATED, '0', null, 'month')), [['API-Aufrufe, Grundpreis der Staffel 0 bis unter 1.000 Aufrufe', '1', '5.00']]);
  });

  test('volume: the whole quantity at the price of the tier reached, with its flat price', () => {
    assert.deepEqual(rows(usageLines(VOLUME, '1200.5', null, 'month')), [
      ['API-Aufrufe (Staffelpreis ab 1.000 Aufrufe für die gesamte Menge)', '1200.5', '0.015'],
      ['API-Aufrufe, Grundpreis der Staffel ab 1.000 Aufrufe', '1', '3.00'],
    ]);
  });

  test('package: every started package, the usage named', () => {
    assert.deepEqual(rows(usageLines(PACKAGE, '2001', null, 'month')), [
      ['API-Aufrufe: 3 angefangene Pakete à 1.000 Aufrufe (genutzt: 2.001 Aufrufe)', '3', '9.90'],
    ]);
  });

  test('quota: the base fee with what is included, the overage beyond; the base fee prorated in a short period', () => {
    assert.deepEqual(rows(usageLines(QUOTA, '12500', null, 'month')), [
      ['API-Aufrufe, Grundgebühr inkl. 10.000 Aufrufe (genutzt: 12.500 Aufrufe)', '1', '49.00'],
      ['API-Aufrufe, über die Inklusivmenge von 10.000 Aufrufe hinaus', '2500', '0.004'],
    ]);
    assert.deepEqual(rows(usageLines(QUOTA, '300', { start: '2027-01-15', end: '2027-01-31', days: 17, cycleDays: 31 }, 'month')), [
      ['API-Aufrufe, Grundgebühr inkl. 10.000 Aufrufe (anteilig 17 von 31 Tagen, 49,00\u00a0€ je Monat)', '1', '26.87'],
    ]);
  });

  test('the lines explain the price exactly: Σ quantity × unit price, rounded once, is priceForQuantity', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 48271) % 2147483647;
      return seed / 2147483647;
    };
    for (const model of [GRADUATED, VOLUME, PACKAGE, QUOTA, item({})]) {
      for (let i = 0; i < 200; i++) {
        const used = new D(Math.floor(random() * 40_000_000)).dividedBy(1000).toFixed();
        const exact = usageLines(model, used, null, 'month').reduce((sum, line) => sum.plus(new D(line.quantity).times(line.unitPriceNet)), new D(0));
        assert.equal(roundMoney(exact), priceForQuantity(model, used), `${model.pricing_model} at ${used}`);
      }
    }
  });
});

describe('quantity lines (flat and advance items)', () => {
  const seats = item({ description: 'Arbeitsplätze', pricing_model: 'flat', unit_price_net: '12.50', quantity: '3', unit: 'Platz' });
  test('a whole cycle is quantity × unit price', () => {
    assert.deepEqual(rows(quantityLines(seats, '37.50', { start: '2027-02-01', end: '2027-02-28', days: 28, cycleDays: 28 }, 'month')), [
      ['Arbeitsplätze', '3', '12.50'],
    ]);
  });
  test('part of a cycle is one line at the prorated amount, rounded half up once, the days named', () => {
    assert.deepEqual(rows(quantityLines(seats, '37.50', { start: '2027-02-15', end: '2027-02-28', days: 14, cycleDays: 28 }, 'month')), [
      ['Arbeitsplätze (anteilig 14 von 28 Tagen; 3 × 12,50\u00a0€ je Monat)', '1', '18.75'],
    ]);
    // 100 × 1/3 = 33.333… → 33.33; 200 × 2/3 = 133.333… → 133.33; 0.05 × 1/2 = 0.025 → 0.03 (half up)
    const one = item({ pricing_model: 'flat', unit_price_net: '100.00' });
    assert.equal(quantityLines(one, '100.00', { start: 'a', end: 'b', days: 10, cycleDays: 30 }, 'quarter')[0]!.unitPriceNet, '33.33');
    const tiny = item({ pricing_model: 'flat', unit_price_net: '0.05' });
    assert.equal(quantityLines(tiny, '0.05', { start: 'a', end: 'b', days: 1, cycleDays: 2 }, 'year')[0]!.unitPriceNet, '0.03');
  });
});
