// Texts of the app's tax page (pages/tax.ts): the Umsatzsteuer-Voranmeldung's figures.
// German first; `en` has the same keys (a missing one is a type error).

export const de = {
  title: 'Umsatzsteuer-Voranmeldung',
  intro:
    'Die Kennzahlen der Voranmeldung aus den Buchungen des Zeitraums, jede mit den Belegen dahinter. Bemessungsgrundlagen stehen in vollen Euro (Cent entfallen), Steuern in Euro und Cent, wie das Formular sie verlangt; übertragen Sie sie in ELSTER. Eine Stornorechnung zählt in dem Zeitraum, in dem sie gebucht ist.',
  period: 'Zeitraum',
  periodHint: 'Ein Monat wie 2026-11 oder ein Quartal wie 2026-Q4.',
  show: 'Anzeigen',
  badPeriod: 'Bitte geben Sie einen Monat wie 2026-11 oder ein Quartal wie 2026-Q4 an.',
  filed: (until: string) => `Dieser Zeitraum ist gesperrt (bis ${until}): die Voranmeldung gilt als abgegeben. Korrekturen werden im offenen Zeitraum gebucht.`,
  kz: 'Kz',
  figure: 'Angabe',
  form: 'Im Formular',
  booked: 'Gebucht',
  documents: 'Belege',
  documentCount: (n: number) => (n === 1 ? '1 Beleg' : `${n} Belege`),
  entryDate: 'Buchungsdatum',
  document: 'Beleg',
  amount: 'Betrag',
  kinds: { invoice: 'Rechnung', storno: 'Stornorechnung', payment: 'Zahlung', commission_statement: 'Abrechnung' } as Record<string, string>,
  rounding: (difference: string) =>
    `Die gebuchte Umsatzsteuer weicht um ${difference} von der Steuer ab, die das Formular aus den vollen Euro-Beträgen berechnet (Rundung).`,
  oss: 'OSS (Verkäufe an Privatkunden in anderen EU-Staaten über der Lieferschwelle): Kontor stellt solche Rechnungen nicht aus; es gibt nichts für die OSS-Erklärung.',
  zmTitle: 'Zusammenfassende Meldung',
  zmIntro:
    'Je USt-IdNr. die sonstigen Leistungen an Unternehmer in anderen EU-Staaten (Kz 21) des Zeitraums, Stornos dort verrechnet, wo sie gebucht sind. Die Datei ist das CSV-Format 3.0 für den Import im BZSt-Online-Portal bzw. in Mein ELSTER (UTF-8, volle Euro, Art der Leistung S).',
  vatId: 'USt-IdNr.',
  inFile: 'In der Datei',
  kind: 'Art',
  download: (label: string) => `ZM ${label} als CSV herunterladen`,
  zmProblems: 'So lässt sich die Meldung nicht hochladen:',
  zmNothing: 'Nichts zu melden.',
};

export const en: typeof de = {
  title: 'VAT return (Umsatzsteuer-Voranmeldung)',
  intro:
    "The return's figures (Kennzahlen) from the period's bookings, each with the documents behind it. Bases are in whole euros (cents dropped), taxes in euros and cents, as the form asks; copy them into ELSTER. A cancellation invoice counts in the period it is booked in.",
  period: 'Period',
  periodHint: 'A month like 2026-11 or a quarter like 2026-Q4.',
  show: 'Show',
  badPeriod: 'Please give a month like 2026-11 or a quarter like 2026-Q4.',
  filed: (until: string) => `This period is locked (up to ${until}): the return counts as filed. Corrections are booked in the open period.`,
  kz: 'Kz',
  figure: 'Figure',
  form: 'In the form',
  booked: 'Booked',
  documents: 'Documents',
  documentCount: (n: number) => (n === 1 ? '1 document' : `${n} documents`),
  entryDate: 'Booking date',
  document: 'Document',
  amount: 'Amount',
  kinds: { invoice: 'Invoice', storno: 'Cancellation invoice', payment: 'Payment', commission_statement: 'Statement' },
  rounding: (difference: string) => `The output VAT booked differs by ${difference} from the tax the form computes from whole-euro bases (rounding).`,
  oss: 'OSS (sales to private customers in other EU states above the threshold): Kontor issues no such invoices; there is nothing for the OSS return.',
  zmTitle: 'EC sales list (Zusammenfassende Meldung)',
  zmIntro:
    "Per VAT ID the period's services to businesses in other EU states (Kz 21), cancellations netted where they are booked. The file is the CSV format 3.0 for the import in the BZSt online portal or Mein ELSTER (UTF-8, whole euros, kind of supply S).",
  vatId: 'VAT ID',
  inFile: 'In the file',
  kind: 'Kind',
  download: (label: string) => `Download the EC sales list ${label} as CSV`,
  zmProblems: 'The list cannot be uploaded like this:',
  zmNothing: 'Nothing to report.',
};
