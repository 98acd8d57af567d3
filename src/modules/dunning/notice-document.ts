import type { DunningLevel } from '../../db/schema-types.ts';
import type { Buyer, Seller } from '../invoicing/document.ts';
import { centsToDecimal } from '../invoicing/totals.ts';
import type { Claim } from './claim.ts';

// The immutable snapshot of a dunning notice, frozen when the daily task creates it: the
// PDF and the mail are pure functions of it, so a retried job sends the same document.
// Amounts are decimal strings with two decimals, rates percent per year ("10.27").
// The seller and buyer are the company and customer as stored on the notice date (a
// notice is a new letter: current address, mailbox and bank account), the invoice facts
// are those of the invoice.

export type NoticeInterestPeriod = {
  from: string;
  to: string;
  days: number;
  baseRate: string;
  rate: string;
  amount: string;
  /** Since when the base rate holds (the table entry); absent on notices made before issue 25. */
  baseRateFrom?: string;
  /** The first day at a rate carried forward (the table had none for that half-year); null or absent: none. */
  carriedForwardFrom?: string | null;
};

export type NoticeDocument = {
  level: DunningLevel;
  noticeDate: string;
  /** The new payment deadline. */
  deadline: string;
  seller: Seller;
  buyer: Buyer;
  /** § 288 Abs. 1 BGB (consumer: base rate + 5 points, no lump sum) rather than Abs. 2. */
  consumer: boolean;
  invoice: { number: string; issueDate: string; dueDate: string; gross: string };
  /** The date of the notice sent before this one (null for the reminder). */
  previousNoticeDate: string | null;
  paid: string;
  open: string;
  /** This notice's fee, the fees of earlier notices, and both together. */
  fee: string;
  earlierFees: string;
  fees: string;
  /** Default interest up to the notice date; null when none is claimed. */
  interest: { defaultSince: string; periods: NoticeInterestPeriod[]; amount: string } | null;
  lumpSum: string;
  total: string;
};

const TITLES: Record<DunningLevel, string> = { 0: 'Zahlungserinnerung', 1: '1. Mahnung', 2: '2. Mahnung', 3: 'Letzte Mahnung' };

/** The title by level: "Zahlungserinnerung" (0), "1. Mahnung", "2. Mahnung", "Letzte Mahnung" (3). */
export function noticeTitle(level: DunningLevel): string {
  return TITLES[level];
}

export function buildNoticeDocument(input: {
  level: DunningLevel;
  noticeDate: string;
  seller: Seller;
  buyer: Buyer;
  business: boolean;
  invoice: { number: string; issueDate: string; dueDate: string; grossCents: number };
  previousNoticeDate: string | null;
  paidCents: number;
  claim: Claim;
}): NoticeDocument {
  const { claim } = input;
  return {
    level: input.level,
    noticeDate: input.noticeDate,
    deadline: claim.deadline,
    seller: input.seller,
    buyer: input.buyer,
    consumer: !input.business,
    invoice: {
      number: input.invoice.number,
      issueDate: input.invoice.issueDate,
      dueDate: input.invoice.dueDate,
      gross: centsToDecimal(input.invoice.grossCents),
    },
    previousNoticeDate: input.previousNoticeDate,
    paid: centsToDecimal(input.paidCents),
    open: centsToDecimal(claim.openCents),
    fee: centsToDecimal(claim.feeCents),
    earlierFees: centsToDecimal(claim.feesCents - claim.feeCents),
    fees: centsToDecimal(claim.feesCents),
    interest:
      claim.interest && claim.defaultSince
        ? {
            defaultSince: claim.defaultSince,
            periods: claim.interest.periods.map((p) => ({
              from: p.from,
              to: p.to,
              days: p.days,
              baseRate: p.baseRate,
              rate: p.rate,
              amount: centsToDecimal(p.cents),
              baseRateFrom: p.baseRateFrom,
              carriedForwardFrom: p.carriedForwardFrom,
            })),
            amount: centsToDecimal(claim.interest.cents),
          }
        : null,
    lumpSum: centsToDecimal(claim.lumpSumCents),
    total: centsToDecimal(claim.totalCents),
  };
}
