import { inflateSync } from 'node:zlib';
import { PDFArray, PDFDict, PDFDocument, PDFHexString, PDFName, type PDFObject, PDFRawStream, PDFRef, PDFString } from '@cantoo/pdf-lib';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { isCalendarDate } from '../../../shared/dates.ts';

// Reads a partner's uploaded e-invoice (issue 27): an XRechnung or other EN 16931 invoice as
// CII or UBL XML, or a ZUGFeRD/Factur-X PDF with the CII embedded as an attachment. The
// result is the few business terms Kontor compares with its statement, never the whole
// invoice. Bad input is an answer ('unreadable' with a German reason), never an exception:
// the upload comes from outside. Nothing here touches the database.

/** One VAT breakdown (BG-23). */
export type ReadVatBreakdown = {
  category: string;
  ratePercent: string | null;
  basisCents: number | null;
  vatCents: number | null;
  exemptionReason: string | null;
  exemptionCode: string | null;
};

export type ReadInvoice = {
  syntax: 'CII' | 'UBL';
  container: 'xml' | 'pdf';
  specificationId: string | null; // BT-24
  number: string | null; // BT-1
  issueDate: string | null; // BT-2, YYYY-MM-DD
  typeCode: string | null; // BT-3
  currency: string | null; // BT-5
  seller: { name: string | null; vatId: string | null; taxNumber: string | null; countryCode: string | null }; // BT-27, BT-31, BT-32, BT-40
  // BT-44, BT-48, BT-55; BT-47 too, because BR-AE-02 accepts it instead of the VAT ID.
  buyer: { name: string | null; vatId: string | null; legalRegistrationId: string | null; countryCode: string | null };
  lineNetTotalCents: number | null; // BT-106
  allowancesCents: number; // BT-107, 0 when absent
  chargesCents: number; // BT-108, 0 when absent
  netCents: number | null; // BT-109
  vatCents: number | null; // BT-110 (in the invoice currency); null when the invoice states none
  grossCents: number | null; // BT-112
  prepaidCents: number; // BT-113
  roundingCents: number; // BT-114
  payableCents: number | null; // BT-115
  lines: { netCents: number }[]; // BT-131 per line
  breakdown: ReadVatBreakdown[]; // BG-23
  notes: string[]; // BT-22
  /** Amounts written with more than two decimals (BR-DEC-*), as found: `{ term: 'BT-112', text: '1190.001' }`. */
  excessDecimals: { term: string; text: string }[];
};

export type ReadResult = { kind: 'einvoice'; invoice: ReadInvoice } | { kind: 'plain_pdf' } | { kind: 'unreadable'; reason: string };

/** The largest upload read (10 MB): a real e-invoice is a few hundred kilobytes at most. */
export const MAX_EINVOICE_BYTES = 10 * 1024 * 1024;

/** Attachment names the ZUGFeRD 2.x / Factur-X / XRechnung-in-PDF conventions use. */
const KNOWN_ATTACHMENTS = new Set(['factur-x.xml', 'zugferd-invoice.xml', 'xrechnung.xml']);

const unreadable = (reason: string): ReadResult => ({ kind: 'unreadable', reason });

/**
 * The upload read: an e-invoice, a PDF without e-invoice data, or unreadable with a German
 * reason for the partner. Asynchronous because pdf-lib parses a PDF in slices (it yields to
 * the event loop every few hundred objects, so a large upload does not block the server).
 */
export async function readEInvoice(bytes: Uint8Array): Promise<ReadResult> {
  if (bytes.length === 0) return unreadable('Die hochgeladene Datei ist leer.');
  if (bytes.length > MAX_EINVOICE_BYTES)
    return unreadable(`Die hochgeladene Datei ist ${megabytes(bytes.length)} groß; angenommen werden E-Rechnungen bis ${megabytes(MAX_EINVOICE_BYTES)}.`);
  // An XML file that mentions "%PDF-" early on is still XML: it starts with "<".
  const text = decodeXml(bytes.subarray(0, 1024)).trimStart().startsWith('<') ? decodeXml(bytes) : null;
  if (text === null && isPdf(bytes)) return readPdf(bytes);
  if (text === null)
    return unreadable('Die hochgeladene Datei ist weder eine PDF-Datei noch eine XML-Datei; bitte laden Sie eine XRechnung oder ZUGFeRD-Rechnung hoch.');
  return readXml(text, 'xml');
}

function megabytes(size: number): string {
  return `${(Math.round((size / (1024 * 1024)) * 10) / 10).toLocaleString('de-DE')} MB`;
}

/** `%PDF-` within the first 1024 bytes, where PDF readers look for it. */
function isPdf(bytes: Uint8Array): boolean {
  return Buffer.from(bytes.subarray(0, 1024)).toString('latin1').includes('%PDF-');
}

const UTF16LE = new TextDecoder('utf-16le');
const UTF16BE = new TextDecoder('utf-16be');
const UTF8 = new TextDecoder('utf-8');

/** EN 16931 XML is UTF-8; UTF-16 is honoured when it comes with its byte order mark. */
function decodeXml(bytes: Uint8Array): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return UTF16LE.decode(bytes.subarray(2));
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return UTF16BE.decode(bytes.subarray(2));
  return UTF8.decode(bytes).replace(/^\ufeff/, '');
}

// ---------------------------------------------------------------------------------------
// PDF: the embedded XML

type Attachment = { name: string; bytes: Uint8Array | null; problem: string | null };

const PDF_DAMAGED = 'Die PDF-Datei ist beschädigt oder unvollständig und lässt sich nicht lesen; bitte laden Sie sie erneut hoch.';

async function readPdf(bytes: Uint8Array): Promise<ReadResult> {
  // A complete PDF ends with %%EOF (PDF/A-3, which ZUGFeRD is, allows nothing after it but a
  // line end). pdf-lib recovers what it can from a cut-off file, which would turn a broken
  // upload into "no e-invoice inside"; the partner should hear that the file is damaged.
  if (!Buffer.from(bytes.subarray(-2048)).toString('latin1').includes('%%EOF')) return unreadable(PDF_DAMAGED);
  let attachments: Attachment[];
  try {
    const pdf = await PDFDocument.load(bytes, { ignoreEncryption: true, updateMetadata: false, parseSpeed: 1500 });
    if (pdf.isEncrypted)
      return unreadable(
        'Die PDF-Datei ist verschlüsselt; eine ZUGFeRD-Rechnung (PDF/A-3) darf nicht verschlüsselt sein. Bitte laden Sie sie unverschlüsselt hoch.',
      );
    attachments = pdfAttachments(pdf);
  } catch {
    return unreadable(PDF_DAMAGED);
  }
  const known = attachments.find((file) => KNOWN_ATTACHMENTS.has(file.name.toLowerCase()));
  if (known) {
    if (!known.bytes) return unreadable(`Die eingebettete Datei ${known.name} der PDF-Datei lässt sich nicht lesen (${known.problem}).`);
    return readXml(decodeXml(known.bytes), 'pdf');
  }
  for (const file of attachments.filter((file) => file.name.toLowerCase().endsWith('.xml') && file.bytes)) {
    const read = readXml(decodeXml(file.bytes!), 'pdf');
    if (read.kind === 'einvoice') return read;
  }
  return { kind: 'plain_pdf' };
}

/** The file specifications of the EmbeddedFiles name tree and the catalog's /AF array (PDF/A-3), each once. */
function pdfAttachments(pdf: PDFDocument): Attachment[] {
  const context = pdf.context;
  const resolve = (object: PDFObject | undefined): PDFObject | undefined => (object instanceof PDFRef ? context.lookup(object) : object);
  const specs: { key: string | null; spec: PDFDict }[] = [];
  const seen = new Set<PDFObject>();
  const addSpec = (key: string | null, object: PDFObject | undefined) => {
    const spec = resolve(object);
    if (spec instanceof PDFDict && !seen.has(spec)) {
      seen.add(spec);
      specs.push({ key, spec });
    }
  };
  // A name tree: /Names [key spec key spec …] in the leaves, /Kids below the root. The depth
  // cap and the visited set keep a hostile tree from looping.
  const walk = (object: PDFObject | undefined, depth: number) => {
    const node = resolve(object);
    if (!(node instanceof PDFDict) || depth > 16 || seen.has(node)) return;
    seen.add(node);
    const names = resolve(node.get(PDFName.of('Names')));
    if (names instanceof PDFArray) for (let index = 0; index + 1 < names.size(); index += 2) addSpec(pdfText(resolve(names.get(index))), names.get(index + 1));
    const kids = resolve(node.get(PDFName.of('Kids')));
    if (kids instanceof PDFArray) for (const kid of kids.asArray()) walk(kid, depth + 1);
  };
  const names = resolve(pdf.catalog.get(PDFName.of('Names')));
  if (names instanceof PDFDict) walk(names.get(PDFName.of('EmbeddedFiles')), 0);
  const associated = resolve(pdf.catalog.get(PDFName.of('AF')));
  if (associated instanceof PDFArray) for (const spec of associated.asArray()) addSpec(null, spec);
  return specs.map(({ key, spec }) => attachment(spec, key, resolve));
}

function attachment(spec: PDFDict, key: string | null, resolve: (object: PDFObject | undefined) => PDFObject | undefined): Attachment {
  const name = pdfText(resolve(spec.get(PDFName.of('UF')))) ?? pdfText(resolve(spec.get(PDFName.of('F')))) ?? key ?? '';
  const files = resolve(spec.get(PDFName.of('EF')));
  const stream = files instanceof PDFDict ? (resolve(files.get(PDFName.of('F'))) ?? resolve(files.get(PDFName.of('UF')))) : undefined;
  if (!(stream instanceof PDFRawStream)) return { name, bytes: null, problem: 'kein Dateiinhalt' };
  const filter = resolve(stream.dict.get(PDFName.of('Filter')));
  const filters = filter instanceof PDFArray ? filter.asArray().map((entry) => resolve(entry)) : filter ? [filter] : [];
  let bytes: Uint8Array = stream.contents;
  for (const entry of filters) {
    const filterName = entry instanceof PDFName ? entry.decodeText() : String(entry);
    if (filterName !== 'FlateDecode') return { name, bytes: null, problem: `Kompressionsverfahren ${filterName} wird nicht unterstützt` };
    try {
      // The cap stops a compressed bomb: no e-invoice inflates beyond the upload limit.
      bytes = inflateSync(bytes, { maxOutputLength: MAX_EINVOICE_BYTES });
    } catch {
      return { name, bytes: null, problem: 'der Inhalt ist beschädigt' };
    }
  }
  return { name, bytes, problem: null };
}

function pdfText(object: PDFObject | undefined): string | null {
  if (object instanceof PDFString || object instanceof PDFHexString) return object.decodeText();
  return null;
}

// ---------------------------------------------------------------------------------------
// XML: the tree, by local names

// biome-ignore lint/suspicious/noExplicitAny: the parsed XML tree is untyped; every read goes through the helpers below.
type XmlNode = any;

/**
 * Namespace prefixes are dropped (tools write rsm:/ram:, cbc:/cac:, default namespaces or
 * their own prefixes); every element becomes an array, so repeated and single elements read
 * alike; values stay strings (an amount never passes through a float). No entity processing:
 * the five XML entities and character references are decoded by text() alone.
 */
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  processEntities: false,
  trimValues: true,
  isArray: (_name, _path, _leaf, isAttribute) => !isAttribute,
});

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decodeEntities(value: string): string {
  return value.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|amp|lt|gt|quot|apos);/g, (whole, entity: string) => {
    if (entity.startsWith('#')) {
      const code = entity[1] === 'x' ? Number.parseInt(entity.slice(2), 16) : Number.parseInt(entity.slice(1), 10);
      return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[entity] ?? whole;
  });
}

/** The element nodes at the end of `path` (every match, in document order). */
function all(node: XmlNode, ...path: string[]): XmlNode[] {
  let nodes: XmlNode[] = node === undefined ? [] : [node];
  for (const name of path) nodes = nodes.flatMap((current) => (current && typeof current === 'object' && Array.isArray(current[name]) ? current[name] : []));
  return nodes;
}

const first = (node: XmlNode, ...path: string[]): XmlNode => all(node, ...path)[0];

/** An element's text (entities decoded, white space trimmed), null when absent or empty. */
function text(node: XmlNode): string | null {
  const raw = typeof node === 'string' ? node : node && typeof node === 'object' && typeof node['#text'] === 'string' ? node['#text'] : null;
  if (raw === null) return null;
  const value = decodeEntities(raw).trim();
  return value === '' ? null : value;
}

const textAt = (node: XmlNode, ...path: string[]) => text(first(node, ...path));

function attribute(node: XmlNode, name: string): string | null {
  return node && typeof node === 'object' && typeof node[`@${name}`] === 'string' ? node[`@${name}`] : null;
}

/** DOCTYPE and ENTITY declarations have no place in an e-invoice; they carry XXE and billion-laughs attacks. */
const DECLARATION = /<!DOCTYPE|<!ENTITY/i;

function readXml(xml: string, container: 'xml' | 'pdf'): ReadResult {
  const where = container === 'pdf' ? 'Die in die PDF-Datei eingebettete XML-Datei' : 'Die XML-Datei';
  if (DECLARATION.test(xml))
    return unreadable(`${where} enthält eine DOCTYPE- oder ENTITY-Deklaration; solche Dateien werden aus Sicherheitsgründen nicht gelesen.`);
  const valid = XMLValidator.validate(xml);
  if (valid !== true) return unreadable(`${where} ist beschädigt oder unvollständig (Zeile ${valid.err.line}); bitte laden Sie sie erneut hoch.`);
  let tree: XmlNode;
  try {
    tree = parser.parse(xml);
  } catch {
    return unreadable(`${where} lässt sich nicht lesen; bitte laden Sie sie erneut hoch.`);
  }
  const root = Object.keys(tree).find((key) => !key.startsWith('?') && !key.startsWith('#'));
  try {
    switch (root) {
      case 'CrossIndustryInvoice':
        return { kind: 'einvoice', invoice: readCii(first(tree, root), container) };
      case 'Invoice':
      case 'CreditNote':
        return { kind: 'einvoice', invoice: readUbl(first(tree, root), root, container) };
      case 'CrossIndustryDocument':
        return unreadable(`${where} ist eine ZUGFeRD-1.0-Rechnung; angenommen werden XRechnung und ZUGFeRD ab Version 2 (Factur-X).`);
      default:
        return unreadable(`${where} ist keine E-Rechnung: erwartet wird eine XRechnung oder ZUGFeRD-Rechnung (CII oder UBL), gefunden wurde <${root ?? '?'}>.`);
    }
  } catch (error) {
    if (error instanceof AmountError) return unreadable(`${where} enthält als ${error.label} „${error.text}“, was kein gültiger Betrag ist.`);
    throw error;
  }
}

// ---------------------------------------------------------------------------------------
// Amounts: decimal strings to integer cents, by digits

class AmountError extends Error {
  readonly label: string;
  readonly text: string;
  constructor(label: string, text: string) {
    super(`not an amount: ${text}`);
    this.label = label;
    this.text = text;
  }
}

const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?$/;

/** The business terms' names in the reasons ("beim Bruttobetrag (BT-112)"). */
const TERM_LABEL: Record<string, string> = {
  'BT-106': 'Summe der Positionen (BT-106)',
  'BT-107': 'Summe der Nachlässe (BT-107)',
  'BT-108': 'Summe der Zuschläge (BT-108)',
  'BT-109': 'Nettobetrag (BT-109)',
  'BT-110': 'Umsatzsteuerbetrag (BT-110)',
  'BT-112': 'Bruttobetrag (BT-112)',
  'BT-113': 'bereits gezahlter Betrag (BT-113)',
  'BT-114': 'Rundungsbetrag (BT-114)',
  'BT-115': 'Zahlbetrag (BT-115)',
  'BT-116': 'Nettobetrag eines Steuersatzes (BT-116)',
  'BT-117': 'Steuerbetrag eines Steuersatzes (BT-117)',
  'BT-131': 'Nettobetrag einer Position (BT-131)',
};

/** Reads the amounts of one invoice, noting those written with more than two decimals. */
function amountReader(excess: { term: string; text: string }[]) {
  /**
   * Cents of an xs:decimal; null when absent. More than two decimals are rounded half up
   * (away from zero, Kontor's one rounding) on the third digit, which decides alone whether
   * the rest reaches half a cent; the excess is recorded for BR-DEC-* (EN 16931 allows two
   * decimals in every amount read here, line amounts included: BR-DEC-23).
   */
  return (node: XmlNode, term: string): number | null => {
    const value = text(node);
    if (value === null) return null;
    const match = DECIMAL.exec(value);
    if (!match || (match[2] === '' && !match[3])) throw new AmountError(TERM_LABEL[term] ?? term, value);
    const [, sign, integer, fraction = ''] = match;
    if (fraction.length > 2) excess.push({ term, text: value });
    let cents = BigInt(integer || '0') * 100n + BigInt(fraction.slice(0, 2).padEnd(2, '0'));
    if ((fraction[2] ?? '0') >= '5') cents += 1n;
    const result = Number(sign === '-' ? -cents : cents);
    if (!Number.isSafeInteger(result)) throw new AmountError(TERM_LABEL[term] ?? term, value);
    return result;
  };
}

/** A VAT rate as written, without superfluous zeros: "19.00" → "19", "7.50" → "7.5". */
function ratePercent(node: XmlNode): string | null {
  const value = text(node);
  if (value === null || !/^[+-]?\d*(\.\d*)?$/.test(value) || !/\d/.test(value)) return value;
  const [integer = '', fraction = ''] = value.replace(/^\+/, '').split('.');
  const digits = fraction.replace(/0+$/, '');
  return (integer.replace(/^(-?)0+(?=\d)/, '$1') || '0') + (digits ? `.${digits}` : '');
}

/** Spaces inside identifiers are noise ("DE 123456789"); the value itself stays as written otherwise. */
const identifier = (value: string | null) => (value === null ? null : value.replace(/\s+/g, ' ').trim() || null);

// ---------------------------------------------------------------------------------------
// CII (UN/CEFACT CrossIndustryInvoice D16B: XRechnung CII, ZUGFeRD 2.x, Factur-X)

function readCii(root: XmlNode, container: 'xml' | 'pdf'): ReadInvoice {
  const excessDecimals: { term: string; text: string }[] = [];
  const amount = amountReader(excessDecimals);
  const document = first(root, 'ExchangedDocument');
  const transaction = first(root, 'SupplyChainTradeTransaction');
  const agreement = first(transaction, 'ApplicableHeaderTradeAgreement');
  const settlement = first(transaction, 'ApplicableHeaderTradeSettlement');
  const totals = first(settlement, 'SpecifiedTradeSettlementHeaderMonetarySummation');
  const currency = textAt(settlement, 'InvoiceCurrencyCode');
  const registration = (party: XmlNode, scheme: string) =>
    identifier(text(all(party, 'SpecifiedTaxRegistration', 'ID').find((id) => attribute(id, 'schemeID') === scheme)));
  const seller = first(agreement, 'SellerTradeParty');
  const buyer = first(agreement, 'BuyerTradeParty');
  // BT-110 is the TaxTotalAmount in the invoice currency; a second one (BT-111) is in the VAT accounting currency.
  const taxTotals = all(totals, 'TaxTotalAmount');
  const taxTotal = taxTotals.find((total) => attribute(total, 'currencyID') === currency) ?? (taxTotals.length === 1 ? taxTotals[0] : undefined);
  const vatCents = amount(taxTotal, 'BT-110');
  return {
    syntax: 'CII',
    container,
    specificationId: textAt(root, 'ExchangedDocumentContext', 'GuidelineSpecifiedDocumentContextParameter', 'ID'),
    number: textAt(document, 'ID'),
    issueDate: ciiDate(first(document, 'IssueDateTime', 'DateTimeString')),
    typeCode: textAt(document, 'TypeCode'),
    currency,
    seller: {
      name: textAt(seller, 'Name'),
      vatId: registration(seller, 'VA'),
      taxNumber: registration(seller, 'FC'),
      countryCode: textAt(seller, 'PostalTradeAddress', 'CountryID'),
    },
    buyer: {
      name: textAt(buyer, 'Name'),
      vatId: registration(buyer, 'VA'),
      legalRegistrationId: identifier(textAt(buyer, 'SpecifiedLegalOrganization', 'ID')),
      countryCode: textAt(buyer, 'PostalTradeAddress', 'CountryID'),
    },
    lineNetTotalCents: amount(first(totals, 'LineTotalAmount'), 'BT-106'),
    allowancesCents: amount(first(totals, 'AllowanceTotalAmount'), 'BT-107') ?? 0,
    chargesCents: amount(first(totals, 'ChargeTotalAmount'), 'BT-108') ?? 0,
    netCents: amount(first(totals, 'TaxBasisTotalAmount'), 'BT-109'),
    vatCents,
    grossCents: amount(first(totals, 'GrandTotalAmount'), 'BT-112'),
    prepaidCents: amount(first(totals, 'TotalPrepaidAmount'), 'BT-113') ?? 0,
    roundingCents: amount(first(totals, 'RoundingAmount'), 'BT-114') ?? 0,
    payableCents: amount(first(totals, 'DuePayableAmount'), 'BT-115'),
    lines: all(transaction, 'IncludedSupplyChainTradeLineItem').map((line) => ({
      netCents: amount(first(line, 'SpecifiedLineTradeSettlement', 'SpecifiedTradeSettlementLineMonetarySummation', 'LineTotalAmount'), 'BT-131') ?? 0,
    })),
    breakdown: all(settlement, 'ApplicableTradeTax').map((tax) => ({
      category: textAt(tax, 'CategoryCode') ?? '',
      ratePercent: ratePercent(first(tax, 'RateApplicablePercent')),
      basisCents: amount(first(tax, 'BasisAmount'), 'BT-116'),
      vatCents: amount(first(tax, 'CalculatedAmount'), 'BT-117'),
      exemptionReason: textAt(tax, 'ExemptionReason'),
      exemptionCode: textAt(tax, 'ExemptionReasonCode'),
    })),
    notes: all(document, 'IncludedNote', 'Content')
      .map(text)
      .filter((note): note is string => note !== null),
    excessDecimals,
  };
}

/** udt:DateTimeString format 102 (YYYYMMDD) → YYYY-MM-DD; null for another format or no real date. */
function ciiDate(node: XmlNode): string | null {
  const value = text(node);
  const format = attribute(node, 'format') ?? '102';
  const match = value && format === '102' ? /^(\d{4})(\d{2})(\d{2})$/.exec(value) : null;
  const date = match ? `${match[1]}-${match[2]}-${match[3]}` : null;
  return date && isCalendarDate(date) ? date : null;
}

// ---------------------------------------------------------------------------------------
// UBL 2.1 (Invoice and CreditNote: XRechnung UBL, Peppol BIS)

function readUbl(root: XmlNode, kind: 'Invoice' | 'CreditNote', container: 'xml' | 'pdf'): ReadInvoice {
  const excessDecimals: { term: string; text: string }[] = [];
  const amount = amountReader(excessDecimals);
  const currency = textAt(root, 'DocumentCurrencyCode');
  const totals = first(root, 'LegalMonetaryTotal');
  const taxScheme = (party: XmlNode, vat: boolean) =>
    identifier(
      text(
        first(
          all(party, 'PartyTaxScheme').find((scheme) => (textAt(scheme, 'TaxScheme', 'ID')?.toUpperCase() === 'VAT') === vat),
          'CompanyID',
        ),
      ),
    );
  const seller = first(root, 'AccountingSupplierParty', 'Party');
  const buyer = first(root, 'AccountingCustomerParty', 'Party');
  const taxTotals = all(root, 'TaxTotal');
  // BT-110 is the TaxTotal/TaxAmount in the invoice currency (a second TaxTotal may give BT-111).
  const taxTotal = taxTotals.map((total) => first(total, 'TaxAmount')).find((tax) => attribute(tax, 'currencyID') === currency);
  const date = textAt(root, 'IssueDate')?.slice(0, 10) ?? null;
  return {
    syntax: 'UBL',
    container,
    specificationId: textAt(root, 'CustomizationID'),
    number: textAt(root, 'ID'),
    issueDate: date && isCalendarDate(date) ? date : null,
    typeCode: textAt(root, kind === 'Invoice' ? 'InvoiceTypeCode' : 'CreditNoteTypeCode'),
    currency,
    seller: {
      name: textAt(seller, 'PartyLegalEntity', 'RegistrationName'),
      vatId: taxScheme(seller, true),
      taxNumber: taxScheme(seller, false),
      countryCode: textAt(seller, 'PostalAddress', 'Country', 'IdentificationCode'),
    },
    buyer: {
      name: textAt(buyer, 'PartyLegalEntity', 'RegistrationName'),
      vatId: taxScheme(buyer, true),
      legalRegistrationId: identifier(textAt(buyer, 'PartyLegalEntity', 'CompanyID')),
      countryCode: textAt(buyer, 'PostalAddress', 'Country', 'IdentificationCode'),
    },
    lineNetTotalCents: amount(first(totals, 'LineExtensionAmount'), 'BT-106'),
    allowancesCents: amount(first(totals, 'AllowanceTotalAmount'), 'BT-107') ?? 0,
    chargesCents: amount(first(totals, 'ChargeTotalAmount'), 'BT-108') ?? 0,
    netCents: amount(first(totals, 'TaxExclusiveAmount'), 'BT-109'),
    vatCents: amount(taxTotal, 'BT-110'),
    grossCents: amount(first(totals, 'TaxInclusiveAmount'), 'BT-112'),
    prepaidCents: amount(first(totals, 'PrepaidAmount'), 'BT-113') ?? 0,
    roundingCents: amount(first(totals, 'PayableRoundingAmount'), 'BT-114') ?? 0,
    payableCents: amount(first(totals, 'PayableAmount'), 'BT-115'),
    lines: all(root, kind === 'Invoice' ? 'InvoiceLine' : 'CreditNoteLine').map((line) => ({
      netCents: amount(first(line, 'LineExtensionAmount'), 'BT-131') ?? 0,
    })),
    breakdown: taxTotals
      .flatMap((total) => all(total, 'TaxSubtotal'))
      .map((subtotal) => {
        const category = first(subtotal, 'TaxCategory');
        return {
          category: textAt(category, 'ID') ?? '',
          ratePercent: ratePercent(first(category, 'Percent')),
          basisCents: amount(first(subtotal, 'TaxableAmount'), 'BT-116'),
          vatCents: amount(first(subtotal, 'TaxAmount'), 'BT-117'),
          exemptionReason: textAt(category, 'TaxExemptionReason'),
          exemptionCode: textAt(category, 'TaxExemptionReasonCode'),
        };
      }),
    // XRechnung writes a note's subject code (BT-21) into the text as "#ADU#…"; CII keeps it apart.
    notes: all(root, 'Note')
      .map(text)
      .filter((note): note is string => note !== null)
      .map((note) => note.replace(/^#[A-Z]{3}#/, '')),
    excessDecimals,
  };
}
