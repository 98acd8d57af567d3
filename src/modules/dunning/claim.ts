import { addDays } from '../../shared/dates.ts';
import type { BaseRate } from './base-rates.ts';
import { earlier } from './days.ts';
import { type DefaultInterest, defaultInterest } from './default-interest.ts';
import { type DunningPolicy, feeCents } from './policy.ts';

// What a notice claims (german-rules §4), in cents. Pure: the task passes in the invoice's
// numbers and the earlier notices.
//
// Default (Verzug, § 286 BGB) begins with the first notice sent after the due date, the
// payment reminder (level 0): whatever its friendly title, it asks clearly for payment of a
// due amount, which makes it a Mahnung in the sense of § 286 Abs. 1. For a business debtor
// default begins at the latest 30 days after the due date (§ 286 Abs. 3; the invoice was
// mailed at issue). Consumers get no § 286 Abs. 3 notice on Kontor's invoices, so for them
// only the reminder counts. Interest runs from the day after default began through the
// notice date. The reminder itself carries no fee, interest or lump sum: it is the notice
// that causes default, and that one is not reimbursable (§ 4.5).

export const LUMP_SUM_CENTS = 4000;
/** § 286 Abs. 3 BGB: a business debtor is in default 30 days after due date and receipt at the latest. */
export const DEFAULT_AFTER_DAYS = 30;

/** A customer is a business when marked as one or when it has a VAT ID (as for the VAT verdict); else a consumer. */
export function isBusinessCustomer(buyer: { customerType: 'business' | 'private'; vatId: string | null }): boolean {
  return buyer.customerType === 'business' || Boolean(buyer.vatId?.trim());
}

export type ClaimInput = {
  policy: DunningPolicy;
  level: number;
  noticeDate: string;
  dueDate: string;
  grossCents: number;
  paidCents: number;
  business: boolean;
  /** The date of the payment reminder that was sent (null when none was: level 0). */
  reminderDate: string | null;
  /** Fees of the notices sent before this one. */
  earlierFeesCents: number;
  /** The Basiszinssatz table (default: the built-in one). */
  baseRates?: readonly BaseRate[];
};

export type Claim = {
  openCents: number;
  feeCents: number;
  feesCents: number;
  defaultSince: string | null;
  interest: DefaultInterest | null;
  lumpSumCents: number;
  totalCents: number;
  deadline: string;
};

/** The first day of default, or null while the debtor is not in default (before the reminder). */
export function defaultBegins(input: Pick<ClaimInput, 'dueDate' | 'business' | 'reminderDate'>): string | null {
  const byLaw = input.business ? addDays(input.dueDate, DEFAULT_AFTER_DAYS) : null;
  if (input.reminderDate && byLaw) return earlier(input.reminderDate, byLaw);
  return input.reminderDate ?? byLaw;
}

export function computeClaim(input: ClaimInput): Claim {
  const { policy, level } = input;
  const openCents = input.grossCents - input.paidCents;
  const deadline = addDays(input.noticeDate, policy.deadline_days);
  if (level === 0) {
    return { openCents, feeCents: 0, feesCents: 0, defaultSince: null, interest: null, lumpSumCents: 0, totalCents: openCents, deadline };
  }
  const fee = feeCents(policy, level);
  const feesCents = input.earlierFeesCents + fee;
  const since = defaultBegins(input);
  const defaultSince = since !== null && since < input.noticeDate ? since : null;
  const interest =
    policy.interest && defaultSince
      ? defaultInterest({ openCents, firstDay: addDays(defaultSince, 1), lastDay: input.noticeDate, consumer: !input.business }, input.baseRates)
      : null;
  const lumpSumCents = policy.lump_sum && input.business ? LUMP_SUM_CENTS : 0;
  const interestCents = interest?.cents ?? 0;
  return {
    openCents,
    feeCents: fee,
    feesCents,
    defaultSince,
    interest,
    lumpSumCents,
    totalCents: openCents + feesCents + interestCents + lumpSumCents,
    deadline,
  };
}
