import { companyLawProblems } from '../../shared/company-law.ts';
import type { VatVerdict } from './document.ts';

// Mandatory details for issuing (§ 14 Abs. 4 UStG, XRechnung BR-DE rules), checked
// before a number is drawn. Each problem is a German sentence for a person.

export type CompanyDetails = {
  name: string;
  street: string | null;
  zip: string | null;
  city: string | null;
  country_code: string;
  vat_id: string | null;
  tax_number: string | null;
  iban: string | null;
  email: string | null;
  phone: string | null;
  contact_name: string | null;
  legal_form: string | null;
  register_court: string | null;
  register_number: string | null;
  managing_directors: readonly string[];
};

export type CustomerDetails = {
  name: string;
  email: string | null;
  street: string | null;
  zip: string | null;
  city: string | null;
  country_code: string | null;
  leitweg_id: string | null;
  customer_type: 'business' | 'private';
};

const missing = (label: string, what: string) => `${label}: ${what} fehlt.`;

/**
 * The German sentences of every missing detail. `verdict` is null when none could be reached
 * (the customer has no country; that is one of the sentences). Never throws, whatever of the
 * customer's optional details is missing.
 */
export function checkIssuingDetails(company: CompanyDetails, customer: CustomerDetails, verdict: VatVerdict | null): string[] {
  const messages: string[] = [];
  const firm = 'Unternehmen';
  if (!company.street) messages.push(missing(firm, 'die Straße'));
  if (!company.zip) messages.push(missing(firm, 'die Postleitzahl'));
  if (!company.city) messages.push(missing(firm, 'der Ort'));
  if (!company.vat_id && !company.tax_number) messages.push(missing(firm, 'die Steuernummer oder USt-IdNr.'));
  if (!company.iban) messages.push(missing(firm, 'die Bankverbindung (IBAN)'));
  // Letterhead data of the legal form (§ 35a GmbHG, § 37a HGB): the company file refuses a
  // change without them; a company set up before that rule existed is stopped here.
  for (const problem of companyLawProblems(company)) messages.push(`${firm}: ${problem.de}`);
  // A not-taxable invoice carries no VAT IDs (EN 16931 BR-O-02): the seller is named by its tax number.
  if (verdict === 'not_taxable' && !company.tax_number)
    messages.push(missing(firm, 'die Steuernummer (bei nicht steuerbaren Leistungen ersetzt sie die USt-IdNr.)'));
  if (customer.leitweg_id || customer.customer_type === 'business') {
    // XRechnung and ZUGFeRD (EN 16931 with German rules) need a seller contact.
    if (!company.contact_name) messages.push(missing(firm, 'der Ansprechpartner für die E-Rechnung'));
    if (!company.phone) messages.push(missing(firm, 'die Telefonnummer für die E-Rechnung'));
    if (!company.email) messages.push(missing(firm, 'die E-Mail-Adresse für die E-Rechnung'));
  }
  const buyer = `Kunde ${customer.name}`;
  if (!customer.email) messages.push(missing(buyer, 'die E-Mail-Adresse'));
  if (!customer.street) messages.push(missing(buyer, 'die Straße'));
  if (!customer.zip) messages.push(missing(buyer, 'die Postleitzahl'));
  if (!customer.city) messages.push(missing(buyer, 'der Ort'));
  if (!customer.country_code) messages.push(missing(buyer, 'das Land'));
  return messages;
}
