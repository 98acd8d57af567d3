// Why the bank import refused a file, in German for the app (pages/bank.ts). The parsers
// and the import refuse with English sentences (StatementError, BankImportError) that the
// command line prints and the parsers' tests hold fixed; each is recognised here by its
// sentence and worded anew, as import-notes.ts does for the parsers' notes. A sentence not
// recognised (a refusal added later) still reads as a German refusal, with the English
// detail in brackets. test/web/bank-refusals.test.ts holds one sentence of every refusal
// the importer can throw.

import { formatDate } from '../../shared/german-format.ts';

/** What to download instead, as the refusals of a file that is no statement end. */
const DOWNLOAD_DE =
  'Bitte laden Sie den Kontoauszug im Onlinebanking als camt.053 oder MT940 herunter (oft unter „Umsätze exportieren“ → „CAMT“ oder „MT940/STA“).';
const AGAIN_DE = 'Bitte laden Sie die Datei im Onlinebanking erneut herunter.';
const DAMAGED_DE = 'Die Datei ist beschädigt; bitte fordern Sie sie bei der Bank erneut an.';

/** Things a file can be instead of a statement (not-a-statement.ts, camt-message.ts). */
const WHAT_DE: Record<string, string> = {
  'a PDF document': 'ein PDF-Dokument',
  'an Excel workbook (or another Office document)': 'eine Excel-Arbeitsmappe (oder ein anderes Office-Dokument)',
  'an Excel workbook or another Office document (a ZIP of its own)': 'eine Excel-Arbeitsmappe oder ein anderes Office-Dokument',
  'a SWIFT MT101 payment order': 'ein SWIFT-Zahlungsauftrag (MT101)',
  'a SWIFT MT103 credit transfer': 'eine SWIFT-Überweisung (MT103)',
  'a SWIFT MT202 bank transfer': 'eine SWIFT-Bankenüberweisung (MT202)',
  'a SWIFT MT900 debit confirmation': 'eine SWIFT-Belastungsanzeige (MT900)',
  'a SWIFT MT910 credit confirmation': 'eine SWIFT-Gutschriftsanzeige (MT910)',
  'a SWIFT MT920 request for a statement': 'eine SWIFT-Anforderung eines Kontoauszugs (MT920)',
  'a SWIFT MT941 balance report': 'ein SWIFT-Saldenbericht (MT941)',
  'a SWIFT MT950 statement between banks': 'ein SWIFT-Kontoauszug zwischen Banken (MT950)',
  'a SWIFT MT900 or MT910 debit or credit confirmation': 'eine SWIFT-Belastungs- oder Gutschriftsanzeige (MT900 oder MT910)',
  'a SWIFT payment message': 'eine SWIFT-Zahlungsnachricht',
  'a DTAUS file (the old German payment file)': 'eine DTAUS-Datei (das frühere deutsche Zahlungsformat)',
  'a DTAZV file (the old German foreign payment file)': 'eine DTAZV-Datei (das frühere deutsche Format für Auslandszahlungen)',
  'a CSV export': 'ein CSV-Export',
  'a pain.001 payment order (a transfer you send to the bank)': 'ein Zahlungsauftrag pain.001 (Überweisungen, die Sie an die Bank senden)',
  'a pain.008 direct debit order (collections you send to the bank)': 'ein Lastschriftauftrag pain.008 (Lastschriften, die Sie bei der Bank einreichen)',
  "a pain.002 payment status report (the bank's answer to a payment order)": 'ein Statusbericht pain.002 (die Antwort der Bank auf einen Zahlungsauftrag)',
  "a camt.086 bank services billing statement (the bank's charges)": 'eine Entgeltaufstellung camt.086 (die Gebühren der Bank)',
  'an e-invoice (CII, as XRechnung or ZUGFeRD write it)': 'eine E-Rechnung (CII, wie XRechnung oder ZUGFeRD sie schreiben)',
  'an e-invoice (UBL Invoice)': 'eine E-Rechnung (UBL Invoice)',
  'an e-invoice (UBL CreditNote)': 'eine E-Gutschrift (UBL CreditNote)',
  'XML without a root element': 'eine XML-Datei ohne Wurzelelement',
};

function whatDe(what: string): string | null {
  const known = WHAT_DE[what];
  if (known) return known;
  const swift = /^a SWIFT MT(\d{3}) message$/.exec(what);
  if (swift) return `eine SWIFT-Nachricht MT${swift[1]}`;
  const root = /^XML with the root element <(.+)>$/.exec(what);
  if (root) return `eine XML-Datei mit dem Wurzelelement <${root[1]}>`;
  const iso = /^an ISO 20022 (\S+) message$/.exec(what);
  if (iso) return `eine ISO-20022-Nachricht ${iso[1]}`;
  return null;
}

const LABEL_DE: Record<string, string> = { statement: 'Auszug', report: 'Bericht', notification: 'Avis' };

/** A place the parser names ("camt statement X, entry 3, transaction 2", "MT940 statement 1 (…)"), in German. */
function placeDe(where: string): string {
  return where
    .replace(/^MT940 statement /, 'MT940-Auszug ')
    .replace(/^MT942 report /, 'MT942-Bericht ')
    .replace(/^camt (statement|report|notification) /, (_, label: string) => `camt-${LABEL_DE[label]} `)
    .replace(/\bno\. (\d+)/, 'Nr. $1')
    .replace(/, entry (\d+)/, ', Buchung $1')
    .replace(/, transaction (\d+)/, ', Einzelumsatz $1')
    .replace(/: balance (\w+)$/, ', Saldo $1');
}

/** An amount as the parsers write it (500.00, -12.5, 1.234,56) in German form. */
function amountDe(amount: string): string {
  if (amount.includes(',')) return amount;
  const [whole = '0', cents = ''] = amount.split('.');
  const sign = whole.startsWith('-') ? '−' : '';
  const digits = whole.replace('-', '').replace(/\B(?=(\d{3})+(?!\d))/g, '.');
  return `${sign}${digits},${cents.padEnd(2, '0')}`;
}

const dateDe = (iso: string) => (/^\d{4}-\d{2}-\d{2}$/.test(iso) ? formatDate(iso) : iso);

const BALANCE_REASONS: Record<string, string> = {
  'it does not start with C or D': 'die Zeile beginnt nicht mit C oder D',
  'no date (YYMMDD) follows C or D': 'auf C oder D folgt kein Datum (JJMMTT)',
  'no currency follows the date': 'auf das Datum folgt keine Währung',
  'no amount (digits with a decimal comma) follows the currency': 'auf die Währung folgt kein Betrag (Ziffern mit Dezimalkomma)',
  'its date has no month 01–12': 'das Datum hat keinen Monat 01–12',
};
const LINE_REASONS: Record<string, string> = {
  'it does not start with a value date (YYMMDD)': 'sie beginnt nicht mit einem Valutadatum (JJMMTT)',
  'the dates are not followed by C, D, RC or RD': 'auf die Daten folgt nicht C, D, RC oder RD',
  'no amount (digits with a decimal comma) follows C, D, RC or RD': 'auf C, D, RC oder RD folgt kein Betrag (Ziffern mit Dezimalkomma)',
};

type Rule = [RegExp, (m: string[]) => string | null];

/** The refusals of the parsers (parse-statement.ts, not-a-statement.ts, camt*.ts, mt940*.ts) and the import, in German. */
const RULES: Rule[] = [
  [/^the file is empty$/, () => 'Die Datei ist leer.'],
  [
    /^the file is a ZIP archive; unpack it and import the camt\.053 files inside one by one$/,
    () => 'Die Datei ist ein ZIP-Archiv. Bitte entpacken Sie es und importieren Sie die Kontoauszüge darin einzeln.',
  ],
  [/^the file is no bank statement Kontor reads \(([^)]+)\); /, (m) => `Die Datei ist kein Kontoauszug, den Kontor lesen kann (${m[1]}). ${DOWNLOAD_DE}`],
  [
    /^the file is (.+), not (?:a statement|an ISO 20022 bank statement|an account statement); /,
    (m) => {
      const what = whatDe(m[1]!);
      return what ? `Die Datei ist ${what}, kein Kontoauszug. ${DOWNLOAD_DE}` : null;
    },
  ],
  [
    /^the file is ((\w+\.\d{3})\.001\.(\d{2})), (an early|a newer) version Kontor does not read \(it reads (\S+) to \.(\d{2})\); /,
    (m) =>
      `Die Datei ist ${m[1]}, eine ${m[4] === 'an early' ? 'frühe' : 'neuere'} Version, die Kontor nicht liest (Kontor liest ${m[5]} bis .${m[6]}). ${DOWNLOAD_DE}`,
  ],
  [
    /^the XML <Document> declares no ISO 20022 namespace/,
    () => `Das XML-Dokument nennt keinen ISO-20022-Namensraum und ist daher kein Kontoauszug, den Kontor lesen kann. ${DOWNLOAD_DE}`,
  ],
  [
    /^the XML <Document> has the namespace "(.*)", which is no ISO 20022 message; /,
    (m) => `Das XML-Dokument hat den Namensraum „${m[1]}“, der zu keiner ISO-20022-Nachricht gehört. ${DOWNLOAD_DE}`,
  ],
  [
    /^the namespace says (\S+) but the document holds a (\S+) <(\w+)>; /,
    (m) => `Der Namensraum nennt ${m[1]}, das Dokument enthält aber ${m[2]} <${m[3]}>. ${DAMAGED_DE}`,
  ],
  [
    /^the (\S+) document holds no <(\w+)>(?: \(it holds <(\w+)>\))?; /,
    (m) => `Das Dokument ${m[1]} enthält kein <${m[2]}>${m[3] ? ` (sondern <${m[3]}>)` : ''}. ${DAMAGED_DE}`,
  ],
  [/^the XML declares a DOCTYPE/, () => 'Die XML-Datei enthält eine DOCTYPE-Angabe, die Kontoauszüge nie enthalten; sie wird abgelehnt.'],
  [/^the XML holds no element after its declaration$/, () => 'Die XML-Datei enthält nach ihrer Kopfzeile kein Element.'],
  [
    /^the XML is cut off or malformed: it ends inside <([^>]+)>/,
    (m) => `Die XML-Datei ist abgeschnitten oder beschädigt: Sie endet innerhalb von <${m[1]}>, bevor ihre Elemente geschlossen sind. ${AGAIN_DE}`,
  ],
  [/^the XML is cut off or malformed: .* \(line (\d+)\)$/, (m) => `Die XML-Datei ist abgeschnitten oder beschädigt (Zeile ${m[1]}). ${AGAIN_DE}`],
  [/^the XML is cut off or malformed/, () => `Die XML-Datei ist abgeschnitten oder beschädigt. ${AGAIN_DE}`],
  [/^the XML cannot be read as a camt file/, () => 'Die XML-Datei lässt sich nicht als camt-Datei lesen: Ihr Aufbau entspricht nicht ISO 20022.'],
  [/^the (\S+) file holds no (statement|report|notification) \(<(\w+)>\)$/, (m) => `Die ${m[1]}-Datei enthält keinen ${LABEL_DE[m[2]!]} (<${m[3]}>).`],
  [/^(.+): the entry's structure is not what ISO 20022 defines$/, (m) => `${placeDe(m[1]!)}: Der Aufbau der Buchung entspricht nicht ISO 20022.`],
  [
    /^camt (\w+) no\. (\d+): its Id is longer than 140 characters$/,
    (m) => `camt-${LABEL_DE[m[1]!]} Nr. ${m[2]}: Seine Kennung (Id) ist länger als 140 Zeichen.`,
  ],
  [/^(.+) names no account \(Acct\/Id\/IBAN or Othr\/Id\)$/, (m) => `${placeDe(m[1]!)} nennt kein Konto (Acct/Id/IBAN oder Othr/Id).`],
  [
    /^(.+) is a batch of (\d+) transactions; transaction (\d+) has no amount$/,
    (m) => `${placeDe(m[1]!)} ist eine Sammelbuchung aus ${m[2]} Einzelumsätzen; Einzelumsatz ${m[3]} hat keinen Betrag.`,
  ],
  [/^(.+) has no amount$/, (m) => `${placeDe(m[1]!)}: Der Betrag fehlt.`],
  [/^(.+): amount "(.*)" is not a number$/, (m) => `${placeDe(m[1]!)}: Der Betrag „${m[2]}“ ist keine Zahl.`],
  [/^(.+): currency "(.*)" is not a currency code$/, (m) => `${placeDe(m[1]!)}: „${m[2]}“ ist kein Währungscode.`],
  [/^(.+): status "(.*)" is not an entry status/, (m) => `${placeDe(m[1]!)}: „${m[2]}“ ist kein Buchungsstatus (BOOK, PDNG, INFO).`],
  [
    /^(.+): (value date \(ValDt\)|booking date \(BookgDt\)) "(.*)" is not a date$/,
    (m) => `${placeDe(m[1]!)}: ${m[2]!.startsWith('value') ? 'Das Valutadatum (ValDt)' : 'Das Buchungsdatum (BookgDt)'} „${m[3]}“ ist kein Datum.`,
  ],
  [/^(.+): the amount has no currency$/, (m) => `${placeDe(m[1]!)}: Der Betrag nennt keine Währung.`],
  [/^(.+) has no CdtDbtInd \(CRDT or DBIT\)$/, (m) => `${placeDe(m[1]!)}: Es fehlt, ob Gutschrift oder Belastung (CdtDbtInd CRDT oder DBIT).`],
  [/^(.+): CdtDbtInd is "(.*)", not CRDT or DBIT$/, (m) => `${placeDe(m[1]!)}: CdtDbtInd ist „${m[2]}“ statt CRDT oder DBIT.`],
  [
    /^(.+) has no booking date \(BookgDt or ValDt\)/,
    (m) => `${placeDe(m[1]!)}: Die Buchung hat kein Datum (BookgDt oder ValDt), und die Datei nennt keinen einzelnen Tag, auf den sie gebucht werden könnte.`,
  ],
  [
    /^(.+): its (\d+) transactions net to (\S+) \((\S+) less (\S+) the other way\), the entry books (\S+)$/,
    (m) =>
      `${placeDe(m[1]!)}: Ihre ${m[2]} Einzelumsätze ergeben verrechnet ${amountDe(m[3]!)} (${amountDe(m[4]!)} abzüglich ${amountDe(m[5]!)} in Gegenrichtung), gebucht sind ${amountDe(m[6]!)}. ${DAMAGED_DE}`,
  ],
  [
    /^(.+): its (\d+) transactions sum to (\S+), the entry books (\S+)$/,
    (m) => `${placeDe(m[1]!)}: Ihre ${m[2]} Einzelumsätze ergeben zusammen ${amountDe(m[3]!)}, gebucht sind ${amountDe(m[4]!)}. ${DAMAGED_DE}`,
  ],
  [
    /^(.+): opening balance (\S+) \+ entries (\S+) ≠ (closing|intraday) balance (\S+); the file does not add up/,
    (m) =>
      `${placeDe(m[1]!)}: Anfangssaldo ${amountDe(m[2]!)} + Umsätze ${amountDe(m[3]!)} ergibt nicht den ${m[4] === 'closing' ? 'Schlusssaldo' : 'Tagessaldo'} ${amountDe(m[5]!)}; die Datei geht nicht auf. ${AGAIN_DE}`,
  ],
  [
    /^(.+): the (opening|closing) balance \((:\w+:), line (\d+)\) cannot be read: (.+)$/,
    (m) => {
      const reason = BALANCE_REASONS[m[5]!];
      return reason
        ? `${placeDe(m[1]!)}: Der ${m[2] === 'opening' ? 'Anfangssaldo' : 'Schlusssaldo'} (${m[3]}, Zeile ${m[4]}) ist nicht lesbar: ${reason}.`
        : null;
    },
  ],
  [
    /^(.+): its :61: line \(line (\d+)\) cannot be read: (.+)$/,
    (m) => {
      const reason = LINE_REASONS[m[3]!];
      return reason ? `${placeDe(m[1]!)}: Die Umsatzzeile :61: (Zeile ${m[2]}) ist nicht lesbar: ${reason}.` : null;
    },
  ],
  [/^(.+): (\d{2}\.\d{2}\.\d{4}) is not a date$/, (m) => `${placeDe(m[1]!)}: ${m[2]} ist kein Datum.`],
  [
    /^(.+): (:\w+:) stands twice \(lines (\d+) and (\d+)\)/,
    (m) => `${placeDe(m[1]!)}: ${m[2]} steht zweimal (Zeilen ${m[3]} und ${m[4]}); fehlt das :20: des nächsten Auszugs?`,
  ],
  [
    /^(.+): the opening balance \((:\w+:), line (\d+)\) stands after entry 1 \(line (\d+)\)$/,
    (m) => `${placeDe(m[1]!)}: Der Anfangssaldo (${m[2]}, Zeile ${m[3]}) steht nach dem ersten Umsatz (Zeile ${m[4]}).`,
  ],
  [
    /^(.+), entry (\d+) \(line (\d+)\) stands after the closing balance \((:\w+:), line (\d+)\)$/,
    (m) => `${placeDe(m[1]!)}: Umsatz ${m[2]} (Zeile ${m[3]}) steht nach dem Schlusssaldo (${m[4]}, Zeile ${m[5]}).`,
  ],
  [
    /^(.+): the opening balance is in (\w+), the closing balance in (\w+)$/,
    (m) => `${placeDe(m[1]!)}: Der Anfangssaldo ist in ${m[2]}, der Schlusssaldo in ${m[3]} angegeben.`,
  ],
  [/^(.+) has no balance \(:60F:, :62F:\) and names no currency$/, (m) => `${placeDe(m[1]!)} hat keinen Saldo (:60F:, :62F:) und nennt keine Währung.`],
  [
    /^the file ends inside (.+), (after entry (\d+)|after line (\d+)), with (no totals|no closing balance)/,
    (m) =>
      `Die Datei endet mitten in ${placeDe(m[1]!)}, ${m[3] ? `nach Umsatz ${m[3]}` : `nach Zeile ${m[4]}`}, ohne ${m[5] === 'no totals' ? 'Summen (:90D:, :90C:)' : 'Schlusssaldo (:62F:)'} und ohne Endezeichen (-): Sie ist offenbar abgeschnitten. ${AGAIN_DE}`,
  ],
  [/^(.+) \(line (\d+)\) has no account \(:25:\)$/, (m) => `${placeDe(m[1]!)} (Zeile ${m[2]}) nennt kein Konto (:25:).`],
  [/^the MT940 file holds no statement$/, () => 'Die MT940-Datei enthält keinen Auszug.'],
  [
    /^the file mixes MT940 statements and MT942 intraday reports/,
    () => 'Die Datei mischt MT940-Auszüge und MT942-Tagesberichte; bitte importieren Sie jede Art als eigene Datei.',
  ],
  [/^the MT940 file cannot be read/, () => 'Die MT940-Datei ist nicht lesbar: Ihr Aufbau entspricht nicht SWIFT MT940.'],
  [/^line (\d+): (:\w+:) comes before the :20: that opens a statement$/, (m) => `Zeile ${m[1]}: ${m[2]} steht vor dem :20:, mit dem ein Auszug beginnt.`],
  [/^entry (\d+): amount (\S+) EUR has more than two decimals$/, (m) => `Buchung ${m[1]}: Der Betrag ${m[2]} EUR hat mehr als zwei Nachkommastellen.`],
  // The import's refusals (BankImportError): a locked period, bookings held before that differ.
  [
    /^the accounting period is locked up to (\S+); the payment for (\S+) booked on (\S+) would fall into it/,
    (m) =>
      `Der Buchungszeitraum ist bis ${dateDe(m[1]!)} gesperrt; die Zahlung zu Rechnung ${m[2]} vom ${dateDe(m[3]!)} fiele hinein. Eine Buchung in einen gesperrten Zeitraum ist nicht möglich.`,
  ],
  [
    /^the accounting period is locked up to (\S+); the money taken back from (\S+) booked on (\S+) would fall into it/,
    (m) =>
      `Der Buchungszeitraum ist bis ${dateDe(m[1]!)} gesperrt; die Rückbuchung von Rechnung ${m[2]} vom ${dateDe(m[3]!)} fiele hinein. Eine Buchung in einen gesperrten Zeitraum ist nicht möglich.`,
  ],
  [
    /^statement (.+): (\d+) of its entries would not be held as the file writes them: bookings imported before/,
    (m) =>
      `Auszug ${m[1]}: ${m[2]} seiner Umsätze wurden früher aus einer anderen Datei anders importiert, als diese Datei sie nennt. Bitte vergleichen Sie die beiden Dateien mit der Bank.`,
  ],
  [
    /^statement (.+): its entries move the balance by (\S+), the bookings Kontor holds for them by (\S+): bookings imported before/,
    (m) =>
      `Auszug ${m[1]}: Seine Umsätze verändern den Saldo um ${amountDe(m[2]!)}, die Buchungen, die Kontor früher aus einer anderen Datei dafür importiert hat, um ${amountDe(m[3]!)}. Bitte vergleichen Sie die beiden Dateien mit der Bank.`,
  ],
];

/** The refusal in German, or null when its sentence is not one Kontor knows. */
export function refusalWordsDe(message: string): string | null {
  for (const [pattern, words] of RULES) {
    const match = pattern.exec(message);
    if (match) {
      const text = words([...match].map((part) => part ?? ''));
      if (text) return text;
    }
  }
  return null;
}

/** The page's flash of a refused file, German. */
export function bankRefusalDe(message: string): string {
  const words = refusalWordsDe(message);
  return words
    ? `Die Datei wurde nicht importiert. ${words}`
    : `Die Datei ist kein lesbarer Kontoauszug (camt.053 oder MT940); nichts wurde importiert. Technische Angabe: ${message}`;
}

/** English: the importer's own sentence. */
export function bankRefusalEn(message: string): string {
  return `The file was not imported: ${message}${/[.!?]$/.test(message) ? '' : '.'}`;
}
