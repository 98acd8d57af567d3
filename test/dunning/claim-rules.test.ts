import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BASE_RATES, baseRatePeriods } from '../../src/modules/dunning/base-rates.ts';
import { computeClaim, defaultBegins, isBusinessCustomer, LUMP_SUM_CENTS } from '../../src/modules/dunning/claim.ts';
import { defaultInterest } from '../../src/modules/dunning/default-interest.ts';
import { DEFAULT_POLICY, feeCents, parseDunningPolicy, policyOf } from '../../src/modules/dunning/policy.ts';

// Table-driven checks of the pure dunning rules (german-rules §4).

describe('Basiszinssatz table (§ 247 BGB)', () => {
  test('holds the published half-years 2025 and 2026 (2.27 %, 1.27 %, 1.27 %)', () => {
    const byDate = Object.fromEntries(BASE_RATES.map((entry) => [entry.from, entry.rate]));
    assert.equal(byDate['2025-01-01'], '2.27');
    assert.equal(byDate['2025-07-01'], '1.27');
    assert.equal(byDate['2026-01-01'], '1.27');
  });

  test('entries start on 1 January or 1 July, in order', () => {
    for (const [i, entry] of BASE_RATES.entries()) {
      assert.match(entry.from, /^\d{4}-(01|07)-01$/);
      if (i > 0) assert.ok(entry.from > BASE_RATES[i - 1]!.from);
    }
  });

  const cases: [string, string, string, [string, string, number, string][]][] = [
    ['one half-year', '2025-07-02', '2025-07-31', [['2025-07-02', '2025-07-31', 30, '1.27']]],
    [
      'split at 1 July 2025',
      '2025-06-11',
      '2025-07-08',
      [
        ['2025-06-11', '2025-06-30', 20, '2.27'],
        ['2025-07-01', '2025-07-08', 8, '1.27'],
      ],
    ],
    [
      'split at 1 January 2026 (same rate, two periods)',
      '2025-12-31',
      '2026-01-01',
      [
        ['2025-12-31', '2025-12-31', 1, '1.27'],
        ['2026-01-01', '2026-01-01', 1, '1.27'],
      ],
    ],
    ['after the last entry the last rate goes on', '2027-03-01', '2027-03-10', [['2027-03-01', '2027-03-10', 10, '1.27']]],
    ['a single day', '2025-06-30', '2025-06-30', [['2025-06-30', '2025-06-30', 1, '2.27']]],
    ['no day when the end lies before the start', '2025-06-30', '2025-06-29', []],
  ];
  for (const [name, first, last, expected] of cases) {
    test(name, () => {
      assert.deepEqual(
        baseRatePeriods(first, last).map((p) => [p.from, p.to, p.days, p.baseRate]),
        expected,
      );
    });
  }

  test('refuses a day before the table starts', () => {
    assert.throws(() => baseRatePeriods('2022-12-31', '2023-01-05'), /no Basiszinssatz is known before 2023-01-01/);
  });
});

describe('default interest (§ 288 BGB, act/365, half up per period)', () => {
  const cases: [string, { openCents: number; firstDay: string; lastDay: string; consumer: boolean }, [string, number][], number][] = [
    // 1,000.00 € from 11.06. to 08.07.2025: 20 days at 2.27 + 9 = 11.27 %, 8 days at 1.27 + 9 = 10.27 %.
    // 100000 × 11.27 % × 20 / 365 = 617.53 → 618; 100000 × 10.27 % × 8 / 365 = 225.10 → 225.
    [
      'business across the base-rate change of 1 July 2025',
      { openCents: 100_000, firstDay: '2025-06-11', lastDay: '2025-07-08', consumer: false },
      [
        ['11.27', 618],
        ['10.27', 225],
      ],
      843,
    ],
    // Consumer: + 5 points → 7.27 % and 6.27 %: 398.36 → 398, 137.42 → 137.
    [
      'consumer across the same change',
      { openCents: 100_000, firstDay: '2025-06-11', lastDay: '2025-07-08', consumer: true },
      [
        ['7.27', 398],
        ['6.27', 137],
      ],
      535,
    ],
    // 600.00 € (a partly paid invoice) for 14 days at 10.27 %: 236.33 → 236.
    ['business, 14 days in 2026', { openCents: 60_000, firstDay: '2026-01-02', lastDay: '2026-01-15', consumer: false }, [['10.27', 236]], 236],
    ['no days, no interest', { openCents: 60_000, firstDay: '2026-01-16', lastDay: '2026-01-15', consumer: false }, [], 0],
  ];
  for (const [name, input, periods, total] of cases) {
    test(name, () => {
      const interest = defaultInterest(input);
      assert.deepEqual(
        interest.periods.map((p) => [p.rate, p.cents]),
        periods,
      );
      assert.equal(interest.cents, total);
    });
  }

  test('rounds half up to the cent', () => {
    // 365.00 € at 5.50 % (base 0.50 + 5) for one day is exactly 5.5 cents → 6.
    const table = [{ from: '2030-01-01', rate: '0.50' }];
    assert.equal(defaultInterest({ openCents: 36_500, firstDay: '2030-01-01', lastDay: '2030-01-01', consumer: true }, table).cents, 6);
  });

  test('divides by 365 also in a leap year (act/365)', () => {
    // 1 % (base −4.00 + 5) on 365.00 € for the 366 days of 2028: 366 cents, not 365.
    const table = [{ from: '2028-01-01', rate: '-4.00' }];
    const interest = defaultInterest({ openCents: 36_500, firstDay: '2028-01-01', lastDay: '2028-12-31', consumer: true }, table);
    assert.deepEqual(
      interest.periods.map((p) => [p.days, p.rate]),
      [[366, '1.00']],
    );
    assert.equal(interest.cents, 366);
  });
});

describe('business or consumer (as for the VAT verdict)', () => {
  const cases: [{ customerType: 'business' | 'private'; vatId: string | null }, boolean][] = [
    [{ customerType: 'business', vatId: null }, true],
    [{ customerType: 'business', vatId: 'DE136695976' }, true],
    [{ customerType: 'private', vatId: 'ATU58219378' }, true],
    [{ customerType: 'private', vatId: null }, false],
    [{ customerType: 'private', vatId: '  ' }, false],
  ];
  for (const [buyer, business] of cases) {
    test(`${buyer.customerType} with VAT ID ${JSON.stringify(buyer.vatId)} is ${business ? 'a business' : 'a consumer'}`, () => {
      assert.equal(isBusinessCustomer(buyer), business);
    });
  }
});

describe('default begins (§ 286 BGB)', () => {
  test('with the payment reminder', () => {
    assert.equal(defaultBegins({ dueDate: '2025-06-03', business: false, reminderDate: '2025-06-10' }), '2025-06-10');
    assert.equal(defaultBegins({ dueDate: '2025-06-03', business: true, reminderDate: '2025-06-10' }), '2025-06-10');
  });
  test('for a business at the latest 30 days after the due date (§ 286 Abs. 3)', () => {
    assert.equal(defaultBegins({ dueDate: '2025-06-03', business: true, reminderDate: '2025-07-20' }), '2025-07-03');
    assert.equal(defaultBegins({ dueDate: '2025-06-03', business: true, reminderDate: null }), '2025-07-03');
  });
  test('for a consumer not without a notice (no § 286 Abs. 3 note on the invoice)', () => {
    assert.equal(defaultBegins({ dueDate: '2025-06-03', business: false, reminderDate: null }), null);
  });
});

describe('what a notice claims', () => {
  const base = { policy: DEFAULT_POLICY, dueDate: '2025-06-03', grossCents: 100_000, paidCents: 0, reminderDate: '2025-06-10' };
  const cases: [string, Parameters<typeof computeClaim>[0], { fee: number; fees: number; interest: number; lump: number; total: number; deadline: string }][] =
    [
      [
        'the reminder: the open amount only, no fee, interest or lump sum',
        { ...base, level: 0, noticeDate: '2025-06-10', business: true, reminderDate: null, earlierFeesCents: 0 },
        { fee: 0, fees: 0, interest: 0, lump: 0, total: 100_000, deadline: '2025-06-20' },
      ],
      [
        '1. Mahnung to a business: fee 2.50, 14 days at 11.27 %, lump sum 40.00',
        { ...base, level: 1, noticeDate: '2025-06-24', business: true, earlierFeesCents: 0 },
        // 100000 × 11.27 % × 14 / 365 = 432.27 → 432
        { fee: 250, fees: 250, interest: 432, lump: LUMP_SUM_CENTS, total: 100_000 + 250 + 432 + 4000, deadline: '2025-07-04' },
      ],
      [
        '1. Mahnung to a consumer: fee 2.50, 14 days at 7.27 %, no lump sum',
        { ...base, level: 1, noticeDate: '2025-06-24', business: false, earlierFeesCents: 0 },
        // 100000 × 7.27 % × 14 / 365 = 278.85 → 279
        { fee: 250, fees: 250, interest: 279, lump: 0, total: 100_000 + 250 + 279, deadline: '2025-07-04' },
      ],
      [
        '2. Mahnung to a business: fees add up, interest over the 1 July change, lump sum once',
        { ...base, level: 2, noticeDate: '2025-07-08', business: true, earlierFeesCents: 250 },
        { fee: 500, fees: 750, interest: 843, lump: 4000, total: 100_000 + 750 + 843 + 4000, deadline: '2025-07-18' },
      ],
      [
        'a partly paid invoice is dunned for the rest',
        { ...base, level: 1, paidCents: 40_000, noticeDate: '2025-06-24', business: false, earlierFeesCents: 0 },
        // 60000 × 7.27 % × 14 / 365 = 167.31 → 167
        { fee: 250, fees: 250, interest: 167, lump: 0, total: 60_000 + 250 + 167, deadline: '2025-07-04' },
      ],
      [
        'interest and lump sum switched off by the policy',
        { ...base, policy: { ...DEFAULT_POLICY, interest: false, lump_sum: false }, level: 1, noticeDate: '2025-06-24', business: true, earlierFeesCents: 0 },
        { fee: 250, fees: 250, interest: 0, lump: 0, total: 100_250, deadline: '2025-07-04' },
      ],
    ];
  for (const [name, input, expected] of cases) {
    test(name, () => {
      const claim = computeClaim(input);
      assert.deepEqual(
        {
          fee: claim.feeCents,
          fees: claim.feesCents,
          interest: claim.interest?.cents ?? 0,
          lump: claim.lumpSumCents,
          total: claim.totalCents,
          deadline: claim.deadline,
        },
        expected,
      );
      assert.equal(claim.openCents, input.grossCents - input.paidCents);
    });
  }
});

describe('dunning policy of the company file', () => {
  test('an empty object means the defaults of design §5', () => {
    assert.deepEqual(parseDunningPolicy({}), { policy: DEFAULT_POLICY, problems: [] });
    assert.deepEqual(DEFAULT_POLICY, {
      enabled: true,
      reminder_days: 7,
      interval_days: 14,
      levels: 2,
      fees: ['0.00', '2.50', '5.00'],
      interest: true,
      lump_sum: true,
      deadline_days: 10,
    });
  });
  test('levels 3 takes the default fee for the last level', () => {
    assert.deepEqual(parseDunningPolicy({ levels: 3 }).policy?.fees, ['0.00', '2.50', '5.00', '5.00']);
  });
  test('null returns to the defaults', () => {
    assert.deepEqual(parseDunningPolicy(null), { policy: null, problems: [] });
    assert.equal(policyOf(null), DEFAULT_POLICY);
  });
  test('refuses fees that do not match the levels', () => {
    assert.match(parseDunningPolicy({ levels: 3, fees: ['0.00', '2.50', '5.00'] }).problems.join(), /needs 4 amounts/);
  });
  test('refuses a fee on the payment reminder', () => {
    assert.match(parseDunningPolicy({ fees: ['1.00', '2.50', '5.00'] }).problems.join(), /reminder \(level 0\) carries no fee/);
  });
  test('fees in cents per level', () => {
    const policy = parseDunningPolicy({ levels: 3, fees: ['0.00', '3.00', '4.50', '7.00'] }).policy!;
    assert.deepEqual(
      [0, 1, 2, 3].map((level) => feeCents(policy, level)),
      [0, 300, 450, 700],
    );
  });
});
