import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import iconv from 'iconv-lite';
import { parseStatement, StatementError } from '../../src/modules/payments/index.ts';
import { fixture, fixtureText } from './helpers.ts';

function refusal(content: string | Buffer): string {
  try {
    parseStatement(typeof content === 'string' ? Buffer.from(content) : content);
  } catch (error) {
    assert.ok(error instanceof StatementError, `a StatementError, got ${String(error)}`);
    return error.message;
  }
  assert.fail('the file was accepted');
}

describe('parseStatement: camt.053.001.02', () => {
  const statement = parseStatement(fixture('camt053-v02.xml'));

  test('reads format, account and entries with plain Sts and Dbtr/Nm', () => {
    assert.equal(statement.format, 'camt.053.001.02');
    // PRCD 1000.00, CLBD 1055.06.
    assert.deepEqual(statement.statements, [
      { id: '052C20261120-0001', iban: 'DE89370400440532013000', account: 'DE89370400440532013000', currency: 'EUR', opening: '1000', closing: '1055.06' },
    ]);
    assert.equal(statement.entries.length, 3);
    const [credit, debit, pending] = statement.entries;
    assert.deepEqual(
      { ...credit, key: undefined },
      {
        key: undefined,
        position: 1,
        statementIndex: 0,
        account: 'DE89370400440532013000',
        bookingDate: '2026-11-20',
        valueDate: '2026-11-20',
        direction: 'credit',
        reversal: false,
        status: 'BOOK',
        amount: '85.06',
        currency: 'EUR',
        bankReference: '2026112000001234',
        bookingText: 'SEPA-GUTSCHRIFT',
        transactions: [
          {
            amount: '85.06',
            currency: 'EUR',
            remittanceText: 'Rechnung RE-2026-00001 Kundennr. 10000 vielen Dank',
            endToEndId: null,
            creditorReference: null,
            counterpartyName: 'Beispiel AG',
            counterpartyIban: 'DE02120300000000202051',
          },
        ],
      },
    );
    assert.equal(debit!.direction, 'debit');
    assert.equal(debit!.transactions[0]!.counterpartyName, 'Commerzbank AG', 'a debit names the payee');
    assert.equal(pending!.status, 'PDNG');
    assert.equal(pending!.bookingDate, '2026-11-21', 'no BookgDt: the value date');
  });

  test('amounts stay the strings of the file', () => {
    for (const entry of statement.entries) assert.equal(typeof entry.amount, 'string');
  });
});

describe('parseStatement: camt.053.001.08', () => {
  const statement = parseStatement(fixture('camt053-v08.xml'));

  test('reads Sts/Cd, Dbtr/Pty/Nm and a batch entry (Btch) with several TxDtls, each with its own amount', () => {
    assert.equal(statement.format, 'camt.053.001.08');
    const batch = statement.entries[0]!;
    assert.equal(batch.status, 'BOOK');
    assert.equal(batch.amount, '170.12');
    assert.deepEqual(
      batch.transactions.map((t) => [t.amount, t.counterpartyName, t.remittanceText, t.creditorReference, t.endToEndId]),
      [
        ['85.06', 'Alpha GmbH', 'RE-2026-00002', null, 'E2E-A-1'],
        ['85.06', 'Beta KG', null, 'RE-2026-00003', null],
      ],
    );
  });

  test('reads every Stmt of the file, each with its account and currency', () => {
    assert.deepEqual(
      statement.statements.map((s) => [s.id, s.iban, s.currency]),
      [
        ['2026-11-21-EUR', 'DE89370400440532013000', 'EUR'],
        ['2026-11-21-USD', 'DE83500105175555555555', 'USD'],
      ],
    );
    const usd = statement.entries.at(-1)!;
    assert.deepEqual([usd.currency, usd.amount, usd.statementIndex, usd.account], ['USD', '40.00', 1, 'DE83500105175555555555']);
  });

  test('accepts a namespace prefix on the elements', () => {
    const prefixed = fixtureText('camt053-v08.xml')
      .replace('<Document xmlns=', '<c:Document xmlns:c=')
      .replace(/<(\/?)(?!\?)([A-Za-z])/g, '<$1c:$2')
      .replace('<c:c:Document', '<c:Document')
      .replace('</c:c:Document', '</c:Document');
    const parsed = parseStatement(Buffer.from(prefixed));
    assert.equal(parsed.entries.length, statement.entries.length);
    assert.deepEqual(
      parsed.entries.map((e) => e.key),
      statement.entries.map((e) => e.key),
    );
  });
});

describe('parseStatement: MT940 with German :86: subfields', () => {
  const statement = parseStatement(fixture('mt940-de.sta'));

  test('reads balances, :61: lines and the SEPA identifiers in ?20–?29 (SVWZ+ continued over subfields)', () => {
    assert.equal(statement.format, 'mt940');
    // :60F:C…1000,00 and :62F:C…1095,06.
    assert.deepEqual(statement.statements, [
      { id: 'STARTUMSE 00012/001', iban: 'DE89370400440532013000', account: '37040044/0532013000', currency: 'EUR', opening: '1000', closing: '1095.06' },
    ]);
    const [credit, debit, second] = statement.entries;
    assert.equal(credit!.amount, '85.06');
    assert.equal(credit!.bookingDate, '2026-11-20');
    assert.equal(credit!.bookingText, 'SEPA-GUTSCHRIFT');
    assert.deepEqual(credit!.transactions[0], {
      amount: '85.06',
      currency: 'EUR',
      remittanceText: 'Zahlung Rechnung RE-2026-00007 Kunde 10003',
      endToEndId: 'E2E-2026-11-20-A',
      creditorReference: null,
      counterpartyName: 'Müller Maschinenbau GmbH & Co. KG',
      counterpartyIban: 'DE02120300000000202051',
    });
    assert.equal(debit!.direction, 'debit');
    assert.equal(debit!.transactions[0]!.remittanceText, 'Entgelt Kontoführung November 2026', 'lines without identifier: one line each');
    assert.equal(second!.transactions[0]!.endToEndId, null, 'EREF+NOTPROVIDED is no reference');
  });

  test('reads Windows-1252 and UTF-8 files alike', () => {
    const utf8 = Buffer.from(iconv.decode(fixture('mt940-de.sta'), 'win1252'), 'utf8');
    assert.deepEqual(parseStatement(utf8), statement);
  });

  test('an entry date in January after a December value date is in the next year', () => {
    const text = fixtureText('mt940-de.sta', 'win1252').replace(':61:2611201120CR85,06', ':61:2612310102CR85,06');
    assert.equal(parseStatement(Buffer.from(text)).entries[0]!.bookingDate, '2027-01-02');
  });
});

describe('entry keys', () => {
  test('the bank reference (AcctSvcrRef) keys camt entries; the same entry in another file has the same key', () => {
    const v02 = parseStatement(fixture('camt053-v02.xml'));
    const otherFile = parseStatement(Buffer.from(fixtureText('camt053-v02.xml').replace('<MsgId>052C20261120T0900001</MsgId>', '<MsgId>OTHER</MsgId>')));
    assert.deepEqual(
      otherFile.entries.map((e) => e.key),
      v02.entries.map((e) => e.key),
    );
    assert.equal(new Set(v02.entries.map((e) => e.key)).size, 3);
    assert.match(v02.entries[2]!.key, /^pdng:/, 'a pending entry is keyed apart from its later booking');
  });

  test('MT940 entries are keyed by content; identical entries of one statement count up', () => {
    const text = fixtureText('mt940-de.sta', 'win1252');
    const line = text.slice(text.indexOf(':61:2611201120CR40,00'), text.indexOf(':62F:'));
    const twice = text.replace(line, line + line).replace(':62F:C261120EUR1095,06', ':62F:C261120EUR1135,06');
    const keys = parseStatement(Buffer.from(twice)).entries.map((e) => e.key);
    assert.equal(keys.length, 4);
    assert.equal(new Set(keys).size, 4, 'two equal transfers on one day are two entries');
    assert.deepEqual(
      keys.slice(0, 3),
      parseStatement(fixture('mt940-de.sta')).entries.map((e) => e.key),
    );
  });
});

describe('parseStatement refuses what it cannot read in full', () => {
  const v08 = fixtureText('camt053-v08.xml');

  test('truncated XML', () => {
    assert.match(refusal(v08.slice(0, Math.floor(v08.length / 2))), /^the XML is cut off or malformed: it ends inside <\w+>/);
  });

  test('malformed XML', () => {
    assert.match(refusal(v08.replace('</Ntry>', '</Ntyr>')), /^the XML is cut off or malformed: .*\(line \d+\)$/);
  });

  test('a camt version Kontor does not read, or no namespace', () => {
    assert.match(refusal(v08.replaceAll('camt.053.001.08', 'camt.053.001.14')), /^the file is camt\.053\.001\.14, a newer version Kontor does not read/);
    assert.match(refusal(v08.replace(' xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"', '')), /^the XML <Document> declares no ISO 20022 namespace/);
  });

  test('foreign XML (an e-invoice)', () => {
    assert.equal(
      refusal('<?xml version="1.0"?><rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"/>'),
      'the file is an e-invoice (CII, as XRechnung or ZUGFeRD write it), not an ISO 20022 bank statement; download the account statement as camt.053 (or MT940) from online banking',
    );
  });

  test('neither XML nor MT940, empty, or a ZIP container', () => {
    assert.equal(
      refusal('Kontoauszug vom 20.11.2026\n'),
      "the file is no bank statement Kontor reads (camt.052, camt.053, camt.054, MT940, MT942); download the account statement as camt.053 or MT940 (in online banking often 'Umsätze exportieren' → 'CAMT' or 'MT940/STA')",
    );
    assert.match(
      refusal('Datum;Betrag;Verwendungszweck\n20.11.2026;85,06;RE-2026-00001\n'),
      /^the file is a CSV export, not a statement; download the account statement/,
    );
    assert.equal(refusal(''), 'the file is empty');
    assert.match(refusal(Buffer.from('PK\x03\x04rest-of-zip', 'latin1')), /ZIP archive/);
  });

  test('an MT940 whose balances do not add up', () => {
    assert.equal(
      refusal(fixture('mt940-broken-balance.sta')),
      'MT940 statement 1: opening balance 100,00 + entries 20,00 ≠ closing balance 130,00; the file does not add up: download it again from online banking',
    );
  });

  test('an MT940 cut off before its closing balance', () => {
    const text = fixtureText('mt940-de.sta', 'win1252');
    assert.equal(
      refusal(text.slice(0, text.indexOf(':62F:'))),
      'the file ends inside MT940 statement 1 (STARTUMSE 00012/001), after entry 3, with no closing balance (:62F:) and no end mark (-): it looks cut off; download it again',
    );
  });

  test('a camt whose balances do not add up', () => {
    assert.equal(
      refusal(v08.replace('845.12', '845.13')),
      'camt statement 2026-11-21-EUR: opening balance 500.00 + entries 345.12 ≠ closing balance 845.13; the file does not add up: download it again from online banking',
    );
  });

  test('a camt entry amount that is not a number', () => {
    assert.equal(
      refusal(v08.replace('<Amt Ccy="EUR">100.00</Amt>\n        <CdtDbtInd>', '<Amt Ccy="EUR">1O0.00</Amt>\n        <CdtDbtInd>')),
      'camt statement 2026-11-21-EUR, entry 2: amount "1O0.00" is not a number',
    );
    assert.equal(
      refusal(v08.replace('<Amt Ccy="EUR">50.00</Amt>\n        <CdtDbtInd>', '<Amt Ccy="EUR">-50.00</Amt>\n        <CdtDbtInd>')),
      'camt statement 2026-11-21-EUR, entry 3: amount "-50.00" is not a number',
    );
  });

  test('a batch whose transactions do not add up to the entry', () => {
    assert.equal(
      refusal(v08.replace('<Amt Ccy="EUR">85.06</Amt>\n            <CdtDbtInd>', '<Amt Ccy="EUR">85.07</Amt>\n            <CdtDbtInd>')),
      'camt statement 2026-11-21-EUR, entry 1: its 2 transactions sum to 170.13, the entry books 170.12',
    );
  });

  test('an entry without CdtDbtInd or booking date', () => {
    assert.match(
      refusal(
        v08.replace(
          '<CdtDbtInd>CRDT</CdtDbtInd>\n        <Sts><Cd>BOOK</Cd></Sts>\n        <BookgDt><Dt>2026-11-21</Dt></BookgDt>\n        <AcctSvcrRef>20261121-0003',
          '<Sts><Cd>BOOK</Cd></Sts>\n        <BookgDt><Dt>2026-11-21</Dt></BookgDt>\n        <AcctSvcrRef>20261121-0003',
        ),
      ),
      /^camt statement 2026-11-21-EUR, entry 3 has no CdtDbtInd/,
    );
  });
});
