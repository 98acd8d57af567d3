import { mt940Amount } from './amounts.ts';

// Returns (R-transactions) as banks mark them: a returned direct debit (Rücklastschrift), a
// returned or recalled credit transfer, the reversal of an earlier credit (german-rules
// §5.2, §5.3). Such a debit takes back money an invoice received, also when its remittance
// names no invoice: the earlier credit is found by its end-to-end reference.
//
// - camt: TxDtls/RtrInf (its Rsn/Cd is the ISO reason: MD06 refund request of the debtor,
//   AM04 insufficient funds, AC04 account closed, MS02/MS03 refused, …), Ntry/RvslInd true,
//   or a bank transaction code of a return: Domn/Fmly/SubFmlyCd UPDD (unpaid direct debit),
//   RRTN (payment return), PRDD (payment reversal), RPCR (cancellation request), or the DK
//   code in Prtry/Cd ("NRTI+109+…") with a return GVC;
// - MT940: the mark RC (reversal of a credit) or a return GVC at the start of :86:.
// Some banks add their fees to the returned amount (DK: OAMT+ the original amount, COAM+ the
// fees; camt AmtDtls/InstdAmt): only the original amount is taken back from the invoice.

export type ReturnMark = {
  /** What marks it: `RtrInf`, `RvslInd`, `PMNT/IDDT/UPDD`, `RC`, `GVC 109`. */
  marker: string;
  /** The return reason code (ISO: MD06, AM04, AC04, …), when the bank gives one. */
  reason: string | null;
  /** The original amount (decimal string) when the bank booked more (its fees); null: all of it. */
  originalAmount: string | null;
};

/**
 * DK Geschäftsvorfallcodes of returns and reversals (DFÜ-Abkommen Anlage 3): 108/109 SEPA
 * direct debit returned (B2B/Core, Rückbelastung), 110 card clearing returned, 111 cheque
 * returned, 159/160 SEPA credit transfer returned (Rücküberweisung, also instant), 193 SEPA
 * direct debit reversal, 199 card clearing reversal, 899 Storno.
 */
export const RETURN_GVC: ReadonlySet<string> = new Set(['108', '109', '110', '111', '159', '160', '193', '199', '899']);

/** ISO 20022 bank transaction sub-families of returns and reversals. */
export const RETURN_SUB_FAMILIES: ReadonlySet<string> = new Set(['UPDD', 'RRTN', 'PRDD', 'RPCR']);

/** The DK code in camt BkTxCd/Prtry/Cd ("NDDT+109+00931", "NRTI+159"): its GVC, or null. */
export function gvcOfProprietary(code: string | null): string | null {
  return code ? (/^\s*N[A-Z0-9]{3}\+(\d{3})\b/.exec(code)?.[1] ?? null) : null;
}

/** An ISO return reason the bank wrote into the text ("Rueckgabegrund: MD06 …", "Rückgabegrund AM04"). */
export function reasonInText(text: string | null): string | null {
  if (!text) return null;
  return /R(?:ü|ue|u)ckgabe-?grund\W{0,3}([A-Z]{2}\d{2}|[A-Z]{4})\b/i.exec(text)?.[1]?.toUpperCase() ?? null;
}

/** MT940 OAMT+ ("1,50"): the original amount as a decimal string, or null. */
export function originalAmountOf(oamt: string | undefined): string | null {
  const digits = /^\s*(\d{1,15}(?:,\d{0,2})?)/.exec(oamt ?? '')?.[1];
  return digits ? mt940Amount(digits) : null;
}
