import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { zipSync } from 'fflate';
import iconv from 'iconv-lite';
import { isZipArchive, unpackStatementArchive } from '../../src/modules/payments/archive.ts';
import { type ParsedEntry, parseStatement, StatementError } from '../../src/modules/payments/index.ts';
import { COMPANY_IBAN, fixture, fixtureText } from './helpers.ts';

// Issue 12, point 4 and the camt half of point 5: camt.052/053/054 in every version banks
// deliver (.02 to .13), every way of declaring the namespace, ZIP archives of camt files,
// and refusals a person can act on.

function refusal(content: string | Buffer): string {
  try {
    parseStatement(typeof content === 'string' ? Buffer.from(content) : content);
  } catch (error) {
    assert.ok(error instanceof StatementError, `a StatementError, got ${String(error)}`);
    return error.message;
  }
  assert.fail('the file was accepted');
}

/** An entry as the import compares it across files: without where it stands in its file. */
const booking = ({ key: _key, position: _position, statementIndex: _index, ...entry }: ParsedEntry) => entry;

const NS = (message: string, version: string) => `urn:iso:std:iso:20022:tech:xsd:${message}.001.${version}`;

const CONTAINERS = {
  'camt.052': ['BkToCstmrAcctRpt', 'Rpt'],
  'camt.053': ['BkToCstmrStmt', 'Stmt'],
  'camt.054': ['BkToCstmrDbtCdtNtfctn', 'Ntfctn'],
} as const;

/**
 * One day's bookings in the shapes a version of the schema prescribes: Sts and Dbtr/Nm
 * plain up to .06, Sts/Cd and Dbtr/Pty/Nm from .07; BIC in .02, BICFI later; a batch's
 * amounts in AmtDtls/TxAmt in .02 (no TxDtls/Amt there), in TxDtls/Amt from .03.
 */
function dayIn(message: keyof typeof CONTAINERS, version: number): string {
  const [container, item] = CONTAINERS[message];
  const status = (code: string) => (version <= 6 ? `<Sts>${code}</Sts>` : `<Sts><Cd>${code}</Cd></Sts>`);
  const party = (name: string) => (version <= 6 ? `<Nm>${name}</Nm>` : `<Pty><Nm>${name}</Nm></Pty>`);
  const bic = (code: string) => `<FinInstnId><${version === 2 ? 'BIC' : 'BICFI'}>${code}</${version === 2 ? 'BIC' : 'BICFI'}></FinInstnId>`;
  const txAmount = (amount: string) =>
    version === 2 ? `<AmtDtls><TxAmt><Amt Ccy="EUR">${amount}</Amt></TxAmt></AmtDtls>` : `<Amt Ccy="EUR">${amount}</Amt><CdtDbtInd>CRDT</CdtDbtInd>`;
  const balances =
    message === 'camt.054'
      ? ''
      : `<Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">500.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-11-21</Dt></Dt></Bal>
<Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">615.18</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-11-21</Dt></Dt></Bal>`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="${NS(message, String(version).padStart(2, '0'))}"><${container}>
<GrpHdr><MsgId>MSG-${version}</MsgId><CreDtTm>2026-11-21T18:00:00+01:00</CreDtTm></GrpHdr>
<${item}><Id>DAY-2026-11-21</Id><Acct><Id><IBAN>${COMPANY_IBAN}</IBAN></Id><Ccy>EUR</Ccy><Svcr>${bic('COBADEFFXXX')}</Svcr></Acct>
${balances}
<Ntry><Amt Ccy="EUR">170.12</Amt><CdtDbtInd>CRDT</CdtDbtInd>${status('BOOK')}<BookgDt><DtTm>2026-11-21T09:30:00+01:00</DtTm></BookgDt><ValDt><Dt>2026-11-21</Dt></ValDt>
<AcctSvcrRef>REF-0001</AcctSvcrRef><NtryDtls><Btch><NbOfTxs>2</NbOfTxs></Btch>
<TxDtls><Refs><EndToEndId>E2E-A</EndToEndId></Refs>${txAmount('85.06')}<RltdPties><Dbtr>${party('Alpha GmbH')}</Dbtr><DbtrAcct><Id><IBAN>DE02120300000000202051</IBAN></Id></DbtrAcct></RltdPties>
<RltdAgts><DbtrAgt>${bic('BYLADEM1001')}</DbtrAgt></RltdAgts><RmtInf><Ustrd>RE-2026-00002</Ustrd><Ustrd>Kunde 10001</Ustrd></RmtInf></TxDtls>
<TxDtls><Refs><EndToEndId>NOTPROVIDED</EndToEndId></Refs>${txAmount('85.06')}<RltdPties><Dbtr>${party('Beta KG')}</Dbtr></RltdPties>
<RmtInf><Strd><CdtrRefInf><Ref>RF18RE202600003</Ref></CdtrRefInf></Strd></RmtInf></TxDtls></NtryDtls>
<AddtlNtryInf>SAMMLER-GUTSCHRIFT</AddtlNtryInf></Ntry>
<Ntry><Amt Ccy="EUR">54.94</Amt><CdtDbtInd>DBIT</CdtDbtInd>${status('BOOK')}<BookgDt><Dt>2026-11-21</Dt></BookgDt><ValDt><Dt>2026-11-21</Dt></ValDt>
<AcctSvcrRef>REF-0002</AcctSvcrRef><NtryDtls><TxDtls><RltdPties><Cdtr>${party('Gamma Energie AG')}</Cdtr><CdtrAcct><Id><IBAN>DE44500105175407324931</IBAN></Id></CdtrAcct></RltdPties>
<RmtInf><Ustrd>Strom November</Ustrd></RmtInf></TxDtls></NtryDtls><AddtlNtryInf>LASTSCHRIFT</AddtlNtryInf></Ntry>
<Ntry><Amt Ccy="EUR">12.34</Amt><CdtDbtInd>CRDT</CdtDbtInd>${status('PDNG')}<ValDt><Dt>2026-11-22</Dt></ValDt><AcctSvcrRef>REF-0003</AcctSvcrRef><AddtlNtryInf>VORMERKUNG</AddtlNtryInf></Ntry>
</${item}></${container}></Document>
`;
}

const DAY_ENTRIES = [
  {
    account: COMPANY_IBAN,
    bookingDate: '2026-11-21',
    valueDate: '2026-11-21',
    direction: 'credit',
    reversal: false,
    status: 'BOOK',
    amount: '170.12',
    currency: 'EUR',
    bankReference: 'REF-0001',
    bookingText: 'SAMMLER-GUTSCHRIFT',
    transactions: [
      {
        amount: '85.06',
        currency: 'EUR',
        remittanceText: 'RE-2026-00002 Kunde 10001',
        endToEndId: 'E2E-A',
        creditorReference: null,
        counterpartyName: 'Alpha GmbH',
        counterpartyIban: 'DE02120300000000202051',
      },
      {
        amount: '85.06',
        currency: 'EUR',
        remittanceText: null,
        endToEndId: null,
        creditorReference: 'RF18RE202600003',
        counterpartyName: 'Beta KG',
        counterpartyIban: null,
      },
    ],
  },
  {
    account: COMPANY_IBAN,
    bookingDate: '2026-11-21',
    valueDate: '2026-11-21',
    direction: 'debit',
    reversal: false,
    status: 'BOOK',
    amount: '54.94',
    currency: 'EUR',
    bankReference: 'REF-0002',
    bookingText: 'LASTSCHRIFT',
    transactions: [
      {
        amount: '54.94',
        currency: 'EUR',
        remittanceText: 'Strom November',
        endToEndId: null,
        creditorReference: null,
        counterpartyName: 'Gamma Energie AG',
        counterpartyIban: 'DE44500105175407324931',
      },
    ],
  },
  {
    account: COMPANY_IBAN,
    bookingDate: '2026-11-22',
    valueDate: '2026-11-22',
    direction: 'credit',
    reversal: false,
    status: 'PDNG',
    amount: '12.34',
    currency: 'EUR',
    bankReference: 'REF-0003',
    bookingText: 'VORMERKUNG',
    transactions: [
      {
        amount: '12.34',
        currency: 'EUR',
        remittanceText: 'VORMERKUNG',
        endToEndId: null,
        creditorReference: null,
        counterpartyName: null,
        counterpartyIban: null,
      },
    ],
  },
];

const VERSIONS = Array.from({ length: 12 }, (_, i) => i + 2);

describe('camt.052, camt.053 and camt.054 in every version from .02 to .13', () => {
  for (const message of ['camt.053', 'camt.052', 'camt.054'] as const)
    test(`${message}: each version reads the same day field for field, in the shapes of its schema`, () => {
      const keys = new Set<string>();
      for (const version of VERSIONS) {
        const parsed = parseStatement(Buffer.from(dayIn(message, version)));
        const v = String(version).padStart(2, '0');
        assert.equal(parsed.format, `${message}.001.${v}`);
        assert.equal(parsed.kind, { 'camt.052': 'report', 'camt.053': 'statement', 'camt.054': 'notification' }[message]);
        // Balances as written (500.00 → 615.18); a notification has none.
        const [opening, closing] = message === 'camt.054' ? [null, null] : ['500', '615.18'];
        assert.deepEqual(parsed.statements, [{ id: 'DAY-2026-11-21', iban: COMPANY_IBAN, account: COMPANY_IBAN, currency: 'EUR', opening, closing }]);
        assert.deepEqual(parsed.entries.map(booking), DAY_ENTRIES, `version .${v}`);
        for (const entry of parsed.entries) keys.add(entry.key);
      }
      assert.equal(keys.size, 3, 'the same three bookings, whatever the version');
    });

  test('a camt.053.001.04 as a bank writes it: BookgDt as DtTm, batch with TxDtls/Amt and AmtDtls, IBAN with spaces, entities', () => {
    const parsed = parseStatement(fixture('camt053-v04.xml'));
    assert.equal(parsed.format, 'camt.053.001.04');
    const [batch] = parsed.entries;
    assert.equal(batch!.bookingDate, '2026-11-21');
    assert.deepEqual(
      batch!.transactions.map((t) => [t.amount, t.counterpartyName, t.counterpartyIban, t.remittanceText, t.creditorReference, t.endToEndId]),
      [
        ['85.06', 'Gamma Handel GmbH', 'DE02120300000000202051', 'RE-2026-00004', null, 'E2E-GAMMA-1'],
        ['85.06', 'Delta & Söhne KG', null, null, 'RF18RE202600005', null],
      ],
    );
  });

  test('a debtor that is a bank (Dbtr/Agt, from .07) is named by the bank', () => {
    const xml = dayIn('camt.053', 8).replace(
      '<Dbtr><Pty><Nm>Beta KG</Nm></Pty></Dbtr>',
      '<Dbtr><Agt><FinInstnId><BICFI>MARKDEF1100</BICFI><Nm>Deutsche Bundesbank</Nm></FinInstnId></Agt></Dbtr>',
    );
    assert.equal(parseStatement(Buffer.from(xml)).entries[0]!.transactions[1]!.counterpartyName, 'Deutsche Bundesbank');
  });
});

describe('entries as some banks leave them: without dates, or netting a batch', () => {
  const v08 = dayIn('camt.053', 8);

  test('entries without BookgDt and ValDt are booked on the one day their statement covers, with a note', () => {
    const undated = v08.replaceAll('<ValDt><Dt>2026-11-21</Dt></ValDt>', '').replace(/<BookgDt>.*?<\/BookgDt>/g, '');
    const parsed = parseStatement(Buffer.from(undated));
    assert.deepEqual(
      parsed.entries.map((e) => [e.bookingDate, e.valueDate]),
      [
        ['2026-11-21', null],
        ['2026-11-21', null],
        ['2026-11-22', '2026-11-22'],
      ],
    );
    assert.deepEqual(parsed.notes, [
      { where: 'camt statement DAY-2026-11-21', cause: '2 entries without booking date are booked on 2026-11-21, the day the statement covers' },
    ]);
    const twoDays = undated.replace(
      '<Id>DAY-2026-11-21</Id>',
      '<Id>DAY-2026-11-21</Id><FrToDt><FrDtTm>2026-11-20T00:00:00+01:00</FrDtTm><ToDtTm>2026-11-21T23:59:59+01:00</ToDtTm></FrToDt>',
    );
    assert.equal(
      refusal(twoDays),
      'camt statement DAY-2026-11-21, entry 1 has no booking date (BookgDt or ValDt), and the file names no single day to book it on',
    );
  });

  test('a batch whose transactions run both ways stays one booking without details, with a note; its net must be the entry', () => {
    const netted = v08
      .replace('<Amt Ccy="EUR">85.06</Amt><CdtDbtInd>CRDT</CdtDbtInd>', '<Amt Ccy="EUR">255.18</Amt><CdtDbtInd>CRDT</CdtDbtInd>')
      .replace('<Amt Ccy="EUR">85.06</Amt><CdtDbtInd>CRDT</CdtDbtInd>', '<Amt Ccy="EUR">85.06</Amt><CdtDbtInd>DBIT</CdtDbtInd>');
    const parsed = parseStatement(Buffer.from(netted));
    assert.deepEqual(parsed.entries[0]!.transactions, [
      {
        amount: '170.12',
        currency: 'EUR',
        remittanceText: 'SAMMLER-GUTSCHRIFT',
        endToEndId: null,
        creditorReference: null,
        counterpartyName: null,
        counterpartyIban: null,
      },
    ]);
    assert.deepEqual(parsed.notes, [
      {
        where: 'camt statement DAY-2026-11-21, entry 1',
        cause: 'a batch whose transactions net credits and debits is kept as one booking without their details',
      },
    ]);
    assert.equal(
      refusal(netted.replace('255.18', '255.2')),
      'camt statement DAY-2026-11-21, entry 1: its 2 transactions net to 170.14 (255.20 less 85.06 the other way), the entry books 170.12',
    );
  });
});

describe('every legitimate way of declaring the namespace', () => {
  const plain = dayIn('camt.053', 8);
  const ns = NS('camt.053', '08');
  const body = plain.slice(plain.indexOf('<BkToCstmrStmt>'), plain.indexOf('</Document>'));
  const prefixed = (prefix: string, text: string) => text.replace(/<(\/?)([A-Za-z])/g, `<$1${prefix}:$2`);
  const expected = parseStatement(Buffer.from(plain));

  const shapes: Record<string, string> = {
    'a prefix on every element (JAXB ns2:)': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><ns2:Document xmlns:ns2="${ns}">${prefixed('ns2', body)}</ns2:Document>`,
    'a prefix on the root, the default namespace below': `<?xml version="1.0"?><c:Document xmlns:c="${ns}"><BkToCstmrStmt xmlns="${ns}">${body.slice('<BkToCstmrStmt>'.length)}</c:Document>`,
    'an unprefixed root in no namespace, prefixed elements below': `<?xml version="1.0"?><Document xmlns:n="${ns}">${prefixed('n', body)}</Document>`,
    'a prefix declared but not used (as some exporters write it)': `<?xml version="1.0"?><Document xmlns:ns2="${ns}">${body}</Document>`,
    'xsi:schemaLocation and xsi declared before the namespace': `<?xml version="1.0"?><Document xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="${ns} camt.053.001.08.xsd" xmlns="${ns}">${body}</Document>`,
    'single quotes, comments and a processing instruction before the root': `<?xml version='1.0' encoding='UTF-8'?>\n<!-- export 2026-11-21 -->\n<?bank-export v2?>\n<Document xmlns='${ns}'>${body}</Document>`,
    'the Document in an envelope with a business application header': `<?xml version="1.0"?><BizMsgEnvlp><AppHdr xmlns="urn:iso:std:iso:20022:tech:xsd:head.001.001.02"><Fr><FIId><FinInstnId><BICFI>COBADEFFXXX</BICFI></FinInstnId></FIId></Fr><MsgDefIdr>camt.053.001.08</MsgDefIdr></AppHdr><Document xmlns="${ns}">${body}</Document></BizMsgEnvlp>`,
  };
  for (const [shape, xml] of Object.entries(shapes))
    test(shape, () => {
      const parsed = parseStatement(Buffer.from(xml));
      assert.equal(parsed.format, 'camt.053.001.08');
      assert.deepEqual(parsed.entries, expected.entries);
    });

  test('a byte order mark, an ISO-8859-1 file, a UTF-16 file and character references read the same umlauts', () => {
    const withName = plain.replace('Beta KG', 'Müller &amp; Söhne');
    const latin1 = iconv.encode(withName.replace('encoding="UTF-8"', 'encoding="ISO-8859-1"'), 'latin1');
    const files = [
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(withName)]),
      latin1,
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(withName.replace('encoding="UTF-8"', 'encoding="UTF-16"'), 'utf16le')]),
      Buffer.from(plain.replace('Beta KG', 'M&#252;ller &amp; S&#xF6;hne')),
    ];
    for (const file of files) assert.equal(parseStatement(file).entries[0]!.transactions[1]!.counterpartyName, 'Müller & Söhne');
  });
});

describe('camt.052 intraday reports', () => {
  test('reads entries booked and pending; opening + booked entries = intraday booked balance (ITBD)', () => {
    const parsed = parseStatement(fixture('camt052-v08.xml'));
    assert.equal(parsed.format, 'camt.052.001.08');
    assert.equal(parsed.kind, 'report');
    // OPBD 1000.00, ITBD 1099.01 (the report's closing figure).
    assert.deepEqual(parsed.statements, [
      { id: '052-2026-11-23-1400', iban: COMPANY_IBAN, account: COMPANY_IBAN, currency: 'EUR', opening: '1000', closing: '1099.01' },
    ]);
    assert.deepEqual(
      parsed.entries.map((e) => [e.status, e.direction, e.amount, e.bookingDate, e.bankReference]),
      [
        ['BOOK', 'credit', '119.00', '2026-11-23', '2026112300000815'],
        ['BOOK', 'debit', '19.99', '2026-11-23', '2026112300000816'],
        ['PDNG', 'credit', '50.00', '2026-11-24', '2026112300000817'],
      ],
    );
    assert.match(parsed.entries[2]!.key, /^pdng:/, 'a pending entry is keyed apart from its later booking');
  });

  test('an intraday balance that does not add up is refused; a report without balances is read', () => {
    const report = fixtureText('camt052-v08.xml');
    assert.equal(
      refusal(report.replace('<Amt Ccy="EUR">1099.01</Amt>', '<Amt Ccy="EUR">1099.1</Amt>')),
      'camt report 052-2026-11-23-1400: opening balance 1000.00 + entries 99.01 ≠ intraday balance 1099.10; the file does not add up: download it again from online banking',
    );
    const withoutBalances = report.replace(/<Bal>[\s\S]*?<\/Bal>\s*/g, '');
    assert.equal(parseStatement(Buffer.from(withoutBalances)).entries.length, 3);
    const onlyOpening = report.replace(/<Bal>\s*<Tp><CdOrPrtry><Cd>IT[\s\S]*?<\/Bal>\s*/g, '');
    assert.equal(parseStatement(Buffer.from(onlyOpening)).entries.length, 3, 'an opening balance alone checks nothing');
  });
});

describe('camt.054 notifications', () => {
  test('the booking a notification announces reads field for field as in the day’s statement, with the same key', () => {
    const notification = parseStatement(fixture('camt054-v08.xml'));
    const statement = parseStatement(fixture('camt053-v08-same-day.xml'));
    assert.equal(notification.format, 'camt.054.001.08');
    assert.equal(notification.kind, 'notification');
    assert.equal(statement.format, 'camt.053.001.08');
    assert.deepEqual(notification.statements, [
      { id: '054-2026-11-23-0007', iban: COMPANY_IBAN, account: COMPANY_IBAN, currency: 'EUR', opening: null, closing: null },
    ]);
    const announced = notification.entries[0]!;
    const booked = statement.entries.find((e) => e.direction === 'credit')!;
    assert.deepEqual(booking(announced), booking(booked));
    assert.equal(announced.key, booked.key);
    assert.notEqual(statement.entries[0]!.key, announced.key);
  });
});

describe('files that are no camt statement are refused with what they are and what to download', () => {
  const v08 = dayIn('camt.053', 8);
  const DOWNLOAD = 'download the account statement as camt.053 (or MT940) from online banking';
  const withNamespace = (namespace: string) => v08.replace(NS('camt.053', '08'), namespace);

  test('other ISO 20022 messages', () => {
    const pain001 = `<?xml version="1.0"?><Document xmlns="${NS('pain.001', '09')}"><CstmrCdtTrfInitn><GrpHdr><MsgId>1</MsgId></GrpHdr></CstmrCdtTrfInitn></Document>`;
    assert.equal(refusal(pain001), `the file is a pain.001 payment order (a transfer you send to the bank), not an account statement; ${DOWNLOAD}`);
    assert.equal(
      refusal(`<Document xmlns="${NS('pain.008', '08')}"><CstmrDrctDbtInitn/></Document>`),
      `the file is a pain.008 direct debit order (collections you send to the bank), not an account statement; ${DOWNLOAD}`,
    );
    assert.equal(
      refusal(`<Document xmlns="${NS('camt.086', '05')}"><BkSvcsBllgStmt/></Document>`),
      `the file is a camt.086 bank services billing statement (the bank's charges), not an account statement; ${DOWNLOAD}`,
    );
    assert.equal(
      refusal(`<Document xmlns="${NS('camt.060', '05')}"><AcctRptgReq/></Document>`),
      `the file is an ISO 20022 camt.060 message, not an account statement; ${DOWNLOAD}`,
    );
  });

  test('camt versions before .02 and after .13', () => {
    assert.equal(
      refusal(withNamespace(NS('camt.053', '01'))),
      `the file is camt.053.001.01, an early version Kontor does not read (it reads camt.053.001.02 to .13); ${DOWNLOAD}`,
    );
    assert.equal(
      refusal(withNamespace(NS('camt.054', '14')).replaceAll('BkToCstmrStmt', 'BkToCstmrDbtCdtNtfctn')),
      `the file is camt.054.001.14, a newer version Kontor does not read (it reads camt.054.001.02 to .13); ${DOWNLOAD}`,
    );
  });

  test('a namespace that is not ISO 20022, none at all, or one that contradicts the document', () => {
    assert.equal(
      refusal(withNamespace('urn:iso:std:iso:20022:tech:xsd:camt')),
      `the XML <Document> has the namespace "urn:iso:std:iso:20022:tech:xsd:camt", which is no ISO 20022 message; ${DOWNLOAD}`,
    );
    assert.equal(
      refusal(v08.replace(` xmlns="${NS('camt.053', '08')}"`, '')),
      `the XML <Document> declares no ISO 20022 namespace, so it is no bank statement Kontor can read; ${DOWNLOAD}`,
    );
    assert.equal(
      refusal(withNamespace(NS('camt.052', '08'))),
      'the namespace says camt.052 but the document holds a camt.053 <BkToCstmrStmt>; the file is damaged, ask the bank for it again',
    );
  });

  test('XML that is no ISO 20022 message at all, and XML declaring a DOCTYPE', () => {
    assert.equal(
      refusal('<?xml version="1.0"?><Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/>'),
      `the file is an e-invoice (UBL Invoice), not an ISO 20022 bank statement; ${DOWNLOAD}`,
    );
    assert.equal(
      refusal('<?xml version="1.0"?>\n<konten><konto nr="1"/></konten>'),
      `the file is XML with the root element <konten>, not an ISO 20022 bank statement; ${DOWNLOAD}`,
    );
    assert.equal(
      refusal(`<?xml version="1.0"?><!DOCTYPE Document [<!ENTITY x "x">]>${v08.slice(v08.indexOf('<Document'))}`),
      'the XML declares a DOCTYPE, which bank statement files never do; the file is refused',
    );
  });

  test('a ZIP archive given to the parser directly', () => {
    assert.match(refusal(Buffer.from(zipSync({ 'a.xml': Buffer.from(v08) }))), /^the file is a ZIP archive; unpack it/);
  });
});

/** Where each element of a document starts and ends (its end tag included). */
function elementsOf(xml: string): { start: number; end: number }[] {
  const elements: { start: number; end: number }[] = [];
  for (const tag of xml.matchAll(/<([A-Za-z][\w:]*)[^>]*?(\/?)>/g)) {
    if (tag[2]) {
      elements.push({ start: tag.index, end: tag.index + tag[0].length });
      continue;
    }
    const name = tag[1]!;
    let depth = 0;
    for (const other of xml.slice(tag.index).matchAll(new RegExp(`<(/?)${name}[\\s>]`, 'g'))) {
      depth += other[1] ? -1 : 1;
      if (depth === 0) {
        elements.push({ start: tag.index, end: tag.index + other.index + name.length + 3 });
        break;
      }
    }
  }
  return elements;
}

describe('messages name the statement and entry, never the payer', () => {
  const v08 = dayIn('camt.053', 8);

  test('where the error is, with amounts in two decimals', () => {
    assert.equal(
      refusal(v08.replace('<Amt Ccy="EUR">615.18</Amt>', '<Amt Ccy="EUR">615</Amt>')),
      'camt statement DAY-2026-11-21: opening balance 500.00 + entries 115.18 ≠ closing balance 615.00; the file does not add up: download it again from online banking',
    );
    assert.equal(
      refusal(v08.replace('<Amt Ccy="EUR">85.06</Amt>', '<Amt Ccy="EUR">85</Amt>')),
      'camt statement DAY-2026-11-21, entry 1: its 2 transactions sum to 170.06, the entry books 170.12',
    );
    assert.equal(
      refusal(v08.replace('<Dt>2026-11-21</Dt></BookgDt>', '<Dt>2026-02-30</Dt></BookgDt>')),
      'camt statement DAY-2026-11-21, entry 2: booking date (BookgDt) "2026-02-30" is not a date',
    );
    assert.equal(
      refusal(v08.replace('<Amt Ccy="EUR">54.94</Amt>', '<Amt Ccy="EURO">54.94</Amt>')),
      'camt statement DAY-2026-11-21, entry 2: currency "EURO" is not a currency code',
    );
    assert.equal(
      refusal(v08.replace('<Sts><Cd>PDNG</Cd></Sts>', '<Sts><Cd>Vorgemerkt am Montag</Cd></Sts>')).split(':')[0],
      'camt statement DAY-2026-11-21, entry 3',
    );
  });

  test('fuzz: cut at 200 places and with elements deleted, a file is read or refused with a StatementError that names no payer', () => {
    const sources = [fixtureText('camt053-v08.xml'), fixtureText('camt053-v04.xml'), fixtureText('camt052-v08.xml'), fixtureText('camt054-v08.xml'), v08];
    const personal = [
      'Alpha GmbH',
      'Beta KG',
      'Gamma',
      'Epsilon',
      'Eta Logistik',
      'DE02120300000000202051',
      'DE75512108001245126199',
      'RE-2026-0000',
      'Strom November',
      'Kunde',
    ];
    let seed = 20261121;
    const random = () => {
      // mulberry32: the same cases on every run.
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const outcomes = { read: 0, refused: 0 };
    const attempt = (content: string, what: string) => {
      try {
        parseStatement(Buffer.from(content));
        outcomes.read++;
      } catch (error) {
        assert.ok(error instanceof StatementError, `${what}: ${String(error)}`);
        assert.doesNotMatch(error.message, /TypeError|RangeError|undefined|\[object|NaN/, what);
        for (const value of personal) assert.ok(!error.message.includes(value), `${what}: "${error.message}" names ${value}`);
        outcomes.refused++;
      }
    };
    for (const source of sources) {
      for (let i = 0; i < 40; i++) {
        const at = Math.floor(random() * source.length);
        attempt(source.slice(0, at), `cut at ${at}`);
      }
      const elements = elementsOf(source);
      for (let i = 0; i < 60; i++) {
        const one = elements[Math.floor(random() * elements.length)]!;
        attempt(source.slice(0, one.start) + source.slice(one.end), `without ${source.slice(one.start, one.start + 40)}`);
        const two = elements[Math.floor(random() * elements.length)]!;
        const [first, second] = one.start < two.start ? [one, two] : [two, one];
        if (first.end <= second.start)
          attempt(
            source.slice(0, first.start) + source.slice(first.end, second.start) + source.slice(second.end),
            `without ${source.slice(first.start, first.start + 30)} and ${source.slice(second.start, second.start + 30)}`,
          );
      }
    }
    assert.ok(outcomes.read > 0 && outcomes.refused > 200, JSON.stringify(outcomes));
  });
});

describe('ZIP archives of camt files', () => {
  const day = (n: number) => Buffer.from(dayIn('camt.053', 8).replaceAll('DAY-2026-11-21', `DAY-2026-11-${n}`));
  const zip = (files: Record<string, Uint8Array>) => Buffer.from(zipSync(files));
  /** The central directory entry of `name` (for changing what the archive claims about it). */
  const directoryEntry = (archive: Buffer, name: string) => {
    const at = archive.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]), archive.lastIndexOf(Buffer.from(name)) - 60);
    assert.equal(archive.subarray(at + 46, at + 46 + name.length).toString(), name);
    return at;
  };

  test('a day archive unpacks into its statement files in the order of their names, without directories, __MACOSX and hidden files', () => {
    const archive = zip({
      '2026-11-23.xml': day(23),
      '2026-11-21.xml': day(21),
      '__MACOSX/._2026-11-21.xml': Buffer.from('resource fork'),
      '.DS_Store': Buffer.from('finder'),
      'export/': new Uint8Array(),
      'export/2026-11-22.xml': day(22),
    });
    assert.equal(isZipArchive(archive), true);
    assert.equal(isZipArchive(day(21)), false);
    const files = unpackStatementArchive(archive);
    assert.deepEqual(
      files.map((f) => f.name),
      ['2026-11-21.xml', '2026-11-23.xml', 'export/2026-11-22.xml'],
    );
    assert.deepEqual(files[2]!.bytes, day(22));
    assert.deepEqual(
      files.map((f) => parseStatement(f.bytes).statements[0]!.id),
      ['DAY-2026-11-21', 'DAY-2026-11-23', 'DAY-2026-11-22'],
    );
  });

  const refused = (archive: Buffer) => {
    try {
      unpackStatementArchive(archive);
    } catch (error) {
      assert.ok(error instanceof StatementError, String(error));
      return error.message;
    }
    assert.fail('the archive was unpacked');
  };

  test('refuses an archive without statement files, with another ZIP inside, or damaged', () => {
    assert.equal(refused(zip({ '__MACOSX/._a.xml': Buffer.from('x'), 'leer/': new Uint8Array() })), 'the ZIP archive holds no statement files');
    assert.equal(
      refused(zip({ 'a.xml': day(21), 'november.zip': zip({ 'b.xml': day(22) }) })),
      'the ZIP archive holds another ZIP archive (november.zip); unpack that one and import its files',
    );
    assert.equal(
      refused(zip({ 'a.xml': day(21), 'b.xml': zip({ 'c.xml': day(22) }) })),
      'the ZIP archive holds another ZIP archive (b.xml); unpack that one and import its files',
    );
    const whole = zip({ 'a.xml': day(21) });
    assert.match(refused(whole.subarray(0, whole.length - 30)), /^the ZIP archive is damaged/);
    assert.equal(refused(day(21)), 'the file is not a ZIP archive');
  });

  test('an Excel workbook (xlsx, itself a ZIP) is named as such, not unpacked', () => {
    const xlsx = zip({ '[Content_Types].xml': Buffer.from('<Types/>'), 'xl/workbook.xml': Buffer.from('<workbook/>') });
    assert.match(
      refused(xlsx),
      /^the file is an Excel workbook or another Office document \(a ZIP of its own\), not a statement; download the account statement/,
    );
  });

  test('refuses a password-protected entry', () => {
    const archive = zip({ 'a.xml': day(21), 'b.xml': day(22) });
    const entry = directoryEntry(archive, 'b.xml');
    archive.writeUInt16LE(archive.readUInt16LE(entry + 8) | 1, entry + 8);
    assert.equal(refused(archive), 'the ZIP archive is password-protected (b.xml); download it again without a password');
  });

  test('refuses an archive that unpacks to more than 200 MB, from its directory before inflating anything', () => {
    const archive = zip({ 'a.xml': day(21), 'b.xml': day(22) });
    // The directory claims 300 MB for b.xml: inflating it would fail, so the refusal comes first.
    archive.writeUInt32LE(300 * 1024 * 1024, directoryEntry(archive, 'b.xml') + 24);
    assert.equal(refused(archive), 'the ZIP archive unpacks to 301 MB, more than the 200 MB Kontor accepts; import its files in smaller parts');
    const bomb = zip({ 'zeros.xml': new Uint8Array(3 * 1024 * 1024) });
    assert.ok(bomb.length < 20_000);
    assert.throws(() => unpackStatementArchive(bomb, 2 * 1024 * 1024), /unpacks to 3 MB, more than the 2 MB/);
  });
});
