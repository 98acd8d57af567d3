import type { PartnerChangeKind, PartnerChangeValues } from '../../db/schema-portal.ts';
import type { Sealer } from '../../shared/secrets.ts';
import { countryAndVatIdIssues, isSwissVatId, normalizeVatId } from '../../shared/tax-ids.ts';
import { partnerRequestFields } from '../commissions/partners.schemas.ts';
import { checkedPayoutAccount, maskIban, PayoutAccountError } from '../commissions/payout-account.ts';
import { ChangeRequestError, type FieldProblem } from './change-request-error.ts';

// The values of a partner's change request: which fields each kind has, how they are checked
// (with the checks the company's own writes use: the payout account's of the app,
// setPayoutAccount; the VAT ID's and country's of the API, upsert-partner; the API's
// lengths), how they are stored (the IBAN sealed and masked, never clear) and shown.

export const CHANGE_KINDS = ['payout_account', 'address', 'vat_id', 'tax_number'] as const satisfies readonly PartnerChangeKind[];

/** The form fields of each kind, in the order they are shown. */
export const CHANGE_FIELDS: Record<PartnerChangeKind, readonly string[]> = {
  payout_account: ['iban', 'bic'],
  address: ['street', 'house_number', 'zip', 'city', 'country_code'],
  vat_id: ['vat_id'],
  tax_number: ['tax_number'],
};

/** The longest value of each field: the API's limits for the partner (partners.schemas.ts). */
export const FIELD_MAX: Record<string, number> = {
  iban: 34,
  bic: 11,
  street: partnerRequestFields.street.maxLength,
  house_number: partnerRequestFields.house_number.maxLength,
  zip: partnerRequestFields.zip.maxLength,
  city: partnerRequestFields.city.maxLength,
  country_code: partnerRequestFields.country_code.maxLength,
  vat_id: partnerRequestFields.vat_id.maxLength,
  tax_number: partnerRequestFields.tax_number.maxLength,
};

const OPTIONAL = new Set(['bic', 'house_number']);

/** The partner's row as far as a change request reads it. */
export type PartnerOnFile = {
  iban_sealed: string | null;
  iban_masked: string | null;
  bic: string | null;
  street: string | null;
  house_number: string | null;
  zip: string | null;
  city: string | null;
  country_code: string | null;
  vat_id: string | null;
  tax_number: string | null;
};

export const isChangeKind = (kind: string): kind is PartnerChangeKind => (CHANGE_KINDS as readonly string[]).includes(kind);

const GERMAN: Record<Exclude<FieldProblem, 'too_long'>, string> = {
  missing: 'Bitte ausfüllen.',
  iban_invalid: 'Die IBAN ist ungültig: Bitte prüfen Sie Länderkennung, Länge und Prüfziffer.',
  bic_invalid: 'Die BIC ist ungültig: 8 oder 11 Zeichen, z. B. COBADEFFXXX.',
  vat_id_invalid: 'Die USt-IdNr. hat nicht das Format ihres Landes, oder ihre Prüfziffer stimmt nicht.',
  swiss_uid_needed: 'Für einen Partner in der Schweiz: die UID mit richtiger Prüfziffer, z. B. CHE-123.456.789 MWST.',
  swiss_uid_elsewhere: 'Eine Schweizer UID gilt nur für einen Partner mit Anschrift in der Schweiz.',
  country_invalid: 'Bitte den zweistelligen Ländercode nach ISO 3166 angeben, z. B. DE.',
  kind_invalid: 'Diese Art der Änderung gibt es nicht.',
};

const problem = (code: FieldProblem, field: string): [FieldProblem, string] => [
  code,
  code === 'too_long' ? `Höchstens ${FIELD_MAX[field]} Zeichen.` : GERMAN[code],
];

/**
 * The requested values, checked, in clear (the IBAN in its electronic form); throws
 * ChangeRequestError `invalid` naming each wrong field in German.
 */
export function checkedValues(kind: string, form: Record<string, string | undefined>, partner: PartnerOnFile): PartnerChangeValues {
  if (!isChangeKind(kind)) throw new ChangeRequestError('invalid', GERMAN.kind_invalid, { kind: problem('kind_invalid', 'kind') });
  const wrong: Record<string, [FieldProblem, string]> = {};
  const values: PartnerChangeValues = {};
  for (const field of CHANGE_FIELDS[kind]) {
    const value = String(form[field] ?? '').trim();
    if (value === '' && !OPTIONAL.has(field)) wrong[field] = problem('missing', field);
    else if (value.length > (FIELD_MAX[field] as number) + (field === 'iban' ? 10 : 0)) wrong[field] = problem('too_long', field);
    values[field] = value === '' ? null : value;
  }
  if (kind === 'payout_account' && !wrong.iban && !wrong.bic) {
    try {
      Object.assign(values, checkedPayoutAccount({ iban: values.iban ?? null, bic: values.bic ?? null }));
    } catch (error) {
      if (!(error instanceof PayoutAccountError)) throw error;
      if (error.code === 'iban_invalid') wrong.iban = problem('iban_invalid', 'iban');
      else wrong.bic = problem('bic_invalid', 'bic');
    }
  }
  if (kind === 'address' && values.country_code && !wrong.country_code) {
    values.country_code = values.country_code.toUpperCase();
    if (countryAndVatIdIssues({ country_code: values.country_code, vat_id: null }, 'partner').length > 0)
      wrong.country_code = problem('country_invalid', 'country_code');
  }
  if (kind === 'vat_id' && values.vat_id && !wrong.vat_id) {
    const vatId = normalizeVatId(values.vat_id);
    values.vat_id = vatId;
    // The partner's country on file decides (a Swiss UID only in CH, and there one is needed).
    if (vatId.length > FIELD_MAX.vat_id!) wrong.vat_id = problem('too_long', 'vat_id');
    else if (countryAndVatIdIssues({ country_code: partner.country_code, vat_id: vatId }, 'partner').length > 0)
      wrong.vat_id = problem(partner.country_code === 'CH' ? 'swiss_uid_needed' : isSwissVatId(vatId) ? 'swiss_uid_elsewhere' : 'vat_id_invalid', 'vat_id');
  }
  if (Object.keys(wrong).length > 0) throw new ChangeRequestError('invalid', Object.values(wrong)[0]?.[1] ?? GERMAN.missing, wrong);
  return values;
}

/** The partner's values of this kind on file, in clear (for the comparison only). */
export function clearOnFile(kind: PartnerChangeKind, partner: PartnerOnFile, sealer: Sealer): PartnerChangeValues {
  if (kind === 'payout_account') return { iban: partner.iban_sealed ? sealer.open(partner.iban_sealed) : null, bic: partner.bic };
  return Object.fromEntries(CHANGE_FIELDS[kind].map((field) => [field, partner[field as keyof PartnerOnFile]]));
}

/** A stored request's values in clear (the IBAN opened; for the comparison only). */
export function clearOfStored(kind: PartnerChangeKind, stored: PartnerChangeValues, sealer: Sealer): PartnerChangeValues {
  if (kind === 'payout_account') return { iban: stored.iban_sealed ? sealer.open(stored.iban_sealed) : null, bic: stored.bic ?? null };
  return Object.fromEntries(CHANGE_FIELDS[kind].map((field) => [field, stored[field] ?? null]));
}

export const sameValues = (kind: PartnerChangeKind, a: PartnerChangeValues, b: PartnerChangeValues) =>
  CHANGE_FIELDS[kind].every((field) => (a[field] ?? null) === (b[field] ?? null));

/** How checked values are kept on the request: the IBAN sealed and masked. */
export function storedValues(kind: PartnerChangeKind, clear: PartnerChangeValues, sealer: Sealer): PartnerChangeValues {
  if (kind !== 'payout_account') return clear;
  const iban = clear.iban as string;
  return { iban_sealed: sealer.seal(iban), iban_masked: maskIban(iban), bic: clear.bic ?? null };
}

/** What may be shown and mailed of values (the IBAN masked; never the sealed one). */
export function shownValues(kind: PartnerChangeKind, values: PartnerChangeValues): PartnerChangeValues {
  if (kind === 'payout_account') return { iban_masked: values.iban_masked ?? null, bic: values.bic ?? null };
  return Object.fromEntries(CHANGE_FIELDS[kind].map((field) => [field, values[field] ?? null]));
}

/** The partner's values of this kind on file as shown (the IBAN masked): a request's `current`. */
export function shownOnFile(kind: PartnerChangeKind, partner: PartnerOnFile): PartnerChangeValues {
  return shownValues(kind, kind === 'payout_account' ? { iban_masked: partner.iban_masked, bic: partner.bic } : { ...partner });
}

/** Shown values as one line: "DE89 •••• 3000 · BIC COBADEFFXXX", "Hauptstr. 1, 10115 Berlin, DE"; `none` when empty. */
export function valuesLine(kind: PartnerChangeKind, values: PartnerChangeValues, none: string): string {
  if (kind === 'payout_account') return values.iban_masked ? `${values.iban_masked}${values.bic ? ` · BIC ${values.bic}` : ''}` : none;
  if (kind === 'address') {
    const street = [values.street, values.house_number].filter(Boolean).join(' ');
    const city = [values.zip, values.city].filter(Boolean).join(' ');
    const line = [street, city, values.country_code].filter(Boolean).join(', ');
    return line || none;
  }
  return values[kind] ?? none;
}

/** The kind in German as the mails name it, with its article and the possessives. */
export const KIND_GERMAN: Record<PartnerChangeKind, { name: string; the: string; his: string; your: string }> = {
  payout_account: { name: 'Auszahlungskonto', the: 'das Auszahlungskonto', his: 'sein Auszahlungskonto', your: 'Ihr Auszahlungskonto' },
  address: { name: 'Anschrift', the: 'die Anschrift', his: 'seine Anschrift', your: 'Ihre Anschrift' },
  vat_id: { name: 'USt-IdNr.', the: 'die USt-IdNr.', his: 'seine USt-IdNr.', your: 'Ihre USt-IdNr.' },
  tax_number: { name: 'Steuernummer', the: 'die Steuernummer', his: 'seine Steuernummer', your: 'Ihre Steuernummer' },
};
