import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { renderXRechnungCii } from '../../src/modules/invoicing/render/index.ts';
import {
  checkPartnerEInvoice,
  type PartnerEInvoiceCheck,
  PLAIN_PDF_REASON,
  readEInvoice,
  type StatementExpectation,
} from '../../src/modules/statements/partner-einvoice/index.ts';
import { reverseChargeInvoice, smallBusinessInvoice } from '../invoicing/render/fixtures.ts';

// Issue 27: a partner's uploaded e-invoice against its request to invoice. A real
// third-party invoice whose statement matches is accepted; each difference is refused with a
// German sentence that names what the invoice says and what the statement expects, and all
// differences come at once.

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/partner-einvoices');
const sample = (name: string) => readFileSync(path.join(FIXTURES, name));
const bytes = (text: string) => new TextEncoder().encode(text);
const nbsp = '\u00a0';

async function check(upload: Uint8Array, expected: StatementExpectation): Promise<PartnerEInvoiceCheck> {
  return checkPartnerEInvoice(await readEInvoice(upload), expected);
}

function reasons(result: PartnerEInvoiceCheck): string[] {
  assert.equal(result.ok, false, 'the upload is refused');
  return (result as { reasons: string[] }).reasons;
}

/** The Mustang sample (weclapp.com → Beispiel AG, 809.34 + 19 % = 963.11) as if it answered our statement. */
const mustangStatement: StatementExpectation = {
  statementNumber: 'G-2026-0004',
  netCents: 809_34,
  vatCents: 153_77,
  grossCents: 963_11,
  vatRate: '19',
  taxNote: 'regular',
  periodStart: '2022-10-01',
  today: '2022-11-02',
  company: { name: 'Beispiel AG', vatId: 'DE811569869', taxNumber: null },
  partner: { name: 'weclapp.com', vatId: 'DE 327 606 228', taxNumber: null },
};

/**
 * The KoSIT case 01.20a (Betriebsstätte → Kunde 1, 300.00 + 19 % = 357.00, both VAT IDs) made
 * an ordinary invoice: its type 389 (self-billed) becomes 380. Broken variants start here.
 */
const KOSIT_CII = readFileSync(path.join(FIXTURES, '01.20a-INVOICE_uncefact.xml'), 'utf8').replace(
  '<ram:TypeCode>389</ram:TypeCode>',
  '<ram:TypeCode>380</ram:TypeCode>',
);
const kositStatement: StatementExpectation = {
  statementNumber: 'G-2026-0007',
  netCents: 300_00,
  vatCents: 57_00,
  grossCents: 357_00,
  vatRate: '19',
  taxNote: 'regular',
  periodStart: '2021-01-01',
  today: '2021-02-01',
  company: { name: 'Kunde 1', vatId: 'DE987654321', taxNumber: null },
  partner: { name: 'Betriebsstätte', vatId: 'DE123456789', taxNumber: null },
};
const kosit = (edit: (xml: string) => string = (xml) => xml) => bytes(edit(KOSIT_CII));

describe('a matching e-invoice is accepted', () => {
  test('the Mustang ZUGFeRD PDF answers its statement (VAT ID written with spaces in Kontor)', async () => {
    const result = await check(sample('MustangBeispiel20221026.pdf'), mustangStatement);
    assert.equal(result.ok, true, JSON.stringify(result));
    assert.equal(result.invoice?.number, 'RE1001');
  });

  test('the KoSIT XRechnung CII as an ordinary invoice (380) answers its statement', async () => {
    assert.equal((await check(kosit(), kositStatement)).ok, true);
  });

  test('the buyer name matches regardless of case and white space', async () => {
    assert.equal((await check(kosit(), { ...kositStatement, company: { ...kositStatement.company, name: '  KUNDE   1 ' } })).ok, true);
  });

  test("Kontor's own reverse-charge XRechnung answers a reverse-charge statement", async () => {
    const result = await check(await renderXRechnungCii(reverseChargeInvoice), {
      statementNumber: 'G-2026-0011',
      netCents: 969_00,
      vatCents: 0,
      grossCents: 969_00,
      vatRate: '0',
      taxNote: 'reverse_charge',
      periodStart: '2026-10-01',
      today: '2026-11-28',
      company: { name: 'Alpen Software GmbH', vatId: 'ATU 582 19378', taxNumber: null },
      partner: { name: 'Kontor Demo GmbH', vatId: 'DE123456789', taxNumber: null },
    });
    assert.equal(result.ok, true, JSON.stringify(result));
  });
});

/** Kontor's small-business invoice (Grafikbüro Anna Schmidt, tax number only, § 19 UStG) against a small-business statement. */
const smallBusinessStatement: StatementExpectation = {
  statementNumber: 'G-2026-0012',
  netCents: 910_00,
  vatCents: 0,
  grossCents: 910_00,
  vatRate: '0',
  taxNote: 'small_business',
  periodStart: '2026-10-01',
  today: '2026-11-28',
  company: { name: 'Müller & Söhne Maschinenbau GmbH', vatId: 'DE987654321', taxNumber: null },
  partner: { name: 'Grafikbüro Anna Schmidt', vatId: null, taxNumber: '2181508150' },
};

describe('the seller is identified by VAT ID, or by tax number when the invoice has no VAT ID', () => {
  test('accepts a small business invoice whose tax number matches digit by digit (21/815/08150 = 2181508150)', async () => {
    const result = await check(await renderXRechnungCii(smallBusinessInvoice), smallBusinessStatement);
    assert.equal(result.ok, true, JSON.stringify(result));
  });

  test('refuses a tax number that is not the partner’s', async () => {
    const result = await check(await renderXRechnungCii(smallBusinessInvoice), {
      ...smallBusinessStatement,
      partner: { ...smallBusinessStatement.partner, taxNumber: '21/815/08151' },
    });
    assert.deepEqual(reasons(result), [
      'Die Steuernummer des Rechnungsstellers in der Rechnung (21/815/08150) stimmt nicht mit der hinterlegten Steuernummer des Partners überein (21/815/08151).',
    ]);
  });

  test('refuses a seller VAT ID that is not the partner’s', async () => {
    const result = await check(
      kosit((xml) => xml.replace('<ram:ID schemeID="VA">DE123456789</ram:ID>', '<ram:ID schemeID="VA">DE111111111</ram:ID>')),
      kositStatement,
    );
    assert.deepEqual(reasons(result), [
      'Die USt-IdNr. des Rechnungsstellers in der Rechnung (DE111111111) stimmt nicht mit der hinterlegten USt-IdNr. des Partners überein (DE123456789).',
    ]);
  });

  test('refuses an invoice that names neither VAT ID nor tax number of the seller (BR-S-02 too)', async () => {
    const result = await check(
      kosit((xml) => xml.replace('<ram:ID schemeID="VA">DE123456789</ram:ID>', '')),
      kositStatement,
    );
    assert.deepEqual(reasons(result), [
      'Die Rechnung weist Umsatzsteuer aus (Kategorie S), nennt aber weder die USt-IdNr. noch die Steuernummer des Rechnungsstellers (Regel BR-S-02).',
      'Die Rechnung nennt weder USt-IdNr. noch Steuernummer des Rechnungsstellers (hinterlegt: USt-IdNr. DE123456789).',
    ]);
  });
});

describe('each difference to the statement is refused with its German reason', () => {
  test('a changed gross: BR-CO-15, BR-CO-16 and the gross mismatch, each naming found and expected', async () => {
    const result = await check(
      kosit((xml) => xml.replace('<ram:GrandTotalAmount>357.00</ram:GrandTotalAmount>', '<ram:GrandTotalAmount>357.01</ram:GrandTotalAmount>')),
      kositStatement,
    );
    // 57.00 is still the VAT DATEV derives from 357.01 (round(357.01 × 19 / 119)): no fourth reason.
    assert.deepEqual(reasons(result), [
      `Der Bruttobetrag der Rechnung (357,01${nbsp}€) ist nicht Nettobetrag 300,00${nbsp}€ plus Umsatzsteuer 57,00${nbsp}€, also 357,00${nbsp}€ (Regel BR-CO-15).`,
      `Der Zahlbetrag der Rechnung (357,00${nbsp}€) ist nicht Bruttobetrag 357,01${nbsp}€ abzüglich bereits gezahlter 0,00${nbsp}€ zuzüglich Rundung 0,00${nbsp}€, also 357,01${nbsp}€ (Regel BR-CO-16).`,
      `Der Bruttobetrag der Rechnung (357,01${nbsp}€) stimmt nicht mit der Abrechnung G-2026-0007 überein (357,00${nbsp}€).`,
    ]);
  });

  test('net and VAT different from the statement', async () => {
    const result = await check(sample('MustangBeispiel20221026.pdf'), { ...mustangStatement, netCents: 800_00, vatCents: 152_00, grossCents: 952_00 });
    assert.deepEqual(reasons(result), [
      `Der Nettobetrag der Rechnung (809,34${nbsp}€) stimmt nicht mit der Abrechnung G-2026-0004 überein (800,00${nbsp}€).`,
      `Die Umsatzsteuer der Rechnung (153,77${nbsp}€) stimmt nicht mit der Abrechnung G-2026-0004 überein (152,00${nbsp}€).`,
      `Der Bruttobetrag der Rechnung (963,11${nbsp}€) stimmt nicht mit der Abrechnung G-2026-0004 überein (952,00${nbsp}€).`,
    ]);
  });

  test('a buyer VAT ID that is not ours, and another buyer name, both at once', async () => {
    const result = await check(
      kosit((xml) =>
        xml
          .replace('<ram:ID schemeID="VA">DE987654321</ram:ID>', '<ram:ID schemeID="VA">DE999999999</ram:ID>')
          .replace('<ram:Name>Kunde 1</ram:Name>', '<ram:Name>Kunde 1 GmbH</ram:Name>'),
      ),
      kositStatement,
    );
    assert.deepEqual(reasons(result), [
      'Der Rechnungsempfänger der Rechnung („Kunde 1 GmbH“) stimmt nicht mit unserem Namen überein („Kunde 1“).',
      'Die USt-IdNr. des Rechnungsempfängers in der Rechnung (DE999999999) ist nicht unsere USt-IdNr. (DE987654321).',
    ]);
  });

  test('a credit note (381), a correction (384) and a self-billed invoice (389) are not an invoice (380)', async () => {
    const creditNote = reasons(await check(sample('ubl-tc434-creditnote1.xml'), kositStatement));
    assert.ok(
      creditNote.includes(
        'Die Datei ist eine Gutschrift (Rechnungsart 381), keine Rechnung: zur Bitte um Rechnungsstellung G-2026-0007 gehört eine Rechnung (Rechnungsart 380).',
      ),
      creditNote.join('\n'),
    );
    const correction = reasons(
      await check(
        kosit((xml) => xml.replace('<ram:TypeCode>380</ram:TypeCode>', '<ram:TypeCode>384</ram:TypeCode>')),
        kositStatement,
      ),
    );
    assert.deepEqual(correction, [
      'Die Datei ist eine korrigierte Rechnung (Rechnungsart 384); zur Bitte um Rechnungsstellung G-2026-0007 laden Sie bitte eine eigenständige Rechnung (Rechnungsart 380) hoch.',
    ]);
    const selfBilled = reasons(await check(sample('01.20a-INVOICE_ubl.xml'), kositStatement));
    assert.deepEqual(selfBilled, [
      'Die Datei ist eine Gutschrift im Gutschriftverfahren (Rechnungsart 389, vom Leistungsempfänger ausgestellt); zur Bitte um Rechnungsstellung G-2026-0007 stellen Sie als Partner selbst eine Rechnung (Rechnungsart 380) aus.',
    ]);
  });

  test('a currency other than euro', async () => {
    const result = await check(
      kosit((xml) =>
        xml
          .replace('<ram:InvoiceCurrencyCode>EUR</ram:InvoiceCurrencyCode>', '<ram:InvoiceCurrencyCode>USD</ram:InvoiceCurrencyCode>')
          .replace('currencyID="EUR"', 'currencyID="USD"'),
      ),
      kositStatement,
    );
    assert.deepEqual(reasons(result), ['Die Rechnung ist in der Währung USD ausgestellt; die Abrechnung G-2026-0007 lautet auf Euro (EUR).']);
  });

  test('an invoice date in the future or before the statement period', async () => {
    assert.deepEqual(reasons(await check(kosit(), { ...kositStatement, today: '2021-01-24' })), [
      'Das Rechnungsdatum 25.01.2021 liegt in der Zukunft (heute ist der 24.01.2021).',
    ]);
    assert.deepEqual(reasons(await check(kosit(), { ...kositStatement, periodStart: '2021-02-01', today: '2021-03-01' })), [
      'Das Rechnungsdatum 25.01.2021 liegt vor dem Abrechnungszeitraum der Abrechnung G-2026-0007 (ab 01.02.2021).',
    ]);
  });

  test('an invoice number longer than 100 characters, and none at all (BR-02)', async () => {
    const long = 'R'.repeat(101);
    assert.deepEqual(
      reasons(
        await check(
          kosit((xml) => xml.replace('<ram:ID>1234567890</ram:ID>', `<ram:ID>${long}</ram:ID>`)),
          kositStatement,
        ),
      ),
      ['Die Rechnungsnummer ist 101 Zeichen lang; angenommen werden höchstens 100 Zeichen.'],
    );
    assert.deepEqual(
      reasons(
        await check(
          kosit((xml) => xml.replace('<ram:ID>1234567890</ram:ID>', '<ram:ID></ram:ID>')),
          kositStatement,
        ),
      ),
      ['Die Rechnung enthält keine Rechnungsnummer (Regel BR-02).'],
    );
  });

  test('a regular statement refuses 7 % and a second rate; the DATEV check names the VAT in the gross', async () => {
    const found = reasons(
      await check(sample('EN16931_Einfach.pdf'), {
        ...kositStatement,
        netCents: 473_00,
        vatCents: 56_87,
        grossCents: 529_87,
        periodStart: '2024-11-01',
        today: '2024-11-30',
        company: { name: 'Kunden AG Mitte', vatId: null, taxNumber: null },
        partner: { name: 'Lieferant GmbH', vatId: 'DE123456789', taxNumber: null },
      }),
    );
    assert.deepEqual(found, [
      'Die Rechnung weist die Umsatzsteuer als 7 % Umsatzsteuer (Kategorie S), 19 % Umsatzsteuer (Kategorie S) aus; zur Abrechnung G-2026-0007 gehört genau ein Steuersatz: 19 % Umsatzsteuer (Kategorie S).',
      `Die Umsatzsteuer der Rechnung (56,87${nbsp}€) ist nicht die im Bruttobetrag 529,87${nbsp}€ enthaltene Umsatzsteuer von 19 % (84,60${nbsp}€). Bitte stellen Sie eine berichtigte Rechnung aus.`,
    ]);
  });

  test('a small-business statement refuses an invoice with 19 % VAT and without the § 19 UStG note', async () => {
    const found = reasons(
      await check(sample('MustangBeispiel20221026.pdf'), { ...mustangStatement, vatRate: '0', taxNote: 'small_business', vatCents: 0, grossCents: 809_34 }),
    );
    assert.deepEqual(found, [
      `Die Umsatzsteuer der Rechnung (153,77${nbsp}€) stimmt nicht mit der Abrechnung G-2026-0004 überein (0,00${nbsp}€).`,
      `Der Bruttobetrag der Rechnung (963,11${nbsp}€) stimmt nicht mit der Abrechnung G-2026-0004 überein (809,34${nbsp}€).`,
      `Der Partner ist Kleinunternehmer (§ 19 UStG): seine Rechnung darf keine Umsatzsteuer ausweisen (Kategorie E, 0 %); sie weist 19 % Umsatzsteuer (Kategorie S) mit 153,77${nbsp}€ Umsatzsteuer aus. Bitte stellen Sie eine berichtigte Rechnung aus.`,
      'Die Rechnung eines Kleinunternehmers muss auf die Steuerbefreiung nach § 19 UStG hinweisen; der Hinweis fehlt.',
    ]);
  });

  test('a reverse-charge invoice without the words "Steuerschuldnerschaft des Leistungsempfängers" is refused', async () => {
    const xml = (await renderXRechnungCii(reverseChargeInvoice))
      .toString()
      .replaceAll('Steuerschuldnerschaft des Leistungsempfängers (Reverse Charge).', 'Vielen Dank.')
      .replaceAll('Steuerschuldnerschaft des Leistungsempfängers', 'Siehe Code');
    const found = reasons(
      await check(bytes(xml), {
        statementNumber: 'G-2026-0011',
        netCents: 969_00,
        vatCents: 0,
        grossCents: 969_00,
        vatRate: '0',
        taxNote: 'reverse_charge',
        periodStart: '2026-10-01',
        today: '2026-11-28',
        company: { name: 'Alpen Software GmbH', vatId: 'ATU58219378', taxNumber: null },
        partner: { name: 'Kontor Demo GmbH', vatId: 'DE123456789', taxNumber: null },
      }),
    );
    assert.deepEqual(found, ['Die Rechnung muss den Hinweis „Steuerschuldnerschaft des Leistungsempfängers“ (§ 14a Abs. 5 UStG) enthalten; er fehlt.']);
  });

  test('a reverse-charge statement refuses an invoice with 19 % VAT', async () => {
    const found = reasons(await check(kosit(), { ...kositStatement, vatRate: '0', taxNote: 'reverse_charge', vatCents: 0, grossCents: 300_00 }));
    assert.ok(
      found.includes(
        `Die Umsatzsteuer für diese Leistung schulden wir (Steuerschuldnerschaft des Leistungsempfängers, § 13b UStG): die Rechnung muss 0 % mit Kategorie AE ausweisen, sie weist 19 % Umsatzsteuer (Kategorie S) mit 57,00${nbsp}€ Umsatzsteuer aus. Bitte stellen Sie eine berichtigte Rechnung aus.`,
      ),
      found.join('\n'),
    );
  });

  test('a Factur-X MINIMUM profile is no e-invoice', async () => {
    const result = await check(
      kosit((xml) => xml.replace('urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0', 'urn:factur-x.eu:1p0:minimum')),
      kositStatement,
    );
    assert.deepEqual(reasons(result), [
      'Die Rechnung hat das ZUGFeRD-Profil MINIMUM, das nicht als E-Rechnung gilt; bitte laden Sie sie im Profil EN 16931 (COMFORT), EXTENDED oder als XRechnung hoch.',
    ]);
  });
});

describe('uploads that are no e-invoice', () => {
  test('a plain PDF gets the e-invoice sentence; the caller decides the exceptions', async () => {
    const plain = checkPartnerEInvoice({ kind: 'plain_pdf' }, kositStatement);
    assert.deepEqual(plain, { ok: false, reasons: [PLAIN_PDF_REASON], invoice: null });
    assert.match(PLAIN_PDF_REASON, /seit 2025 sind Rechnungen zwischen Unternehmen als E-Rechnung zu stellen/);
  });

  test('an unreadable upload passes its reason on', async () => {
    const injected = KOSIT_CII.replace('<rsm:CrossIndustryInvoice', '<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><rsm:CrossIndustryInvoice');
    const result = await check(bytes(injected), kositStatement);
    assert.deepEqual(result, {
      ok: false,
      reasons: ['Die XML-Datei enthält eine DOCTYPE- oder ENTITY-Deklaration; solche Dateien werden aus Sicherheitsgründen nicht gelesen.'],
      invoice: null,
    });
  });
});
