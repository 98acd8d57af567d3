// Bank account checks through ibantools: the IBAN (ISO 13616) with the length and BBAN
// format of its country, MOD 97-10 and, where the country has one, the national check
// digit; the BIC (ISO 9362) with its shape and a known country.
import { electronicFormatIBAN, isValidBIC, isValidIBAN } from 'ibantools';

/** The electronic form: no whitespace or dashes, upper case (as stored and compared). */
export function normalizeIban(raw: string): string {
  return electronicFormatIBAN(raw.replace(/\s/g, '')) ?? '';
}

/**
 * True for an IBAN in its electronic form (see `normalizeIban`) that ibantools accepts. A
 * Swiss QR-IBAN is refused: it takes only payments with a QR reference, which a German
 * invoice's transfer does not carry.
 */
export function isValidIban(iban: string): boolean {
  return isValidIBAN(iban, { allowQRIBAN: false });
}

/** The stored form of a BIC: no whitespace, upper case. */
export function normalizeBic(raw: string): string {
  return raw.replace(/\s/g, '').toUpperCase();
}

/** True for an 8- or 11-character BIC in upper case whose country (characters 5–6) ibantools knows. */
export function isValidBic(bic: string): boolean {
  return bic === bic.toUpperCase() && isValidBIC(bic);
}
