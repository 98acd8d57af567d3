// Format checks of VAT IDs (german-rules §2.5) and Leitweg-IDs (§3.11). A passing
// format does not prove a VAT ID exists (that is a VIES/BZSt question).

const VAT_ID_FORMATS: Record<string, RegExp> = {
  AT: /^ATU\d{8}$/,
  BE: /^BE[01]\d{9}$/,
  BG: /^BG\d{9,10}$/,
  CY: /^CY\d{8}[A-Z]$/,
  CZ: /^CZ\d{8,10}$/,
  DE: /^DE[1-9]\d{8}$/,
  DK: /^DK\d{8}$/,
  EE: /^EE\d{9}$/,
  EL: /^EL\d{9}$/,
  ES: /^ES[A-Z0-9]\d{7}[A-Z0-9]$/,
  FI: /^FI\d{8}$/,
  FR: /^FR[0-9A-HJ-NP-Z]{2}\d{9}$/,
  HR: /^HR\d{11}$/,
  HU: /^HU\d{8}$/,
  IE: /^IE(\d{7}[A-Z]{1,2}|\d[A-Z+*]\d{5}[A-Z])$/,
  IT: /^IT\d{11}$/,
  LT: /^LT(\d{9}|\d{12})$/,
  LU: /^LU\d{8}$/,
  LV: /^LV\d{11}$/,
  MT: /^MT\d{8}$/,
  NL: /^NL\d{9}B\d{2}$/,
  PL: /^PL\d{10}$/,
  PT: /^PT\d{9}$/,
  RO: /^RO\d{2,10}$/,
  SE: /^SE\d{10}01$/,
  SI: /^SI\d{8}$/,
  SK: /^SK\d{10}$/,
  XI: /^XI(\d{9}|\d{12}|GD\d{3}|HA\d{3})$/,
};

/** Upper case without spaces, dots or dashes: the form printed on invoices. */
export function normalizeVatId(raw: string): string {
  return raw.replace(/[\s.-]/g, '').toUpperCase();
}

/** ISO 7064 MOD 11,10 over the 8 leading digits of a German USt-IdNr. */
function germanCheckDigitOk(digits: string): boolean {
  let product = 10;
  for (let i = 0; i < 8; i++) {
    let sum = (Number(digits[i]) + product) % 10;
    if (sum === 0) sum = 10;
    product = (2 * sum) % 11;
  }
  let check = 11 - product;
  if (check === 10) check = 0;
  return check === Number(digits[8]);
}

/** True when the (normalised) VAT ID has its member state's format (and, for DE, check digit). */
export function isPlausibleVatId(vatId: string): boolean {
  const format = VAT_ID_FORMATS[vatId.slice(0, 2)];
  if (format) {
    if (!format.test(vatId)) return false;
    return vatId.startsWith('DE') ? germanCheckDigitOk(vatId.slice(2)) : true;
  }
  // Outside the EU (CHE-…, GB…, NO…MVA): letters prefix and 2–13 further characters.
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
