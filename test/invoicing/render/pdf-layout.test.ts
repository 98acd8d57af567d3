// The invoice PDF's layout read back with poppler (pdftotext -bbox): no two text lines of a
// page overlap, whatever the names and addresses; the address stays in the DIN 5008 window;
// the sender line is one line; every continuation page names its document; the things a
// reader must find (exemption reason, Leistungsdatum, no unit codes) are where they belong.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Buyer, InvoiceDocument, Seller } from '../../../src/modules/invoicing/document.ts';
import { renderFacturXml, renderInvoicePdf, warmUpRenderers } from '../../../src/modules/invoicing/render/index.ts';
import { ADDRESS, INFO, MARGIN, TITLE_Y } from '../../../src/modules/invoicing/render/pdf/layout.ts';
import {
  domesticInvoice,
  exemptSingleDayInvoice,
  longInvoice,
  notTaxableInvoice,
  reverseChargeInvoice,
  smallBusinessInvoice,
  stornoInvoice,
} from './fixtures.ts';
import { describeWord, lines, lineText, overlaps, type Page, popplerMissing, readWords, type Word } from './pdf-layout.ts';
import { extractPages } from './pdf-reader.ts';

const skip = popplerMissing();

before(async () => {
  await warmUpRenderers();
});

function assertNoOverlap(page: Page, label: string): void {
  const found = overlaps(page.words);
  assert.deepEqual(
    found.map(([a, b]) => `${describeWord(a)} × ${describeWord(b)}`),
    [],
    `${label}: text overprinted`,
  );
}

/** Words of the address window (below the sender line, left of the information block, above the title). */
function addressWords(page: Page): Word[] {
  return page.words.filter((word) => word.yMin > ADDRESS.senderY + 4 && word.yMin < TITLE_Y - 1 && word.xMin < INFO.x - 1);
}

function senderWords(page: Page): Word[] {
  return page.words.filter((word) => word.yMin >= ADDRESS.senderY - 2 && word.yMin <= ADDRESS.senderY + 4 && word.xMin < INFO.x - 1);
}

const WORDS = ['Müller', 'Söhne', 'Großhandel', 'Straßenbau', 'Öl', 'Übersee', 'Ärztehaus', 'Maschinenbau', 'und', '&', 'Co.', 'KG', 'Weiß'];

/** A name of exactly `length` characters made of German words (umlauts, ß) and spaces. */
function nameOfLength(length: number): string {
  let name = '';
  for (let i = 0; name.length < length; i++) name += `${name ? ' ' : ''}${WORDS[i % WORDS.length]}`;
  return name.slice(0, length).trimEnd().padEnd(length, 'ß');
}

const NAMES: [string, string][] = [
  ['1 character', 'X'],
  ['10 characters', nameOfLength(10)],
  ['46 characters', nameOfLength(46)],
  ['60 characters', nameOfLength(60)],
  ['120 characters', nameOfLength(120)],
  ['255 characters', nameOfLength(255)],
  ['a 70-character word without spaces', 'Donaudampfschifffahrtsgesellschaftskapitänswitwenrentenauszahlungsstelle'.slice(0, 70)],
  ['255 characters without spaces', 'ÄÖÜäöüß'.repeat(37).slice(0, 255)],
];

const VARIANTS: [string, Partial<Buyer>][] = [
  ['German address', { contactName: null }],
  ['with attention line', { contactName: 'Frau Dr. Stefanie Müller-Lüdenscheid, Abteilung Kreditorenbuchhaltung und Zahlungsverkehr' }],
  ['abroad with attention line', { countryCode: 'AT', zip: '1070', city: 'Wien', contactName: 'Maria Huber' }],
  [
    'long street and city abroad',
    {
      countryCode: 'CH',
      street: 'Rue de la Gare et du Marché aux Puces de la Vieille Ville',
      houseNumber: '12bis',
      zip: '1003',
      city: 'Lausanne-Ouchy-sur-le-Lac',
      contactName: 'Service de comptabilité fournisseurs',
    },
  ],
  ['no street', { street: null, houseNumber: null, contactName: 'Buchhaltung' }],
];

function withBuyer(buyer: Partial<Buyer>): InvoiceDocument {
  return { ...domesticInvoice, buyer: { ...domesticInvoice.buyer, ...buyer } };
}

describe('PDF layout: the address window', { skip }, () => {
  for (const [nameLabel, name] of NAMES) {
    test(`a name of ${nameLabel}: no overlap in every address variant, the window kept, the name whole or cut with "…"`, async () => {
      for (const [variantLabel, variant] of VARIANTS) {
        const doc = withBuyer({ ...variant, name });
        const [page] = readWords(await renderInvoicePdf(doc));
        const label = `${nameLabel}, ${variantLabel}`;
        assertNoOverlap(page!, label);
        const address = addressWords(page!);
        for (const word of address) {
          assert.ok(word.yMax <= ADDRESS.bottom + 0.5, `${label}: ${describeWord(word)} below the window`);
          assert.ok(word.xMax <= ADDRESS.x + ADDRESS.width + 0.5, `${label}: ${describeWord(word)} right of the window`);
        }
        // The name is printed whole, or (when the window cannot hold it) a prefix ending in "…".
        const printed = lines(address).map(lineText).join(' ').replace(/\s+/g, '');
        const whole = name.replace(/\s+/g, '');
        const cut = printed.indexOf('…');
        if (printed.startsWith(whole)) continue;
        assert.ok(cut > 0 && whole.startsWith(printed.slice(0, cut)), `${label}: the name is neither whole nor cut with "…": ${printed}`);
        assert.ok(name.length > 60, `${label}: a name of ${name.length} characters must fit whole`);
      }
    });
  }

  test('the e-invoice carries the whole name, however the window cut it', async () => {
    const name = nameOfLength(255);
    const xml = (await renderFacturXml(withBuyer({ name }))).toString();
    const buyer = /<ram:BuyerTradeParty>[\s\S]*?<ram:Name>([^<]*)<\/ram:Name>/.exec(xml)?.[1];
    assert.equal(buyer?.replace(/&amp;/g, '&'), name);
  });

  test('the sender line is one line inside the window, also for a long company name', async () => {
    for (const sellerName of ['Kontor Demo', 'Internationale Gesellschaft für Software, Beratung und Rechnungswesen Süd-West']) {
      const doc = { ...domesticInvoice, seller: { ...domesticInvoice.seller, name: sellerName } };
      const [page] = readWords(await renderInvoicePdf(doc));
      const sender = senderWords(page!);
      assert.ok(sender.length > 0);
      assert.equal(lines(sender).length, 1, `sender line wrapped: ${lines(sender).map(lineText).join(' / ')}`);
      assert.ok(sender.every((word) => word.xMax <= ADDRESS.x + ADDRESS.width + 0.5));
      assert.match(lineText(sender), /Friedrichstraße 123 · 10117 Berlin$/, 'the address is never shortened');
      assertNoOverlap(page!, sellerName);
    }
  });
});

const BUSY_SELLER: Seller = {
  ...domesticInvoice.seller,
  name: 'Internationale Gesellschaft für Software, Beratung und Rechnungswesen Süd-West',
  legalForm: 'GmbH & Co. KG',
  email: 'rechnungswesen.debitorenbuchhaltung@internationale-gesellschaft-sued-west.de',
  bankName: 'Sparkasse Mittelfranken-Süd Hauptgeschäftsstelle Roth',
  accountHolder: 'Internationale Gesellschaft für Software Treuhand',
  registerCourt: 'Amtsgericht Berlin-Charlottenburg',
  registerNumber: 'HRA 123456 B',
  managingDirectors: ['Erika Mustermann', 'Dr. Max Mustermann-Schulze', 'Ana Lopez García', 'Jörg Weiß'],
};

describe('PDF layout: letterhead and footer', { skip }, () => {
  test('a long name, e-mail address, bank and four managing directors: nothing overlaps on any page', async () => {
    const pages = readWords(await renderInvoicePdf({ ...longInvoice(30), seller: BUSY_SELLER }));
    pages.forEach((page, index) => {
      assertNoOverlap(page, `page ${index + 1}`);
    });
  });

  test('the footer names register court and number and every managing director, and keeps e-mail and IBAN whole', async () => {
    const pages = readWords(await renderInvoicePdf({ ...domesticInvoice, seller: BUSY_SELLER }));
    for (const page of pages) {
      const footer = page.words.filter((word) => word.yMin > page.height - 40 * 2.835);
      const text = footer.map((word) => word.text);
      assert.ok(text.includes(BUSY_SELLER.email!), 'the e-mail address is one word');
      assert.ok(text.includes('HRA') && text.includes('123456'));
      const joined = lines(footer).map(lineText).join(' ');
      for (const director of BUSY_SELLER.managingDirectors!) assert.ok(joined.includes(director), `${director} in the footer: ${joined}`);
      assert.match(joined, /Geschäftsführer:/);
      assert.match(joined, /Amtsgericht Berlin-Charlottenburg/);
      assert.match(joined, /IBAN: DE02 1203 0000 0000 2020 51/);
      assert.match(joined, /Kontoinhaber: Internationale Gesellschaft für Software Treuhand/);
      assert.match(joined, /Sitz: Berlin/);
    }
  });

  test('the letterhead never cuts a contact line: a long e-mail shrinks to fit, one too long for it is left to the footer', async () => {
    const fits = 'rechnungswesen.buchhaltung@kontor-demo-gmbh.de';
    for (const [email, inLetterhead] of [
      [fits, true],
      [BUSY_SELLER.email!, false],
    ] as const) {
      const pages = readWords(await renderInvoicePdf({ ...domesticInvoice, seller: { ...BUSY_SELLER, email } }));
      const letterhead = pages[0]!.words.filter((word) => word.yMax < 100);
      assert.ok(!letterhead.some((word) => word.text.includes('…')), 'nothing cut with "…"');
      const found = letterhead.find((word) => word.text === email);
      assert.equal(Boolean(found), inLetterhead, email);
      if (found) assert.ok(Math.abs(found.xMax - MARGIN.right) < 1, 'right-aligned to the margin');
      assert.ok(
        pages[0]!.words.some((word) => word.text === email && word.yMin > 700),
        'whole in the footer',
      );
    }
  });
});

describe('PDF layout: continuation pages', { skip }, () => {
  test('every page after the first names the invoice (also one that holds only the totals) and says page x of y', async () => {
    // Find a length whose last page carries the totals but no table row.
    let found: { doc: InvoiceDocument; pages: string[] } | null = null;
    for (let count = 12; count <= 60 && !found; count++) {
      const doc = longInvoice(count);
      const pages = extractPages(await renderInvoicePdf(doc));
      const last = pages.at(-1)!;
      if (pages.length > 1 && last.includes('Gesamtbetrag brutto') && !last.includes('Pos.')) found = { doc, pages };
    }
    assert.ok(found, 'some length leaves the totals alone on the last page');
    const pages = readWords(await renderInvoicePdf(found.doc));
    pages.forEach((page, index) => {
      const text = lines(page.words).map(lineText);
      assert.ok(text.includes(`Rechnung RE-2026-000999 · Seite ${index + 1} von ${pages.length}`), `page ${index + 1}: ${text.at(-5)}`);
      if (index > 0) assert.equal(text[0], 'Rechnung RE-2026-000999 vom 21.11.2026 – Fortsetzung', `page ${index + 1} head`);
      assertNoOverlap(page, `page ${index + 1}`);
    });
  });

  test('a description longer than a page goes on on the next page, under the running head', async () => {
    const description = Array.from({ length: 400 }, (_, i) => `Leistungsbaustein ${i + 1}`).join(', ');
    const [first] = domesticInvoice.lines;
    const doc = { ...domesticInvoice, lines: [{ ...first!, description }, ...domesticInvoice.lines.slice(1, 3)] };
    const pages = readWords(await renderInvoicePdf(doc));
    assert.ok(pages.length >= 3);
    pages.forEach((page, index) => {
      assertNoOverlap(page, `page ${index + 1}`);
    });
    const all = pages.flatMap((page) => page.words.map((word) => word.text)).join(' ');
    assert.ok(all.includes('Leistungsbaustein 400'), 'nothing of the description is lost');
  });
});

describe('PDF contents a reader looks for', { skip }, () => {
  const pageText = async (doc: InvoiceDocument) => readWords(await renderInvoicePdf(doc)).map((page) => lines(page.words).map(lineText));

  test('a 0 % line names its exemption reason under the line and beside the exempt amount', async () => {
    const [page] = readWords(await renderInvoicePdf(exemptSingleDayInvoice));
    const text = lines(page!.words).map(lineText);
    // Under line 3 (wrapped in the description column).
    const below = text.indexOf(text.find((line) => line.startsWith('3 Physiotherapie'))!) + 1;
    assert.match(`${text[below]} ${text[below + 1]}`, /^Steuerfrei: Steuerfreie Heilbehandlung nach § 4 Nr\. 14 Buchst\. a UStG$/, text.join('\n'));
    // The totals row: label and the exempt net amount (91,00 €) on the same line.
    const row = text.find((line) => line.startsWith('Nettobetrag steuerfrei: Steuerfreie'));
    assert.ok(row, 'totals row with the reason');
    assert.match(row, /91,00 €$/);
    assertNoOverlap(page!, 'exempt');
  });

  test('a single-day service says "Leistungsdatum" with its date, not a period', async () => {
    const [text] = await pageText(exemptSingleDayInvoice);
    assert.ok(
      text!.some((line) => /Leistungsdatum 20\.11\.2026/.test(line)),
      text!.join('\n'),
    );
    assert.ok(!text!.some((line) => line.includes('Leistungszeitraum')));
  });

  test('no unit code is printed where no unit was sent, and the six-decimal unit price fits its column', async () => {
    const [page] = readWords(await renderInvoicePdf(exemptSingleDayInvoice));
    const words = page!.words.map((word) => word.text);
    for (const code of ['C62', 'DAY', 'H87', 'LS', 'MON']) assert.ok(!words.includes(code), `${code} printed`);
    const row = lines(page!.words).find((line) => lineText(line).startsWith('2 Datenübernahme'));
    assert.ok(row, 'line 2');
    assert.equal(lineText(row), '2 Datenübernahme je Datensatz 1.250 0,012345 € 19 15,43 €');
    assert.ok(row.every((word) => word.xMax <= MARGIN.right + 0.5));
    assertNoOverlap(page!, 'six decimals');
  });

  test('tabs and control characters in texts are printed as plain spaces or not at all', async () => {
    const [first] = domesticInvoice.lines;
    const doc = {
      ...domesticInvoice,
      lines: [{ ...first!, description: 'Wartung\tServer\u0007 Rack\u00a0A  \r\nvor Ort\u200b' }],
      buyer: { ...domesticInvoice.buyer, name: 'Tab\tGmbH\u0000', contactName: 'Hans\u001fMüller' },
    };
    const [page] = readWords(await renderInvoicePdf(doc));
    const text = lines(page!.words).map(lineText);
    assert.ok(
      text.some((line) => line.startsWith('1 Wartung Server Rack')),
      text.join('\n'),
    );
    assert.ok(text.includes('vor Ort'));
    assert.ok(text.includes('Tab GmbH'));
    assert.ok(text.includes('z. Hd. HansMüller'));
  });

  test('a Kleinunternehmer invoice has no VAT column and no VAT rows', async () => {
    const [text] = await pageText(smallBusinessInvoice);
    const all = text!.join('\n');
    assert.ok(text!.includes('Pos. Beschreibung Menge Einheit Einzelpreis Betrag'), all);
    for (const absent of [/USt %/, /^zzgl\./m, /^Umsatzsteuer/m, /netto/, /brutto/]) assert.doesNotMatch(all, absent);
    assert.match(all, /Gesamtbetrag 910,00 €/);
    assert.match(all, /Gemäß § 19 UStG wird keine Umsatzsteuer berechnet/);
  });

  test('a storno names the cancelled invoice once and says the amount is offset, not "pay by"', async () => {
    const all = (await pageText(stornoInvoice)).flat().join(' ');
    assert.equal(all.match(/Storno zu Rechnung RE-2026-000123/g)?.length, 1, all);
    assert.match(all, /Der Betrag von 3\.097,95 € wird mit Rechnung RE-2026-000123 verrechnet; einen bereits gezahlten Betrag erstatten wir Ihnen\./);
    assert.ok(!/Zahlbar|bis \d/.test(all.replace(/Seite \d von \d/g, '')));
  });

  test("reverse charge and not taxable print the buyer's ID with the right name", async () => {
    assert.ok((await pageText(reverseChargeInvoice)).flat().some((line) => line === 'Ihre USt-IdNr. ATU58219378'));
    const swiss = { ...notTaxableInvoice, buyer: { ...notTaxableInvoice.buyer, vatId: 'CHE-116.281.710 MWST' } };
    assert.ok((await pageText(swiss)).flat().some((line) => line === 'Ihre UID CHE-116.281.710 MWST'));
  });
});
