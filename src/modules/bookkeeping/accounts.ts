import type { Chart } from '../../db/schema-bookkeeping.ts';
import type { VatVerdict } from '../invoicing/document.ts';
import { BookkeepingError } from './bookkeeping-error.ts';

// The account plan per chart (german-rules §6.1, DATEV Kontenrahmen SKR03 / SKR04).
// Revenue 19 %/7 % are DATEV automatic accounts (AM): DATEV derives the output VAT from a
// gross amount booked on them, which is why the export folds our explicit VAT line into
// the revenue booking (export-datev.ts). DATEV renumbers accounts now and then; a
// per-company override can replace this table later.
// Revenue-share statements (german-rules §6.2, §7.2) book commission as an expense against
// the partner's creditor account: Verkaufsprovisionen with BU-Schlüssel 9 for the 19 %
// input VAT, and for § 13b partners the automatic accounts 3123/3125 (5923/5925), from
// which DATEV books input and output VAT § 13b itself and fills the right UStVA lines.

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
  /** Commission expense (Verkaufsprovisionen) of revenue-share statements. */
  commissionExpense: string;
  /**
   * Commission of an EU partner, § 13b Abs. 1 UStG: DATEV automatic account "sonstige
   * Leistungen eines im anderen EU-Land ansässigen Unternehmers 19 % VSt und 19 % USt"
   * (UStVA Kz 46/47, 67). DATEV books both taxes from the net amount.
   */
  commissionReverseChargeEu: string;
  /** Commission of a third-country partner, § 13b Abs. 2 Nr. 1 UStG: automatic account, Kz 84/85, 67. */
  commissionReverseChargeForeign: string;
  inputVat19: string;
  /** Input VAT § 13b 19 % and its twin, the output VAT § 13b 19 % the company owes. */
  inputVatReverseCharge19: string;
  outputVatReverseCharge19: string;
};

/**
 * DATEV BU-Schlüssel 9: 19 % Vorsteuer (german-rules §6.3). On a journal line it says the
 * line's account is no automatic account but DATEV is to derive 19 % input VAT from the
 * gross amount handed over — the export folds the explicit input-VAT line into it.
 */
export const TAX_KEY_INPUT_VAT_19 = '9';

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
    commissionExpense: '4760',
    commissionReverseChargeEu: '3123',
    commissionReverseChargeForeign: '3125',
    inputVat19: '1576',
    inputVatReverseCharge19: '1577',
    outputVatReverseCharge19: '1787',
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
    commissionExpense: '6770',
    commissionReverseChargeEu: '5923',
    commissionReverseChargeForeign: '5925',
    inputVat19: '1406',
    inputVatReverseCharge19: '1407',
    outputVatReverseCharge19: '3837',
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

/**
 * The VAT DATEV derives from a gross amount booked on `account` with `taxKey`: the output
 * VAT of an automatic revenue account (no key), or the input VAT of BU-Schlüssel 9. Null
 * when DATEV derives no VAT from the gross.
 */
export function grossDerivedVat(plan: AccountPlan, account: string, taxKey: string | null): { vatAccount: string; rate: 7 | 19 } | null {
  if (taxKey === null) return automaticOutputVat(plan, account);
  if (taxKey === TAX_KEY_INPUT_VAT_19) return { vatAccount: plan.inputVat19, rate: 19 };
  return null;
}

/** Accounts whose journal lines the DATEV export hands over through a gross amount (grossDerivedVat). */
export function isGrossDerivedVatAccount(plan: AccountPlan, account: string): boolean {
  return isOutputVatAccount(plan, account) || account === plan.inputVat19;
}

/**
 * For a DATEV § 13b automatic account (no key): the input and output VAT accounts DATEV
 * books from the NET amount on it, at 19 %. Null for other accounts.
 */
export function automaticReverseChargeVat(
  plan: AccountPlan,
  account: string,
  taxKey: string | null,
): { inputVatAccount: string; outputVatAccount: string; rate: 19 } | null {
  if (taxKey !== null || (account !== plan.commissionReverseChargeEu && account !== plan.commissionReverseChargeForeign)) return null;
  return { inputVatAccount: plan.inputVatReverseCharge19, outputVatAccount: plan.outputVatReverseCharge19, rate: 19 };
}

export function isReverseChargeVatAccount(plan: AccountPlan, account: string): boolean {
  return account === plan.inputVatReverseCharge19 || account === plan.outputVatReverseCharge19;
}

/**
 * The creditor personal account of a revenue-share partner is its creditor number. Kontor
 * draws 70000–79999; DATEV's creditor range is 70000–99999 (4-digit G/L accounts).
 */
export function creditorAccount(creditorNumber: string): string {
  if (!/^[7-9]\d{4}$/.test(creditorNumber))
    throw new BookkeepingError('invalid_document', `creditor number ${creditorNumber} is not a creditor account 70000–99999`);
  return creditorNumber;
}

/** The debtor personal account of a customer is its customer number (10000–69999). */
export function debtorAccount(customerNumber: string): string {
  if (!/^[1-6]\d{4}$/.test(customerNumber))
    throw new BookkeepingError('invalid_document', `customer number ${customerNumber} is not a debtor account 10000–69999`);
  return customerNumber;
}
