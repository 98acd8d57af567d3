import { formatDate, formatDecimal, formatIban, formatMoney, legalName } from '../../shared/german-format.ts';
import { MARGIN_BUSINESS, MARGIN_CONSUMER } from './default-interest.ts';
import { type NoticeDocument, type NoticeInterestPeriod, noticeTitle } from './notice-document.ts';

// The German words of a notice, shared by its PDF and its mail: pure functions of the
// snapshot. The reminder (level 0) is friendly; the Mahnungen get firmer by level, the
// last one names the next step (gerichtliches Mahnverfahren or collection).

const isZero = (amount: string) => /^-?0+(\.0+)?$/.test(amount);
/** Keeps "§ 288" together on one line. */
const law = (text: string) => text.replace(/§ /g, '§\u00a0');
const percent = (rate: string) => `${formatDecimal(rate, 2)} %`;

export function salutation(doc: NoticeDocument): string {
  const contact = doc.buyer.contactName?.trim();
  return contact ? `Guten Tag ${contact},` : 'Sehr geehrte Damen und Herren,';
}

function invoiceReference(doc: NoticeDocument): string {
  return `unsere Rechnung ${doc.invoice.number} vom ${formatDate(doc.invoice.issueDate)} (fällig am ${formatDate(doc.invoice.dueDate)})`;
}

/** The letter's opening paragraphs after the salutation. */
export function introParagraphs(doc: NoticeDocument): string[] {
  return openingSentences(doc).map(law);
}

function openingSentences(doc: NoticeDocument): string[] {
  const total = formatMoney(doc.total);
  const deadline = formatDate(doc.deadline);
  const previous = doc.previousNoticeDate ? formatDate(doc.previousNoticeDate) : null;
  const inDefault = doc.interest ? ` Sie befinden sich seit dem ${formatDate(doc.interest.defaultSince)} in Zahlungsverzug (§ 286 BGB).` : '';
  switch (doc.level) {
    case 0:
      return [
        `sicher ist es Ihrer Aufmerksamkeit entgangen: Für ${invoiceReference(doc)} konnten wir bis heute keinen vollständigen Zahlungseingang feststellen.`,
        `Wir bitten Sie freundlich, den offenen Betrag von ${total} bis zum ${deadline} zu überweisen.`,
      ];
    case 1:
      return [
        `für ${invoiceReference(doc)} haben wir trotz unserer Zahlungserinnerung${previous ? ` vom ${previous}` : ''} noch keinen vollständigen Zahlungseingang festgestellt.${inDefault}`,
        `Bitte überweisen Sie den Gesamtbetrag von ${total} bis zum ${deadline}.`,
      ];
    case 2:
      return [
        `trotz unserer Mahnung${previous ? ` vom ${previous}` : ''} ist ${invoiceReference(doc)} weiterhin nicht vollständig bezahlt.${inDefault}`,
        `Wir fordern Sie auf, den Gesamtbetrag von ${total} bis spätestens ${deadline} zu überweisen.`,
      ];
    default:
      return [
        `trotz mehrfacher Mahnung, zuletzt${previous ? ` am ${previous}` : ''}, ist ${invoiceReference(doc)} weiterhin nicht vollständig bezahlt.${inDefault}`,
        `Dies ist unsere letzte Mahnung. Geht der Gesamtbetrag von ${total} nicht bis zum ${deadline} bei uns ein, werden wir ohne weitere Ankündigung das gerichtliche Mahnverfahren einleiten oder ein Inkassounternehmen beauftragen; die Kosten dafür gehen zu Ihren Lasten.`,
      ];
  }
}

/**
 * Which Basiszinssatz a period used (issue 25): "Basiszinssatz 1,27 % seit 01.01.2026", and
 * when the table had no rate for a half-year, from when it was carried forward. Notices
 * made before issue 25 lack the date and say the rate only.
 */
function baseRateWords(period: NoticeInterestPeriod): string {
  const since = period.baseRateFrom ? ` seit ${formatDate(period.baseRateFrom)}` : '';
  const carried = period.carriedForwardFrom ? `, ab ${formatDate(period.carriedForwardFrom)} fortgeschrieben,` : '';
  return `Basiszinssatz ${percent(period.baseRate)}${since}${carried}`;
}

export type ClaimRow = { label: string; amount: string; bold?: boolean; ruleAbove?: boolean };

/** The claim, line by line: invoice, payments, open amount, fees, interest, lump sum, total. */
export function claimRows(doc: NoticeDocument): ClaimRow[] {
  const rows: ClaimRow[] = [{ label: `Rechnung ${doc.invoice.number} vom ${formatDate(doc.invoice.issueDate)}`, amount: doc.invoice.gross }];
  if (!isZero(doc.paid)) rows.push({ label: 'abzüglich bereits gezahlt', amount: `-${doc.paid}` });
  rows.push({ label: 'Offener Rechnungsbetrag', amount: doc.open, ruleAbove: true });
  if (!isZero(doc.earlierFees)) rows.push({ label: 'Mahngebühren früherer Mahnungen', amount: doc.earlierFees });
  if (!isZero(doc.fee)) rows.push({ label: `Mahngebühr ${noticeTitle(doc.level)}`, amount: doc.fee });
  const margin = doc.consumer ? MARGIN_CONSUMER : MARGIN_BUSINESS;
  for (const period of doc.interest?.periods ?? []) {
    rows.push({
      label: `Verzugszinsen ${percent(period.rate)} p. a. (${baseRateWords(period)} + ${margin} Prozentpunkte) vom ${formatDate(period.from)} bis ${formatDate(period.to)}, ${period.days} ${period.days === 1 ? 'Tag' : 'Tage'}`,
      amount: period.amount,
    });
  }
  if (!isZero(doc.lumpSum)) rows.push({ label: law('Verzugspauschale (§ 288 Abs. 5 BGB)'), amount: doc.lumpSum });
  rows.push({ label: 'Zu zahlender Gesamtbetrag', amount: doc.total, bold: true, ruleAbove: true });
  return rows;
}

/** Where to pay: amount, deadline, account and Verwendungszweck (the invoice number). */
export function paymentInstruction(doc: NoticeDocument): string {
  const { seller } = doc;
  const start = `Bitte überweisen Sie ${formatMoney(doc.total)} bis zum ${formatDate(doc.deadline)}`;
  if (!seller.iban) return `${start} unter Angabe des Verwendungszwecks ${doc.invoice.number}.`;
  const bank = [seller.bic ? `BIC ${seller.bic}` : null, seller.bankName].filter(Boolean).join(', ');
  return `${start} auf das Konto IBAN ${formatIban(seller.iban)}${bank ? ` (${bank})` : ''}, Verwendungszweck: ${doc.invoice.number}.`;
}

/** The legal basis of what is claimed beyond the invoice, in one sentence each. */
export function legalNotes(doc: NoticeDocument): string[] {
  const notes: string[] = [];
  if (doc.interest) {
    const [points, paragraph] = doc.consumer ? ['fünf', 'Abs. 1'] : ['neun', 'Abs. 2'];
    notes.push(
      `Die Verzugszinsen betragen ${points} Prozentpunkte über dem jeweiligen Basiszinssatz (§ 288 ${paragraph}, § 247 BGB); sie sind taggenau auf den offenen Rechnungsbetrag berechnet (365 Tage je Jahr) und laufen bis zur Zahlung weiter.`,
    );
  }
  const carried = doc.interest?.periods.find((period) => period.carriedForwardFrom);
  if (carried?.carriedForwardFrom) {
    const since = carried.baseRateFrom ? ` (gültig seit ${formatDate(carried.baseRateFrom)})` : '';
    notes.push(
      `Für die Zeit ab dem ${formatDate(carried.carriedForwardFrom)} lag uns bei Erstellung dieses Schreibens noch kein neuer Basiszinssatz vor; wir haben den zuletzt bekannten Basiszinssatz von ${percent(carried.baseRate)}${since} fortgeschrieben.`,
    );
  }
  if (!isZero(doc.lumpSum)) notes.push(`Als Unternehmer schulden Sie im Verzug zusätzlich eine Pauschale von ${formatMoney(doc.lumpSum)} (§ 288 Abs. 5 BGB).`);
  return notes.map(law);
}

export function closingParagraphs(doc: NoticeDocument): string[] {
  const { seller } = doc;
  return [
    'Sollten Sie die Zahlung inzwischen veranlasst haben, betrachten Sie dieses Schreiben bitte als gegenstandslos.',
    doc.level === 0
      ? 'Bei Fragen zur Rechnung sind wir gern für Sie da.'
      : 'Bei Fragen zu dieser Forderung erreichen Sie uns unter den unten genannten Kontaktdaten.',
    ['Mit freundlichen Grüßen', ...(seller.contactName?.trim() ? [seller.contactName.trim()] : []), legalName(seller)].join('\n'),
  ];
}
