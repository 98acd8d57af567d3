import { formatCentsMoney as euro } from '../../../shared/german-format.ts';
import type { ReadInvoice, ReadVatBreakdown } from './read-einvoice.ts';

// A subset of the EN 16931 business rules, run in-process on the terms read-einvoice.ts
// extracts: presence (BR-02 … BR-16, BR-45 … BR-48), the sums (BR-CO-10 … BR-CO-18), the
// VAT categories Kontor's partners use (S, AE, E, O) and the two-decimal rule (BR-DEC).
// It is not the full rule set: code lists, the XML schema, line-level VAT categories,
// allowances and charges per category (BR-S-08, BR-AE-08 …) and the XRechnung CIUS
// (BR-DE-*) are not checked here. The reference stays the official Schematron as run by
// the KoSIT validator (Java/XSLT 2), which Kontor does not ship; an invoice that passes
// these checks may still fail there, one that fails here fails there too.

export type Violation = { rule: string; message: string };

const rate = (percent: string) => `${percent.replace('.', ',')} %`;

/** What a VAT breakdown is, in words: "19 % Umsatzsteuer (Kategorie S)". */
export function describeBreakdown(entry: ReadVatBreakdown): string {
  const name = CATEGORY_NAMES[entry.category];
  const what = entry.category === 'S' && entry.ratePercent !== null ? `${rate(entry.ratePercent)} Umsatzsteuer` : (name ?? 'Steuerkategorie');
  return `${what} (Kategorie ${entry.category || '?'})`;
}

const CATEGORY_NAMES: Record<string, string> = {
  S: 'Umsatzsteuer',
  AE: 'Steuerschuldnerschaft des Leistungsempfängers',
  E: 'steuerbefreit',
  O: 'nicht steuerbar',
  Z: 'Nullsatz',
  K: 'innergemeinschaftliche Lieferung',
  G: 'Ausfuhr',
};

/** BR-DEC rule per business term. */
const DECIMAL_RULES: Record<string, { rule: string; label: string }> = {
  'BT-106': { rule: 'BR-DEC-09', label: 'Die Summe der Positionen' },
  'BT-107': { rule: 'BR-DEC-10', label: 'Die Summe der Nachlässe' },
  'BT-108': { rule: 'BR-DEC-11', label: 'Die Summe der Zuschläge' },
  'BT-109': { rule: 'BR-DEC-12', label: 'Der Nettobetrag' },
  'BT-110': { rule: 'BR-DEC-13', label: 'Die Umsatzsteuer' },
  'BT-112': { rule: 'BR-DEC-14', label: 'Der Bruttobetrag' },
  'BT-113': { rule: 'BR-DEC-16', label: 'Der bereits gezahlte Betrag' },
  'BT-114': { rule: 'BR-DEC-17', label: 'Der Rundungsbetrag' },
  'BT-115': { rule: 'BR-DEC-18', label: 'Der Zahlbetrag' },
  'BT-116': { rule: 'BR-DEC-19', label: 'Der Nettobetrag eines Steuersatzes' },
  'BT-117': { rule: 'BR-DEC-20', label: 'Der Steuerbetrag eines Steuersatzes' },
  'BT-131': { rule: 'BR-DEC-23', label: 'Der Nettobetrag einer Position' },
};

/** round half up(basis × rate / 100) in cents, exactly: the rate is a decimal string ("19", "5.5"). */
export function vatOf(basisCents: number, ratePercent: string): number | null {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(ratePercent);
  if (!match) return null;
  const fraction = match[2] ?? '';
  const scaledRate = BigInt(match[1]! + fraction);
  const divisor = 100n * 10n ** BigInt(fraction.length);
  const product = BigInt(basisCents) * scaledRate;
  const magnitude = (2n * (product < 0n ? -product : product) + divisor) / (2n * divisor);
  return Number(product < 0n ? -magnitude : magnitude);
}

const isZeroRate = (percent: string | null) => percent !== null && /^0(\.0*)?$/.test(percent);

/** The EN 16931 rules above that the invoice breaks, each with a German sentence naming the values. */
export function en16931Violations(invoice: ReadInvoice): Violation[] {
  const violations: Violation[] = [];
  const add = (rule: string, sentence: string) => violations.push({ rule, message: `${sentence} (Regel ${rule}).` });

  if (!invoice.number) add('BR-02', 'Die Rechnung enthält keine Rechnungsnummer');
  if (!invoice.issueDate) add('BR-03', 'Die Rechnung enthält kein gültiges Rechnungsdatum');
  if (!invoice.typeCode) add('BR-04', 'Die Rechnung gibt ihre Art nicht an (Rechnungsart, zum Beispiel 380 für eine Rechnung)');
  if (!invoice.currency) add('BR-05', 'Die Rechnung gibt ihre Währung nicht an');
  if (!invoice.seller.name) add('BR-06', 'Die Rechnung nennt den Namen des Rechnungsstellers nicht');
  if (!invoice.buyer.name) add('BR-07', 'Die Rechnung nennt den Namen des Rechnungsempfängers nicht');
  if (!invoice.seller.countryCode) add('BR-09', 'Die Rechnung nennt das Land in der Anschrift des Rechnungsstellers nicht');
  if (!invoice.buyer.countryCode) add('BR-11', 'Die Rechnung nennt das Land in der Anschrift des Rechnungsempfängers nicht');
  if (invoice.lineNetTotalCents === null) add('BR-12', 'Die Rechnung nennt die Summe der Positionen nicht');
  if (invoice.netCents === null) add('BR-13', 'Die Rechnung nennt den Nettobetrag nicht');
  if (invoice.grossCents === null) add('BR-14', 'Die Rechnung nennt den Bruttobetrag nicht');
  if (invoice.payableCents === null) add('BR-15', 'Die Rechnung nennt den Zahlbetrag nicht');
  if (invoice.lines.length === 0) add('BR-16', 'Die Rechnung enthält keine Rechnungsposition');

  sums(invoice, add);
  breakdowns(invoice, add);

  for (const { term, text } of invoice.excessDecimals) {
    const decimal = DECIMAL_RULES[term];
    if (decimal) add(decimal.rule, `${decimal.label} ist mit mehr als zwei Nachkommastellen angegeben (${text})`);
  }
  return violations;
}

type Add = (rule: string, sentence: string) => void;

/** BR-CO-10 … BR-CO-16: the totals add up. */
function sums(invoice: ReadInvoice, add: Add): void {
  const { lineNetTotalCents: lineTotal, netCents: net, grossCents: gross, payableCents: payable } = invoice;
  // Absent, BT-110 counts as 0 (BR-CO-15 as the Schematron has it); BR-CO-14 needs it present.
  const vat = invoice.vatCents ?? 0;
  const linesSum = invoice.lines.reduce((sum, line) => sum + line.netCents, 0);
  if (lineTotal !== null && invoice.lines.length > 0 && linesSum !== lineTotal)
    add(
      'BR-CO-10',
      `Die Summe der Positionen in der Rechnung (${euro(lineTotal)}) stimmt nicht mit ihren Positionen überein, die zusammen ${euro(linesSum)} ergeben`,
    );
  if (net !== null && lineTotal !== null) {
    const expected = lineTotal - invoice.allowancesCents + invoice.chargesCents;
    if (net !== expected)
      add(
        'BR-CO-13',
        `Der Nettobetrag der Rechnung (${euro(net)}) ist nicht die Summe der Positionen ${euro(lineTotal)} abzüglich Nachlässe ${euro(invoice.allowancesCents)} zuzüglich Zuschläge ${euro(invoice.chargesCents)}, also ${euro(expected)}`,
      );
  }
  if (invoice.vatCents !== null && invoice.breakdown.length > 0) {
    const breakdownVat = invoice.breakdown.reduce((sum, entry) => sum + (entry.vatCents ?? 0), 0);
    if (invoice.vatCents !== breakdownVat)
      add('BR-CO-14', `Die Umsatzsteuer der Rechnung (${euro(invoice.vatCents)}) ist nicht die Summe der Steuerbeträge je Steuersatz, ${euro(breakdownVat)}`);
  }
  if (gross !== null && net !== null && gross !== net + vat)
    add(
      'BR-CO-15',
      `Der Bruttobetrag der Rechnung (${euro(gross)}) ist nicht Nettobetrag ${euro(net)} plus Umsatzsteuer ${euro(vat)}, also ${euro(net + vat)}`,
    );
  if (payable !== null && gross !== null) {
    const expected = gross - invoice.prepaidCents + invoice.roundingCents;
    if (payable !== expected)
      add(
        'BR-CO-16',
        `Der Zahlbetrag der Rechnung (${euro(payable)}) ist nicht Bruttobetrag ${euro(gross)} abzüglich bereits gezahlter ${euro(invoice.prepaidCents)} zuzüglich Rundung ${euro(invoice.roundingCents)}, also ${euro(expected)}`,
      );
  }
}

/** BR-CO-17, BR-CO-18, BR-45 … BR-48 and the rules of the categories S, AE, E and O. */
function breakdowns(invoice: ReadInvoice, add: Add): void {
  const { breakdown, seller, buyer } = invoice;
  if (breakdown.length === 0) {
    add('BR-CO-18', 'Die Rechnung enthält keine Aufschlüsselung der Umsatzsteuer nach Steuersätzen');
    return;
  }
  for (const entry of breakdown) {
    const what = describeBreakdown(entry);
    if (entry.basisCents === null) add('BR-45', `Die Aufschlüsselung ${what} nennt keinen Nettobetrag`);
    if (entry.vatCents === null) add('BR-46', `Die Aufschlüsselung ${what} nennt keinen Steuerbetrag`);
    if (!entry.category) add('BR-47', 'Eine Aufschlüsselung der Umsatzsteuer nennt keine Steuerkategorie');
    if (entry.ratePercent === null && entry.category !== 'O') add('BR-48', `Die Aufschlüsselung ${what} nennt keinen Steuersatz`);
    if (entry.basisCents !== null && entry.vatCents !== null && entry.ratePercent !== null) {
      const expected = vatOf(entry.basisCents, entry.ratePercent);
      // EN 16931 allows a cent either way (BR-CO-17 as the Schematron checks it).
      if (expected !== null && Math.abs(entry.vatCents - expected) > 1)
        add(
          'BR-CO-17',
          `Der Steuerbetrag zu ${what} (${euro(entry.vatCents)}) ist nicht ${rate(entry.ratePercent)} von ${euro(entry.basisCents)}, also ${euro(expected)}`,
        );
    }
    const reason = entry.exemptionReason !== null || entry.exemptionCode !== null;
    switch (entry.category) {
      case 'S':
        // BR-S-05 speaks of the lines' rate; a breakdown carries the rate of its lines (BR-S-08).
        if (entry.ratePercent !== null && (isZeroRate(entry.ratePercent) || entry.ratePercent.startsWith('-')))
          add('BR-S-05', `Bei Umsatzsteuer der Kategorie S muss der Steuersatz größer als 0 % sein; die Rechnung nennt ${rate(entry.ratePercent)}`);
        if (reason) add('BR-S-10', 'Eine Aufschlüsselung mit Umsatzsteuer (Kategorie S) darf keinen Grund für eine Steuerbefreiung nennen');
        break;
      case 'AE':
        if (entry.ratePercent !== null && !isZeroRate(entry.ratePercent))
          add(
            'BR-AE-05',
            `Bei Steuerschuldnerschaft des Leistungsempfängers (Kategorie AE) ist der Steuersatz 0 %; die Rechnung nennt ${rate(entry.ratePercent)}`,
          );
        if (entry.vatCents !== null && entry.vatCents !== 0)
          add(
            'BR-AE-09',
            `Bei Steuerschuldnerschaft des Leistungsempfängers (Kategorie AE) ist der Steuerbetrag 0,00 €; die Rechnung nennt ${euro(entry.vatCents)}`,
          );
        if (!reason)
          add('BR-AE-10', 'Die Aufschlüsselung für die Steuerschuldnerschaft des Leistungsempfängers (Kategorie AE) nennt keinen Grund (Text oder Code)');
        break;
      case 'E':
        if (entry.ratePercent !== null && !isZeroRate(entry.ratePercent))
          add('BR-E-05', `Bei steuerbefreiten Leistungen (Kategorie E) ist der Steuersatz 0 %; die Rechnung nennt ${rate(entry.ratePercent)}`);
        if (entry.vatCents !== null && entry.vatCents !== 0)
          add('BR-E-09', `Bei steuerbefreiten Leistungen (Kategorie E) ist der Steuerbetrag 0,00 €; die Rechnung nennt ${euro(entry.vatCents)}`);
        if (!reason) add('BR-E-10', 'Die Aufschlüsselung für steuerbefreite Leistungen (Kategorie E) nennt keinen Grund der Steuerbefreiung (Text oder Code)');
        break;
      case 'O':
        if (entry.vatCents !== null && entry.vatCents !== 0)
          add('BR-O-09', `Bei nicht steuerbaren Leistungen (Kategorie O) ist der Steuerbetrag 0,00 €; die Rechnung nennt ${euro(entry.vatCents)}`);
        if (!reason) add('BR-O-10', 'Die Aufschlüsselung für nicht steuerbare Leistungen (Kategorie O) nennt keinen Grund (Text oder Code)');
        break;
    }
  }
  const count = (category: string) => breakdown.filter((entry) => entry.category === category).length;
  const sellerTaxId = seller.vatId !== null || seller.taxNumber !== null;
  // The category rules speak of lines of a category; the breakdown has one entry per category
  // and rate of the lines (BR-CO-*), so its categories stand for the lines'.
  if (count('S') > 0 && !sellerTaxId)
    add('BR-S-02', 'Die Rechnung weist Umsatzsteuer aus (Kategorie S), nennt aber weder die USt-IdNr. noch die Steuernummer des Rechnungsstellers');
  if (count('AE') > 1)
    add('BR-AE-01', `Die Rechnung enthält ${count('AE')} Aufschlüsselungen für die Steuerschuldnerschaft des Leistungsempfängers statt einer`);
  if (count('AE') > 0) {
    const missing = [
      ...(sellerTaxId ? [] : ['die USt-IdNr. oder Steuernummer des Rechnungsstellers']),
      ...(buyer.vatId !== null || buyer.legalRegistrationId !== null ? [] : ['die USt-IdNr. des Rechnungsempfängers']),
    ];
    if (missing.length > 0) add('BR-AE-02', `Bei Steuerschuldnerschaft des Leistungsempfängers (Kategorie AE) fehlt ${missing.join(' und ')}`);
  }
  if (count('E') > 1) add('BR-E-01', `Die Rechnung enthält ${count('E')} Aufschlüsselungen für steuerbefreite Leistungen statt einer`);
  if (count('E') > 0 && !sellerTaxId)
    add('BR-E-02', 'Die Rechnung enthält steuerbefreite Leistungen (Kategorie E), nennt aber weder die USt-IdNr. noch die Steuernummer des Rechnungsstellers');
  if (count('O') > 0 && breakdown.length > count('O'))
    add('BR-O-11', 'Eine Rechnung über nicht steuerbare Leistungen (Kategorie O) darf keine weiteren Steuerkategorien enthalten');
  if (count('O') > 0 && (seller.vatId !== null || buyer.vatId !== null))
    add(
      'BR-O-02',
      'Eine Rechnung über nicht steuerbare Leistungen (Kategorie O) darf keine USt-IdNr. des Rechnungsstellers oder des Rechnungsempfängers nennen',
    );
}
