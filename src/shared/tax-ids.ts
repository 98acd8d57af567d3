// Checks of VAT IDs (german-rules §2.5) and Leitweg-IDs (§3.11). VAT IDs go through jsvat:
// the format and check digits of every EU member state, GB and (on the GB rule) XI, and
// the Swiss UID. A passing check does not prove a VAT ID exists (a VIES/BZSt question).
import {
  austria,
  belgium,
  bulgaria,
  type Country,
  checkVAT,
  croatia,
  cyprus,
  czechRepublic,
  denmark,
  estonia,
  finland,
  france,
  germany,
  greece,
  hungary,
  ireland,
  italy,
  latvia,
  lithuania,
  luxembourg,
  malta,
  netherlands,
  poland,
  portugal,
  romania,
  slovakiaRepublic,
  slovenia,
  spain,
  sweden,
  switzerland,
  unitedKingdom,
} from 'jsvat';

/**
 * Belgium numbers its enterprises from 1 000 000 000 since the 0-block ran out (2023);
 * jsvat 2.5.4 still refuses them (jsvat issues #129, #135). The 1-block keeps the MOD 97
 * rule of the 0-block, and the 0-block stays with jsvat's own check.
 */
const belgiumBothBlocks: Country = {
  ...belgium,
  calcFn: (digits) => (digits.startsWith('1') ? 97 - (Number(digits.slice(0, 8)) % 97) === Number(digits.slice(8)) : belgium.calcFn(digits)),
  rules: { ...belgium.rules, regex: [/^(BE)([01]\d{9})$/] },
};

/** The jsvat rule for each VAT ID prefix: the 27 member states (Greece as EL) and the United Kingdom. */
const VAT_ID_RULES: Record<string, Country> = {
  AT: austria,
  BE: belgiumBothBlocks,
  BG: bulgaria,
  CY: cyprus,
  CZ: czechRepublic,
  DE: germany,
  DK: denmark,
  EE: estonia,
  EL: greece,
  ES: spain,
  FI: finland,
  FR: france,
  GB: unitedKingdom,
  HR: croatia,
  HU: hungary,
  IE: ireland,
  IT: italy,
  LT: lithuania,
  LU: luxembourg,
  LV: latvia,
  MT: malta,
  NL: netherlands,
  PL: poland,
  PT: portugal,
  RO: romania,
  SE: sweden,
  SI: slovenia,
  SK: slovakiaRepublic,
};

const SWISS_UID = /^CHE(\d{3})(\d{3})(\d{3})(MWST|TVA|IVA)?$/;

/**
 * The form printed on invoices: upper case without spaces, dots or dashes; a Swiss UID
 * as the Swiss print it, `CHE-123.456.789 MWST` (suffix MWST, TVA or IVA kept as given,
 * none when none was given).
 */
export function normalizeVatId(raw: string): string {
  const compact = raw.replace(/[\s.-]/g, '').toUpperCase();
  const swiss = SWISS_UID.exec(compact);
  if (!swiss) return compact;
  return `CHE-${swiss[1]}.${swiss[2]}.${swiss[3]}${swiss[4] ? ` ${swiss[4]}` : ''}`;
}

/** True for a Swiss UID in its normal form (see `normalizeVatId`) with a right check digit (MOD 11, eCH-0097). */
export function isSwissVatId(vatId: string): boolean {
  return vatId.startsWith('CHE-') && normalizeVatId(vatId) === vatId && checkVAT(vatId, [switzerland]).isValid;
}

/**
 * True when the normalised VAT ID has its issuing state's format and check digits. A Swiss
 * UID counts only for a party in Switzerland (`countryCode` CH), and a party there needs
 * one; an ID of another country outside the EU (NO…MVA, US…) keeps a shape check only.
 */
export function isPlausibleVatId(vatId: string, countryCode?: string | null): boolean {
  if (normalizeVatId(vatId) !== vatId) return false;
  if (countryCode === 'CH' || vatId.startsWith('CHE')) return countryCode === 'CH' && isSwissVatId(vatId);
  const rule = VAT_ID_RULES[vatId.slice(0, 2)];
  if (rule) return checkVAT(vatId, [rule]).isValid;
  // Northern Ireland (XI) numbers are UK VAT numbers under another prefix; jsvat knows only GB.
  if (vatId.startsWith('XI')) return checkVAT(`GB${vatId.slice(2)}`, [unitedKingdom]).isValid;
  // A Greek VAT ID starts with EL, never with the ISO code GR.
  if (EU_COUNTRIES.has(vatId.slice(0, 2))) return false;
  return /^[A-Z]{2}[0-9A-Z+*]{2,13}$/.test(vatId);
}

/** Leitweg-ID: coarse part of 2–12 digits, optional fine part, 2 check digits (ISO 7064 MOD 97-10). */
export function isValidLeitwegId(value: string): boolean {
  if (value.length < 5 || value.length > 46) return false;
  if (!/^\d{2,12}(-[0-9A-Za-z]{1,30})?-\d{2}$/.test(value)) return false;
  const body = value.slice(0, value.lastIndexOf('-')).replace(/-/g, '').toUpperCase();
  const check = value.slice(-2);
  const digits = `${body}${check}`.replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
  let remainder = 0;
  for (const ch of digits) remainder = (remainder * 10 + Number(ch)) % 97;
  return remainder === 1;
}

/**
 * The validation issues of a party's country code and VAT ID (a customer, a revenue-share
 * partner); `party` names it in the message. The VAT ID is never repeated.
 */
export function countryAndVatIdIssues(
  fields: { country_code: string | null; vat_id: string | null },
  party: 'customer' | 'partner',
): { loc: (string | number)[]; type: string; msg: string }[] {
  const issues = [];
  if (fields.country_code && !isCountryCode(fields.country_code)) {
    issues.push({ loc: ['body', 'country_code'], type: 'enum', msg: 'Input should be an ISO 3166-1 alpha-2 country code' });
  }
  if (fields.vat_id && !isPlausibleVatId(fields.vat_id, fields.country_code)) {
    const msg =
      fields.country_code === 'CH'
        ? 'Input is not a Swiss UID (CHE-123.456.789 with MWST, TVA, IVA or no suffix) with a right check digit'
        : isSwissVatId(fields.vat_id)
          ? `A Swiss UID is accepted only for a ${party} whose country_code is CH`
          : 'Input is not a VAT ID of the format of its country (or its check digit is wrong)';
    issues.push({ loc: ['body', 'vat_id'], type: 'pattern', msg });
  }
  return issues;
}

const regionNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });

/** ISO 3166-1 alpha-2 country code known to ICU (not a grouping such as EU or UN). */
export function isCountryCode(code: string): boolean {
  return /^[A-Z]{2}$/.test(code) && !['EU', 'EZ', 'UN', 'QO', 'XA', 'XB', 'ZZ'].includes(code) && regionNames.of(code) !== undefined;
}

export const EU_COUNTRIES = new Set([
  'AT',
  'BE',
  'BG',
  'CY',
  'CZ',
  'DE',
  'DK',
  'EE',
  'ES',
  'FI',
  'FR',
  'GR',
  'HR',
  'HU',
  'IE',
  'IT',
  'LT',
  'LU',
  'LV',
  'MT',
  'NL',
  'PL',
  'PT',
  'RO',
  'SE',
  'SI',
  'SK',
]);
