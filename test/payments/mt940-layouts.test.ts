import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import iconv from 'iconv-lite';
import { type ParsedStatement, parseStatement, StatementError } from '../../src/modules/payments/index.ts';

// MT940/MT942 as German banks write them (issue 12): the layouts below were each seen in a
// real file; the fixtures are written here in the same shape.

const CRLF = '\r\n';
const file = (lines: readonly string[]) => Buffer.from(`${lines.join(CRLF)}${CRLF}`);
/** A :86: field wrapped at 65 characters, as banks write it. */
const wrap86 = (content: string) => `:86:${content}`.match(/.{1,65}/g)!.join(CRLF);
/** A text cut into DK subfields of 27 characters, numbered from ?20. */
const subfields = (text: string, first = 20) =>
  text
    .match(/.{1,27}/g)!
    .map((part, i) => `?${first + i}${part}`)
    .join('');

/** One statement of the company's account around the given :61:/:86: lines. */
const statement = (opening: string, lines: readonly string[], closing: string, number = '00012/001') => [
  ':20:STARTUMSE',
  ':25:37040044/0532013000',
  `:28C:${number}`,
  `:60F:C261119EUR${opening}`,
  ...lines,
  `:62F:C261120EUR${closing}`,
  '-',
];

const CREDIT = [
  ':61:2611201120CR85,06NTRFNONREF//POS 12345',
  ':86:166?00SEPA-GUTSCHRIFT?109310?20EREF+E2E-2026-11-20-A?21SVWZ+Zahlung Rechnung RE-20?2226-00007 Kunde 10003?30BYLADEM1001',
  '?31DE02120300000000202051?32Müller Maschinenbau GmbH ?33& Co. KG',
];

const parse = (lines: readonly string[]) => parseStatement(file(lines));
const tx = (parsed: ParsedStatement, entry = 0) => parsed.entries[entry]!.transactions[0]!;

function refusal(content: Buffer): string {
  try {
    parseStatement(content);
  } catch (error) {
    assert.ok(error instanceof StatementError, `a StatementError, got ${String(error)}`);
    return error.message;
  }
  assert.fail('the file was accepted');
}

describe('MT940: SEPA identifiers in the :86: subfields', () => {
  test('Commerzbank / Deutsche Bank: identifiers run on inside ?20–?29, even cut between two subfields', () => {
    const runOn =
      'EREF+KD10003.2026.11.20.017 KREF+SEPA-20261120101514-00451-P1 MREF+M-10003-01 CRED+DE98ZZZ09999999999 SVWZ+RECHNUNG RE-2026-00005 VOM 15.11.2026, KUNDE 10003';
    const parsed = parse(
      statement(
        '100,00',
        [
          ':61:2611201120C119,00NTRFNONREF',
          wrap86(`166?00SEPA-GUTSCHRIFT?109075/629${subfields(runOn)}?30COBADEFFXXX?31DE02120300000000202051?32BEISPIEL GMBH`),
        ],
        '219,00',
      ),
    );
    assert.equal(tx(parsed).endToEndId, 'KD10003.2026.11.20.017');
    assert.equal(tx(parsed).remittanceText, 'RECHNUNG RE-2026-00005 VOM 15.11.2026, KUNDE 10003');
    assert.equal(tx(parsed).counterpartyName, 'BEISPIEL GMBH');
  });

  test('"SVWZ+" or "EREF+" a payer writes in the remittance text stays text, as does an identifier inside a word', () => {
    const parsed = parse(
      statement(
        '100,00',
        [':61:2611201120C119,00NTRFNONREF', `:86:166?20EREF+E2E-4711${subfields('SVWZ+Zahlung SVWZ+RE-2026-00005 EREF+4711 KDEREF+9', 21)}`],
        '219,00',
      ),
    );
    assert.equal(tx(parsed).endToEndId, 'E2E-4711');
    assert.equal(tx(parsed).remittanceText, 'Zahlung SVWZ+RE-2026-00005 EREF+4711 KDEREF+9');
  });
});

describe('MT940: :61: and wrapped :86: lines', () => {
  test('a space between amount and transaction type (Commerzbank, Deutsche Bank)', () => {
    const parsed = parse(statement('100,00', [':61:2011201120C119,00 NTRFNONREF//2611201234567890', ':86:166?20SVWZ+RE-2026-00005'], '219,00'));
    const [entry] = parsed.entries;
    assert.deepEqual([entry!.amount, entry!.direction, entry!.bookingDate, entry!.bankReference], ['119.00', 'credit', '2020-11-20', '2611201234567890']);
  });

  test('a wrapped :86: line starting with ":26:" or ":20:" (a time cut in two) is text, not a tag', () => {
    const parsed = parse(
      statement(
        '100,00',
        [
          ':61:2611201120DR23,50N006NONREF',
          ':86:106?00KARTENZAHLUNG?109248?20SVWZ+REWE SAGT DANKE. 2026-?2111-20T16',
          ':26:37 Folgenr. 05 ?22Verfalld. 2027-12?30COBADEFFXXX',
          ':61:2611201120DR10,00N006NONREF',
          ':86:106?00KARTENZAHLUNG?20SVWZ+BACKSTUBE 2026-11-20T09',
          ':20:15 Folgenr. 06',
        ],
        '66,50',
      ),
    );
    assert.deepEqual(
      parsed.entries.map((e) => tx(parsed, e.position - 1).remittanceText),
      ['REWE SAGT DANKE. 2026-11-20T16:26:37 Folgenr. 05 Verfalld. 2027-12', 'BACKSTUBE 2026-11-20T09:20:15 Folgenr. 06'],
    );
  });

  test('a ":61:" line inside :86: text that is no statement line stays text; a real one opens the next entry', () => {
    const parsed = parse(
      statement(
        '100,00',
        [':61:2611201120CR40,00NTRFNONREF', ':86:Gutschrift Vertrag', ':61:11 Nachzahlung November', ':61:2611201120CR60,00NTRFNONREF', ':86:Miete'],
        '200,00',
      ),
    );
    assert.deepEqual(
      parsed.entries.map((e) => [e.amount, e.transactions[0]!.remittanceText]),
      [
        ['40.00', 'Gutschrift Vertrag :61:11 Nachzahlung November'],
        ['60.00', 'Miete'],
      ],
    );
  });
});

describe('MT940: lines around the statements', () => {
  const plain = parse(statement('100,00', CREDIT, '185,06'));

  const variants: [string, Buffer][] = [
    [
      'SWIFT blocks {1:}{2:}{4: and the trailer -}',
      file(['{1:F01COBADEFFAXXX0000000000}{2:I940COBADEFFXXXXN}{4:', ...statement('100,00', CREDIT, '185,06').slice(0, -1), '-}']),
    ],
    [
      'a BOM before Windows-1252 text',
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), iconv.encode(`${statement('100,00', CREDIT, '185,06').join(CRLF)}${CRLF}`, 'win1252')]),
    ],
    [
      'bank header text and blank lines',
      file(['Umsätze Girokonto 0532013000', 'erstellt am 20.11.2026', '', '', ...statement('100,00', CREDIT, '185,06'), '']),
    ],
    ['header lines before the statement (BIC, message type)', file(['COBADEFF', '940', 'COBADEFF', ...statement('100,00', CREDIT, '185,06')])],
  ];
  for (const [name, bytes] of variants) {
    test(`${name}: read as the plain statement`, () => {
      const parsed = parseStatement(bytes);
      assert.deepEqual(parsed.statements, plain.statements);
      assert.deepEqual(parsed.entries, plain.entries);
    });
  }

  test('header lines between two statements are skipped', () => {
    const parsed = parse([
      ...statement('100,00', CREDIT, '185,06'),
      'COBADEFF',
      '940',
      ...statement('185,06', [':61:2611201120DR5,06NMSCNONREF'], '180,00', '00013/001'),
    ]);
    assert.deepEqual(
      parsed.entries.map((e) => [e.statementIndex, e.amount]),
      [
        [0, '85.06'],
        [1, '5.06'],
      ],
    );
  });

  test('a tag before the first :20: is refused with its line', () => {
    assert.equal(
      refusal(file(['Umsätze', ':25:37040044/0532013000', ...statement('100,00', CREDIT, '185,06')])),
      'line 2: :25: comes before the :20: that opens a statement',
    );
  });
});

describe('MT940: balances', () => {
  test('a statement without closing balance is imported, with a note naming it', () => {
    const parsed = parse(statement('100,00', CREDIT, '185,06').filter((line) => !line.startsWith(':62F:')));
    assert.equal(parsed.entries.length, 1);
    assert.deepEqual(parsed.notes, [
      { where: 'MT940 statement 1 (STARTUMSE 00012/001)', cause: 'no closing balance (:62F:): the entries are imported without the balance check' },
    ]);
  });

  test('a statement without opening balance likewise; the next statement is checked as before', () => {
    const first = statement('100,00', CREDIT, '185,06').filter((line) => !line.startsWith(':60F:'));
    const parsed = parse([...first, ...statement('185,06', [':61:2611201120DR5,06NMSCNONREF'], '180,00', '00013/001')]);
    assert.equal(parsed.entries.length, 2);
    assert.deepEqual(parsed.notes, [
      { where: 'MT940 statement 1 (STARTUMSE 00012/001)', cause: 'no opening balance (:60F:): the entries are imported without the balance check' },
    ]);
    const broken = [...first, ...statement('185,06', [':61:2611201120DR5,06NMSCNONREF'], '181,00', '00013/001')];
    assert.equal(
      refusal(file(broken)),
      'MT940 statement 2: opening balance 185,06 + entries -5,06 ≠ closing balance 181,00; the file does not add up: download it again from online banking',
    );
  });

  test('balances that do not add up are refused, amounts with two decimals', () => {
    assert.equal(
      refusal(file(statement('6,', [':61:2611201120DR6,NMSCNONREF'], '1,'))),
      'MT940 statement 1: opening balance 6,00 + entries -6,00 ≠ closing balance 1,00; the file does not add up: download it again from online banking',
    );
  });

  test('a file that stops without closing balance and end mark is cut off: refused', () => {
    const lines = statement('100,00', CREDIT, '185,06').slice(0, -2);
    assert.equal(
      refusal(file(lines)),
      'the file ends inside MT940 statement 1 (STARTUMSE 00012/001), after entry 1, with no closing balance (:62F:) and no end mark (-): it looks cut off; download it again',
    );
  });
});

describe('MT940: remittance text joined as the bank meant it', () => {
  const remittance = (details: string | string[]) =>
    tx(parse(statement('100,00', [':61:2611201120C119,00NTRFNONREF', ...[details].flat()], '219,00'))).remittanceText;

  test('short SVWZ lines (Volksbank, Sparkasse) are joined with a space', () => {
    assert.equal(remittance(':86:166?20SVWZ+Rechnung?21RE-2026-00005?22Kunde 10003'), 'Rechnung RE-2026-00005 Kunde 10003');
    assert.equal(remittance([':86:166?00UEBERWEISUNG?20SVWZ+Rechnung', '?21RE-2026-00005', '?22Kunde 10003']), 'Rechnung RE-2026-00005 Kunde 10003');
  });

  test('full subfields of 27 characters go on without a separator, also inside words and numbers', () => {
    assert.equal(
      remittance(wrap86(`166${subfields('SVWZ+Beitrag Mitgliedschaft 2026 laut Rechnung RE-2026-00005 Kundennummer 10003')}`)),
      'Beitrag Mitgliedschaft 2026 laut Rechnung RE-2026-00005 Kundennummer 10003',
    );
  });

  test('N26: pieces longer than 27 characters, cut inside words, are joined as they are', () => {
    assert.equal(
      remittance(
        wrap86(
          '000?32Max Mustermann?31DE02120300000000202051?30NTSBDEB1XXX?20Konzertkarten (Max Mustermann?21), Kategorie: Alles - E?22innahmen - Veranstaltungen ?23RE-2026-00005',
        ),
      ),
      'Konzertkarten (Max Mustermann), Kategorie: Alles - Einnahmen - Veranstaltungen RE-2026-00005',
    );
  });

  test('free :86: text: a full line of 65 characters goes on without a separator, a shorter one ended a line', () => {
    assert.equal(
      remittance([wrap86('Zahlung fuer Rechnung RE-2026-00005 vom 15.11.2026, Kundennummer 10003'), 'Vielen Dank']),
      'Zahlung fuer Rechnung RE-2026-00005 vom 15.11.2026, Kundennummer 10003 Vielen Dank',
    );
  });

  test('the name in ?32/?33 follows the same rule', () => {
    const name = (details: string) => tx(parse(statement('100,00', [':61:2611201120C119,00NTRFNONREF', details], '219,00'))).counterpartyName;
    assert.equal(name(':86:166?20SVWZ+X?32MUELLER?33MASCHINENBAU GMBH'), 'MUELLER MASCHINENBAU GMBH');
    assert.equal(name(':86:166?20SVWZ+X?32Finanzamt Muenchen Abteilun?33g Erhebung'), 'Finanzamt Muenchen Abteilung Erhebung');
  });
});

describe('MT942 intraday reports', () => {
  const report = (lines: readonly string[]) => [
    ':20:MT942-261120',
    ':25:37040044/0532013000',
    ':28C:00012/001',
    ':34F:EURC0,00',
    ':13D:2611201015+0100',
    ...lines,
    ':90D:0EUR0,00',
    ':90C:1EUR85,06',
    '-',
  ];

  test("are read as reports, and the same booking in the day's MT940 reads field for field the same, with the same key", () => {
    const intraday = parse(report(CREDIT));
    assert.deepEqual([intraday.format, intraday.kind], ['mt942', 'report']);
    const daily = parse(statement('100,00', [':61:2611201120DR30,00NMSCNONREF', ':86:805?00ENTGELTABSCHLUSS?20Entgelt', ...CREDIT], '155,06'));
    assert.deepEqual([daily.format, daily.kind], ['mt940', 'statement']);
    const { key: reportKey, position: _p, statementIndex: _s, ...reported } = intraday.entries[0]!;
    const { key: statementKey, position: _q, statementIndex: _t, ...booked } = daily.entries[1]!;
    assert.deepEqual(reported, booked);
    assert.equal(reportKey, statementKey);
  });

  test('a report with balances has them checked; one cut off is refused', () => {
    assert.equal(parse(report([':60F:C261119EUR100,00', ...CREDIT, ':62F:C261120EUR185,06'])).entries.length, 1);
    assert.match(
      refusal(file(report([':60F:C261119EUR100,00', ...CREDIT, ':62F:C261120EUR185,07']))),
      /^MT942 report 1: opening balance 100,00 \+ entries 85,06 ≠ closing balance 185,07; the file does not add up: download it again from online banking$/,
    );
    assert.match(refusal(file(report(CREDIT).slice(0, -3))), /^the file ends inside MT942 report 1 \(MT942-261120 00012\/001\), after entry 1, with no totals/);
  });
});

describe('files that are no statement', () => {
  const download = "download the account statement as camt.053 or MT940 (in online banking often 'Umsätze exportieren' → 'CAMT' or 'MT940/STA')";
  const mt103 = [
    ':20:REF-2026-1120',
    ':23B:CRED',
    ':32A:261120EUR119,00',
    ':50K:/DE02120300000000202051',
    'BEISPIEL GMBH',
    ':59:/DE89370400440532013000',
    'KONTOR GMBH',
    ':70:RE-2026-00005',
    ':71A:SHA',
  ];
  const cases: [string, Buffer, string][] = [
    ['an MT103 in SWIFT blocks', file(['{1:F01COBADEFFAXXX0000000000}{2:I103BYLADEMMXXXXN}{4:', ...mt103, '-}']), 'a SWIFT MT103 credit transfer'],
    ['an MT103 without blocks', file(mt103), 'a SWIFT MT103 credit transfer'],
    [
      'an MT101',
      file([
        ':20:REF-1',
        ':28D:1/1',
        ':50H:/DE89370400440532013000',
        ':30:261120',
        ':21:RE-2026-00005',
        ':32B:EUR119,00',
        ':59:/DE02120300000000202051',
        ':71A:SHA',
      ]),
      'a SWIFT MT101 payment order',
    ],
    [
      'an MT900',
      file([':20:C261120-0001', ':21:REF-2026-1120', ':25:0532013000', ':32A:261120EUR119,00', ':72:/BNF/RE-2026-00005']),
      'a SWIFT MT900 or MT910 debit or credit confirmation',
    ],
    [
      'an MT950',
      file(['{1:F01COBADEFFAXXX0000000000}{2:O950COBADEFFXXXXN}{4:', ...statement('100,00', [':61:2611201120CR85,06NTRFNONREF'], '185,06'), '-}']),
      'a SWIFT MT950 statement between banks',
    ],
    ['a CSV export', file(['Buchungstag;Valuta;Betrag;Verwendungszweck', '20.11.2026;20.11.2026;85,06;RE-2026-00007']), 'a CSV export'],
    ['a DTAUS file', Buffer.from(`0128ALK37040044${' '.repeat(113)}`, 'latin1'), 'a DTAUS file (the old German payment file)'],
    ['a PDF', Buffer.from('%PDF-1.7\n%âãÏÓ\n1 0 obj\n', 'latin1'), 'a PDF document'],
  ];
  for (const [name, bytes, what] of cases) {
    test(`${name}: refused, naming what it is and what to download`, () => {
      assert.equal(refusal(bytes), `the file is ${what}, not a statement; ${download}`);
    });
  }

  test('a file mixing MT940 statements and MT942 reports is refused', () => {
    const mixed = [...statement('100,00', CREDIT, '185,06'), ':20:MT942', ':25:37040044/0532013000', ':28C:1', ':34F:EURC0,', ...CREDIT, ':90C:1EUR85,06', '-'];
    assert.match(refusal(file(mixed)), /^the file mixes MT940 statements and MT942 intraday reports/);
  });
});

describe('MT940 messages', () => {
  test('an unreadable :61: or balance names statement, entry and line, and quotes nothing of the entry', () => {
    const message = refusal(file(statement('100,00', [...CREDIT, ':61:2611201120CRNTRFNONREF//Müller', ':86:Müller'], '185,06')));
    assert.equal(message, 'MT940 statement 1, entry 2: its :61: line (line 8) cannot be read: no amount (digits with a decimal comma) follows C, D, RC or RD');
    assert.equal(
      refusal(file(statement('100,00', CREDIT, '185,06').map((line) => line.replace(':62F:C261120EUR', ':62F:C261120')))),
      'MT940 statement 1: the closing balance (:62F:, line 8) cannot be read: no currency follows the date',
    );
    assert.equal(
      refusal(file(statement('100,00', CREDIT, '185,06').filter((line) => !line.startsWith(':25:')))),
      'MT940 statement 1 (line 1) has no account (:25:)',
    );
  });

  test('fuzz: valid files cut anywhere or with lines lost, repeated or swapped give a statement or a StatementError, nothing else', { timeout: 60_000 }, () => {
    const personal = ['Müller', 'Maschinenbau', 'DE02120300000000202051', 'Rechnung', 'Kunde', 'Mustermann', 'E2E-'];
    const sources = [
      [...statement('100,00', CREDIT, '185,06'), ...statement('185,06', [':61:2611201120DR5,06NMSCNONREF', ':86:Entgelt', ...CREDIT], '265,06', '00013/001')],
      [
        '{1:F01COBADEFFAXXX0000000000}{2:I940COBADEFFXXXXN}{4:',
        ...statement(
          '100,00',
          [...CREDIT, ':61:2011201120C119,00 NTRFNONREF//2611', wrap86('166?20SVWZ+Konzertkarten (Max Mustermann?21), Kategorie: Alles')],
          '304,06',
        ).slice(0, -1),
        '-}',
      ],
      [':20:MT942', ':25:37040044/0532013000', ':28C:1', ':34F:EURC0,', ':13D:2611201015+0100', ...CREDIT, ':90C:1EUR85,06', '-'],
    ].map((lines) => lines.join(CRLF));
    let seed = 12;
    const random = (below: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % below;
    };
    const variants: string[] = [];
    for (const text of sources) {
      for (let cut = 0; cut < text.length; cut += 3) variants.push(text.slice(0, cut));
      const lines = text.split(CRLF);
      for (let round = 0; round < 150; round++) {
        const changed = [...lines];
        const at = random(changed.length);
        const other = random(changed.length);
        const action = random(3);
        if (action === 0) changed.splice(at, 1 + random(3));
        else if (action === 1) changed.splice(at, 0, changed[other]!);
        else [changed[at], changed[other]] = [changed[other]!, changed[at]!];
        variants.push(changed.join(CRLF));
      }
    }
    let refused = 0;
    for (const variant of variants) {
      try {
        const parsed = parseStatement(Buffer.from(variant));
        assert.ok(Array.isArray(parsed.entries));
      } catch (error) {
        assert.ok(error instanceof StatementError, `not a StatementError for ${JSON.stringify(variant)}: ${String(error)}`);
        assert.doesNotMatch(error.message, /structure is not what SWIFT MT940 defines|undefined|NaN|null/, variant);
        for (const word of personal) assert.ok(!error.message.includes(word), `"${word}" in "${error.message}"`);
        refused += 1;
      }
    }
    assert.ok(refused > 0 && refused < variants.length, `${refused} of ${variants.length} refused`);
  });
});
