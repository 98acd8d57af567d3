import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bankRefusalDe, bankRefusalEn, refusalWordsDe } from '../../src/web/texts/bank-refusals.ts';

// Issue 25, point 1.2: every refusal the bank import can throw (StatementError of the
// parsers, BankImportError of the import), one sentence each as the code writes it, reads
// as a German sentence in the app; none falls back to the English detail. The sentences of
// the refusals a person meets most are also tested end to end in bank-result.test.ts.

const DOWNLOAD = "download the account statement as camt.053 or MT940 (in online banking often 'Umsätze exportieren' → 'CAMT' or 'MT940/STA')";
const CAMT_DOWNLOAD = 'download the account statement as camt.053 (or MT940) from online banking';

const REFUSALS: string[] = [
  // parse-statement.ts
  'the file is empty',
  'the file is a ZIP archive; unpack it and import the camt.053 files inside one by one',
  `the file is no bank statement Kontor reads (camt.052, camt.053, camt.054, MT940, MT942); ${DOWNLOAD}`,
  // not-a-statement.ts
  ...[
    'a PDF document',
    'an Excel workbook (or another Office document)',
    'a SWIFT MT101 payment order',
    'a SWIFT MT103 credit transfer',
    'a SWIFT MT202 bank transfer',
    'a SWIFT MT900 debit confirmation',
    'a SWIFT MT910 credit confirmation',
    'a SWIFT MT920 request for a statement',
    'a SWIFT MT941 balance report',
    'a SWIFT MT950 statement between banks',
    'a SWIFT MT199 message',
    'a SWIFT MT900 or MT910 debit or credit confirmation',
    'a SWIFT payment message',
    'a DTAUS file (the old German payment file)',
    'a DTAZV file (the old German foreign payment file)',
    'a CSV export',
  ].map((what) => `the file is ${what}, not a statement; ${DOWNLOAD}`),
  // camt-message.ts
  ...[
    'an e-invoice (CII, as XRechnung or ZUGFeRD write it)',
    'an e-invoice (UBL Invoice)',
    'an e-invoice (UBL CreditNote)',
    'XML with the root element <Kontoauszug>',
    'XML without a root element',
  ].map((what) => `the file is ${what}, not an ISO 20022 bank statement; ${CAMT_DOWNLOAD}`),
  `the XML <Document> declares no ISO 20022 namespace, so it is no bank statement Kontor can read; ${CAMT_DOWNLOAD}`,
  `the XML <Document> has the namespace "urn:example:bank", which is no ISO 20022 message; ${CAMT_DOWNLOAD}`,
  ...[
    'a pain.001 payment order (a transfer you send to the bank)',
    'a pain.008 direct debit order (collections you send to the bank)',
    "a pain.002 payment status report (the bank's answer to a payment order)",
    "a camt.086 bank services billing statement (the bank's charges)",
    'an ISO 20022 camt.060 message',
  ].map((what) => `the file is ${what}, not an account statement; ${CAMT_DOWNLOAD}`),
  `the file is camt.053.001.14, a newer version Kontor does not read (it reads camt.053.001.02 to .13); ${CAMT_DOWNLOAD}`,
  `the file is camt.053.001.01, an early version Kontor does not read (it reads camt.053.001.02 to .13); ${CAMT_DOWNLOAD}`,
  'the namespace says camt.053 but the document holds a camt.052 <BkToCstmrAcctRpt>; the file is damaged, ask the bank for it again',
  'the camt.053 document holds no <BkToCstmrStmt> (it holds <Foo>); the file is damaged, ask the bank for it again',
  'the camt.053 document holds no <BkToCstmrStmt>; the file is damaged, ask the bank for it again',
  // camt-xml.ts
  'the XML declares a DOCTYPE, which bank statement files never do; the file is refused',
  'the XML holds no element after its declaration',
  'the XML is cut off or malformed: it ends inside <Ntry> (Document/BkToCstmrStmt/Stmt/Ntry) before its elements are closed',
  "the XML is cut off or malformed: Expected closing tag 'Ntry' (opened in line 12, col 9) instead of closing tag 'Ntyr'. (line 20)",
  'the XML is cut off or malformed: Maximum nesting depth exceeded',
  // camt.ts
  'the XML cannot be read as a camt file: its structure is not what ISO 20022 defines',
  'the camt.053 file holds no statement (<Stmt>)',
  'the camt.052 file holds no report (<Rpt>)',
  'the camt.054 file holds no notification (<Ntfctn>)',
  "camt statement 2026-11-21-EUR, entry 3: the entry's structure is not what ISO 20022 defines",
  'camt statement no. 2: its Id is longer than 140 characters',
  'camt statement 2026-11-21-EUR names no account (Acct/Id/IBAN or Othr/Id)',
  'camt statement 2026-11-21-EUR, entry 2 has no amount',
  'camt statement 2026-11-21-EUR: balance CLBD has no amount',
  'camt report R-1, entry 2, transaction 3 has no amount',
  'camt statement 2026-11-21-EUR, entry 2: amount "1O0.00" is not a number',
  'camt statement 2026-11-21-EUR, entry 2: currency "EURO" is not a currency code',
  'camt statement 2026-11-21-EUR, entry 2: status "GEBUCHT!" is not an entry status (BOOK, PDNG, INFO)',
  'camt statement 2026-11-21-EUR, entry 2: booking date (BookgDt) "2026-13-01" is not a date',
  'camt notification N-1, entry 1: value date (ValDt) "gestern" is not a date',
  'camt statement 2026-11-21-EUR, entry 2: the amount has no currency',
  'camt statement 2026-11-21-EUR, entry 3 has no CdtDbtInd (CRDT or DBIT)',
  'camt statement 2026-11-21-EUR, entry 3: CdtDbtInd is "HABEN", not CRDT or DBIT',
  'camt statement 2026-11-21-EUR, entry 3 has no booking date (BookgDt or ValDt), and the file names no single day to book it on',
  'camt statement 2026-11-21-EUR, entry 1 is a batch of 2 transactions; transaction 2 has no amount',
  'camt statement 2026-11-21-EUR, entry 1: its 2 transactions sum to 170.13, the entry books 170.12',
  'camt statement 2026-11-21-EUR, entry 1: its 3 transactions net to 70.00 (100.00 less 30.00 the other way), the entry books 80.00',
  'camt statement 2026-11-21-EUR: opening balance 500.00 + entries 345.12 ≠ closing balance 845.13; the file does not add up: download it again from online banking',
  'camt report R-1: opening balance 500.00 + entries 1.00 ≠ intraday balance 502.00; the file does not add up: download it again from online banking',
  // mt940.ts, mt940-lines.ts
  'MT940 statement 1: the opening balance (:60F:, line 4) cannot be read: it does not start with C or D',
  'MT940 statement 1: the closing balance (:62F:, line 9) cannot be read: no date (YYMMDD) follows C or D',
  'MT940 statement 1: the opening balance (:60M:, line 4) cannot be read: no currency follows the date',
  'MT940 statement 1: the opening balance (:60F:, line 4) cannot be read: no amount (digits with a decimal comma) follows the currency',
  'MT940 statement 1: the opening balance (:60F:, line 4) cannot be read: its date has no month 01–12',
  'MT940 statement 1: its :61: line (line 5) cannot be read: it does not start with a value date (YYMMDD)',
  'MT940 statement 1: its :61: line (line 5) cannot be read: the dates are not followed by C, D, RC or RD',
  'MT940 statement 1: its :61: line (line 5) cannot be read: no amount (digits with a decimal comma) follows C, D, RC or RD',
  'MT940 statement 1: 31.13.2026 is not a date',
  'MT940 statement 1: :25: stands twice (lines 3 and 9); is the :20: of the next statement missing?',
  'MT940 statement 1: the opening balance (:60F:, line 8) stands after entry 1 (line 5)',
  'MT940 statement 1, entry 2 (line 12) stands after the closing balance (:62F:, line 10)',
  'MT940 statement 1: the opening balance is in EUR, the closing balance in USD',
  'MT942 report 1 has no balance (:60F:, :62F:) and names no currency',
  'the file ends inside MT940 statement 1 (STARTUMSE 00012/001), after entry 3, with no closing balance (:62F:) and no end mark (-): it looks cut off; download it again',
  'the file ends inside MT942 report 1 (MT942-261120 00012/001), after line 7, with no totals (:90D:, :90C:) and no end mark (-): it looks cut off; download it again',
  'MT940 statement 2 (line 14) has no account (:25:)',
  'MT940 statement 1: opening balance 100,00 + entries 20,00 ≠ closing balance 130,00; the file does not add up: download it again from online banking',
  'the MT940 file holds no statement',
  'the file mixes MT940 statements and MT942 intraday reports; import each kind as a file of its own',
  'the MT940 file cannot be read: its structure is not what SWIFT MT940 defines',
  'line 3: :25: comes before the :20: that opens a statement',
  // import-bank-statement.ts (StatementError and BankImportError)
  'entry 4: amount 10.005 EUR has more than two decimals',
  'the accounting period is locked up to 2026-11-30; the payment for RE-2026-00001 booked on 2026-11-27 would fall into it. Nothing was imported.',
  'the accounting period is locked up to 2026-11-30; the money taken back from RE-2026-00001 booked on 2026-11-27 would fall into it. Nothing was imported.',
  'statement S-1: 2 of its entries would not be held as the file writes them: bookings imported before from another file differ from this file. Nothing was imported; compare the two files with the bank.',
  'statement S-1: its entries move the balance by 12.00, the bookings Kontor holds for them by 10.00: bookings imported before from another file differ from this file. Nothing was imported; compare the two files with the bank.',
];

describe('the bank import’s refusals in German', () => {
  test('every refusal is worded in German, with no English left', () => {
    for (const message of REFUSALS) {
      const words = refusalWordsDe(message);
      assert.ok(words, `no German words for “${message}”`);
      assert.doesNotMatch(words, /\b(the|file|is|not|no|download|statement|entry|line|balance|opening|closing|amount|locked)\b/, `English left in “${words}”`);
      assert.match(words, /[.?]$/, `a sentence: “${words}”`);
    }
  });

  test('places, amounts and dates read in German', () => {
    assert.equal(
      refusalWordsDe('camt statement 2026-11-21-EUR, entry 1: its 2 transactions sum to 1234.5, the entry books 1234.50'),
      'camt-Auszug 2026-11-21-EUR, Buchung 1: Ihre 2 Einzelumsätze ergeben zusammen 1.234,50, gebucht sind 1.234,50. Die Datei ist beschädigt; bitte fordern Sie sie bei der Bank erneut an.',
    );
    assert.equal(
      refusalWordsDe(
        'camt statement 2026-11-21-EUR: opening balance -500.00 + entries 345.12 ≠ closing balance 845.13; the file does not add up: download it again from online banking',
      ),
      'camt-Auszug 2026-11-21-EUR: Anfangssaldo −500,00 + Umsätze 345,12 ergibt nicht den Schlusssaldo 845,13; die Datei geht nicht auf. Bitte laden Sie die Datei im Onlinebanking erneut herunter.',
    );
    assert.match(
      bankRefusalDe(REFUSALS.at(-4) as string),
      /^Die Datei wurde nicht importiert\. Der Buchungszeitraum ist bis 30\.11\.2026 gesperrt; die Zahlung zu Rechnung RE-2026-00001 vom 27\.11\.2026 fiele hinein\./,
    );
  });

  test('a refusal Kontor does not know yet still reads as a German refusal, with the detail', () => {
    assert.equal(refusalWordsDe('a sentence added later'), null);
    assert.equal(
      bankRefusalDe('a sentence added later'),
      'Die Datei ist kein lesbarer Kontoauszug (camt.053 oder MT940); nichts wurde importiert. Technische Angabe: a sentence added later',
    );
  });

  test('in English the importer’s own sentence', () => {
    assert.equal(bankRefusalEn('the file is empty'), 'The file was not imported: the file is empty.');
  });
});
