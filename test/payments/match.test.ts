import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { invoiceNumberFinder, normalizeInvoiceNumber } from '../../src/modules/payments/index.ts';
import { type ClosedInvoice, matchTransfer, type OpenInvoice } from '../../src/modules/payments/match-payments.ts';

describe('invoice numbers in remittance text', () => {
  const find = (text: string, pattern = 'RE-{yyyy}-{seq:5}') => invoiceNumberFinder(pattern)([text]).map((hit) => hit.key);

  const cases: [string, string[]][] = [
    ['RE-2026-00001', ['RE202600001']],
    ['Rechnung RE-2026-00001 vielen Dank', ['RE202600001']],
    ['re-2026-00001', ['RE202600001']],
    ['RE 2026 00001', ['RE202600001']],
    ['RE2026-00001', ['RE202600001']],
    ['RE202600001', ['RE202600001']],
    ['RE_2026_00001', ['RE202600001']],
    ['RE.2026.00001', ['RE202600001']],
    ['RE/2026/00001', ['RE202600001']],
    ['R E - 2026 - 00001', ['RE202600001']],
    ['RE-2026-0000 1 (line break inside)', ['RE202600001']],
    ['Rechnungen RE-2026-00001, RE-2026-00002 und re 2026 00003', ['RE202600001', 'RE202600002', 'RE202600003']],
    ['RE-2026-00001 und nochmal RE 2026 00001', ['RE202600001']],
    ['RE-2026-123456 (six digits after 99999)', ['RE2026123456']],
    ['KundeRE-2026-00001', ['RE202600001']],
    ['RE-2026-0001 (too short)', []],
    ['4RE-2026-00001 (digit before)', []],
    ['Re 2026 Dank', []],
    ['', []],
    ['Re.-Nr. 2026-00005', ['RE202600005']],
    ['Rechnung Nr. RE-2026-00005', ['RE202600005']],
    ['Rechnungsnr.: RE2026-00005', ['RE202600005']],
    ['RE Nr 2026 00005', ['RE202600005']],
    ["Ware 2026 00005 (a letter before the pattern's first letter)", []],
    ['WARE 2026 00005', []],
    ['AREA-2026-00005', []],
  ];
  for (const [text, expected] of cases) {
    test(`${JSON.stringify(text)} → ${JSON.stringify(expected)}`, () => assert.deepEqual(find(text), expected));
  }

  test('digits right after the number make it another number', () => {
    assert.deepEqual(find('RE-2026-000012'), ['RE2026000012']);
  });

  test('other patterns: {yy}, {mm}, {seq} without width, letters after the number', () => {
    assert.deepEqual(find('Zahlung 26/11-0042-A', '{yy}/{mm}-{seq:4}-A'), ['26110042A']);
    assert.deepEqual(find('zahlung 2611 0042 a', '{yy}/{mm}-{seq:4}-A'), ['26110042A']);
    assert.deepEqual(find('INV 7 and INV 123', 'INV{seq}'), ['INV7', 'INV123']);
  });

  test('searches the structured reference, end-to-end id and remittance text in that order', () => {
    const hits = invoiceNumberFinder('RE-{yyyy}-{seq:5}')(['RF18 RE-2026-00003', null, 'RE-2026-00001 RE-2026-00003']);
    assert.deepEqual(
      hits.map((h) => [h.key, h.written]),
      [
        ['RE202600003', 'RE-2026-00003'],
        ['RE202600001', 'RE-2026-00001'],
      ],
    );
  });

  test('a "Nr." between the letters and the digits is not part of the number', () => {
    const hits = invoiceNumberFinder('RE-{yyyy}-{seq:5}')(['Zahlung Re.-Nr. 2026-00005 und 2026-00006']);
    assert.deepEqual(
      hits.map((h) => [h.key, h.written]),
      [['RE202600005', 'Re.-Nr. 2026-00005']],
    );
  });

  test('normalised numbers: upper case, letters and digits only', () => {
    assert.equal(normalizeInvoiceNumber(' re-2026/00001 '), 'RE202600001');
  });
});

describe('matchTransfer: amount rules', () => {
  const invoice = (number: string, grossCents: number, paidCents = 0): OpenInvoice => ({
    id: `inv_${number}`,
    number,
    customerId: `cus_${number}`,
    customerNumber: 10000,
    customerName: `Kunde ${number}`,
    grossCents,
    paidCents,
    loadedPaidCents: paidCents,
    status: paidCents ? 'partially_paid' : 'issued',
    sent: false,
    wasOverdue: false,
    creditCents: 0,
    everPaid: false,
  });
  const setup = (...invoices: OpenInvoice[]) => new Map(invoices.map((i) => [normalizeInvoiceNumber(i.number), i]));
  const hits = (...numbers: string[]) => numbers.map((n) => ({ key: normalizeInvoiceNumber(n), written: n }));
  const closed = new Map<string, ClosedInvoice>([
    ['RE202600090', { number: 'RE-2026-00090', status: 'paid', type: 'invoice' }],
    ['RE202600091', { number: 'RE-2026-00091', status: 'cancelled', type: 'invoice' }],
    ['RE202600092', { number: 'RE-2026-00092', status: 'issued', type: 'storno' }],
  ]);
  const summary = (result: ReturnType<typeof matchTransfer>) =>
    result.matched
      ? { allocations: result.allocations.map((a) => [a.invoice.number, a.amountCents, a.effect, a.openAfterCents]), credit: result.creditCents }
      : result.reason;

  const cases: { rule: string; open: OpenInvoice[]; named: string[]; cents: number; expected: unknown }[] = [
    {
      rule: 'full payment',
      open: [invoice('RE-2026-00001', 8506)],
      named: ['RE-2026-00001'],
      cents: 8506,
      expected: { allocations: [['RE-2026-00001', 8506, 'paid', 0]], credit: 0 },
    },
    {
      rule: 'partial payment',
      open: [invoice('RE-2026-00001', 8506)],
      named: ['RE-2026-00001'],
      cents: 5000,
      expected: { allocations: [['RE-2026-00001', 5000, 'partially_paid', 3506]], credit: 0 },
    },
    {
      rule: 'the rest of a partly paid invoice',
      open: [invoice('RE-2026-00001', 8506, 5000)],
      named: ['RE-2026-00001'],
      cents: 3506,
      expected: { allocations: [['RE-2026-00001', 3506, 'paid', 0]], credit: 0 },
    },
    {
      rule: 'over-payment: paid plus credit',
      open: [invoice('RE-2026-00001', 8506)],
      named: ['RE-2026-00001'],
      cents: 10000,
      expected: { allocations: [['RE-2026-00001', 8506, 'paid', 0]], credit: 1494 },
    },
    {
      rule: 'two invoices, exact sum: split in the order named',
      open: [invoice('RE-2026-00001', 8506), invoice('RE-2026-00002', 1000)],
      named: ['RE-2026-00002', 'RE-2026-00001'],
      cents: 9506,
      expected: {
        allocations: [
          ['RE-2026-00002', 1000, 'paid', 0],
          ['RE-2026-00001', 8506, 'paid', 0],
        ],
        credit: 0,
      },
    },
    {
      rule: 'two invoices, shortfall: the last reached is partly paid',
      open: [invoice('RE-2026-00001', 8506), invoice('RE-2026-00002', 1000)],
      named: ['RE-2026-00001', 'RE-2026-00002'],
      cents: 9000,
      expected: {
        allocations: [
          ['RE-2026-00001', 8506, 'paid', 0],
          ['RE-2026-00002', 494, 'partially_paid', 506],
        ],
        credit: 0,
      },
    },
    {
      rule: 'three invoices, money for one and a half: the third gets nothing',
      open: [invoice('RE-2026-00001', 1000), invoice('RE-2026-00002', 1000), invoice('RE-2026-00003', 1000)],
      named: ['RE-2026-00001', 'RE-2026-00002', 'RE-2026-00003'],
      cents: 1500,
      expected: {
        allocations: [
          ['RE-2026-00001', 1000, 'paid', 0],
          ['RE-2026-00002', 500, 'partially_paid', 500],
        ],
        credit: 0,
      },
    },
    {
      rule: 'two invoices, surplus: both paid plus credit',
      open: [invoice('RE-2026-00001', 1000), invoice('RE-2026-00002', 1000)],
      named: ['RE-2026-00001', 'RE-2026-00002'],
      cents: 2500,
      expected: {
        allocations: [
          ['RE-2026-00001', 1000, 'paid', 0],
          ['RE-2026-00002', 1000, 'paid', 0],
        ],
        credit: 500,
      },
    },
    {
      rule: 'an open and a paid invoice named: the open one is paid',
      open: [invoice('RE-2026-00001', 1000)],
      named: ['RE-2026-00090', 'RE-2026-00001'],
      cents: 1000,
      expected: { allocations: [['RE-2026-00001', 1000, 'paid', 0]], credit: 0 },
    },
    { rule: 'no number', open: [invoice('RE-2026-00001', 1000)], named: [], cents: 1000, expected: 'no invoice number found in the remittance text' },
    { rule: 'unknown number', open: [], named: ['RE-2026-00077'], cents: 1000, expected: 'unknown invoice number RE-2026-00077' },
    { rule: 'paid invoice', open: [], named: ['RE-2026-00090'], cents: 1000, expected: 'invoice RE-2026-00090 is already paid' },
    { rule: 'cancelled invoice', open: [], named: ['RE-2026-00091'], cents: 1000, expected: 'invoice RE-2026-00091 is cancelled' },
    { rule: 'Stornorechnung', open: [], named: ['RE-2026-00092'], cents: 1000, expected: 'RE-2026-00092 is a Stornorechnung (cancellation invoice)' },
    {
      rule: 'several reasons',
      open: [],
      named: ['RE-2026-00090', 'RE-2026-00077'],
      cents: 1000,
      expected: 'invoice RE-2026-00090 is already paid; unknown invoice number RE-2026-00077',
    },
  ];
  for (const c of cases) {
    test(c.rule, () => {
      assert.deepEqual(summary(matchTransfer({ amountCents: c.cents, hits: hits(...c.named) }, setup(...c.open), closed)), c.expected);
    });
  }

  test('an invoice paid by an earlier transfer of the same file is no longer open', () => {
    const open = setup(invoice('RE-2026-00001', 1000));
    assert.equal(matchTransfer({ amountCents: 1000, hits: hits('RE-2026-00001') }, open, closed).matched, true);
    assert.deepEqual(summary(matchTransfer({ amountCents: 1000, hits: hits('RE-2026-00001') }, open, closed)), 'invoice RE-2026-00001 is already paid');
  });

  test('10,000 transfers against 10,000 open invoices match by look-up', () => {
    const invoices = Array.from({ length: 10_000 }, (_, i) => invoice(`RE-2026-${String(i + 1).padStart(5, '0')}`, 1000 + i));
    const open = setup(...invoices);
    const find = invoiceNumberFinder('RE-{yyyy}-{seq:5}');
    let paid = 0;
    for (const inv of invoices) {
      const result = matchTransfer({ amountCents: inv.grossCents, hits: find([`Rechnung ${inv.number.toLowerCase().replace(/-/g, ' ')}`]) }, open, closed);
      if (result.matched && result.allocations[0]!.effect === 'paid') paid += 1;
    }
    assert.equal(paid, 10_000);
  });
});
