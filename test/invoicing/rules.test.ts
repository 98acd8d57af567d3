import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildStornoDocument } from '../../src/modules/invoicing/build-document.ts';
import type { InvoiceDocument } from '../../src/modules/invoicing/document.ts';
import { invoiceRangeKey } from '../../src/modules/invoicing/numbering.ts';
import { centsToDecimal, invoiceTotals, lineNetCents } from '../../src/modules/invoicing/totals.ts';
import { decideVat, type VerdictInput } from '../../src/modules/invoicing/vat-verdict.ts';
import { formatNumberPattern } from '../../src/shared/number-pattern.ts';

describe('line arithmetic (design §4)', () => {
  const cases: [string, string, number][] = [
    ['1', '10.00', 1000],
    ['3', '0.333', 100], // 0.999 → 1.00
    ['2.5', '19.99', 4998], // 49.975 → 49.98 (half up)
    ['0.000001', '1000000', 100],
    ['7', '1.115', 781], // 7.805 → 7.81
    ['0', '99.99', 0],
  ];
  for (const [quantity, price, cents] of cases) {
    test(`${quantity} × ${price} = ${centsToDecimal(cents)}`, () => {
      assert.equal(lineNetCents({ quantity, unitPriceNet: price, vatRate: 19 }), cents);
    });
  }

  test('tax is rounded once per rate on the sum of that rate’s nets', () => {
    // Three lines of 0.05 at 19 %: per line 0.0095 → 0.01 each would give 0.03; per rate 0.15 × 19 % = 0.0285 → 0.03.
    const totals = invoiceTotals([
      { vatRate: 19, netCents: 5 },
      { vatRate: 19, netCents: 5 },
      { vatRate: 19, netCents: 5 },
      { vatRate: 7, netCents: 1050 },
    ]);
    assert.deepEqual(totals.perRate, [
      { rate: 19, netCents: 15, taxCents: 3 },
      { rate: 7, netCents: 1050, taxCents: 74 }, // 73.5 → 74
    ]);
    assert.equal(totals.grossCents, 15 + 3 + 1050 + 74);
  });

  test('a storno’s negative nets round symmetrically', () => {
    assert.deepEqual(invoiceTotals([{ vatRate: 7, netCents: -1050 }]).perRate, [{ rate: 7, netCents: -1050, taxCents: -74 }]);
    assert.equal(centsToDecimal(-7), '-0.07');
    assert.equal(centsToDecimal(123456), '1234.56');
  });
});

describe('VAT verdict (design §4)', () => {
  const base: VerdictInput = {
    company: { smallBusiness: false, euDistanceThresholdExceeded: false },
    customer: { countryCode: 'DE', customerType: 'business', vatId: null },
    lines: [{ vatRate: 19, taxExemptionReason: null }],
  };
  const verdict = (patch: Partial<{ company: Partial<VerdictInput['company']>; customer: Partial<VerdictInput['customer']>; lines: VerdictInput['lines'] }>) =>
    decideVat({
      company: { ...base.company, ...patch.company },
      customer: { ...base.customer, ...patch.customer },
      lines: patch.lines ?? base.lines,
    });

  test('domestic customer: 19 % and 7 % are fine', () => {
    assert.deepEqual(
      verdict({
        lines: [
          { vatRate: 19, taxExemptionReason: null },
          { vatRate: 7, taxExemptionReason: null },
        ],
      }),
      { verdict: 'domestic', messages: [] },
    );
  });
  test('domestic customer: 0 % only with a tax exemption reason', () => {
    assert.match(verdict({ lines: [{ vatRate: 0, taxExemptionReason: null }] }).messages[0]!, /Position 1 hat 0 % Umsatzsteuer ohne Befreiungsgrund/);
    assert.deepEqual(verdict({ lines: [{ vatRate: 0, taxExemptionReason: '§ 4 Nr. 21 UStG' }] }).messages, []);
  });
  test('small business: every line 0 %', () => {
    const result = verdict({ company: { smallBusiness: true } });
    assert.equal(result.verdict, 'small_business');
    assert.match(result.messages[0]!, /Kleinunternehmer \(§ 19 UStG\)/);
    assert.deepEqual(verdict({ company: { smallBusiness: true }, lines: [{ vatRate: 0, taxExemptionReason: null }] }).messages, []);
  });
  test('EU business with VAT ID: reverse charge, every line 0 %', () => {
    const ok = verdict({ customer: { countryCode: 'AT', vatId: 'ATU58219378' }, lines: [{ vatRate: 0, taxExemptionReason: null }] });
    assert.deepEqual(ok, { verdict: 'reverse_charge', messages: [] });
    assert.match(verdict({ customer: { countryCode: 'AT', vatId: 'ATU58219378' } }).messages[0]!, /Reverse Charge/);
  });
  test('EU business without VAT ID is not issuable', () => {
    assert.match(
      verdict({ customer: { countryCode: 'FR', vatId: null }, lines: [{ vatRate: 0, taxExemptionReason: null }] }).messages[0]!,
      /Frankreich, hat aber keine USt-IdNr/,
    );
  });
  test('EU private customer: German rates below the distance-selling threshold, refused above', () => {
    assert.deepEqual(verdict({ customer: { countryCode: 'NL', customerType: 'private' } }), { verdict: 'domestic', messages: [] });
    assert.match(
      verdict({ customer: { countryCode: 'NL', customerType: 'private' }, company: { euDistanceThresholdExceeded: true } }).messages[0]!,
      /Lieferschwelle/,
    );
  });
  test('customer outside the EU: not taxable, every line 0 %', () => {
    assert.deepEqual(verdict({ customer: { countryCode: 'CH' }, lines: [{ vatRate: 0, taxExemptionReason: null }] }), { verdict: 'not_taxable', messages: [] });
    assert.match(
      verdict({ customer: { countryCode: 'US', customerType: 'private' } }).messages[0]!,
      /nicht steuerbaren Leistung an einen Kunden in Vereinigte Staaten/,
    );
  });
  test('a place of supply in Germany confirmed by a person (the app only): German rates for a customer abroad', () => {
    const confirmed = (input: VerdictInput) => decideVat(input, { domesticSupplyConfirmed: true });
    for (const customer of [
      { countryCode: 'AT', customerType: 'business' as const, vatId: 'ATU58219378' },
      { countryCode: 'FR', customerType: 'business' as const, vatId: null },
      { countryCode: 'NL', customerType: 'private' as const, vatId: null },
      { countryCode: 'US', customerType: 'business' as const, vatId: null },
    ]) {
      assert.deepEqual(confirmed({ ...base, customer }), { verdict: 'domestic', messages: [] }, customer.countryCode);
      // Domestic rules hold then: 0 % still needs its exemption reason.
      assert.match(confirmed({ ...base, customer, lines: [{ vatRate: 0, taxExemptionReason: null }] }).messages[0]!, /ohne Befreiungsgrund/);
    }
    assert.deepEqual(
      confirmed({
        ...base,
        company: { smallBusiness: false, euDistanceThresholdExceeded: true },
        customer: { countryCode: 'NL', customerType: 'private', vatId: null },
      }),
      {
        verdict: 'domestic',
        messages: [],
      },
    );
    // A small business never charges VAT: no confirmation changes that.
    const small = confirmed({ ...base, company: { smallBusiness: true, euDistanceThresholdExceeded: false } });
    assert.equal(small.verdict, 'small_business');
    assert.match(small.messages[0]!, /Kleinunternehmer/);
  });
});

describe('invoice numbers', () => {
  test('the default pattern counts per calendar year with five digits', () => {
    assert.equal(formatNumberPattern('RE-{yyyy}-{seq:5}', '2026-11-21', 42), 'RE-2026-00042');
    assert.equal(formatNumberPattern('{yy}{mm}-{seq}', '2027-01-03', 7), '2701-7');
    assert.equal(invoiceRangeKey('2026-12-31'), 'invoice:2026');
    assert.notEqual(invoiceRangeKey('2027-01-01'), invoiceRangeKey('2026-12-31'));
  });
});

describe('Stornorechnung document', () => {
  test('negates quantities and amounts, keeps unit prices, references the original, takes the current seller', () => {
    const original = {
      type: 'invoice',
      number: 'RE-2026-00001',
      issueDate: '2026-11-02',
      lines: [{ quantity: '2', netAmount: '20.00', unitPriceNet: '10.00' }],
      vatBreakdown: [{ taxableAmount: '20.00', taxAmount: '3.80' }],
      totals: { net: '20.00', tax: '3.80', gross: '23.80' },
      notes: [],
    } as unknown as InvoiceDocument;
    const seller = { name: 'Muster Software', legalForm: 'GmbH' } as InvoiceDocument['seller'];
    const storno = buildStornoDocument(original, seller, 'RE-2026-00002', '2026-11-21');
    assert.equal(storno.type, 'storno');
    assert.deepEqual(
      storno.lines.map((l) => [l.quantity, l.netAmount, l.unitPriceNet]),
      [['-2', '-20.00', '10.00']],
    );
    assert.deepEqual(storno.totals, { net: '-20.00', tax: '-3.80', gross: '-23.80' });
    assert.deepEqual(storno.precedingInvoice, { number: 'RE-2026-00001', issueDate: '2026-11-02' });
    assert.equal(storno.seller, seller, 'the storno is issued under the letterhead of today');
    // Named once, in BT-25/BT-26 and the PDF's title block, not again as a note.
    assert.deepEqual(storno.notes, []);
  });
});
