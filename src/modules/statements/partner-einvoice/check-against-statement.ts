import { formatCentsMoney as euro, formatDate } from '../../../shared/german-format.ts';
import { vatDatevDerives } from '../../bookkeeping/index.ts';
import { describeBreakdown, en16931Violations } from './einvoice-rules.ts';
import type { ReadInvoice, ReadResult } from './read-einvoice.ts';

// A partner's uploaded e-invoice against the request to invoice ("Bitte um
// Rechnungsstellung") it answers: the EN 16931 rules Kontor runs, then type, currency,
// parties, amounts, VAT treatment, date and number against the statement. Every reason is a
// German sentence for the partner naming what the invoice says and what was expected, and
// all reasons are given at once so one corrected upload can fix them. The caller checks
// what needs the database (the number unique per partner) and decides whether a plain PDF
// may stand (small business, private person).

export type StatementExpectation = {
  statementNumber: string;
  netCents: number;
  vatCents: number;
  grossCents: number;
  vatRate: '19' | '0';
  taxNote: 'regular' | 'small_business' | 'reverse_charge' | 'private_person';
  /** YYYY-MM-DD; `today` is the company's today. */
  periodStart: string;
  today: string;
  /** The buyer. */
  company: { name: string; vatId: string | null; taxNumber: string | null };
  /** The seller. */
  partner: { name: string; vatId: string | null; taxNumber: string | null };
};

export type PartnerEInvoiceCheck = { ok: true; invoice: ReadInvoice } | { ok: false; reasons: string[]; invoice: ReadInvoice | null };

export const PLAIN_PDF_REASON =
  'Bitte laden Sie eine E-Rechnung hoch (XRechnung oder ZUGFeRD): seit 2025 sind Rechnungen zwischen Unternehmen als E-Rechnung zu stellen; eine PDF-Datei ohne eingebettete XML-Daten genügt nicht.';

/** The read upload checked against the statement: ok, or every reason it is refused. */
export function checkPartnerEInvoice(read: ReadResult, expected: StatementExpectation): PartnerEInvoiceCheck {
  if (read.kind === 'unreadable') return { ok: false, reasons: [read.reason], invoice: null };
  if (read.kind === 'plain_pdf') return { ok: false, reasons: [PLAIN_PDF_REASON], invoice: null };
  const invoice = read.invoice;
  const reasons = [
    ...profileReasons(invoice),
    ...en16931Violations(invoice).map((violation) => violation.message),
    ...documentReasons(invoice, expected),
    ...partyReasons(invoice, expected),
    ...amountReasons(invoice, expected),
    ...vatReasons(invoice, expected),
  ];
  return reasons.length === 0 ? { ok: true, invoice } : { ok: false, reasons, invoice };
}

/** Factur-X MINIMUM and BASIC WL carry no lines: German tax law does not count them as e-invoices. */
function profileReasons(invoice: ReadInvoice): string[] {
  const profile = /urn:factur-x\.eu:1p0:(minimum|basicwl)/i.exec(invoice.specificationId ?? '');
  if (!profile) return [];
  const name = profile[1]!.toLowerCase() === 'minimum' ? 'MINIMUM' : 'BASIC WL';
  return [
    `Die Rechnung hat das ZUGFeRD-Profil ${name}, das nicht als E-Rechnung gilt; bitte laden Sie sie im Profil EN 16931 (COMFORT), EXTENDED oder als XRechnung hoch.`,
  ];
}

function documentReasons(invoice: ReadInvoice, expected: StatementExpectation): string[] {
  const reasons: string[] = [];
  const statement = expected.statementNumber;
  switch (invoice.typeCode) {
    case null:
    case '380':
      break;
    case '381':
      reasons.push(
        `Die Datei ist eine Gutschrift (Rechnungsart 381), keine Rechnung: zur Bitte um Rechnungsstellung ${statement} gehört eine Rechnung (Rechnungsart 380).`,
      );
      break;
    case '384':
      reasons.push(
        `Die Datei ist eine korrigierte Rechnung (Rechnungsart 384); zur Bitte um Rechnungsstellung ${statement} laden Sie bitte eine eigenständige Rechnung (Rechnungsart 380) hoch.`,
      );
      break;
    case '389':
      reasons.push(
        `Die Datei ist eine Gutschrift im Gutschriftverfahren (Rechnungsart 389, vom Leistungsempfänger ausgestellt); zur Bitte um Rechnungsstellung ${statement} stellen Sie als Partner selbst eine Rechnung (Rechnungsart 380) aus.`,
      );
      break;
    default:
      reasons.push(
        `Die Rechnungsart ${invoice.typeCode} wird nicht angenommen; zur Bitte um Rechnungsstellung ${statement} gehört eine Rechnung (Rechnungsart 380).`,
      );
  }
  if (invoice.currency !== null && invoice.currency.toUpperCase() !== 'EUR')
    reasons.push(`Die Rechnung ist in der Währung ${invoice.currency} ausgestellt; die Abrechnung ${statement} lautet auf Euro (EUR).`);
  if (invoice.number !== null) {
    if (invoice.number.length > 100) reasons.push(`Die Rechnungsnummer ist ${invoice.number.length} Zeichen lang; angenommen werden höchstens 100 Zeichen.`);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
    if (/[\u0000-\u001f\u007f-\u009f\p{Bidi_Control}]/u.test(invoice.number)) reasons.push('Die Rechnungsnummer enthält Steuerzeichen.');
  }
  if (invoice.issueDate !== null) {
    if (invoice.issueDate > expected.today)
      reasons.push(`Das Rechnungsdatum ${formatDate(invoice.issueDate)} liegt in der Zukunft (heute ist der ${formatDate(expected.today)}).`);
    else if (invoice.issueDate < expected.periodStart)
      reasons.push(
        `Das Rechnungsdatum ${formatDate(invoice.issueDate)} liegt vor dem Abrechnungszeitraum der Abrechnung ${statement} (ab ${formatDate(expected.periodStart)}).`,
      );
  }
  return reasons;
}

/**
 * Names compared loosely only in case and white space: "Kontor Demo GmbH" and "kontor demo
 * gmbh" match, "Kontor Demo" and "Kontor Demo GmbH" do not (legal form variants stay a
 * person's call, not a guess here).
 */
const sameName = (a: string, b: string) => normalName(a) === normalName(b);
const normalName = (name: string) => name.normalize('NFC').replace(/\s+/g, ' ').trim().toLocaleLowerCase('de-DE');
/** VAT IDs without spaces, dots or dashes, upper case: "de 123 456 789" = "DE123456789". */
const vatIdKey = (vatId: string) => vatId.replace(/[\s.-]/g, '').toUpperCase();
/** Tax numbers by their digits: "21/815/08150" = "2181508150" (the 13-digit ELSTER form is another number). */
const taxNumberKey = (taxNumber: string) => taxNumber.replace(/\D/g, '');

function partyReasons(invoice: ReadInvoice, expected: StatementExpectation): string[] {
  const reasons: string[] = [];
  const { company, partner } = expected;
  const { buyer, seller } = invoice;
  if (buyer.name !== null && !sameName(buyer.name, company.name))
    reasons.push(`Der Rechnungsempfänger der Rechnung („${buyer.name}“) stimmt nicht mit unserem Namen überein („${company.name}“).`);
  // A buyer VAT ID is required only under reverse charge (BR-AE-02); when named, it must be ours.
  if (company.vatId !== null && buyer.vatId !== null && vatIdKey(buyer.vatId) !== vatIdKey(company.vatId))
    reasons.push(`Die USt-IdNr. des Rechnungsempfängers in der Rechnung (${buyer.vatId}) ist nicht unsere USt-IdNr. (${company.vatId}).`);
  if (expected.taxNote === 'reverse_charge' && company.vatId !== null && buyer.vatId === null)
    reasons.push(`Bei Steuerschuldnerschaft des Leistungsempfängers muss die Rechnung unsere USt-IdNr. nennen (${company.vatId}).`);

  const partnerIds = [partner.vatId && `USt-IdNr. ${partner.vatId}`, partner.taxNumber && `Steuernummer ${partner.taxNumber}`].filter(Boolean).join(' bzw. ');
  if (seller.vatId !== null && partner.vatId !== null) {
    if (vatIdKey(seller.vatId) !== vatIdKey(partner.vatId))
      reasons.push(
        `Die USt-IdNr. des Rechnungsstellers in der Rechnung (${seller.vatId}) stimmt nicht mit der hinterlegten USt-IdNr. des Partners überein (${partner.vatId}).`,
      );
  } else if (seller.taxNumber !== null && partner.taxNumber !== null) {
    if (taxNumberKey(seller.taxNumber) !== taxNumberKey(partner.taxNumber))
      reasons.push(
        `Die Steuernummer des Rechnungsstellers in der Rechnung (${seller.taxNumber}) stimmt nicht mit der hinterlegten Steuernummer des Partners überein (${partner.taxNumber}).`,
      );
  } else if (seller.vatId === null && seller.taxNumber === null) {
    if (partnerIds) reasons.push(`Die Rechnung nennt weder USt-IdNr. noch Steuernummer des Rechnungsstellers (hinterlegt: ${partnerIds}).`);
  } else if (partnerIds) {
    const found = seller.vatId !== null ? `die USt-IdNr. ${seller.vatId}` : `die Steuernummer ${seller.taxNumber}`;
    reasons.push(`Die Rechnung nennt als Rechnungssteller ${found}; hinterlegt ist für den Partner ${partnerIds}.`);
  }
  return reasons;
}

function amountReasons(invoice: ReadInvoice, expected: StatementExpectation): string[] {
  const reasons: string[] = [];
  const compare = (label: string, found: number | null, wanted: number) => {
    if (found !== null && found !== wanted)
      reasons.push(`${label} der Rechnung (${euro(found)}) stimmt nicht mit der Abrechnung ${expected.statementNumber} überein (${euro(wanted)}).`);
  };
  compare('Der Nettobetrag', invoice.netCents, expected.netCents);
  // No BT-110 at all is an invoice without VAT: 0,00 €.
  compare('Die Umsatzsteuer', invoice.vatCents ?? 0, expected.vatCents);
  compare('Der Bruttobetrag', invoice.grossCents, expected.grossCents);
  return reasons;
}

const REVERSE_CHARGE_TEXT = /reverse[\s-]*charge|steuerschuldnerschaft\s+des\s+leistungsempf(ä|ae)ngers|§\s*13\s*b|13\s*b\s+UStG/i;
const SMALL_BUSINESS_TEXT = /§\s*19\b[^§]{0,30}UStG|kleinunternehmer/i;

/** The VAT treatment the partner's tax status asks for, in the breakdown and, where the law wants it, in words. */
function vatReasons(invoice: ReadInvoice, expected: StatementExpectation): string[] {
  const { breakdown } = invoice;
  const vat = invoice.vatCents ?? 0;
  const found = breakdown.length > 0 ? breakdown.map(describeBreakdown).join(', ') : 'keine Aufschlüsselung';
  const texts = [...invoice.notes, ...breakdown.map((entry) => entry.exemptionReason ?? '')];
  const statement = expected.statementNumber;
  const correct = 'Bitte stellen Sie eine berichtigte Rechnung aus.';
  switch (expected.taxNote) {
    case 'regular': {
      const reasons: string[] = [];
      const only = breakdown.length === 1 ? breakdown[0]! : null;
      if (only?.category !== 'S' || only.ratePercent !== expected.vatRate)
        reasons.push(
          `Die Rechnung weist die Umsatzsteuer als ${found} aus; zur Abrechnung ${statement} gehört genau ein Steuersatz: ${expected.vatRate} % Umsatzsteuer (Kategorie S).`,
        );
      // DATEV derives the input VAT from the gross (BU 9); the invoice's must be the same.
      if (expected.vatRate === '19' && invoice.grossCents !== null && vat !== vatDatevDerives(invoice.grossCents))
        reasons.push(
          `Die Umsatzsteuer der Rechnung (${euro(vat)}) ist nicht die im Bruttobetrag ${euro(invoice.grossCents)} enthaltene Umsatzsteuer von 19 % (${euro(vatDatevDerives(invoice.grossCents))}). ${correct}`,
        );
      return reasons;
    }
    case 'reverse_charge': {
      const reasons: string[] = [];
      if (breakdown.length === 0 || breakdown.some((entry) => entry.category !== 'AE' || entry.ratePercent !== '0') || vat !== 0)
        reasons.push(
          `Die Umsatzsteuer für diese Leistung schulden wir (Steuerschuldnerschaft des Leistungsempfängers, § 13b UStG): die Rechnung muss 0 % mit Kategorie AE ausweisen, sie weist ${found} mit ${euro(vat)} Umsatzsteuer aus. ${correct}`,
        );
      if (!texts.some((text) => REVERSE_CHARGE_TEXT.test(text)))
        reasons.push('Die Rechnung muss den Hinweis „Steuerschuldnerschaft des Leistungsempfängers“ (§ 14a Abs. 5 UStG) enthalten; er fehlt.');
      return reasons;
    }
    case 'small_business': {
      const reasons: string[] = [];
      if (
        breakdown.length === 0 ||
        breakdown.some((entry) => !['E', 'O'].includes(entry.category) || !/^0(\.0*)?$/.test(entry.ratePercent ?? '0')) ||
        vat !== 0
      )
        reasons.push(
          `Der Partner ist Kleinunternehmer (§ 19 UStG): seine Rechnung darf keine Umsatzsteuer ausweisen (Kategorie E, 0 %); sie weist ${found} mit ${euro(vat)} Umsatzsteuer aus. ${correct}`,
        );
      if (!texts.some((text) => SMALL_BUSINESS_TEXT.test(text)))
        reasons.push('Die Rechnung eines Kleinunternehmers muss auf die Steuerbefreiung nach § 19 UStG hinweisen; der Hinweis fehlt.');
      return reasons;
    }
    case 'private_person':
      return vat === 0 ? [] : [`Eine Privatperson stellt keine Rechnung mit Umsatzsteuer aus; die Rechnung weist ${euro(vat)} Umsatzsteuer aus.`];
  }
}
