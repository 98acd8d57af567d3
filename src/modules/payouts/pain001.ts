// The SEPA credit-transfer file of a payout run: ISO 20022 pain.001.001.09 as restricted by
// the EPC SCT customer-to-PSP implementation guidelines (EPC132-08 2023 V1.0), the version
// German banks take for uploads. A pure function of the batch: it refuses what would make
// the file invalid against the EPC schema or the rules the schema cannot check (EUR only,
// the SEPA character set, SLEV, control sums, unique EndToEndIds, valid IBANs and BICs),
// and writes one PmtInf for the whole batch.
// See README.md in this folder for the rules and where they are tested.
import { isSEPACountry } from 'ibantools';
import { isValidBic, isValidIban, normalizeBic, normalizeIban } from '../../shared/iban.ts';
import { formatCents, MAX_AMOUNT, MAX_AMOUNT_CENTS } from '../../shared/money.ts';
import { isSepaIdentifier, sepaText } from './sepa-text.ts';

export const PAIN_001_NAMESPACE = 'urn:iso:std:iso:20022:tech:xsd:pain.001.001.09';

/** An account holder: the paying company (debtor) or a partner (creditor). */
export type PayoutParty = {
  name: string;
  /** Any common form ("DE89 3704 …"); written in its electronic form. */
  iban: string;
  /** null when unknown: IBAN-only is enough inside the EEA. */
  bic: string | null;
};

export type PayoutPayment = {
  /** The reference the bank hands back in its statements: 1–35 SEPA characters, unique in the file. */
  endToEndId: string;
  /** Integer cents: a bigint or a safe integer number, 1 to 99,999,999,999. */
  amountCents: bigint | number;
  creditor: PayoutParty;
  /** Unstructured remittance (Verwendungszweck), transliterated and cut to 140 characters; omitted when empty. */
  remittance: string;
};

export type PayoutBatch = {
  /** MsgId, also used as PmtInfId: 1–35 SEPA characters, unique per file the company sends. */
  messageId: string;
  /** CreDtTm, written in UTC to the second. */
  createdAt: Date;
  /** ReqdExctnDt, a calendar date 'YYYY-MM-DD'. */
  executionDate: string;
  /** The company paying. */
  debtor: PayoutParty;
  payments: readonly PayoutPayment[];
};

/** Where in the batch a refusal lies: the payment's position (from 1) and EndToEndId, or null for the batch itself. */
export type PayoutFilePlace = { position: number; endToEndId: string } | null;

/** The batch cannot become a valid SEPA file; the message names the payment and the rule. */
export class PayoutFileError extends Error {
  readonly payment: PayoutFilePlace;

  constructor(message: string, payment: PayoutFilePlace = null) {
    super(message);
    this.name = 'PayoutFileError';
    this.payment = payment;
  }
}

// Lengths of the EPC schema: Max35Text, Max140Text restricted to 70 for names, Max140Text.
const ID_LENGTH = 35;
const NAME_LENGTH = 70;
const REMITTANCE_LENGTH = 140;
/** DecimalNumber: 18 digits in all, 2 of them after the point. */
const CONTROL_SUM_DIGITS = 18;

/**
 * SEPA countries inside the EEA by IBAN country code (the EU, Iceland, Liechtenstein,
 * Norway, and the regions with IBANs of their own that belong to the EU). Beyond them
 * (CH, GB, SM, VA, MC, AD, GI, …) the guidelines want the creditor agent's BIC.
 */
const EEA_IBAN_COUNTRIES = new Set('AT BE BG CY CZ DE DK EE ES FI FR GR HR HU IE IT LT LU LV MT NL PL PT RO SE SI SK IS LI NO AX GF GP MQ RE YT MF'.split(' '));

type CheckedParty = { name: string; iban: string; bic: string | null };
type CheckedPayment = { endToEndId: string; cents: bigint; creditor: CheckedParty; remittance: string };
type CheckedBatch = {
  messageId: string;
  createdAt: string;
  executionDate: string;
  debtor: CheckedParty;
  payments: CheckedPayment[];
  controlSum: bigint;
};

/** The pain.001.001.09 XML of `batch`; a PayoutFileError for anything a bank would refuse. */
export function buildPain001(batch: PayoutBatch): string {
  const checked = checkBatch(batch);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<Document xmlns="${PAIN_001_NAMESPACE}">`,
    '  <CstmrCdtTrfInitn>',
    groupHeader(checked),
    paymentInformation(checked),
    '  </CstmrCdtTrfInitn>',
    '</Document>',
    '',
  ].join('\n');
}

// ---- checks ------------------------------------------------------------------------------

function checkBatch(batch: PayoutBatch): CheckedBatch {
  if (!isSepaIdentifier(batch.messageId, ID_LENGTH)) {
    throw new PayoutFileError(`The message id "${batch.messageId}" must be 1–35 SEPA characters, not starting or ending with "/" nor containing "//".`);
  }
  if (!(batch.createdAt instanceof Date) || Number.isNaN(batch.createdAt.getTime())) throw new PayoutFileError('The creation time is not a valid date.');
  if (!isCalendarDate(batch.executionDate)) throw new PayoutFileError(`The execution date "${batch.executionDate}" is not a calendar date YYYY-MM-DD.`);
  if (batch.payments.length === 0) throw new PayoutFileError('The batch has no payments: a SEPA file needs at least one.');

  const debtor = checkParty(batch.debtor, 'debtor', null);
  const positions = new Map<string, number>();
  const payments = batch.payments.map((payment, i) => {
    const position = i + 1;
    const checkedPayment = checkPayment(payment, position);
    const earlier = positions.get(payment.endToEndId);
    if (earlier !== undefined) {
      throw new PayoutFileError(
        `Payment ${position} (EndToEndId "${payment.endToEndId}"): this EndToEndId is already used by payment ${earlier}; each must be unique in the file.`,
        { position, endToEndId: payment.endToEndId },
      );
    }
    positions.set(payment.endToEndId, position);
    return checkedPayment;
  });

  const controlSum = payments.reduce((sum, payment) => sum + payment.cents, 0n);
  if (controlSum.toString().length > CONTROL_SUM_DIGITS) throw new PayoutFileError(`The sum of the batch has more than ${CONTROL_SUM_DIGITS} digits.`);
  return {
    messageId: batch.messageId,
    // No milliseconds: the schema allows them, but banks agree their number with the customer.
    createdAt: batch.createdAt.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    executionDate: batch.executionDate,
    debtor,
    payments,
    controlSum,
  };
}

function checkPayment(payment: PayoutPayment, position: number): CheckedPayment {
  const place = { position, endToEndId: payment.endToEndId };
  const label = `Payment ${position} (EndToEndId "${payment.endToEndId}")`;
  if (!isSepaIdentifier(payment.endToEndId, ID_LENGTH)) {
    throw new PayoutFileError(`${label}: the EndToEndId must be 1–35 SEPA characters, not starting or ending with "/" nor containing "//".`, place);
  }
  const cents = checkAmount(payment.amountCents, label, place);
  const creditor = checkParty(payment.creditor, `${label}: the creditor`, place);
  if (creditor.bic === null && !EEA_IBAN_COUNTRIES.has(creditor.iban.slice(0, 2))) {
    throw new PayoutFileError(
      `${label}: the creditor's account is outside the EEA (${creditor.iban.slice(0, 2)}), where a SEPA transfer needs the BIC.`,
      place,
    );
  }
  return { endToEndId: payment.endToEndId, cents, creditor, remittance: sepaText(payment.remittance, REMITTANCE_LENGTH) };
}

function checkAmount(amount: bigint | number, label: string, place: PayoutFilePlace): bigint {
  if (typeof amount !== 'bigint' && !(typeof amount === 'number' && Number.isSafeInteger(amount))) {
    throw new PayoutFileError(`${label}: the amount ${amount} is not a whole number of cents.`, place);
  }
  const cents = BigInt(amount);
  if (cents <= 0n) throw new PayoutFileError(`${label}: the amount must be at least 0.01 EUR, not ${formatCents(cents)}.`, place);
  if (cents > MAX_AMOUNT_CENTS)
    throw new PayoutFileError(`${label}: the amount ${formatCents(cents)} EUR is above the SEPA limit of ${MAX_AMOUNT} EUR.`, place);
  return cents;
}

/** `who` starts the message: "debtor" or "Payment 2 (…): the creditor". IBANs are not repeated in messages (they end up in logs). */
function checkParty(party: PayoutParty, who: string, place: PayoutFilePlace): CheckedParty {
  const subject = who.charAt(0).toUpperCase() + who.slice(1);
  const name = sepaText(party.name, NAME_LENGTH);
  if (name === '') throw new PayoutFileError(`${subject}'s name "${party.name}" is empty in the SEPA character set.`, place);
  const iban = normalizeIban(party.iban);
  if (!isValidIban(iban)) throw new PayoutFileError(`${subject} "${name}" has an IBAN that is not valid (format or check digits).`, place);
  if (!isSEPACountry(iban.slice(0, 2))) throw new PayoutFileError(`${subject} "${name}" has an IBAN of ${iban.slice(0, 2)}, which is not in SEPA.`, place);
  let bic: string | null = null;
  if (party.bic !== null) {
    bic = normalizeBic(party.bic);
    if (!isValidBic(bic)) throw new PayoutFileError(`${subject} "${name}" has a BIC "${party.bic}" that is not valid.`, place);
  }
  return { name, iban, bic };
}

function isCalendarDate(date: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return false;
  const parsed = new Date(`${date}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === date;
}

// ---- XML ---------------------------------------------------------------------------------

/**
 * Escapes element content. After sepaText and the identifier check none of these can
 * occur; the escape stays so that a later change to the character rules cannot break the
 * XML. The apostrophe, which the SEPA set has, needs no escape in content.
 */
function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function element(indent: number, name: string, text: string): string {
  return `${' '.repeat(indent)}<${name}>${escapeXml(text)}</${name}>`;
}

function block(indent: number, name: string, children: string[]): string {
  const pad = ' '.repeat(indent);
  return [`${pad}<${name}>`, ...children, `${pad}</${name}>`].join('\n');
}

function groupHeader(batch: CheckedBatch): string {
  return block(4, 'GrpHdr', [
    element(6, 'MsgId', batch.messageId),
    element(6, 'CreDtTm', batch.createdAt),
    element(6, 'NbOfTxs', String(batch.payments.length)),
    element(6, 'CtrlSum', formatCents(batch.controlSum)),
    block(6, 'InitgPty', [element(8, 'Nm', batch.debtor.name)]),
  ]);
}

function paymentInformation(batch: CheckedBatch): string {
  return block(4, 'PmtInf', [
    // One PmtInf per file, so the message id identifies it as well.
    element(6, 'PmtInfId', batch.messageId),
    element(6, 'PmtMtd', 'TRF'),
    element(6, 'BtchBookg', 'true'),
    element(6, 'NbOfTxs', String(batch.payments.length)),
    element(6, 'CtrlSum', formatCents(batch.controlSum)),
    block(6, 'PmtTpInf', [block(8, 'SvcLvl', [element(10, 'Cd', 'SEPA')])]),
    block(6, 'ReqdExctnDt', [element(8, 'Dt', batch.executionDate)]),
    block(6, 'Dbtr', [element(8, 'Nm', batch.debtor.name)]),
    account(6, 'DbtrAcct', batch.debtor.iban),
    // The debtor agent is mandatory: its BIC, or the guidelines' "not provided".
    block(6, 'DbtrAgt', [
      block(8, 'FinInstnId', [batch.debtor.bic === null ? block(10, 'Othr', [element(12, 'Id', 'NOTPROVIDED')]) : element(10, 'BICFI', batch.debtor.bic)]),
    ]),
    element(6, 'ChrgBr', 'SLEV'),
    ...batch.payments.map(transaction),
  ]);
}

function transaction(payment: CheckedPayment): string {
  return block(6, 'CdtTrfTxInf', [
    block(8, 'PmtId', [element(10, 'EndToEndId', payment.endToEndId)]),
    block(8, 'Amt', [`          <InstdAmt Ccy="EUR">${formatCents(payment.cents)}</InstdAmt>`]),
    // Without a BIC the creditor agent is left out (guidelines: "not to be used").
    ...(payment.creditor.bic === null ? [] : [block(8, 'CdtrAgt', [block(10, 'FinInstnId', [element(12, 'BICFI', payment.creditor.bic)])])]),
    block(8, 'Cdtr', [element(10, 'Nm', payment.creditor.name)]),
    account(8, 'CdtrAcct', payment.creditor.iban),
    ...(payment.remittance === '' ? [] : [block(8, 'RmtInf', [element(10, 'Ustrd', payment.remittance)])]),
  ]);
}

function account(indent: number, name: string, iban: string): string {
  return block(indent, name, [block(indent + 2, 'Id', [element(indent + 4, 'IBAN', iban)])]);
}
