import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  accrue,
  commissionAmount,
  contractMonth,
  divideHalfUp,
  type LedgerAgreement,
  paidShare,
  tierPercent,
} from '../../src/modules/commissions/ledger/accrual.ts';
import { D } from '../../src/shared/decimal.ts';
import { mulberry32 } from '../helpers/random.ts';

// The ledger's arithmetic (design §6), without a database.

const agreement = (overrides: Partial<LedgerAgreement> = {}): LedgerAgreement => ({
  id: 'cag_1',
  partnerId: 'cpa_1',
  startDate: '2026-01-01',
  endDate: null,
  accrueFrom: null,
  appliesTo: 'attributed_customers',
  anchor: 'attribution_start',
  tiers: [
    { from_month: 1, to_month: 3, percent: '20' },
    { from_month: 4, to_month: 12, percent: '12.5' },
  ],
  productIds: null,
  ...overrides,
});

describe('ledger arithmetic', () => {
  test('amounts round half up, away from zero, so a refund mirrors its charge', () => {
    assert.equal(commissionAmount(10005n, '10'), 1001n);
    assert.equal(commissionAmount(-10005n, '10'), -1001n);
    assert.equal(commissionAmount(8005n, '12.5'), 1001n); // 1000.625
    assert.equal(commissionAmount(333n, '33.3333'), 111n); // 110.99989
    assert.equal(divideHalfUp(5n, 2n), 3n);
    assert.equal(divideHalfUp(-5n, 2n), -3n);
    assert.equal(divideHalfUp(7n, 3n), 2n);
  });

  test('amounts in integer arithmetic equal the exact decimal computation for any basis and percent (property)', () => {
    const random = mulberry32(26);
    const exact = (basis: bigint, percent: string) =>
      BigInt(new D(basis.toString()).times(percent).dividedBy(100).toDecimalPlaces(0, D.ROUND_HALF_UP).toFixed(0));
    const percents = ['100', '0.0001', '2.5', '10', '12.5', '33.3333', '7.05', '99.9999', '0.5', '1.0', '050'];
    for (let i = 0; i < 20_000; i++) {
      const percent =
        i < percents.length * 10
          ? (percents[i % percents.length] as string)
          : `${Math.floor(random() * 100)}.${String(Math.floor(random() * 10_000)).padStart(4, '0')}`;
      const magnitude = 10 ** Math.floor(random() * 12);
      const basis = BigInt(Math.round((random() - 0.5) * 2 * magnitude));
      assert.equal(commissionAmount(basis, percent), exact(basis, percent), `${basis} × ${percent} %`);
    }
  });

  test('contract months count calendar months from the anchor month (month 1)', () => {
    assert.equal(contractMonth('2026-01-31', '2026-01-01'), 1);
    assert.equal(contractMonth('2026-01-31', '2026-02-01'), 2);
    assert.equal(contractMonth('2025-12-15', '2027-01-01'), 14);
    assert.equal(tierPercent(agreement().tiers, 3), '20');
    assert.equal(tierPercent(agreement().tiers, 4), '12.5');
    assert.equal(tierPercent(agreement().tiers, 13), null);
  });

  test('qualification: attribution covering the paid day, agreement dates, accrue_from, products, tiers', () => {
    const attributions = [{ agreementId: 'cag_1', customerId: 'cus_1', startDate: '2026-03-10', endDate: '2026-12-31' }];
    const revenue = (paidOn: string, customerId: string | null = 'cus_1') => ({ customerId, paidOn, basisFor: () => 1000n });
    const anchors = () => undefined;
    assert.equal(accrue(revenue('2026-03-09'), [agreement()], attributions, anchors).length, 0);
    const [march] = accrue(revenue('2026-03-10'), [agreement()], attributions, anchors);
    assert.deepEqual([march?.contractMonth, march?.percent, march?.amountCents], [1, '20', 200n]);
    assert.equal(accrue(revenue('2026-06-30'), [agreement()], attributions, anchors)[0]?.percent, '12.5');
    assert.equal(accrue(revenue('2027-01-01'), [agreement()], attributions, anchors).length, 0, 'after the attribution ends');
    assert.equal(accrue(revenue('2026-06-30', 'cus_2'), [agreement()], attributions, anchors).length, 0, 'another customer');
    assert.equal(accrue(revenue('2026-06-30'), [agreement({ endDate: '2026-06-29' })], attributions, anchors).length, 0, 'after the agreement ends');
    assert.equal(accrue(revenue('2026-06-30'), [agreement({ accrueFrom: '2026-07-01' })], attributions, anchors).length, 0, 'before accrue_from');
    const scoped = agreement({ productIds: new Set(['prd_1']) });
    const byProduct = { customerId: 'cus_1', paidOn: '2026-04-01', basisFor: (ids: ReadonlySet<string> | null) => (ids ? 0n : 1000n) };
    assert.equal(accrue(byProduct, [scoped], attributions, anchors).length, 0, 'nothing of the product');
    // First paid revenue: the first accrual sets the anchor; a later one counts from it.
    const firstPaid = agreement({ appliesTo: 'all_customers', anchor: 'first_paid_revenue' });
    const [set] = accrue(revenue('2026-05-20', null), [firstPaid], [], anchors);
    assert.deepEqual([set?.newAnchor, set?.contractMonth], ['2026-05-20', 1]);
    const [later] = accrue(revenue('2026-08-01', null), [firstPaid], [], () => '2026-05-20');
    assert.deepEqual([later?.newAnchor, later?.contractMonth, later?.percent], [null, 4, '12.5']);
  });

  test('payments of an invoice in any parts earn exactly its net; over-payments earn nothing (seeded)', (t) => {
    const seed = Number(process.env.KONTOR_LEDGER_SEED ?? Math.floor(Math.random() * 2 ** 32));
    t.diagnostic(`seed ${seed} (repeat with KONTOR_LEDGER_SEED=${seed})`);
    const rng = mulberry32(seed);
    for (let round = 0; round < 2000; round++) {
      const gross = BigInt(1 + Math.floor(rng() * 10_000_000));
      const net = BigInt(Math.floor(Number(gross) * (0.5 + rng() * 0.5)));
      let paid = 0n;
      let earned = 0n;
      while (paid < gross) {
        const part = BigInt(1 + Math.floor(rng() * Number(gross) * (rng() < 0.2 ? 1.5 : 0.6)));
        const share = paidShare(net, gross, paid, part);
        assert.ok(share >= 0n, 'a payment never earns a negative basis');
        earned += share;
        paid += part;
      }
      assert.equal(earned, net, `gross ${gross} net ${net}`);
      assert.equal(paidShare(net, gross, paid, 500n), 0n, 'beyond the gross');
    }
  });
});
