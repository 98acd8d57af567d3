// In a self-billed invoice the partner, who supplies the commission service, is the seller
// (BG-4) and the company, who issues the Gutschrift and pays, the buyer (BG-7)
// (german-rules §3.9). BT-31/BT-32 are the partner's, BT-48 the company's.
import type { Invoice } from '@e-invoice-eu/core';
import { legalName } from '../../../../shared/german-format.ts';
import type { EInvoiceProfile } from '../../../invoicing/render/einvoice/header.ts';
import { postalAddress } from '../../../invoicing/render/einvoice/parties.ts';
import type { StatementDocument } from '../../statement-document.ts';

type UblInvoice = Invoice['ubl:Invoice'];
type SellerParty = UblInvoice['cac:AccountingSupplierParty']['cac:Party'];
type BuyerParty = UblInvoice['cac:AccountingCustomerParty']['cac:Party'];
type TaxSchemes = NonNullable<SellerParty['cac:PartyTaxScheme']>;

function partnerTaxSchemes(partner: StatementDocument['partner']): TaxSchemes | null {
  // The library maps only the first entry's scheme to VA/FC, so the VAT ID goes first.
  const schemes: { 'cbc:CompanyID': string; 'cac:TaxScheme': { 'cbc:ID': string } }[] = [];
  if (partner.vatId) schemes.push({ 'cbc:CompanyID': partner.vatId, 'cac:TaxScheme': { 'cbc:ID': 'VAT' } });
  if (partner.taxNumber) schemes.push({ 'cbc:CompanyID': partner.taxNumber, 'cac:TaxScheme': { 'cbc:ID': 'FC' } });
  return schemes.length > 0 ? (schemes as TaxSchemes) : null;
}

/**
 * BG-4 the partner. BT-29 is the creditor number, an identifier of the seller assigned by
 * the buyer (EN 16931 allows one without scheme "known by buyer and seller"); it also
 * satisfies BR-CO-26 for a partner with a Steuernummer only.
 *
 * BG-6 (seller contact) and BT-34 (seller electronic address) are the partner's own: its
 * contact person or name (BT-41), the telephone a person set (BT-42), its e-mail (BT-43,
 * BT-34). What the partner has not given is left out — never the company's data in the
 * partner's place. XRechnung requires all of them (BR-DE-5/6/7, Peppol R020): issuing
 * refuses a Gutschrift as XRechnung without them (issue-statement.ts), and this throws as a
 * last guard rather than write a contact that is not the partner's.
 */
export function partnerAsSeller(doc: StatementDocument, profile: EInvoiceProfile): SellerParty {
  const { partner } = doc;
  const party: SellerParty = {
    'cac:PartyIdentification': [{ 'cbc:ID': partner.creditorNumber }],
    'cac:PostalAddress': postalAddress(partner),
    'cac:PartyLegalEntity': { 'cbc:RegistrationName': partner.name },
  };
  const email = partner.email ?? null;
  const phone = partner.phone ?? null;
  if (profile === 'xrechnung' && (!email || !phone))
    throw new Error(
      `statement ${doc.number}: an XRechnung needs the partner's ${[!phone && 'telephone', !email && 'e-mail'].filter(Boolean).join(' and ')} (BR-DE-6/7)`,
    );
  if (email) {
    party['cbc:EndpointID'] = email;
    party['cbc:EndpointID@schemeID'] = 'EM';
  }
  const schemes = partnerTaxSchemes(partner);
  if (schemes) party['cac:PartyTaxScheme'] = schemes;
  const contact: NonNullable<SellerParty['cac:Contact']> = { 'cbc:Name': partner.contactName ?? partner.name };
  if (phone) contact['cbc:Telephone'] = phone;
  if (email) contact['cbc:ElectronicMail'] = email;
  party['cac:Contact'] = contact;
  return party;
}

/** BG-7 the company, with its USt-IdNr. (BT-48, required for AE) and e-mail as BT-49. */
export function companyAsBuyer(doc: StatementDocument): BuyerParty {
  const { company } = doc;
  const party: BuyerParty = {
    'cac:PostalAddress': postalAddress(company),
    'cac:PartyLegalEntity': { 'cbc:RegistrationName': legalName(company) },
  };
  if (company.email) {
    party['cbc:EndpointID'] = company.email;
    party['cbc:EndpointID@schemeID'] = 'EM';
  }
  if (company.vatId) party['cac:PartyTaxScheme'] = { 'cbc:CompanyID': company.vatId, 'cac:TaxScheme': { 'cbc:ID': 'VAT' } };
  if (company.contactName || company.phone || company.email) {
    const contact: NonNullable<BuyerParty['cac:Contact']> = {};
    if (company.contactName) contact['cbc:Name'] = company.contactName;
    if (company.phone) contact['cbc:Telephone'] = company.phone;
    if (company.email) contact['cbc:ElectronicMail'] = company.email;
    party['cac:Contact'] = contact;
  }
  return party;
}
