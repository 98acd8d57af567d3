import { EU_COUNTRIES } from '../../shared/tax-ids.ts';
import type { VatVerdict } from './document.ts';

// The VAT verdict at issue (design §4, german-rules §2.1). A mismatch is a warning a
// person would confirm in the app, so the API refuses with German messages.

export type VerdictInput = {
  company: { smallBusiness: boolean; euDistanceThresholdExceeded: boolean };
  customer: { countryCode: string; customerType: 'business' | 'private'; vatId: string | null };
  lines: { vatRate: 0 | 7 | 19; taxExemptionReason: string | null }[];
};

export type VerdictResult = { verdict: VatVerdict; messages: string[] };

const COUNTRY_NAMES = new Intl.DisplayNames(['de'], { type: 'region' });
/** The German name of a country; the code itself for one ICU does not know (Intl throws on a malformed code). */
function countryName(code: string): string {
  try {
    return COUNTRY_NAMES.of(code) ?? code;
  } catch {
    return code;
  }
}

function zeroOnly(lines: VerdictInput['lines'], why: string): string[] {
  return lines.flatMap((line, i) => (line.vatRate === 0 ? [] : [`Position ${i + 1} hat ${line.vatRate} % Umsatzsteuer; ${why} ist nur 0 % zulässig.`]));
}

function germanRates(lines: VerdictInput['lines']): string[] {
  return lines.flatMap((line, i) =>
    line.vatRate === 0 && !line.taxExemptionReason
      ? [
          `Position ${i + 1} hat 0 % Umsatzsteuer ohne Befreiungsgrund; bei einer Leistung im Inland gelten 19 % oder 7 %, 0 % nur mit Angabe des Befreiungsgrunds (tax_exemption_reason).`,
        ]
      : [],
  );
}

/**
 * `domesticSupplyConfirmed`: a person confirmed in the app that the place of supply is in
 * Germany although the customer is abroad (e.g. admission to an event here, work on
 * property here): the invoice then carries German VAT like a domestic one. The API can
 * never set it (interface §1: it does not override a tax warning).
 */
export function decideVat(input: VerdictInput, options: { domesticSupplyConfirmed?: boolean } = {}): VerdictResult {
  const { company, customer, lines } = input;
  if (company.smallBusiness) {
    return { verdict: 'small_business', messages: zeroOnly(lines, 'als Kleinunternehmer (§ 19 UStG)') };
  }
  const country = customer.countryCode;
  if (country === 'DE' || options.domesticSupplyConfirmed) return { verdict: 'domestic', messages: germanRates(lines) };
  if (EU_COUNTRIES.has(country)) {
    if (customer.customerType === 'business') {
      if (!customer.vatId) {
        return {
          verdict: 'reverse_charge',
          messages: [
            `Der Kunde ist ein Unternehmen in ${countryName(country)}, hat aber keine USt-IdNr.: Für die Rechnung mit Übergang der Steuerschuld (Reverse Charge) wird die USt-IdNr. des Kunden benötigt.`,
          ],
        };
      }
      return { verdict: 'reverse_charge', messages: zeroOnly(lines, 'bei Übergang der Steuerschuld auf den Leistungsempfänger (Reverse Charge)') };
    }
    if (company.euDistanceThresholdExceeded) {
      return {
        verdict: 'domestic',
        messages: [
          `Der Kunde ist eine Privatperson in ${countryName(country)} und die Lieferschwelle für EU-Fernverkäufe ist überschritten: Es gilt der Umsatzsteuersatz von ${countryName(country)} (OSS), den Kontor nicht abrechnet.`,
        ],
      };
    }
    return { verdict: 'domestic', messages: germanRates(lines) };
  }
  return { verdict: 'not_taxable', messages: zeroOnly(lines, `bei einer im Inland nicht steuerbaren Leistung an einen Kunden in ${countryName(country)}`) };
}
