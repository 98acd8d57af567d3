import { sql } from 'kysely';
import type { Trx } from '../../../db/transaction.ts';
import type { LedgerAgreement, LedgerAttribution } from './accrual.ts';

// What the ledger reads before it accrues a batch of paid revenue: the agreements that can
// qualify (every agreement for all customers, and those the customers are attributed to),
// their product scopes, the customers' active attributions and the stored anchors. A few
// queries for the whole batch (a bank import pays thousands of invoices at once).

export type LedgerContext = {
  /** The agreements for all customers: candidates for every revenue. */
  forAllCustomers: LedgerAgreement[];
  byId: Map<string, LedgerAgreement>;
  attributionsOf: Map<string, LedgerAttribution[]>;
  /** `${agreementId}\n${customerKey}` → anchor day; grows as accruals set anchors. */
  anchors: Map<string, string>;
  /** Anchors set by this batch, to be stored. */
  newAnchors: Map<string, { agreementId: string; customerKey: string; anchorDate: string }>;
};

export const anchorKey = (agreementId: string, customerKey: string) => `${agreementId}\n${customerKey}`;

const CHUNK = 5000;

function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

/** The context for revenue of these customers (null stands for revenue without a customer). */
export async function loadLedgerContext(trx: Trx, companyId: string, customerIds: ReadonlySet<string | null>): Promise<LedgerContext | null> {
  const ids = [...customerIds].filter((id): id is string => id !== null);
  const attributions: LedgerAttribution[] = [];
  for (const part of chunks(ids)) {
    const rows = await trx
      .selectFrom('commission_attributions')
      .select(['agreement_id', 'customer_id', 'start_date', 'end_date'])
      .where('company_id', '=', companyId)
      .where('status', '=', 'active')
      .where(sql<boolean>`customer_id = any(${part}::text[])`)
      .execute();
    for (const row of rows) attributions.push({ agreementId: row.agreement_id, customerId: row.customer_id, startDate: row.start_date, endDate: row.end_date });
  }
  const attributed = [...new Set(attributions.map((a) => a.agreementId))];
  const agreementRows = await trx
    .selectFrom('commission_agreements')
    .select(['id', 'partner_id', 'start_date', 'end_date', 'accrue_from', 'applies_to', 'anchor', 'tiers'])
    .where('company_id', '=', companyId)
    .where((eb) => eb.or([eb('applies_to', '=', 'all_customers'), sql<boolean>`id = any(${attributed}::text[])`]))
    .orderBy('id')
    .execute();
  if (agreementRows.length === 0) return null;
  const productRows = await trx
    .selectFrom('commission_agreement_products')
    .select(['agreement_id', 'product_id'])
    .where('company_id', '=', companyId)
    .where(sql<boolean>`agreement_id = any(${agreementRows.map((a) => a.id)}::text[])`)
    .execute();
  const products = new Map<string, Set<string>>();
  for (const row of productRows) {
    const set = products.get(row.agreement_id) ?? new Set<string>();
    set.add(row.product_id);
    products.set(row.agreement_id, set);
  }
  const agreements: LedgerAgreement[] = agreementRows.map((row) => ({
    id: row.id,
    partnerId: row.partner_id,
    startDate: row.start_date,
    endDate: row.end_date,
    accrueFrom: row.accrue_from,
    appliesTo: row.applies_to,
    anchor: row.anchor,
    tiers: row.tiers,
    productIds: products.get(row.id) ?? null,
  }));
  const anchors = new Map<string, string>();
  const firstPaid = agreements.filter((a) => a.anchor === 'first_paid_revenue').map((a) => a.id);
  if (firstPaid.length > 0) {
    const keys = [...customerIds].map((id) => id ?? '');
    for (const part of chunks(keys)) {
      const rows = await trx
        .selectFrom('commission_anchors')
        .select(['agreement_id', 'customer_key', 'anchor_date'])
        .where('company_id', '=', companyId)
        .where(sql<boolean>`agreement_id = any(${firstPaid}::text[])`)
        .where(sql<boolean>`customer_key = any(${part}::text[])`)
        .execute();
      for (const row of rows) anchors.set(anchorKey(row.agreement_id, row.customer_key), row.anchor_date);
    }
  }
  const attributionsOf = new Map<string, LedgerAttribution[]>();
  for (const a of attributions) {
    const list = attributionsOf.get(a.customerId) ?? [];
    list.push(a);
    attributionsOf.set(a.customerId, list);
  }
  return {
    forAllCustomers: agreements.filter((a) => a.appliesTo === 'all_customers'),
    byId: new Map(agreements.map((a) => [a.id, a])),
    attributionsOf,
    anchors,
    newAnchors: new Map(),
  };
}
