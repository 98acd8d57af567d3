// In a self-billed invoice the partner, who supplies the commission service, is the seller
// (BG-4) and the company, who issues the Gutschrift and pays, the buyer (BG-7)
// (german-rules §3.9). BT-31/BT-32 are the partner's, BT-48 the company's.
import type { Invoice } from '@e-invoice-eu/core';
import { legalName } from '../../../../shared/german-format.ts';
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
 * BG-6 (XRechnung BR-DE-2, -5, -6, -7 are fatal): the partner's name, telephone and e-mail.
 * Where the partner record lacks one (partners usually have no telephone), the company's
 * stands in — the issuer of a Gutschrift is who answers questions about it; BT-34 (Peppol
 * R020, merged into XRechnung) falls back the same way. So the XRechnung of every partner
 * the company may self-bill passes, instead of the issue failing at render time.
 */
export function partnerAsSeller(doc: StatementDocument): SellerParty {
  const { partner, company } = doc;
  const party: SellerParty = {
    'cac:PartyIdentification': [{ 'cbc:ID': partner.creditorNumber }],
    'cac:PostalAddress': postalAddress(partner),
    'cac:PartyLegalEntity': { 'cbc:RegistrationName': partner.name },
  };
  const email = partner.email ?? company.email;
  if (email) {
    party['cbc:EndpointID'] = email;
    party['cbc:EndpointID@schemeID'] = 'EM';
  }
  const schemes = partnerTaxSchemes(partner);
  if (schemes) party['cac:PartyTaxScheme'] = schemes;
  const contact: NonNullable<SellerParty['cac:Contact']> = { 'cbc:Name': partner.name };
  const phone = partner.phone ?? company.phone;
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
