// BG-4 seller (with contact BG-6) and BG-7 buyer, including which tax identifiers the
// verdict allows (german-rules §3.8; einvoice-notes.md).
import type { Invoice } from '@e-invoice-eu/core';
import { legalName, streetLine } from '../../../../shared/german-format.ts';
import type { Buyer, InvoiceDocument, Party, Seller } from '../../document.ts';

type UblInvoice = Invoice['ubl:Invoice'];
type SellerParty = UblInvoice['cac:AccountingSupplierParty']['cac:Party'];
type BuyerParty = UblInvoice['cac:AccountingCustomerParty']['cac:Party'];
type PostalAddress = SellerParty['cac:PostalAddress'];
type TaxSchemes = NonNullable<SellerParty['cac:PartyTaxScheme']>;

export function postalAddress(party: Party): PostalAddress {
  const address: PostalAddress = { 'cac:Country': { 'cbc:IdentificationCode': party.countryCode as never } };
  const street = streetLine(party);
  if (street) address['cbc:StreetName'] = street;
  if (party.city) address['cbc:CityName'] = party.city;
  if (party.zip) address['cbc:PostalZone'] = party.zip;
  return address;
}

/**
 * Category O (not taxable in Germany) forbids both VAT IDs (BR-O-02): the seller is then
 * identified by its Steuernummer (BT-32, scheme FC) and, for BR-CO-26, by BT-29.
 */
function showsVatIds(doc: InvoiceDocument): boolean {
  return doc.verdict !== 'not_taxable';
}

function sellerTaxSchemes(seller: Seller, withVatId: boolean): TaxSchemes {
  // The library maps only the first entry's scheme to VA/FC, so the VAT ID goes first.
  const schemes: { 'cbc:CompanyID': string; 'cac:TaxScheme': { 'cbc:ID': string } }[] = [];
  if (withVatId && seller.vatId) schemes.push({ 'cbc:CompanyID': seller.vatId, 'cac:TaxScheme': { 'cbc:ID': 'VAT' } });
  if (seller.taxNumber) schemes.push({ 'cbc:CompanyID': seller.taxNumber, 'cac:TaxScheme': { 'cbc:ID': 'FC' } });
  return schemes.slice(0, 2) as TaxSchemes;
}

export function sellerParty(doc: InvoiceDocument): SellerParty {
  const { seller } = doc;
  const withVatId = showsVatIds(doc);
  const party: SellerParty = {
    'cac:PostalAddress': postalAddress(seller),
    'cac:PartyLegalEntity': { 'cbc:RegistrationName': legalName(seller) },
  };
  // BT-34, required by XRechnung (Peppol R020): the seller's e-mail, scheme EM.
  if (seller.email) {
    party['cbc:EndpointID'] = seller.email;
    party['cbc:EndpointID@schemeID'] = 'EM';
  }
  // BR-CO-26 needs BT-29, BT-30 or BT-31: without a VAT ID in the XML, the Steuernummer identifies the seller.
  if (!(withVatId && seller.vatId) && seller.taxNumber) {
    party['cac:PartyIdentification'] = [{ 'cbc:ID': seller.taxNumber }];
  }
  const schemes = sellerTaxSchemes(seller, withVatId);
  if (schemes.length > 0) party['cac:PartyTaxScheme'] = schemes;
  // BG-6 seller contact: XRechnung BR-DE-5/6/7 want name, telephone and e-mail.
  const contact: NonNullable<SellerParty['cac:Contact']> = {};
  const contactName = seller.contactName ?? legalName(seller);
  contact['cbc:Name'] = contactName;
  if (seller.phone) contact['cbc:Telephone'] = seller.phone;
  if (seller.email) contact['cbc:ElectronicMail'] = seller.email;
  party['cac:Contact'] = contact;
  return party;
}

/** BT-49: the Leitweg-ID (scheme 0204) for public buyers, else the buyer's e-mail (EM). */
function buyerEndpoint(buyer: Buyer): { id: string; scheme: '0204' | 'EM' } | null {
  if (buyer.leitwegId) return { id: buyer.leitwegId, scheme: '0204' };
  if (buyer.email) return { id: buyer.email, scheme: 'EM' };
  return null;
}

export function buyerParty(doc: InvoiceDocument): BuyerParty {
  const { buyer } = doc;
  const party: BuyerParty = {
    'cac:PartyIdentification': { 'cbc:ID': buyer.customerNumber },
    'cac:PostalAddress': postalAddress(buyer),
    'cac:PartyLegalEntity': { 'cbc:RegistrationName': buyer.name },
  };
  const endpoint = buyerEndpoint(buyer);
  if (endpoint) {
    party['cbc:EndpointID'] = endpoint.id;
    party['cbc:EndpointID@schemeID'] = endpoint.scheme as never;
  }
  // BT-48: required for reverse charge (AE), forbidden for O.
  if (showsVatIds(doc) && buyer.vatId) {
    party['cac:PartyTaxScheme'] = { 'cbc:CompanyID': buyer.vatId, 'cac:TaxScheme': { 'cbc:ID': 'VAT' } };
  }
  if (buyer.contactName || buyer.email) {
    const contact: NonNullable<BuyerParty['cac:Contact']> = {};
    if (buyer.contactName) contact['cbc:Name'] = buyer.contactName;
    if (buyer.email) contact['cbc:ElectronicMail'] = buyer.email;
    party['cac:Contact'] = contact;
  }
  return party;
}
