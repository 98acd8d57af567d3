// Pure pieces of the DATEV EXTF "Buchungsstapel" format, format version 700 / 13
// (german-rules §6.4): the 31-field header, the 125 column names, field encodings.

import { formatCents } from '../../shared/money.ts';

export const DATEV_COLUMN_COUNT = 125;

function numbered(count: number, make: (n: number) => string[]): string[] {
  return Array.from({ length: count }, (_, i) => make(i + 1)).flat();
}

/** Column names of line 2, by position (1-based position = index + 1). */
export const DATEV_COLUMNS: readonly string[] = [
  'Umsatz (ohne Soll/Haben-Kz)',
  'Soll/Haben-Kennzeichen',
  'WKZ Umsatz',
  'Kurs',
  'Basis-Umsatz',
  'WKZ Basis-Umsatz',
  'Konto',
  'Gegenkonto (ohne BU-Schlüssel)',
  'BU-Schlüssel',
  'Belegdatum',
  'Belegfeld 1',
  'Belegfeld 2',
  'Skonto',
  'Buchungstext',
  'Postensperre',
  'Diverse Adressnummer',
  'Geschäftspartnerbank',
  'Sachverhalt',
  'Zinssperre',
  'Beleglink',
  ...numbered(8, (n) => [`Beleginfo - Art ${n}`, `Beleginfo - Inhalt ${n}`]),
  'KOST1 - Kostenstelle',
  'KOST2 - Kostenstelle',
  'Kost-Menge',
  'EU-Land u. UStID (Bestimmung)',
  'EU-Steuersatz (Bestimmung)',
  'Abw. Versteuerungsart',
  'Sachverhalt L+L',
  'Funktionsergänzung L+L',
  'BU 49 Hauptfunktionstyp',
  'BU 49 Hauptfunktionsnummer',
  'BU 49 Funktionsergänzung',
  ...numbered(20, (n) => [`Zusatzinformation - Art ${n}`, `Zusatzinformation - Inhalt ${n}`]),
  'Stück',
  'Gewicht',
  'Zahlweise',
  'Forderungsart',
  'Veranlagungsjahr',
  'Zugeordnete Fälligkeit',
  'Skontotyp',
  'Auftragsnummer',
  'Buchungstyp',
  'USt-Schlüssel (Anzahlungen)',
  'EU-Mitgliedstaat (Anzahlungen)',
  'Sachverhalt L+L (Anzahlungen)',
  'EU-Steuersatz (Anzahlungen)',
  'Erlöskonto (Anzahlungen)',
  'Herkunft-Kz',
  'Buchungs GUID',
  'KOST-Datum',
  'SEPA-Mandatsreferenz',
  'Skontosperre',
  'Gesellschaftername',
  'Beteiligtennummer',
  'Identifikationsnummer',
  'Zeichnernummer',
  'Postensperre bis',
  'Bezeichnung SoBil-Sachverhalt',
  'Kennzeichen SoBil-Buchung',
  'Festschreibung',
  'Leistungsdatum',
  'Datum Zuord. Steuerperiode',
  'Fälligkeit',
  'Generalumkehr (GU)',
  'Steuersatz',
  'Land',
  'Abrechnungsreferenz',
  'BVV-Position',
  'EU-Land u. UStID (Ursprung)',
  'EU-Steuersatz (Ursprung)',
  'Abw. Skontokonto',
];

/** 1-based positions of the columns Kontor fills. */
export const COLUMN = {
  umsatz: 1,
  sollHaben: 2,
  wkz: 3,
  konto: 7,
  gegenkonto: 8,
  buSchluessel: 9,
  belegdatum: 10,
  belegfeld1: 11,
  buchungstext: 14,
  beleginfoArt1: 21,
  beleginfoInhalt1: 22,
  euLandUstId: 40,
  leistungsdatum: 115,
} as const;

/** A text field: in double quotes, inner quotes doubled, line breaks flattened. */
export function text(value: string): string {
  return `"${value.replace(/[\r\n]+/g, ' ').replace(/"/g, '""')}"`;
}

/** 123456 → "1234,56" (always positive, decimal comma, no thousands separator). */
export function amount(cents: number): string {
  return formatCents(Math.abs(cents), ',');
}

/** "2026-03-05" → "0503" (Belegdatum TTMM; the year comes from the header period). */
export function ttmm(date: string): string {
  return `${date.slice(8, 10)}${date.slice(5, 7)}`;
}

/** "2026-03-05" → "05032026" (Leistungsdatum TTMMJJJJ). */
export function ttmmjjjj(date: string): string {
  return `${date.slice(8, 10)}${date.slice(5, 7)}${date.slice(0, 4)}`;
}

/** "2026-03-05" → "20260305". */
export function yyyymmdd(date: string): string {
  return date.replaceAll('-', '');
}

/**
 * Belegfeld 1 is the open-item key: at most 36 characters of A-Z a-z 0-9 $ & % * + - /.
 * Other characters become "-" so an invoice and its payment still map to the same key.
 */
export function belegfeld(value: string): string {
  return value.replace(/[^A-Za-z0-9$&%*+\-/]/g, '-').slice(0, 36);
}

export type HeaderInput = {
  createdAt: string;
  consultantNumber: number;
  clientNumber: number;
  fiscalYearStart: string;
  from: string;
  to: string;
  label: string;
  chart: 'SKR03' | 'SKR04';
  /** Festschreibung: the whole range lies in periods locked in Kontor. */
  fixed: boolean;
};

/** Line 1: the 31 header fields. */
export function headerFields(h: HeaderInput): string[] {
  return [
    text('EXTF'),
    '700',
    '21',
    text('Buchungsstapel'),
    '13',
    h.createdAt,
    '', // imported (set by DATEV)
    text('RE'), // origin: Rechnungswesen
    text('Kontor'), // exported by
    text(''), // imported by
    String(h.consultantNumber),
    String(h.clientNumber),
    yyyymmdd(h.fiscalYearStart),
    '4', // G/L account length
    yyyymmdd(h.from),
    yyyymmdd(h.to),
    text(h.label.slice(0, 30)),
    text(''), // dictation code
    '1', // booking type: Finanzbuchführung
    '0', // accounting purpose: independent of purpose
    h.fixed ? '1' : '0', // Festschreibung: 1 only for periods locked in Kontor (GoBD), else left to the tax adviser
    text('EUR'),
    '',
    text(''), // derivative flag
    '',
    '',
    text(h.chart === 'SKR03' ? '03' : '04'),
    '', // industry solution id
    '',
    text(''),
    text(''), // application information
  ];
}
