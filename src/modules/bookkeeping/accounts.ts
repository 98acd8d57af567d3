import type { Chart } from '../../db/schema-bookkeeping.ts';
import type { VatVerdict } from '../invoicing/document.ts';
import { BookkeepingError } from './bookkeeping-error.ts';

// The account plan per chart (german-rules §6.1, DATEV Kontenrahmen SKR03 / SKR04).
// Revenue 19 %/7 % are DATEV automatic accounts (AM): DATEV derives the output VAT from a
// gross amount booked on them, which is why the export folds our explicit VAT line into
// the revenue booking (export-datev.ts). DATEV renumbers accounts now and then; a
// per-company override can replace this table later.

export type AccountPlan = {
  bank: string;
  /** Receivables collective account; debtor personal accounts post into it. */
  receivables: string;
  revenue19: string;
  revenue7: string;
  /** Domestic 0 % with a tax exemption reason (steuerfreie Umsätze § 4 Nr. 8 ff. UStG). */
  revenueTaxExempt: string;
  /** Kleinunternehmer (§ 19 UStG). */
  revenueSmallBusiness: string;
  /** EU B2B services, recipient owes the VAT (Kz 21, ZM). */
  revenueReverseCharge: string;
  /** Third country, not taxable in Germany (Kz 45). */
  revenueNotTaxable: string;
  outputVat19: string;
  outputVat7: string;
};

export const ACCOUNT_PLANS: Record<Chart, AccountPlan> = {
  SKR03: {
    bank: '1200',
    receivables: '1400',
    revenue19: '8400',
    revenue7: '8300',
    revenueTaxExempt: '8100',
    revenueSmallBusiness: '8195',
    revenueReverseCharge: '8336',
    revenueNotTaxable: '8338',
    outputVat19: '1776',
    outputVat7: '1771',
  },
  SKR04: {
    bank: '1800',
    receivables: '1200',
    revenue19: '4400',
    revenue7: '4300',
    revenueTaxExempt: '4100',
    revenueSmallBusiness: '4185',
    revenueReverseCharge: '4336',
    revenueNotTaxable: '4338',
    outputVat19: '3806',
    outputVat7: '3801',
  },
};

export function accountPlan(chart: Chart): AccountPlan {
  return ACCOUNT_PLANS[chart];
}

/** The revenue account of a VAT breakdown entry (rate) under the invoice's VAT verdict. */
export function revenueAccount(plan: AccountPlan, verdict: VatVerdict, rate: 0 | 7 | 19): string {
  if (verdict !== 'domestic' && rate !== 0) throw new BookkeepingError('invalid_document', `a ${verdict} invoice cannot carry ${rate} % VAT`);
  switch (verdict) {
    case 'small_business':
      return plan.revenueSmallBusiness;
    case 'reverse_charge':
      return plan.revenueReverseCharge;
    case 'not_taxable':
      return plan.revenueNotTaxable;
    case 'domestic':
      return rate === 19 ? plan.revenue19 : rate === 7 ? plan.revenue7 : plan.revenueTaxExempt;
  }
}

export function outputVatAccount(plan: AccountPlan, rate: 7 | 19): string {
  return rate === 19 ? plan.outputVat19 : plan.outputVat7;
}

/**
 * For a DATEV automatic revenue account: the output VAT account DATEV books the derived
 * tax to, and its rate. Null for accounts without VAT automatic.
 */
export function automaticOutputVat(plan: AccountPlan, account: string): { vatAccount: string; rate: 7 | 19 } | null {
  if (account === plan.revenue19) return { vatAccount: plan.outputVat19, rate: 19 };
  if (account === plan.revenue7) return { vatAccount: plan.outputVat7, rate: 7 };
  return null;
}

export function isOutputVatAccount(plan: AccountPlan, account: string): boolean {
  return account === plan.outputVat19 || account === plan.outputVat7;
}

/** The debtor personal account of a customer is its customer number (10000–69999). */
export function debtorAccount(customerNumber: string): string {
  if (!/^[1-6]\d{4}$/.test(customerNumber))
    throw new BookkeepingError('invalid_document', `customer number ${customerNumber} is not a debtor account 10000–69999`);
  return customerNumber;
}
