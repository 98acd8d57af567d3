// Texts of the app: dunning notices that did not go out, the DATEV export, and the bank
// import's notes in German (pages/dunning.ts, pages/exports.ts, pages/bank.ts).
// German first; `en` has the same keys (a missing one is a type error).

import type { DatevWarningCode } from '../../modules/bookkeeping/index.ts';
import type { NoticeReasonCode, RetryRefusalCode } from '../../modules/dunning/index.ts';
import { type ImportNote, type ImportNoteCode, type ImportNoteValues, noteText } from '../../modules/payments/index.ts';
import { formatDate, formatIban, formatMoney } from '../../shared/german-format.ts';
import { bankRefusalDe, bankRefusalEn } from './bank-refusals.ts';

/** 0 cents as the pages write amounts (pages/money.ts euro). */
const euroZero = formatMoney('0.00');

type NoteWords = { [C in ImportNoteCode]: (values: ImportNoteValues[C]) => string };
type Refusals = { [C in RetryRefusalCode]: (values: Record<string, string>) => string };

/** A place the parser names in the file ("MT940 statement 2 (…), entry 3, value date"), in German. */
function germanPlace(where: string): string {
  return where
    .replace(/^MT940 statement /, 'MT940-Auszug ')
    .replace(/^MT942 report /, 'MT942-Bericht ')
    .replace(/^camt statement /, 'camt-Auszug ')
    .replace(/^camt report /, 'camt-Bericht ')
    .replace(/^camt notification /, 'camt-Avis ')
    .replace(/\bno\. (\d+)/, 'Nr. $1')
    .replace(/, entry (\d+)/, ', Buchung $1')
    .replace(/, value date$/, ', Valutadatum')
    .replace(/, booking date$/, ', Buchungsdatum');
}

const places = (wheres: string[]) => {
  const german = wheres.map(germanPlace);
  return german.length > 3 ? `${german.slice(0, 3).join('; ')} und ${german.length - 3} weitere` : german.join('; ');
};
const statementsDe = (ids: string[]) =>
  ids.length === 1 ? `Der Auszug ${ids[0]}` : `${ids.length} Auszüge (${ids.length > 5 ? `${ids.slice(0, 5).join(', ')}, …` : ids.join(', ')})`;

/** DK return GVCs (payments/return-mark.ts) in German. */
const RETURN_GVC_DE: Record<string, string> = {
  '108': 'Rücklastschrift (Firmenlastschrift)',
  '109': 'Rücklastschrift',
  '110': 'Rückbelastung einer Kartenzahlung',
  '111': 'Scheckrückgabe',
  '159': 'Rücküberweisung',
  '160': 'Rücküberweisung (Echtzeit)',
  '193': 'Storno einer Lastschrift',
  '199': 'Storno einer Kartenzahlung',
  '899': 'Storno der Bank',
};

/** SEPA return reasons (ISO 20022 codes) as German banks word them. */
const RETURN_REASON_DE: Record<string, string> = {
  AC01: 'IBAN fehlerhaft',
  AC04: 'Konto aufgelöst',
  AC06: 'Konto gesperrt',
  AG01: 'Lastschrift auf diesem Konto nicht erlaubt',
  AM04: 'keine ausreichende Deckung',
  AM05: 'doppelt eingereicht',
  MD01: 'kein Mandat',
  MD06: 'Widerspruch des Zahlers',
  MD07: 'Zahler verstorben',
  MS02: 'Rückgabe durch den Zahler ohne Angabe von Gründen',
  MS03: 'Rückgabe durch die Bank ohne Angabe von Gründen',
  SL01: 'Lastschriftsperre beim Zahler',
  FOCR: 'Rückruf auf Wunsch des Zahlers',
  DUPL: 'Doppelzahlung',
  FRAD: 'Betrugsverdacht',
  TECH: 'technischer Fehler',
  CUST: 'auf Wunsch des Kunden',
};

function returnDe(marker: string, reason: string): string {
  const gvc = /^GVC (\d{3})$/.exec(marker)?.[1];
  const what = gvc ? `${RETURN_GVC_DE[gvc] ?? 'Rückbuchung'} (GVC ${gvc})` : marker === 'RtrInf' ? 'Rückgabe' : `Rückbuchung der Bank (${marker})`;
  if (!reason) return `${what}.`;
  const words = RETURN_REASON_DE[reason];
  return `${what}, Grund ${reason}${words ? ` (${words})` : ''}.`;
}

const notesDe: NoteWords = {
  no_invoice_number: () => 'Keine Rechnungsnummer im Verwendungszweck gefunden; bitte von Hand zuordnen.',
  unknown_invoice_number: (v) => `Eine Rechnung ${v.number} gibt es nicht.`,
  invoice_already_paid: (v) => `Die Rechnung ${v.number} ist bereits bezahlt.`,
  invoice_cancelled: (v) => `Die Rechnung ${v.number} ist storniert.`,
  invoice_is_storno: (v) => `${v.number} ist eine Stornorechnung.`,
  invoice_not_open: (v) => `Die Rechnung ${v.number} ist nicht offen.`,
  overpaid: (v) => `${formatMoney(v.amount)} mehr als offen; als Guthaben von ${v.customer} vermerkt.`,
  pending_ignored: () => 'Vorgemerkter Umsatz übergangen (es zählen nur gebuchte Umsätze).',
  status_ignored: (v) => `Umsatz mit Status ${v.status} übergangen (es zählen nur gebuchte Umsätze).`,
  reversal_ignored: (v) => `Rückbuchung einer früheren ${v.of === 'debit' ? 'Belastung' : 'Gutschrift'} übergangen; bitte von Hand prüfen.`,
  debit_ignored: () => 'Belastung übergangen.',
  returned: (v) => returnDe(v.marker, v.reason),
  nothing_to_reverse: (v) => `Auf die Rechnung ${v.number} ist nichts gezahlt worden, das zurückgebucht werden könnte.`,
  return_without_invoice: () => 'Die Rückbuchung nennt keine Rechnung und keine Zahlung, die Kontor gebucht hat; bitte von Hand zuordnen.',
  reversal_exceeds_paid: (v) => `${formatMoney(v.amount)} mehr, als auf die genannten Rechnungen gezahlt wurde; bitte von Hand zuordnen.`,
  return_fee: (v) => `Davon sind ${formatMoney(v.amount)} Rückgabegebühren der Bank; sie werden nicht von der Rechnung zurückgebucht.`,
  currency_ignored: (v) => `Umsatz in ${v.currency} übergangen (Kontor bucht nur Euro).`,
  zero_amount_ignored: () => 'Betrag 0,00 € übergangen.',
  already_imported: (v) => `Bereits mit einem früheren Kontoauszug importiert (${v.statement_id}); nichts doppelt gebucht.`,
  twice_in_file: () => 'Der Auszug steht zweimal in der Datei; einmal importiert.',
  other_account: (v) =>
    `${statementsDe(v.statements)} ${v.statements.length === 1 ? 'gehört' : 'gehören'} zum Konto ${formatIban(v.iban)}, nicht zum Konto der Firma ${formatIban(v.own)}; die Umsätze wurden trotzdem importiert.`,
  account_not_comparable: (v) =>
    `${statementsDe(v.statements)} ${v.statements.length === 1 ? 'nennt' : 'nennen'} das Konto ${v.account}, das sich nicht mit dem Konto der Firma ${formatIban(v.own)} vergleichen lässt.`,
  date_corrected: (v) => `${places(v.where)}: Das Datum ${v.written} der Bank gibt es nicht; übernommen als ${v.taken}, der letzte Tag des Monats.`,
  balance_missing: (v) =>
    `${places(v.where)}: ohne ${[v.opening && 'Anfangssaldo (:60F:)', v.closing && 'Schlusssaldo (:62F:)'].filter(Boolean).join(' und ')}; die Umsätze wurden ohne Saldenprüfung importiert.`,
  booked_on_covered_day: (v) =>
    `${places(v.where)}: ${v.count === 1 ? 'Ein Umsatz ohne Buchungsdatum wurde' : `${v.count} Umsätze ohne Buchungsdatum wurden`} auf den ${formatDate(v.day)} gebucht, den Tag, den der Auszug abdeckt.`,
  batch_netted: (v) =>
    `${places(v.where)}: Eine Sammelbuchung, die Gutschriften und Belastungen verrechnet, wurde als eine Buchung ohne Einzelumsätze übernommen.`,
  other: (v) => `${places(v.where)}: ${v.text}`,
};

/** English: the sentences `kontor bank import` prints. */
const notesEn = Object.fromEntries(Object.keys(notesDe).map((code) => [code, (values: unknown) => noteText({ code, values } as ImportNote)])) as NoteWords;

export const de = {
  /** Labels of this area's audit-trail actions (shown on /app/audit). */
  auditActions: {
    'dunning.notice_retried': 'Mahnung erneut gesendet',
    'dunning.stop_set': 'Mahnsperre gesetzt',
    'dunning.stop_lifted': 'Mahnsperre aufgehoben',
    'dunning.notice_now': 'Erinnerung sofort erstellt',
    'datev.exported': 'DATEV-Export erstellt',
    'payment.reversed': 'Abbuchung einer Rechnung zugeordnet (zurückgebucht)',
  } as Record<string, string>,

  // Dunning (/app/dunning)
  dunning: 'Mahnwesen',
  dunningIntro:
    'Zahlungserinnerungen und Mahnungen verschickt Kontor jeden Tag von selbst. Hier sehen Sie, was nicht zugestellt werden konnte, und senden es erneut, sobald die Ursache behoben ist.',
  unsentHeading: 'Nicht versendete Mahnungen',
  noUnsent: 'Keine fehlgeschlagenen Mahnungen.',
  retryHint:
    'Beheben Sie zuerst die Ursache. Die E-Mail-Adresse eines Kunden lässt sich in Kontor nicht ändern: Kunden werden aus Ihrem eigenen System (CRM, Shop, Warenwirtschaft) über die Schnittstelle übernommen (PUT /v1/customers/by-ref/…). Korrigieren Sie die Adresse dort; sobald sie übertragen ist, verschickt „Erneut versuchen“ dieselbe Mahnung an die neue Adresse. Ein Postfach-Fehler wird in den Einstellungen behoben. Soll der Kunde vorerst nicht gemahnt werden, setzen Sie auf der Rechnungs- oder Kundenseite eine Mahnsperre.',
  sentHeading: 'Versendete Mahnungen',
  noSent: 'Noch keine Mahnungen versendet.',
  invoice: 'Rechnung',
  customer: 'Kunde',
  level: 'Stufe',
  noticeOf: (title: string, date: string) => `${title} vom ${date}`,
  claimed: 'Forderung',
  noticeDate: 'Datum',
  reason: 'Grund',
  sentAt: 'Versendet',
  document: 'Schreiben',
  action: 'Aktion',
  levels: ['Zahlungserinnerung', '1. Mahnung', '2. Mahnung', 'Letzte Mahnung'] as readonly string[],
  noticeStatus: { failed: 'fehlgeschlagen', cancelled: 'abgebrochen' } as Record<string, string>,
  reasons: {
    recipient_missing: 'Beim Kunden ist keine gültige E-Mail-Adresse hinterlegt.',
    mail_rejected: 'Der Mailserver hat die Mail abgelehnt.',
    mail_unreachable: 'Der Mailserver war auch nach mehreren Versuchen nicht erreichbar.',
    mail_unconfirmed: 'Der Versand wurde unterbrochen; ob die Mail angekommen ist, ist nicht bestätigt.',
    paid: 'Die Rechnung wurde bezahlt, bevor die Mahnung verschickt wurde.',
    cancelled: 'Die Rechnung wurde storniert, bevor die Mahnung verschickt wurde.',
    amount_changed: 'Nach dem Erstellen der Mahnung ist eine Teilzahlung eingegangen; der nächste Mahnlauf mahnt den offenen Rest.',
    dunning_stop: 'Eine Mahnsperre wurde gesetzt, bevor die Mahnung verschickt wurde.',
  } as Record<NoticeReasonCode, string>,
  unknownReason: 'Der Versand ist fehlgeschlagen.',
  technicalDetails: 'Technische Angaben',
  moreDetails: 'Einzelheiten',
  unconfirmed: 'unbestätigt',
  pdf: 'PDF',
  pdfOf: (title: string, number: string) => `PDF: ${title} zu Rechnung ${number}`,
  retry: 'Erneut versuchen',
  retryOf: (title: string, number: string) => `${title} zu Rechnung ${number} erneut versuchen`,
  retried: (title: string, number: string, email: string) =>
    `Die Mahnung zu Rechnung ${number} (${title}) wird erneut gesendet, an ${email}. Das Ergebnis sehen Sie in wenigen Minuten hier.`,
  retryRefused: {
    notice_not_found: () => 'Diese Mahnung gibt es nicht.',
    not_failed: (v) => `Die Mahnung zu Rechnung ${v.number} ist nicht fehlgeschlagen; nur fehlgeschlagene Mahnungen lassen sich erneut senden.`,
    invoice_closed: (v) =>
      v.status === 'paid'
        ? `Die Rechnung ${v.number} ist inzwischen bezahlt; die Mahnung wird nicht mehr versendet.`
        : `Die Rechnung ${v.number} ist inzwischen storniert; die Mahnung wird nicht mehr versendet.`,
    amount_changed: (v) =>
      `Seit die Mahnung erstellt wurde, ist zu Rechnung ${v.number} eine Zahlung eingegangen; ihre Beträge stimmen nicht mehr. Der nächste Mahnlauf erstellt eine neue Mahnung über den offenen Rest.`,
    superseded: (v) => `Zu Rechnung ${v.number} gibt es inzwischen eine neuere Mahnung; diese wird nicht mehr versendet.`,
    deadline_passed: (v) =>
      `Die Zahlungsfrist dieser Mahnung (${formatDate(v.deadline ?? '')}) ist bereits abgelaufen. Der nächste Mahnlauf erstellt eine neue Mahnung mit aktuellem Stand.`,
    recipient_missing: (v) =>
      `Für den Kunden ${v.customer} ist noch keine E-Mail-Adresse hinterlegt. Bitte ergänzen Sie sie in Ihrem eigenen System, aus dem Kontor die Kunden übernimmt (PUT /v1/customers/by-ref/…), und versuchen Sie es danach erneut.`,
  } as Refusals,

  // DATEV export (/app/exports)
  exports: 'DATEV-Export',
  exportsIntro:
    'Der Buchungsstapel (DATEV-Format EXTF) enthält alle Buchungen des Zeitraums – Rechnungen, Stornos, Zahlungseingänge und Abrechnungen – zum Import in DATEV. Ein Export umfasst höchstens ein Geschäftsjahr.',
  from: 'Von',
  to: 'Bis',
  quickRanges: 'Zeitraum',
  previousMonth: 'Vormonat',
  fiscalYear: 'Laufendes Geschäftsjahr',
  fiscalYearStarts: (date: string) => `Das Geschäftsjahr beginnt am ${date}.`,
  download: 'Buchungsstapel herunterladen',
  exporting: 'Export wird erstellt …',
  testNumbersWarning:
    'Für die Firma sind noch keine DATEV-Berater- und Mandantennummer hinterlegt. Der Export trägt DATEVs Testnummern 1001/1, die Ihre Steuerberatung vor dem Import ändern muss. Die Nummern tragen Sie in den Einstellungen ein.',
  warningTexts: {
    datev_test_numbers: 'Ohne Berater- und Mandantennummer: Testnummern 1001/1 im Kopf der Datei',
  } as Record<DatevWarningCode, string>,
  recentExports: 'Letzte Exporte',
  noExports: 'Noch keine Exporte.',
  when: 'Zeitpunkt',
  who: 'Person',
  period: 'Zeitraum',
  bookings: 'Buchungen',
  warnings: 'Hinweise',
  none: 'keine',
  invalidDates: 'Bitte geben Sie den Zeitraum mit zwei gültigen Daten an (Von und Bis).',
  toBeforeFrom: (from: string, to: string) => `Das Ende des Zeitraums (${to}) liegt vor seinem Anfang (${from}).`,
  acrossFiscalYears: (start: string) =>
    `Ein DATEV-Export umfasst ein Geschäftsjahr, der Zeitraum reicht aber über den Beginn des Geschäftsjahres am ${start}. Bitte exportieren Sie jedes Geschäftsjahr einzeln.`,
  notExportable: 'Einige Buchungen des Zeitraums lassen sich nicht als DATEV-Buchungsstapel ausgeben; es wurde nichts exportiert.',

  // Bank import (/app/bank): the notes of the import
  bankAlreadyImportedOn: (date: string) => `Diese Datei wurde bereits am ${date} importiert; nichts wurde neu gebucht.`,
  bankWarnings: 'Hinweise zur Datei',
  bankBookingDate: 'Buchungstag',
  bankAmount: 'Betrag',
  bankPayer: 'Auftraggeber / Empfänger',
  bankNote: 'Hinweis',
  /** A refused file (the import's English refusal worded anew, texts/bank-refusals.ts). */
  bankRefusal: bankRefusalDe as (message: string) => string,
  // What happened to each transaction of an upload (issue 25): groups with their first rows.
  bankPaidHeading: 'Bezahlte Rechnungen',
  bankTakenBackHeading: 'Von Rechnungen zurückgebucht',
  bankWaitingHeading: 'Nicht zugeordnet',
  bankWaitingHint: 'Diese Umsätze ordnen Sie unten unter „Von Hand zuzuordnen“ einer Rechnung zu.',
  bankIgnoredHeading: 'Übergangen',
  bankDuplicatesHeading: 'Bereits importiert, übersprungen',
  bankInvoice: 'Rechnung',
  bankCustomer: 'Kunde',
  bankInvoiceState: 'Rechnung danach',
  bankStatePaid: 'bezahlt',
  bankStatePartlyPaid: (open: string) => `teilweise bezahlt, ${open} offen`,
  bankStateAfter: { issued: 'wieder offen', sent: 'wieder offen', partially_paid: 'teilweise bezahlt', paid: 'bezahlt' } as Record<string, string>,
  bankCreditPaidBack: (amount: string) => `dazu ${amount} Guthaben erstattet`,
  bankMorePaid: (n: number) => `… und ${n.toLocaleString('de-DE')} weitere Zahlungen auf Rechnungen.`,
  bankMoreTakenBack: (n: number) => `… und ${n.toLocaleString('de-DE')} weitere Rückbuchungen.`,
  bankMoreWaiting: (n: number) => `… und ${n.toLocaleString('de-DE')} weitere nicht zugeordnete Umsätze.`,
  bankMoreIgnored: (n: number) => `… und ${n.toLocaleString('de-DE')} weitere übergangene Umsätze.`,
  bankMoreDuplicates: (n: number) => `… und ${n.toLocaleString('de-DE')} weitere bereits importierte Umsätze.`,
  bankPlainDebits: (n: number) =>
    n === 1
      ? 'Eine Belastung ohne Rechnungsbezug (etwa eine Gebühr) wurde übergangen.'
      : `${n.toLocaleString('de-DE')} Belastungen ohne Rechnungsbezug (etwa Gebühren) wurden übergangen.`,
  /** The suggestions of the invoice field: whose invoice, and what is open (a credit) or was paid (a debit). */
  bankSuggestOpen: (customer: string, open: string) => `${customer} · ${open} offen`,
  bankSuggestPaid: (customer: string, paid: string) => `${customer} · ${paid} gezahlt`,
  bankNotes: notesDe,
  // Debits taken back from invoices (issue 24)
  bankReversed: 'Von Rechnungen zurückgebucht',
  bankCreditRefunded: 'Guthaben erstattet',
  bankDebitsLeft: 'Abbuchungen noch zuzuordnen',
  bankDebitsHeading: 'Abbuchungen von Hand zuzuordnen',
  bankDebitsHint:
    'Erstattungen an Kunden und Rückbuchungen (etwa Rücklastschriften), die Kontor keiner Rechnung oder nicht vollständig zuordnen konnte. Zugeordnet wird der Betrag von der Rechnung zurückgebucht: zuerst ein Guthaben des Kunden aus einer Überzahlung, dann die Zahlung, höchstens so viel, wie gezahlt wurde.',
  bankNoDebits: 'Keine Abbuchungen zuzuordnen.',
  bankPayee: 'Empfänger',
  bankReason: 'Grund',
  bankDebitInvoiceFor: (payee: string, amount: string) => `Rechnungsnummer für die Abbuchung von ${amount} an ${payee}`,
  bankDebitAssigned: (number: string) => `Die Abbuchung wurde der Rechnung ${number} zugeordnet und zurückgebucht.`,
  /** A line of an invoice's history (pages/invoice-detail.ts): money a debit took back from it. */
  reversalHistory: (kind: 'refund' | 'return', amount: string, credit: string, bookingDate: string) =>
    `${kind === 'return' ? 'Rückbuchung der Bank' : 'Erstattung an den Kunden'} vom ${bookingDate}: ${amount} der Zahlung zurückgebucht${credit === euroZero ? '' : `, ${credit} Guthaben erstattet`}`,
};

export const en: typeof de = {
  auditActions: {
    'dunning.notice_retried': 'Dunning notice sent again',
    'dunning.stop_set': 'Dunning stop set',
    'dunning.stop_lifted': 'Dunning stop lifted',
    'dunning.notice_now': 'Reminder made at once',
    'datev.exported': 'DATEV export created',
    'payment.reversed': 'Debit assigned to an invoice (taken back)',
  },

  dunning: 'Dunning',
  dunningIntro:
    'Kontor sends payment reminders and dunning notices every day by itself. Here you see what could not be delivered, and send it again once the cause is fixed.',
  unsentHeading: 'Notices not sent',
  noUnsent: 'No failed dunning notices.',
  retryHint:
    'Fix the cause first. A customer’s e-mail address cannot be changed in Kontor: customers are taken over from your own system (CRM, shop, ERP) through the API (PUT /v1/customers/by-ref/…). Correct the address there; once it has arrived, “Try again” sends the same notice to the new address. A mailbox error is fixed in the settings. To stop dunning a customer for now, set a dunning stop on the invoice or customer page.',
  sentHeading: 'Notices sent',
  noSent: 'No dunning notices sent yet.',
  invoice: 'Invoice',
  customer: 'Customer',
  level: 'Level',
  noticeOf: (title, date) => `${title} of ${date}`,
  claimed: 'Claimed',
  noticeDate: 'Date',
  reason: 'Reason',
  sentAt: 'Sent',
  document: 'Letter',
  action: 'Action',
  levels: ['Payment reminder', '1st dunning notice', '2nd dunning notice', 'Final notice'],
  noticeStatus: { failed: 'failed', cancelled: 'cancelled' },
  reasons: {
    recipient_missing: 'The customer has no valid e-mail address.',
    mail_rejected: 'The mail server refused the mail.',
    mail_unreachable: 'The mail server could not be reached, also after several attempts.',
    mail_unconfirmed: 'Sending was interrupted; whether the mail arrived is not confirmed.',
    paid: 'The invoice was paid before the notice went out.',
    cancelled: 'The invoice was cancelled before the notice went out.',
    amount_changed: 'A part payment arrived after the notice was made; the next dunning run claims the rest.',
    dunning_stop: 'A dunning stop was set before the notice went out.',
  },
  unknownReason: 'Sending failed.',
  technicalDetails: 'Technical details',
  moreDetails: 'Details',
  unconfirmed: 'unconfirmed',
  pdf: 'PDF',
  pdfOf: (title, number) => `PDF: ${title} for invoice ${number}`,
  retry: 'Try again',
  retryOf: (title, number) => `Try ${title} for invoice ${number} again`,
  retried: (title, number, email) => `The notice for invoice ${number} (${title}) is being sent again, to ${email}. You see the result here in a few minutes.`,
  retryRefused: {
    notice_not_found: () => 'There is no such notice.',
    not_failed: (v) => `The notice for invoice ${v.number} did not fail; only failed notices can be sent again.`,
    invoice_closed: (v) =>
      v.status === 'paid'
        ? `Invoice ${v.number} has been paid meanwhile; the notice is not sent any more.`
        : `Invoice ${v.number} has been cancelled meanwhile; the notice is not sent any more.`,
    amount_changed: (v) =>
      `A payment for invoice ${v.number} arrived after the notice was made; its amounts are no longer right. The next dunning run makes a new notice for the rest.`,
    superseded: (v) => `Invoice ${v.number} has a newer notice meanwhile; this one is not sent any more.`,
    deadline_passed: (v) =>
      `The payment deadline of this notice (${formatDate(v.deadline ?? '')}) is over. The next dunning run makes a new notice with the current amounts.`,
    recipient_missing: (v) =>
      `The customer ${v.customer} still has no e-mail address. Please add it in your own system, from which Kontor takes over customers (PUT /v1/customers/by-ref/…), and try again then.`,
  },

  exports: 'DATEV export',
  exportsIntro:
    'The Buchungsstapel (DATEV format EXTF) holds every booking of the period – invoices, cancellations, payments received and statements – for import into DATEV. One export covers one fiscal year at most.',
  from: 'From',
  to: 'To',
  quickRanges: 'Period',
  previousMonth: 'Previous month',
  fiscalYear: 'Current fiscal year',
  fiscalYearStarts: (date) => `The fiscal year starts on ${date}.`,
  download: 'Download Buchungsstapel',
  exporting: 'Creating the export …',
  testNumbersWarning:
    'The company has no DATEV consultant and client number yet. The export carries DATEV’s test numbers 1001/1, which your tax adviser must change before importing. Enter the numbers in the settings.',
  warningTexts: {
    datev_test_numbers: 'No consultant and client number: test numbers 1001/1 in the file header',
  },
  recentExports: 'Recent exports',
  noExports: 'No exports yet.',
  when: 'When',
  who: 'Person',
  period: 'Period',
  bookings: 'Bookings',
  warnings: 'Warnings',
  none: 'none',
  invalidDates: 'Please give the period as two valid dates (from and to).',
  toBeforeFrom: (from, to) => `The end of the period (${to}) lies before its start (${from}).`,
  acrossFiscalYears: (start) =>
    `A DATEV export covers one fiscal year, but the period reaches across the start of the fiscal year on ${start}. Please export each fiscal year separately.`,
  notExportable: 'Some bookings of the period cannot be expressed as a DATEV Buchungsstapel; nothing was exported.',

  bankAlreadyImportedOn: (date) => `This file was imported on ${date} already; nothing new was booked.`,
  bankWarnings: 'About the file',
  bankBookingDate: 'Booking date',
  bankAmount: 'Amount',
  bankPayer: 'Payer / payee',
  bankNote: 'Note',
  bankRefusal: bankRefusalEn,
  bankPaidHeading: 'Invoices paid',
  bankTakenBackHeading: 'Taken back from invoices',
  bankWaitingHeading: 'Not assigned',
  bankWaitingHint: 'Assign these to an invoice below, under “To assign by hand”.',
  bankIgnoredHeading: 'Ignored',
  bankDuplicatesHeading: 'Imported before, skipped',
  bankInvoice: 'Invoice',
  bankCustomer: 'Customer',
  bankInvoiceState: 'Invoice after',
  bankStatePaid: 'paid',
  bankStatePartlyPaid: (open) => `partly paid, ${open} open`,
  bankStateAfter: { issued: 'open again', sent: 'open again', partially_paid: 'partly paid', paid: 'paid' },
  bankCreditPaidBack: (amount) => `and ${amount} customer credit paid back`,
  bankMorePaid: (n) => `… and ${n.toLocaleString('en')} more payments of invoices.`,
  bankMoreTakenBack: (n) => `… and ${n.toLocaleString('en')} more reversals.`,
  bankMoreWaiting: (n) => `… and ${n.toLocaleString('en')} more entries not assigned.`,
  bankMoreIgnored: (n) => `… and ${n.toLocaleString('en')} more entries ignored.`,
  bankMoreDuplicates: (n) => `… and ${n.toLocaleString('en')} more entries imported before.`,
  bankPlainDebits: (n) =>
    n === 1 ? 'One debit naming no invoice (such as a fee) was ignored.' : `${n.toLocaleString('en')} debits naming no invoice (such as fees) were ignored.`,
  bankSuggestOpen: (customer, open) => `${customer} · ${open} open`,
  bankSuggestPaid: (customer, paid) => `${customer} · ${paid} paid`,
  bankNotes: notesEn,
  bankReversed: 'Taken back from invoices',
  bankCreditRefunded: 'Customer credit paid back',
  bankDebitsLeft: 'Debits left to assign',
  bankDebitsHeading: 'Debits to assign by hand',
  bankDebitsHint:
    'Refunds to customers and returns (such as returned direct debits) Kontor could not take back from an invoice, or not in full. Assigned, the amount is taken back from the invoice: first a credit the customer has from an over-payment, then the payment, at most what was paid.',
  bankNoDebits: 'No debits to assign.',
  bankPayee: 'Payee',
  bankReason: 'Reason',
  bankDebitInvoiceFor: (payee, amount) => `Invoice number for the debit of ${amount} to ${payee}`,
  bankDebitAssigned: (number) => `The debit was assigned to invoice ${number} and taken back from it.`,
  reversalHistory: (kind, amount, credit, bookingDate) =>
    `${kind === 'return' ? 'Returned by the bank' : 'Refunded to the customer'} on ${bookingDate}: ${amount} of the payment taken back${credit === euroZero ? '' : `, ${credit} customer credit paid back`}`,
};
