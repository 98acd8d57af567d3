// The immutable snapshot of an issued invoice or storno (Stornorechnung): everything the
// PDF, the e-invoice, the mail and the booking need, frozen at issue. Renderers are pure
// functions of this object. Amounts are decimal strings with exactly two decimals
// (unit prices and quantities: as sent, up to 6 decimals); a storno carries negative
// quantities and amounts (unit prices stay positive, as EN 16931 requires).

import { formatDate } from '../../shared/german-format.ts';

/**
 * The VAT verdict (german-rules §2.1), decided at issue:
 * - `domestic`: German VAT 19/7 % (also EU private customers below the distance-selling threshold); 0 % lines need a tax_exemption_reason
 * - `small_business`: company is a Kleinunternehmer (§ 19 UStG), every line 0 %, category E
 * - `reverse_charge`: business customer in another EU state with VAT ID, every line 0 %, category AE
 * - `not_taxable`: customer outside the EU, not taxable in Germany, every line 0 %, category O
 */
export type VatVerdict = 'domestic' | 'small_business' | 'reverse_charge' | 'not_taxable';

/** EN 16931 VAT category code (BT-151 / BT-118). */
export type VatCategory = 'S' | 'Z' | 'E' | 'AE' | 'O';

export type EInvoiceFormat = 'xrechnung' | 'zugferd' | 'none';

export type Party = {
  name: string;
  street: string | null;
  houseNumber: string | null;
  zip: string | null;
  city: string | null;
  countryCode: string;
  vatId: string | null;
  email: string | null;
};

export type Seller = Party & {
  legalForm: string | null;
  taxNumber: string | null;
  phone: string | null;
  contactName: string | null;
  iban: string | null;
  bic: string | null;
  bankName: string | null;
  // Added with issue 10; absent in snapshots stored before (renderers fall back).
  /** Payee name of the account (BT-85): the `account_holder` setting, else the legal name. */
  accountHolder?: string;
  /** Letterhead data (§ 35a GmbHG, § 37a HGB). */
  registerCourt?: string | null;
  registerNumber?: string | null;
  managingDirectors?: string[];
};

export type Buyer = Party & {
  customerNumber: string;
  customerType: 'business' | 'private';
  contactName: string | null;
  leitwegId: string | null;
};

export type DocumentLine = {
  position: number;
  description: string;
  /** As sent (e.g. "1.5"); negative on a storno. */
  quantity: string;
  unit: string | null;
  /** UN/ECE Rec 20 code for the e-invoice (C62 piece, HUR hour, MON month, DAY day, …). */
  unitCode: string;
  unitPriceNet: string;
  vatRate: 0 | 7 | 19;
  category: VatCategory;
  /** round half up(quantity × unit price, 2); negative on a storno. */
  netAmount: string;
  taxExemptionReason: string | null;
  productNumber: string | null;
  /** BG-26: the line's own service period (a contract's cycle); absent: the invoice's. Added with issue 13. */
  servicePeriod?: { start: string; end: string } | null;
};

export type VatBreakdownEntry = {
  category: VatCategory;
  rate: 0 | 7 | 19;
  taxableAmount: string;
  taxAmount: string;
  /** BT-120 / BT-121 for categories E, AE, O, Z. */
  exemptionReason: string | null;
  exemptionCode: string | null;
};

export type InvoiceDocument = {
  type: 'invoice' | 'storno';
  number: string;
  issueDate: string;
  dueDate: string;
  servicePeriod: { start: string; end: string };
  currency: 'EUR';
  seller: Seller;
  buyer: Buyer;
  verdict: VatVerdict;
  lines: DocumentLine[];
  vatBreakdown: VatBreakdownEntry[];
  totals: { net: string; tax: string; gross: string };
  paymentTermsDays: number;
  /** German notes printed on the invoice and carried as BT-22 (reverse charge, § 19, not taxable, storno reference). */
  notes: string[];
  /** BT-10: the Leitweg-ID of a public buyer, else the customer number. */
  buyerReference: string;
  /** BT-25 / BT-26: the cancelled invoice, on a storno. */
  precedingInvoice: { number: string; issueDate: string } | null;
  eInvoice: EInvoiceFormat;
};

export const STORNO_NOTE_PREFIX = 'Storno zu Rechnung ';

/** "Storno zu Rechnung RE-2026-00001 vom 02.11.2026": the one sentence naming the cancelled invoice. */
export function stornoNote(preceding: { number: string; issueDate: string }): string {
  return `${STORNO_NOTE_PREFIX}${preceding.number} vom ${formatDate(preceding.issueDate)}`;
}

/** True when the amount due is negative (a storno): the buyer pays nothing, the seller offsets or refunds. */
export function isRefund(doc: Pick<InvoiceDocument, 'totals'>): boolean {
  return doc.totals.gross.startsWith('-') && !/^-0(\.0+)?$/.test(doc.totals.gross);
}
