import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { XMLParser } from 'fast-xml-parser';
import { buildPain001, PAIN_001_NAMESPACE, type PayoutBatch, PayoutFileError, type PayoutPayment } from '../../src/modules/payouts/pain001.ts';
import { isSepaIdentifier, isSepaText, sepaText } from '../../src/modules/payouts/sepa-text.ts';
import { sepaSchemaErrors } from './sepa-schema.ts';

/** The schema errors of `xml` (empty when it is valid). */
const schemaErrors = sepaSchemaErrors;

// ---- reading the file back ---------------------------------------------------------------

type Node = Record<string, unknown>;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  isArray: (name) => name === 'CdtTrfTxInf' || name === 'PmtInf',
});

function at(node: unknown, ...keys: string[]): unknown {
  return keys.reduce<unknown>((current, key) => (current as Node | undefined)?.[key], node);
}

function text(node: unknown): string {
  if (typeof node === 'string') return node;
  const value = (node as Node | undefined)?.['#text'];
  if (typeof value !== 'string') throw new Error(`no text in ${JSON.stringify(node)}`);
  return value;
}

function readPain001(xml: string) {
  const document = parser.parse(xml).Document as Node;
  const initiation = document.CstmrCdtTrfInitn as Node;
  const paymentInfos = initiation.PmtInf as Node[];
  assert.equal(paymentInfos.length, 1, 'one PmtInf per file');
  const pmtInf = paymentInfos[0]!;
  return { document, groupHeader: initiation.GrpHdr as Node, pmtInf, transactions: pmtInf.CdtTrfTxInf as Node[] };
}

/** Every text and attribute value in the document, with where it stands. */
function allValues(node: unknown, where = ''): { where: string; value: string }[] {
  if (typeof node === 'string') return [{ where, value: node }];
  if (Array.isArray(node)) return node.flatMap((item, i) => allValues(item, `${where}[${i}]`));
  if (node !== null && typeof node === 'object') {
    const entries = Object.entries(node);
    // The line breaks and indentation between child elements are layout, not values.
    const layout = (key: string, value: unknown) => key === '#text' && entries.length > 1 && typeof value === 'string' && value.trim() === '';
    return entries.filter(([key, value]) => !layout(key, value)).flatMap(([key, value]) => allValues(value, `${where}/${key}`));
  }
  return [];
}

function valuesOf(node: unknown, name: string): string[] {
  return allValues(node)
    .filter(({ where }) => where.endsWith(`/${name}`) || where.endsWith(`/${name}/#text`) || new RegExp(`/${name}\\[\\d+\\]$`).test(where))
    .map(({ value }) => value);
}

// ---- test data ---------------------------------------------------------------------------

// Widely used example IBANs (valid check digits, no real partner's account) with the BICs of their banks.
const KONTOR = { name: 'Kontor Software GmbH', iban: 'DE89 3704 0044 0532 0130 00', bic: 'COBADEFFXXX' };

function payment(overrides: Partial<PayoutPayment> & { endToEndId: string }): PayoutPayment {
  return {
    amountCents: 10_000n,
    creditor: { name: 'Partner GmbH', iban: 'DE02120300000000202051', bic: null },
    remittance: 'Provision',
    ...overrides,
  };
}

function batch(payments: PayoutPayment[], overrides: Partial<PayoutBatch> = {}): PayoutBatch {
  return {
    messageId: 'KONTOR-PAYOUT-2025-06-0001',
    createdAt: new Date('2025-06-30T08:15:42.123Z'),
    executionDate: '2025-07-01',
    debtor: KONTOR,
    payments,
    ...overrides,
  };
}

const LONG_NAME = 'Jürgen Weißenbäcker-Özdemir Unternehmensberatung für Vertriebspartnerschaften & Provisionen GmbH & Co. KG';
const LONG_REMITTANCE =
  'Provisionsabrechnung Juni 2025, Gutschrift GS-2025-0612 über vermittelte Verträge: Müller, Schäfer, Böhm, Strauß, Lefèvre, Nuñez, Øster & Co.; Rückfragen an buchhaltung@kontor.example';

const MIXED: PayoutPayment[] = [
  payment({
    endToEndId: 'PO-2025-06-0001',
    amountCents: 123_456n,
    creditor: { name: 'Müller & Söhne OHG', iban: 'DE02500105170137075030', bic: 'INGDDEFFXXX' },
    remittance: 'Provision Juni 2025 für Gutschrift GS-2025-0611',
  }),
  payment({
    endToEndId: 'PO-2025-06-0002',
    amountCents: 9_999,
    creditor: { name: 'Straßenbau Weiß KG', iban: 'DE02120300000000202051', bic: null },
    remittance: 'Provision Juni 2025',
  }),
  payment({
    endToEndId: 'PO-2025-06-0003',
    amountCents: 1n,
    creditor: { name: 'Café Lefèvre – Agence Créative', iban: 'AT61 1904 3002 3457 3201', bic: 'bkauatww' },
    remittance: 'Commission juin « été » 2025',
  }),
  payment({
    endToEndId: 'PO-2025-06-0004',
    amountCents: 50_000n,
    creditor: { name: LONG_NAME, iban: 'DE89370400440532013000', bic: 'BYLADEM1001' },
    remittance: LONG_REMITTANCE,
  }),
];

// ---- the schema ----------------------------------------------------------------------------

describe('pain.001.001.09 against the EPC schema', () => {
  test('a batch with umlauts, ß, é, &, overlong texts, with and without creditor BIC is valid', async () => {
    const xml = buildPain001(batch(MIXED));
    assert.deepEqual(await schemaErrors(xml), []);
  });

  test('a debtor without BIC (DbtrAgt NOTPROVIDED) is valid', async () => {
    const xml = buildPain001(batch(MIXED, { debtor: { ...KONTOR, bic: null } }));
    assert.deepEqual(await schemaErrors(xml), []);
    const { pmtInf } = readPain001(xml);
    assert.equal(text(at(pmtInf, 'DbtrAgt', 'FinInstnId', 'Othr', 'Id')), 'NOTPROVIDED');
    assert.equal(at(pmtInf, 'DbtrAgt', 'FinInstnId', 'BICFI'), undefined);
  });

  test('the validator is not vacuous: an amount with three decimals is an error', async () => {
    const xml = buildPain001(batch(MIXED));
    const broken = xml.replace('<InstdAmt Ccy="EUR">0.01</InstdAmt>', '<InstdAmt Ccy="EUR">1.234</InstdAmt>');
    assert.notEqual(broken, xml);
    const errors = await schemaErrors(broken);
    assert.ok(
      errors.some((error) => error.includes('InstdAmt')),
      errors.join('\n'),
    );
  });

  test('the validator is not vacuous: a creditor account without IBAN is an error', async () => {
    const xml = buildPain001(batch(MIXED));
    const broken = xml.replace('<IBAN>DE02120300000000202051</IBAN>', '');
    assert.notEqual(broken, xml);
    assert.ok((await schemaErrors(broken)).length > 0);
  });

  test('the validator is not vacuous: a name over 70 characters is an error', async () => {
    const xml = buildPain001(batch(MIXED));
    const broken = xml.replace('<Nm>Mueller + Soehne OHG</Nm>', `<Nm>${'A'.repeat(71)}</Nm>`);
    assert.notEqual(broken, xml);
    assert.ok((await schemaErrors(broken)).some((error) => error.includes('Nm')));
  });

  test('the schema alone lets USD and a wrong CtrlSum through, so those rules are checked below', async () => {
    const xml = buildPain001(batch(MIXED));
    const foreign = xml.replace('Ccy="EUR"', 'Ccy="USD"').replace(/<CtrlSum>[^<]*<\/CtrlSum>/g, '<CtrlSum>1.00</CtrlSum>');
    assert.deepEqual(await schemaErrors(foreign), []);
  });
});

// ---- the rules the schema does not check -------------------------------------------------

describe('pain.001 rules beyond the schema, read back from the file', () => {
  const xml = buildPain001(batch(MIXED));
  const { document, groupHeader, pmtInf, transactions } = readPain001(xml);

  test('starts with the UTF-8 declaration and uses the pain.001.001.09 namespace', () => {
    assert.ok(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n'));
    assert.equal(document['@xmlns'], PAIN_001_NAMESPACE);
  });

  test('every text and attribute is in the SEPA Latin character set', () => {
    const values = allValues(document);
    assert.ok(values.length > 40);
    for (const { where, value } of values) assert.ok(isSepaText(value), `${where}: ${JSON.stringify(value)}`);
  });

  test('every amount is in EUR', () => {
    const amounts = transactions.map((tx) => at(tx, 'Amt', 'InstdAmt') as Node);
    assert.equal(amounts.length, MIXED.length);
    for (const amount of amounts) assert.equal(amount['@Ccy'], 'EUR');
    assert.deepEqual(
      allValues(document).filter(({ where }) => where.endsWith('/@Ccy')),
      amounts.map((_, i) => ({ where: `/CstmrCdtTrfInitn/PmtInf[0]/CdtTrfTxInf[${i}]/Amt/InstdAmt/@Ccy`, value: 'EUR' })),
    );
  });

  test('the charge bearer is SLEV, once for the whole PmtInf', () => {
    assert.equal(text(pmtInf.ChrgBr), 'SLEV');
    assert.deepEqual(valuesOf(document, 'ChrgBr'), ['SLEV']);
  });

  test('the payment type is SEPA, TRF, batch booking requested, executed on the requested date', () => {
    assert.equal(text(at(pmtInf, 'PmtTpInf', 'SvcLvl', 'Cd')), 'SEPA');
    assert.equal(text(pmtInf.PmtMtd), 'TRF');
    assert.equal(text(pmtInf.BtchBookg), 'true');
    assert.equal(text(at(pmtInf, 'ReqdExctnDt', 'Dt')), '2025-07-01');
    assert.equal(text(groupHeader.CreDtTm), '2025-06-30T08:15:42Z');
  });

  test('NbOfTxs and CtrlSum in GrpHdr and PmtInf equal the count and the exact sum', () => {
    const sum = MIXED.reduce((total, p) => total + BigInt(p.amountCents), 0n);
    assert.equal(sum, 183_456n);
    for (const header of [groupHeader, pmtInf]) {
      assert.equal(text(header.NbOfTxs), String(MIXED.length));
      assert.equal(text(header.CtrlSum), '1834.56');
    }
    const amounts = transactions.map((tx) => text(at(tx, 'Amt', 'InstdAmt')));
    assert.deepEqual(amounts, ['1234.56', '99.99', '0.01', '500.00']);
  });

  test('EndToEndIds are unique and passed on unchanged', () => {
    const ids = transactions.map((tx) => text(at(tx, 'PmtId', 'EndToEndId')));
    assert.deepEqual(
      ids,
      MIXED.map((p) => p.endToEndId),
    );
    assert.equal(new Set(ids).size, ids.length);
  });

  test('identifiers stay within 35, names within 70 and remittance within 140 characters', () => {
    for (const id of [...valuesOf(document, 'MsgId'), ...valuesOf(document, 'PmtInfId'), ...valuesOf(document, 'EndToEndId')]) assert.ok(id.length <= 35, id);
    const names = valuesOf(document, 'Nm');
    assert.equal(names.length, 2 + MIXED.length);
    for (const name of names) assert.ok(name.length >= 1 && name.length <= 70, name);
    for (const remittance of valuesOf(document, 'Ustrd')) assert.ok(remittance.length >= 1 && remittance.length <= 140, remittance);
  });

  test('names and remittance are transliterated, overlong ones cut', () => {
    const creditors = transactions.map((tx) => text(at(tx, 'Cdtr', 'Nm')));
    assert.deepEqual(creditors.slice(0, 3), ['Mueller + Soehne OHG', 'Strassenbau Weiss KG', 'Cafe Lefevre - Agence Creative']);
    assert.equal(creditors[3], sepaText(LONG_NAME, 70));
    assert.equal(creditors[3], 'Juergen Weissenbaecker-Oezdemir Unternehmensberatung fuer Vertriebspar');
    assert.equal(creditors[3]!.length, 70);
    const remittances = transactions.map((tx) => text(at(tx, 'RmtInf', 'Ustrd')));
    assert.equal(remittances[0], 'Provision Juni 2025 fuer Gutschrift GS-2025-0611');
    assert.equal(remittances[2], 'Commission juin ete 2025');
    assert.equal(remittances[3]!.length, 140);
    assert.ok(
      remittances[3]!.startsWith(
        'Provisionsabrechnung Juni 2025, Gutschrift GS-2025-0612 ueber vermittelte Vertraege: Mueller, Schaefer, Boehm, Strauss, Lefevre',
      ),
    );
  });

  test('accounts are in electronic form; the creditor agent is written only with a BIC', () => {
    assert.equal(text(at(pmtInf, 'DbtrAcct', 'Id', 'IBAN')), 'DE89370400440532013000');
    assert.equal(text(at(pmtInf, 'DbtrAgt', 'FinInstnId', 'BICFI')), 'COBADEFFXXX');
    assert.deepEqual(
      transactions.map((tx) => text(at(tx, 'CdtrAcct', 'Id', 'IBAN'))),
      ['DE02500105170137075030', 'DE02120300000000202051', 'AT611904300234573201', 'DE89370400440532013000'],
    );
    assert.deepEqual(
      transactions.map((tx) => at(tx, 'CdtrAgt', 'FinInstnId', 'BICFI')),
      ['INGDDEFFXXX', undefined, 'BKAUATWW', 'BYLADEM1001'],
    );
    assert.equal(transactions[1]!.CdtrAgt, undefined);
  });

  test('an empty remittance leaves RmtInf out', async () => {
    const out = buildPain001(batch([payment({ endToEndId: 'PO-1', remittance: ' „“ ' })]));
    assert.equal(readPain001(out).transactions[0]!.RmtInf, undefined);
    assert.deepEqual(await schemaErrors(out), []);
  });
});

// ---- refusals ------------------------------------------------------------------------------

describe('buildPain001 refuses what cannot be a valid file', () => {
  const ok = (endToEndId: string) => payment({ endToEndId });
  const refusals: [string, PayoutBatch, RegExp][] = [
    ['refuses a batch without payments', batch([]), /no payments/],
    [
      'refuses an amount of 0',
      batch([ok('PO-1'), payment({ endToEndId: 'PO-2', amountCents: 0n })]),
      /Payment 2 \(EndToEndId "PO-2"\): the amount must be at least 0\.01/,
    ],
    ['refuses a negative amount', batch([payment({ endToEndId: 'PO-1', amountCents: -500 })]), /Payment 1 .*at least 0\.01 EUR, not -5\.00/],
    [
      'refuses an amount over 999999999.99',
      batch([payment({ endToEndId: 'PO-1', amountCents: 100_000_000_000n })]),
      /1000000000\.00 EUR is above the SEPA limit/,
    ],
    ['refuses an amount that is not whole cents', batch([payment({ endToEndId: 'PO-1', amountCents: 12.5 })]), /12\.5 is not a whole number of cents/],
    ['refuses an amount beyond the exact numbers', batch([payment({ endToEndId: 'PO-1', amountCents: 2 ** 53 })]), /not a whole number of cents/],
    [
      'refuses a creditor IBAN with wrong check digits',
      batch([ok('PO-1'), payment({ endToEndId: 'PO-2', creditor: { name: 'Schäfer GmbH', iban: 'DE03120300000000202051', bic: null } })]),
      /Payment 2 \(EndToEndId "PO-2"\): the creditor "Schaefer GmbH" has an IBAN that is not valid/,
    ],
    [
      'refuses a debtor IBAN with wrong check digits',
      batch([ok('PO-1')], { debtor: { ...KONTOR, iban: 'DE89370400440532013001' } }),
      /Debtor "Kontor Software GmbH" has an IBAN that is not valid/,
    ],
    [
      'refuses an IBAN outside SEPA',
      batch([payment({ endToEndId: 'PO-1', creditor: { name: 'Parceiro Ltda', iban: 'BR1800360305000010009795493C1', bic: null } })]),
      /IBAN of BR, which is not in SEPA/,
    ],
    [
      'refuses a creditor outside the EEA without BIC',
      batch([payment({ endToEndId: 'PO-1', creditor: { name: 'Partner AG', iban: 'CH9300762011623852957', bic: null } })]),
      /outside the EEA \(CH\), where a SEPA transfer needs the BIC/,
    ],
    [
      'refuses a creditor BIC that is not a BIC',
      batch([payment({ endToEndId: 'PO-1', creditor: { name: 'Partner GmbH', iban: 'DE02120300000000202051', bic: 'COBADEF' } })]),
      /Payment 1 .*BIC "COBADEF" that is not valid/,
    ],
    [
      'refuses a debtor BIC with an unknown country',
      batch([ok('PO-1')], { debtor: { ...KONTOR, bic: 'COBAXXFFXXX' } }),
      /Debtor .*BIC "COBAXXFFXXX" that is not valid/,
    ],
    [
      'refuses duplicate EndToEndIds',
      batch([ok('PO-1'), ok('PO-2'), ok('PO-1')]),
      /Payment 3 \(EndToEndId "PO-1"\): this EndToEndId is already used by payment 1/,
    ],
    [
      'refuses a creditor name empty after transliteration',
      batch([payment({ endToEndId: 'PO-1', creditor: { name: '株式会社', iban: 'DE02120300000000202051', bic: null } })]),
      /Payment 1 .*the creditor's name "株式会社" is empty in the SEPA character set/,
    ],
    ['refuses a debtor name empty after transliteration', batch([ok('PO-1')], { debtor: { ...KONTOR, name: ' \t ' } }), /Debtor's name .* is empty/],
    [
      'refuses an EndToEndId over 35 characters',
      batch([ok('PO-1'), payment({ endToEndId: 'P'.repeat(36) })]),
      /Payment 2 .*EndToEndId must be 1–35 SEPA characters/,
    ],
    [
      'refuses an EndToEndId outside the SEPA character set',
      batch([payment({ endToEndId: 'Provision-Mai-Müller' })]),
      /EndToEndId must be 1–35 SEPA characters/,
    ],
    ['refuses an EndToEndId starting with a slash', batch([payment({ endToEndId: '/PO-1' })]), /not starting or ending with "\/"/],
    ['refuses an EndToEndId with a double slash', batch([payment({ endToEndId: 'PO//1' })]), /nor containing "\/\/"/],
    ['refuses an empty EndToEndId', batch([payment({ endToEndId: '' })]), /EndToEndId must be 1–35/],
    ['refuses a message id over 35 characters', batch([ok('PO-1')], { messageId: 'K'.repeat(36) }), /message id .* must be 1–35 SEPA characters/],
    ['refuses a message id with an underscore', batch([ok('PO-1')], { messageId: 'KONTOR_PAYOUT_1' }), /message id/],
    [
      'refuses an execution date that is no calendar date',
      batch([ok('PO-1')], { executionDate: '2025-02-29' }),
      /execution date "2025-02-29" is not a calendar date/,
    ],
    ['refuses an execution date in another form', batch([ok('PO-1')], { executionDate: '01.07.2025' }), /not a calendar date/],
    ['refuses an invalid creation time', batch([ok('PO-1')], { createdAt: new Date('not a date') }), /creation time/],
  ];
  for (const [name, input, message] of refusals) {
    test(name, () => {
      assert.throws(
        () => buildPain001(input),
        (error: unknown) => error instanceof PayoutFileError && error.name === 'PayoutFileError' && message.test(error.message),
      );
    });
  }

  test('a refusal names the payment by position and EndToEndId', () => {
    const error = (() => {
      try {
        buildPain001(batch([ok('PO-1'), payment({ endToEndId: 'PO-2', amountCents: 0 })]));
      } catch (caught) {
        return caught;
      }
    })();
    assert.ok(error instanceof PayoutFileError);
    assert.deepEqual(error.payment, { position: 2, endToEndId: 'PO-2' });
  });
});

// ---- money -------------------------------------------------------------------------------

describe('amounts are exact decimal strings of the integer cents', () => {
  const amounts = (xml: string) => readPain001(xml).transactions.map((tx) => text(at(tx, 'Amt', 'InstdAmt')));

  test('1 cent is 0.01 and 999999999.99 EUR is written in full, as bigint and as number', async () => {
    const xml = buildPain001(
      batch([
        payment({ endToEndId: 'PO-1', amountCents: 1 }),
        payment({ endToEndId: 'PO-2', amountCents: 99_999_999_999n }),
        payment({ endToEndId: 'PO-3', amountCents: 99_999_999_999 }),
        payment({ endToEndId: 'PO-4', amountCents: 10 }),
      ]),
    );
    assert.deepEqual(amounts(xml), ['0.01', '999999999.99', '999999999.99', '0.10']);
    const { groupHeader, pmtInf } = readPain001(xml);
    assert.equal(text(groupHeader.CtrlSum), '2000000000.09');
    assert.equal(text(pmtInf.CtrlSum), '2000000000.09');
    assert.deepEqual(await schemaErrors(xml), []);
  });

  test('a sum whose float sum is inexact (1000 × 0.10 + 1000 × 0.20) is exact', async () => {
    const payments = Array.from({ length: 2000 }, (_, i) => payment({ endToEndId: `PO-${i + 1}`, amountCents: i % 2 === 0 ? 10 : 20n }));
    let floatSum = 0;
    for (let i = 0; i < 2000; i++) floatSum += i % 2 === 0 ? 0.1 : 0.2;
    assert.notEqual(floatSum, 300, 'the float sum drifts, which is what this test guards against');
    const xml = buildPain001(batch(payments));
    const { groupHeader, pmtInf } = readPain001(xml);
    assert.equal(text(groupHeader.NbOfTxs), '2000');
    assert.equal(text(groupHeader.CtrlSum), '300.00');
    assert.equal(text(pmtInf.CtrlSum), '300.00');
    assert.deepEqual(await schemaErrors(xml), []);
  });

  test('maximal amounts and a cent add up exactly where floats do not', () => {
    const cents = [99_999_999_999n, 99_999_999_999n, 99_999_999_999n, 1n];
    assert.notEqual(999999999.99 * 3 + 0.01, 2999999999.98, 'the float sum is off');
    const { groupHeader } = readPain001(buildPain001(batch(cents.map((amountCents, i) => payment({ endToEndId: `PO-${i + 1}`, amountCents })))));
    assert.equal(text(groupHeader.CtrlSum), '2999999999.98');
  });
});

// ---- the text rules ----------------------------------------------------------------------

describe('sepaText: the SEPA Latin character set', () => {
  const cases: [string, string][] = [
    ['Müller & Söhne', 'Mueller + Soehne'],
    ['Ärger Öl Übel', 'Aerger Oel Uebel'],
    ['MÜLLER GMBH', 'MUELLER GMBH'],
    ['Straße ẞ', 'Strasse SS'],
    ['Café Crème Brûlée', 'Cafe Creme Brulee'],
    ['Łódź, Øresund, Ærø', 'Lodz, Oresund, Aero'],
    ['a\u0308 (decomposed ä)', 'ae (decomposed ae)'],
    ['Rechnung „Alpha“ – 50 €', 'Rechnung Alpha - 50 EUR'],
    ["O’Brien's", "O'Brien's"],
    ['ﬁnal ½', 'final 1/2'],
    ['info@kontor.example #42 * _ ; !', 'info kontor.example 42'],
    ['  Zeile 1\n\tZeile   2  ', 'Zeile 1 Zeile 2'],
    ['株式会社', ''],
    ["a-z A-Z 0-9 / - ? : ( ) . , ' +", "a-z A-Z 0-9 / - ? : ( ) . , ' +"],
  ];
  for (const [input, expected] of cases) {
    test(`${JSON.stringify(input)} → ${JSON.stringify(expected)}`, () => assert.equal(sepaText(input, 140), expected));
  }

  test('cuts to maxLength after transliteration, without a trailing space', () => {
    assert.equal(sepaText('Jürgen Müller', 6), 'Juerge');
    assert.equal(sepaText('Jürgen Müller', 7), 'Juergen');
    assert.equal(sepaText('Jürgen Müller', 8), 'Juergen');
  });

  test('every character of the Basic Multilingual Plane comes out in the SEPA set', () => {
    for (let start = 0; start < 0x10000; start += 256) {
      let chunk = '';
      for (let code = start; code < start + 256; code++) if (code < 0xd800 || code > 0xdfff) chunk += String.fromCharCode(code);
      const out = sepaText(chunk, 100_000);
      assert.ok(isSepaText(out), `U+${start.toString(16)}: ${JSON.stringify(out)}`);
    }
  });

  test('refuses a maxLength that is not a positive integer', () => {
    assert.throws(() => sepaText('x', 0), RangeError);
  });

  test('identifiers: SEPA characters, 1–35, no leading or trailing slash, no double slash', () => {
    assert.equal(isSepaIdentifier('PO-2025/06-0001'), true);
    for (const bad of ['', 'P'.repeat(36), '/PO', 'PO/', 'P//O', 'PO_1', 'Müller']) assert.equal(isSepaIdentifier(bad), false, bad);
  });
});
