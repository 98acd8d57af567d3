// Reads a CII back with fast-xml-parser and exposes the business terms the tests assert.
import { XMLParser } from 'fast-xml-parser';

type Node = Record<string, unknown>;

const ALWAYS_ARRAYS = new Set([
  'ram:IncludedSupplyChainTradeLineItem',
  'ram:ApplicableTradeTax',
  'ram:SpecifiedTaxRegistration',
  'ram:IncludedNote',
  'ram:SpecifiedTradeSettlementPaymentMeans',
]);

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  parseTagValue: false,
  parseAttributeValue: false,
  isArray: (name) => ALWAYS_ARRAYS.has(name),
});

function text(node: unknown): string | undefined {
  if (node === undefined || node === null) return undefined;
  if (typeof node === 'object') return (node as Node)['#text'] as string | undefined;
  return String(node);
}

function at(node: unknown, ...path: string[]): unknown {
  return path.reduce<unknown>((current, key) => (current as Node | undefined)?.[key], node);
}

function registrations(party: unknown): { scheme: string; id: string }[] {
  return ((at(party, 'ram:SpecifiedTaxRegistration') as Node[] | undefined) ?? []).map((reg) => ({
    scheme: at(reg, 'ram:ID', '@schemeID') as string,
    id: text(at(reg, 'ram:ID'))!,
  }));
}

export function readCii(xml: Buffer | string) {
  const root = parser.parse(xml.toString())['rsm:CrossIndustryInvoice'] as Node;
  const tx = at(root, 'rsm:SupplyChainTradeTransaction');
  const agreement = at(tx, 'ram:ApplicableHeaderTradeAgreement');
  const settlement = at(tx, 'ram:ApplicableHeaderTradeSettlement');
  const seller = at(agreement, 'ram:SellerTradeParty');
  const buyer = at(agreement, 'ram:BuyerTradeParty');
  const totals = at(settlement, 'ram:SpecifiedTradeSettlementHeaderMonetarySummation');
  const lines = (at(tx, 'ram:IncludedSupplyChainTradeLineItem') as Node[]).map((line) => ({
    id: text(at(line, 'ram:AssociatedDocumentLineDocument', 'ram:LineID')),
    quantity: text(at(line, 'ram:SpecifiedLineTradeDelivery', 'ram:BilledQuantity')),
    unitCode: at(line, 'ram:SpecifiedLineTradeDelivery', 'ram:BilledQuantity', '@unitCode') as string,
    price: text(at(line, 'ram:SpecifiedLineTradeAgreement', 'ram:NetPriceProductTradePrice', 'ram:ChargeAmount')),
    net: text(at(line, 'ram:SpecifiedLineTradeSettlement', 'ram:SpecifiedTradeSettlementLineMonetarySummation', 'ram:LineTotalAmount')),
    category: text(at((at(line, 'ram:SpecifiedLineTradeSettlement', 'ram:ApplicableTradeTax') as Node[])[0], 'ram:CategoryCode')),
    rate: text(at((at(line, 'ram:SpecifiedLineTradeSettlement', 'ram:ApplicableTradeTax') as Node[])[0], 'ram:RateApplicablePercent')),
  }));
  return {
    hasHeaderDelivery: at(tx, 'ram:ApplicableHeaderTradeDelivery') !== undefined,
    bt1: text(at(root, 'rsm:ExchangedDocument', 'ram:ID')),
    bt2: text(at(root, 'rsm:ExchangedDocument', 'ram:IssueDateTime', 'udt:DateTimeString')),
    bt3: text(at(root, 'rsm:ExchangedDocument', 'ram:TypeCode')),
    bt5: text(at(settlement, 'ram:InvoiceCurrencyCode')),
    bt9: text(at(settlement, 'ram:SpecifiedTradePaymentTerms', 'ram:DueDateDateTime', 'udt:DateTimeString')),
    bt10: text(at(agreement, 'ram:BuyerReference')),
    bt20: text(at(settlement, 'ram:SpecifiedTradePaymentTerms', 'ram:Description')),
    bt22: ((at(root, 'rsm:ExchangedDocument', 'ram:IncludedNote') as Node[] | undefined) ?? []).map((note) => text(at(note, 'ram:Content'))),
    bt24: text(at(root, 'rsm:ExchangedDocumentContext', 'ram:GuidelineSpecifiedDocumentContextParameter', 'ram:ID')),
    bt25: text(at(settlement, 'ram:InvoiceReferencedDocument', 'ram:IssuerAssignedID')),
    bt26: text(at(settlement, 'ram:InvoiceReferencedDocument', 'ram:FormattedIssueDateTime', 'qdt:DateTimeString')),
    bt29: text(at(seller, 'ram:ID')),
    sellerTaxRegistrations: registrations(seller),
    buyerTaxRegistrations: registrations(buyer),
    bt41: text(at(seller, 'ram:DefinedTradeContact', 'ram:PersonName')),
    bt42: text(at(seller, 'ram:DefinedTradeContact', 'ram:TelephoneUniversalCommunication', 'ram:CompleteNumber')),
    bt43: text(at(seller, 'ram:DefinedTradeContact', 'ram:EmailURIUniversalCommunication', 'ram:URIID')),
    bt49: { id: text(at(buyer, 'ram:URIUniversalCommunication', 'ram:URIID')), scheme: at(buyer, 'ram:URIUniversalCommunication', 'ram:URIID', '@schemeID') },
    bg14: {
      start: text(at(settlement, 'ram:BillingSpecifiedPeriod', 'ram:StartDateTime', 'udt:DateTimeString')),
      end: text(at(settlement, 'ram:BillingSpecifiedPeriod', 'ram:EndDateTime', 'udt:DateTimeString')),
    },
    bt81: text(at((at(settlement, 'ram:SpecifiedTradeSettlementPaymentMeans') as Node[])[0], 'ram:TypeCode')),
    bt83: text(at(settlement, 'ram:PaymentReference')),
    bt84: text(at((at(settlement, 'ram:SpecifiedTradeSettlementPaymentMeans') as Node[])[0], 'ram:PayeePartyCreditorFinancialAccount', 'ram:IBANID')),
    bt85: text(at((at(settlement, 'ram:SpecifiedTradeSettlementPaymentMeans') as Node[])[0], 'ram:PayeePartyCreditorFinancialAccount', 'ram:AccountName')),
    bt72: text(at(tx, 'ram:ApplicableHeaderTradeDelivery', 'ram:ActualDeliverySupplyChainEvent', 'ram:OccurrenceDateTime', 'udt:DateTimeString')),
    vatBreakdown: (at(settlement, 'ram:ApplicableTradeTax') as Node[]).map((tax) => ({
      category: text(at(tax, 'ram:CategoryCode')),
      rate: text(at(tax, 'ram:RateApplicablePercent')),
      basis: text(at(tax, 'ram:BasisAmount')),
      amount: text(at(tax, 'ram:CalculatedAmount')),
      reason: text(at(tax, 'ram:ExemptionReason')),
      reasonCode: text(at(tax, 'ram:ExemptionReasonCode')),
    })),
    totals: {
      bt106: text(at(totals, 'ram:LineTotalAmount')),
      bt109: text(at(totals, 'ram:TaxBasisTotalAmount')),
      bt110: text(at(totals, 'ram:TaxTotalAmount')),
      bt112: text(at(totals, 'ram:GrandTotalAmount')),
      bt115: text(at(totals, 'ram:DuePayableAmount')),
    },
    lines,
  };
}
