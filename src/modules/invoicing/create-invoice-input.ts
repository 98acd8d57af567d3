// The body of POST /invoices after validation (invoices.schemas.ts).

export type CreateInvoiceLine = {
  description: string;
  quantity: number | string;
  unit?: string | null;
  unit_price_net: string;
  vat_rate: 0 | 7 | 19;
  product_ref?: string;
  product_number?: string;
  tax_exemption_reason?: string | null;
};

export type CreateInvoiceBody = {
  customer: { source: string; external_ref: string };
  external_ref: string;
  lines: CreateInvoiceLine[];
  service_period: { start: string; end: string };
  payment_terms_days?: number;
  issue?: boolean;
  send?: boolean;
  currency?: 'EUR';
  attribution?: { partner_ref: string; agreement_ref: string };
};
