import type { AgreementAnchor, AgreementAppliesTo, AgreementTier } from '../../../db/schema-commissions.ts';
import { D } from '../../../shared/decimal.ts';

// The ledger's arithmetic (design §6), pure: which agreements a paid revenue qualifies for,
// the contract month counted from the anchor, the tier's percent and the amount. The
// caller loads the candidates and writes the entries (ledger/write-entries.ts).

/** An agreement as the ledger needs it. */
export type LedgerAgreement = {
  id: string;
  partnerId: string;
  startDate: string;
  endDate: string | null;
  accrueFrom: string | null;
  appliesTo: AgreementAppliesTo;
  anchor: AgreementAnchor;
  tiers: AgreementTier[];
  /** null: every product. */
  productIds: ReadonlySet<string> | null;
};

/** An active attribution of a customer to an agreement. */
export type LedgerAttribution = { agreementId: string; customerId: string; startDate: string; endDate: string | null };

/** One paid revenue as the ledger sees it. */
export type PaidRevenue = {
  customerId: string | null;
  /** The day it was paid, in the company's time zone. */
  paidOn: string;
  /** The basis (cents) of the revenue that falls under a product scope (null: all of it). */
  basisFor(productIds: ReadonlySet<string> | null): bigint;
};

export type Accrual = {
  agreement: LedgerAgreement;
  contractMonth: number;
  /** The anchor's day, when this accrual sets it (first paid revenue). */
  newAnchor: string | null;
  percent: string;
  basisCents: bigint;
  amountCents: bigint;
};

/** Round half up (away from zero at .5, so a refund mirrors its charge) of numerator ÷ denominator, exactly. */
export function divideHalfUp(numerator: bigint, denominator: bigint): bigint {
  if (denominator === 0n) throw new RangeError('division by zero');
  const negative = numerator < 0n !== denominator < 0n;
  const n = numerator < 0n ? -numerator : numerator;
  const d = denominator < 0n ? -denominator : denominator;
  const q = (2n * n + d) / (2n * d);
  return negative ? -q : q;
}

/** A percent as an integer over a power of ten ('12.5' → 125 / 1000 of the basis), cached: agreements have few. */
const percentFractions = new Map<string, { numerator: bigint; denominator: bigint }>();
const PLAIN_PERCENT = /^(\d+)(?:\.(\d+))?$/;

/** amount_cents = round half up(basis × percent / 100) (design §6). */
export function commissionAmount(basisCents: bigint, percent: string): bigint {
  let fraction = percentFractions.get(percent);
  if (!fraction) {
    const match = PLAIN_PERCENT.exec(percent);
    // Stored percents are plain decimals (at most 4 decimals); anything else the exact way.
    if (!match) return BigInt(new D(basisCents.toString()).times(percent).dividedBy(100).toDecimalPlaces(0, D.ROUND_HALF_UP).toFixed(0));
    const decimals = match[2] ?? '';
    fraction = { numerator: BigInt(`${match[1]}${decimals}`), denominator: 100n * 10n ** BigInt(decimals.length) };
    if (percentFractions.size < 1000) percentFractions.set(percent, fraction);
  }
  return divideHalfUp(basisCents * fraction.numerator, fraction.denominator);
}

/** Month 1 is the anchor's month; a day in the following calendar month is month 2, and so on. */
export function contractMonth(anchor: string, paidOn: string): number {
  const [ay, am] = anchor.split('-').map(Number) as [number, number];
  const [py, pm] = paidOn.split('-').map(Number) as [number, number];
  return (py - ay) * 12 + (pm - am) + 1;
}

/** The tier's percent for a contract month; null beyond the last tier. */
export function tierPercent(tiers: readonly AgreementTier[], month: number): string | null {
  for (const tier of tiers) if (month >= tier.from_month && (tier.to_month === null || month <= tier.to_month)) return tier.percent;
  return null;
}

const covers = (start: string, end: string | null, day: string) => start <= day && (end === null || day <= end);

/** Whether the agreement runs on the day (start, end, accrue_from). */
export function agreementRunsOn(agreement: LedgerAgreement, day: string): boolean {
  return covers(agreement.startDate, agreement.endDate, day) && (agreement.accrueFrom === null || day >= agreement.accrueFrom);
}

/** What accrue reports about first-paid anchors besides the accruals. */
export type AnchorEvents = {
  /** The revenue sets the anchor (none was stored): it qualifies with a non-zero basis, whatever its amount. */
  set?(agreementId: string, customerKey: string, day: string): void;
  /** The revenue qualifies but was paid before the stored anchor: the anchor must move (the ledger of the customer is computed again). */
  before?(agreementId: string, customerKey: string): void;
};

/**
 * The entries one paid revenue earns: one per qualifying agreement — an agreement for all
 * customers, or one the customer is attributed to (active attribution covering the paid
 * day) — running on the paid day, with a non-zero basis in its product scope, a tier for
 * the contract month, and a non-zero amount. `anchorOf` gives the stored first-paid day of
 * an agreement and customer ('' for revenue without one), if any: the earliest paid day of
 * the customer's qualifying revenue (issue 24), so revenue is never paid before it unless
 * it is new and moves it (`anchors.before`).
 */
export function accrue(
  revenue: PaidRevenue,
  agreements: Iterable<LedgerAgreement>,
  attributions: readonly LedgerAttribution[],
  anchorOf: (agreementId: string, customerKey: string) => string | undefined,
  anchors: AnchorEvents = {},
): Accrual[] {
  const accruals: Accrual[] = [];
  const customerKey = revenue.customerId ?? '';
  for (const agreement of agreements) {
    if (!agreementRunsOn(agreement, revenue.paidOn)) continue;
    let anchor: string | undefined;
    let newAnchor: string | null = null;
    if (agreement.appliesTo === 'attributed_customers') {
      if (revenue.customerId === null) continue;
      // The earliest start among the customer's attributions covering the paid day.
      const starts = attributions
        .filter((a) => a.agreementId === agreement.id && a.customerId === revenue.customerId && covers(a.startDate, a.endDate, revenue.paidOn))
        .map((a) => a.startDate)
        .sort();
      if (starts.length === 0) continue;
      if (agreement.anchor === 'attribution_start') anchor = starts[0];
    }
    const basisCents = revenue.basisFor(agreement.productIds);
    if (basisCents === 0n) continue;
    if (agreement.anchor === 'first_paid_revenue') {
      anchor = anchorOf(agreement.id, customerKey);
      if (anchor === undefined) {
        anchor = newAnchor = revenue.paidOn;
        anchors.set?.(agreement.id, customerKey, newAnchor);
      } else if (revenue.paidOn < anchor) anchors.before?.(agreement.id, customerKey);
    }
    // Never before month 1 (a revenue paid before the anchor moves it: see anchors.before).
    const month = Math.max(1, contractMonth(anchor as string, revenue.paidOn));
    const percent = tierPercent(agreement.tiers, month);
    if (percent === null) continue;
    const amountCents = commissionAmount(basisCents, percent);
    if (amountCents === 0n) continue;
    accruals.push({ agreement, contractMonth: month, newAnchor, percent, basisCents, amountCents });
  }
  return accruals;
}

/**
 * The part of `qualifyingNet` that one payment pays: the invoice's net is earned pro rata of
 * its gross as payments come in; counted cumulatively, so the payments of a paid invoice add
 * up to exactly its net. Over-payments beyond the gross earn nothing.
 */
export function paidShare(qualifyingNetCents: bigint, grossCents: bigint, paidBeforeCents: bigint, amountCents: bigint): bigint {
  if (grossCents <= 0n) return 0n;
  const clamp = (value: bigint) => (value < 0n ? 0n : value > grossCents ? grossCents : value);
  const before = clamp(paidBeforeCents);
  const after = clamp(paidBeforeCents + amountCents);
  return divideHalfUp(qualifyingNetCents * after, grossCents) - divideHalfUp(qualifyingNetCents * before, grossCents);
}
