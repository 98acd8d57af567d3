import type { EntrySourceType } from '../../../db/schema-commissions.ts';
import { commissionAmount, divideHalfUp, type PaidRevenue, paidShare } from './accrual.ts';
import type { LedgerContext } from './ledger-context.ts';
import type { FactLine, InvoiceFacts, LedgerFacts, RefundFact, SaleFact } from './ledger-facts.ts';
import { accrueRevenue } from './write-entries.ts';

// The entries the facts earn (issue 24), pure: a function of the facts and the context
// (agreements, attributions, anchors), never of the order the facts arrived in.
//
// - A sale or an invoice payment earns one entry per qualifying agreement (accrual.ts).
//   Sales and payments are taken in paid-day order, so an anchor that is not stored yet is
//   set by the earliest qualifying revenue.
// - A refund reverses the sale's entry of each agreement at the sale's percent and contract
//   month: by the products its lines name (the lines in the agreement's product scope), or,
//   when no line names a product, pro rata of the sale's net. The refunds of a sale are
//   counted cumulatively in the order of their paid days, so that together they reverse at
//   most the entry's basis, and exactly its basis and amount when all of it is refunded.
// - A reversal of an invoice payment (money taken back from the invoice) takes back the
//   levels of the invoice's amount paid from `before − amount` to `before`, last paid first:
//   each payment's entry whose levels it takes is reversed at that entry's percent, by the
//   net earned on those levels (the mirror of paidShare). A payment after it earns again.

export type WantedEntry = {
  eventId: string;
  agreementId: string;
  partnerId: string;
  /** For a refund or reversal: the sale or payment whose entry it reverses. */
  reversesEventId: string | null;
  customerId: string | null;
  sourceType: EntrySourceType;
  sourceId: string | null;
  servicePeriodStart: string;
  paidAt: Date;
  paidOn: string;
  contractMonth: number;
  percent: string;
  basisCents: bigint;
  amountCents: bigint;
};

export type Wanted = {
  entries: WantedEntry[];
  /** `${eventId}\n${agreementId}` of the sales' and payments' entries that are reversed in full. */
  reversedInFull: Set<string>;
};

export const groupKey = (eventId: string, agreementId: string) => `${eventId}\n${agreementId}`;

const inScope = (productIds: ReadonlySet<string> | null, line: FactLine) => productIds === null || (line.productId !== null && productIds.has(line.productId));
const scopeNet = (lines: readonly FactLine[], productIds: ReadonlySet<string> | null) =>
  lines.reduce((sum, line) => (inScope(productIds, line) ? sum + line.netCents : sum), 0n);
const clamp = (value: bigint, max: bigint) => (value < 0n ? 0n : value > max ? max : value);

/**
 * The wanted entries of the facts. Anchors missing in `ctx` are set (and recorded in
 * ctx.newAnchors); `onBeforeAnchor` hears of revenue paid before a stored anchor.
 */
export function wantedEntries(ctx: LedgerContext, facts: LedgerFacts, onBeforeAnchor?: (customerKey: string) => void): Wanted {
  const entries: WantedEntry[] = [];
  const reversedInFull = new Set<string>();
  /** The entries of each sale and payment, by agreement. */
  const earned = new Map<string, Map<string, WantedEntry>>();

  type Original = { revenue: PaidRevenue; eventId: string; sourceType: EntrySourceType; sourceId: string | null; servicePeriodStart: string; paidAt: Date };
  const originals: Original[] = [];
  for (const sale of facts.sales) {
    originals.push({
      revenue: { customerId: sale.customerId, paidOn: sale.paidOn, basisFor: (productIds) => scopeNet(sale.lines, productIds) },
      eventId: sale.eventId,
      sourceType: 'revenue_event',
      sourceId: sale.externalRef,
      servicePeriodStart: sale.paidOn,
      paidAt: sale.paidAt,
    });
  }
  for (const invoice of facts.invoices) {
    for (const op of invoice.ops) {
      if (op.reversal) continue;
      originals.push({
        revenue: {
          customerId: invoice.customerId,
          paidOn: op.paidOn,
          basisFor: (productIds) => paidShare(scopeNet(invoice.lines, productIds), invoice.grossCents, op.beforeCents, op.amountCents),
        },
        eventId: op.eventId,
        sourceType: 'invoice',
        sourceId: invoice.invoiceId,
        servicePeriodStart: invoice.servicePeriodStart,
        paidAt: op.paidAt,
      });
    }
  }
  // Paid-day order: the first qualifying revenue sets a missing anchor.
  originals.sort((a, b) => (a.revenue.paidOn < b.revenue.paidOn ? -1 : a.revenue.paidOn > b.revenue.paidOn ? 1 : a.eventId < b.eventId ? -1 : 1));
  for (const original of originals) {
    const byAgreement = new Map<string, WantedEntry>();
    const customerKey = original.revenue.customerId ?? '';
    const accruals = accrueRevenue(ctx, original.revenue, onBeforeAnchor ? () => onBeforeAnchor(customerKey) : undefined);
    for (const accrual of accruals) {
      const entry: WantedEntry = {
        eventId: original.eventId,
        agreementId: accrual.agreement.id,
        partnerId: accrual.agreement.partnerId,
        reversesEventId: null,
        customerId: original.revenue.customerId,
        sourceType: original.sourceType,
        sourceId: original.sourceId,
        servicePeriodStart: original.servicePeriodStart,
        paidAt: original.paidAt,
        paidOn: original.revenue.paidOn,
        contractMonth: accrual.contractMonth,
        percent: accrual.percent,
        basisCents: accrual.basisCents,
        amountCents: accrual.amountCents,
      };
      byAgreement.set(entry.agreementId, entry);
      entries.push(entry);
    }
    earned.set(original.eventId, byAgreement);
  }

  const salesById = new Map(facts.sales.map((sale) => [sale.eventId, sale]));
  const refundsOf = new Map<string, RefundFact[]>();
  for (const refund of facts.refunds) refundsOf.set(refund.reversesId, [...(refundsOf.get(refund.reversesId) ?? []), refund]);
  for (const [saleId, refunds] of refundsOf) {
    const sale = salesById.get(saleId);
    if (!sale) continue;
    refunds.sort(refundOrder);
    for (const entry of earned.get(saleId)?.values() ?? []) {
      const productIds = ctx.byId.get(entry.agreementId)?.productIds ?? null;
      entries.push(...refundEntries(sale, refunds, entry, productIds, reversedInFull));
    }
  }
  for (const invoice of facts.invoices) entries.push(...reversalEntries(ctx, invoice, earned, reversedInFull));
  return { entries, reversedInFull };
}

/** Refunds of one sale in the order of their paid days (then paid instants, references). */
function refundOrder(a: RefundFact, b: RefundFact): number {
  if (a.paidOn !== b.paidOn) return a.paidOn < b.paidOn ? -1 : 1;
  if (a.paidAt.getTime() !== b.paidAt.getTime()) return a.paidAt.getTime() - b.paidAt.getTime();
  return a.externalRef < b.externalRef ? -1 : a.externalRef > b.externalRef ? 1 : 0;
}

/** The refunds' entries against one entry of the sale, cumulatively (at most its basis). */
function refundEntries(
  sale: SaleFact,
  refunds: readonly RefundFact[],
  entry: WantedEntry,
  productIds: ReadonlySet<string> | null,
  reversedInFull: Set<string>,
): WantedEntry[] {
  const out: WantedEntry[] = [];
  const basis = entry.basisCents;
  const limit = (value: bigint) => (basis >= 0n ? (value < 0n ? 0n : value > basis ? basis : value) : value > 0n ? 0n : value < basis ? basis : value);
  let proRata = 0n;
  let byProduct = 0n;
  let before = 0n;
  for (const refund of refunds) {
    if (refund.lines.some((line) => line.productId !== null)) byProduct += scopeNet(refund.lines, productIds);
    else proRata += refund.netCents;
    const after = limit((sale.netCents === 0n ? 0n : divideHalfUp(basis * proRata, sale.netCents)) + byProduct);
    const basisCents = -(after - before);
    const amountCents = -(commissionAmount(after, entry.percent) - commissionAmount(before, entry.percent));
    before = after;
    if (basisCents === 0n && amountCents === 0n) continue;
    out.push({
      ...entry,
      eventId: refund.eventId,
      reversesEventId: sale.eventId,
      sourceId: refund.externalRef,
      paidAt: refund.paidAt,
      paidOn: refund.paidOn,
      basisCents,
      amountCents,
    });
  }
  if (basis !== 0n && before === basis) reversedInFull.add(groupKey(sale.eventId, entry.agreementId));
  return out;
}

/** The reversals' entries of one invoice: its amount paid taken back, last paid first. */
function reversalEntries(
  ctx: LedgerContext,
  invoice: InvoiceFacts,
  earned: ReadonlyMap<string, ReadonlyMap<string, WantedEntry>>,
  reversedInFull: Set<string>,
): WantedEntry[] {
  const gross = invoice.grossCents;
  if (gross <= 0n || !invoice.ops.some((op) => op.reversal)) return [];
  const out: WantedEntry[] = [];
  /** The levels [from, top] of the amount paid each payment still holds. */
  const held: { eventId: string; from: bigint; top: bigint }[] = [];
  const netOf = new Map<string, bigint>();
  const level = (agreementId: string, cents: bigint) => {
    let net = netOf.get(agreementId);
    if (net === undefined) {
      net = scopeNet(invoice.lines, ctx.byId.get(agreementId)?.productIds ?? null);
      netOf.set(agreementId, net);
    }
    return divideHalfUp(net * cents, gross);
  };
  for (const op of invoice.ops) {
    if (!op.reversal) {
      const from = clamp(op.beforeCents, gross);
      const to = clamp(op.beforeCents + op.amountCents, gross);
      if (to > from) held.push({ eventId: op.eventId, from, top: to });
      continue;
    }
    const high = clamp(op.beforeCents, gross);
    const low = clamp(op.beforeCents - op.amountCents, gross);
    for (let i = held.length - 1; i >= 0; i--) {
      const payment = held[i] as (typeof held)[number];
      const overlap = (high < payment.top ? high : payment.top) - (low > payment.from ? low : payment.from);
      if (overlap <= 0n) continue;
      const topBefore = payment.top;
      payment.top -= overlap;
      for (const entry of earned.get(payment.eventId)?.values() ?? []) {
        const from = level(entry.agreementId, payment.from);
        const basisBefore = level(entry.agreementId, topBefore) - from;
        const basisAfter = level(entry.agreementId, payment.top) - from;
        const basisCents = -(basisBefore - basisAfter);
        const amountCents = -(commissionAmount(basisBefore, entry.percent) - commissionAmount(basisAfter, entry.percent));
        if (basisCents === 0n && amountCents === 0n) continue;
        out.push({ ...entry, eventId: op.eventId, reversesEventId: payment.eventId, paidAt: op.paidAt, paidOn: op.paidOn, basisCents, amountCents });
      }
    }
    for (let i = held.length - 1; i >= 0; i--) if ((held[i] as (typeof held)[number]).top === (held[i] as (typeof held)[number]).from) held.splice(i, 1);
  }
  // A payment whose levels are all taken back is reversed in full under every agreement.
  const stillHeld = new Set(held.map((h) => h.eventId));
  for (const op of invoice.ops) {
    if (op.reversal || stillHeld.has(op.eventId)) continue;
    for (const entry of earned.get(op.eventId)?.values() ?? []) if (entry.basisCents !== 0n) reversedInFull.add(groupKey(op.eventId, entry.agreementId));
  }
  return out;
}
