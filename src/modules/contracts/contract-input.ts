import type { BillingTiming, ContractInterval, ContractStatus, InvoiceMode } from '../../db/schema-contracts.ts';
import type { TierInput } from '../products/pricing.ts';

// What a caller sends to create or update a contract (PUT /v1/contracts/by-ref/…), before
// upsertContract checks it; item-terms.ts compares an item's sent terms with the kept ones.

export type ContractItemInput = {
  ref?: string | null;
  product_ref?: string;
  product_number?: string;
  description?: string | null;
  quantity?: string | number | null;
  unit?: string | null;
  billing_timing?: BillingTiming | null;
  unit_price_net?: string | null;
  vat_rate?: 0 | 7 | 19 | null;
  pricing_model?: string | null;
  included_quantity?: string | number | null;
  overage_price?: string | null;
  tiers?: TierInput[] | null;
  ends_after?: string | null;
};

export type ContractInput = {
  customer: { source: string; external_ref: string };
  name: string;
  status?: Exclude<ContractStatus, 'ended'>;
  billing_interval: ContractInterval;
  start_date: string;
  billing_starts_on?: string | null;
  end_date?: string | null;
  invoice_mode?: InvoiceMode;
  payment_terms_days?: number | null;
  items: ContractItemInput[];
};
