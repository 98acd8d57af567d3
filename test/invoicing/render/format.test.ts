import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatDate, formatDecimal, formatIban, formatMoney, formatPeriod, formatQuantity } from '../../../src/shared/german-format.ts';

describe('German formatting of snapshot values', () => {
  test('formats money with thousands dots, decimal comma and euro sign', () => {
    const cases: [string, string][] = [
      ['1234.56', '1.234,56\u00a0€'],
      ['0.00', '0,00\u00a0€'],
      ['-3097.95', '-3.097,95\u00a0€'],
      ['1000000', '1.000.000,00\u00a0€'],
      ['0.0015', '0,0015\u00a0€'],
      ['-0.00', '0,00\u00a0€'],
    ];
    for (const [input, expected] of cases) assert.equal(formatMoney(input), expected, input);
  });

  test('formats quantities as sent, without padding', () => {
    assert.equal(formatQuantity('1.5'), '1,5');
    assert.equal(formatQuantity('12500'), '12.500');
    assert.equal(formatQuantity('-3.500'), '-3,5');
    assert.equal(formatDecimal('7', 0), '7');
  });

  test('formats dates, periods and IBANs the German way', () => {
    assert.equal(formatDate('2026-11-21'), '21.11.2026');
    assert.equal(formatPeriod({ start: '2026-10-01', end: '2026-10-31' }), '01.10.–31.10.2026');
    assert.equal(formatPeriod({ start: '2026-12-01', end: '2027-01-31' }), '01.12.2026 – 31.01.2027');
    assert.equal(formatPeriod({ start: '2026-11-21', end: '2026-11-21' }), '21.11.2026');
    assert.equal(formatIban('DE02120300000000202051'), 'DE02 1203 0000 0000 2020 51');
  });
});
