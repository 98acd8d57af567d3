// Statement renderers, read back: the wording per kind (title, notes), the PDF's text and
// layout through poppler (pdftotext, -bbox), the Gutschrift's CII (type 389, seller = the
// partner, buyer = the company) with fast-xml-parser and against the CII D16B schema, and
// which document gets which e-invoice.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { warmUpRenderers } from '../../src/modules/invoicing/render/index.ts';
import { ADDRESS, MARGIN, TITLE_Y } from '../../src/modules/invoicing/render/pdf/layout.ts';
import {
  renderStatementDocuments,
  renderStatementFacturXml,
  renderStatementPdf,
  renderStatementXRechnung,
  statementNotes,
  statementTitle,
} from '../../src/modules/statements/render/index.ts';
import type { StatementDocument } from '../../src/modules/statements/statement-document.ts';
import { readCii } from '../invoicing/render/cii.ts';
import { ciiSchemaErrors } from '../invoicing/render/cii-schema.ts';
import { describeWord, lines, lineText, overlaps, type Page, popplerMissing, readWords } from '../invoicing/render/pdf-layout.ts';
import { attachments, fontsReport, xmpMetadata } from '../invoicing/render/pdf-reader.ts';
import {
  allStatements,
  cancelledGutschrift,
  company,
  gutschriften,
  partnerInvoiceRequest,
  privateSettlement,
  regularGutschrift,
  reverseChargeGutschrift,
  smallBusinessGutschrift,
} from './fixtures.ts';
import { ciiParties, pdfText } from './statement-reading.ts';

const skip = popplerMissing();
const XRECHNUNG_ID = 'urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0';
const EN16931_ID = 'urn:cen.eu:en16931:2017';

before(async () => {
  await warmUpRenderers();
});

function assertContains(text: string, expected: string[]): void {
  for (const part of expected) assert.ok(text.includes(part), `PDF text lacks "${part}"`);
}

describe('statementTitle and statementNotes', () => {
  const notesOf = (doc: StatementDocument) => statementNotes(doc);

  test('names a self-billed statement "Gutschrift" (§ 14 Abs. 4 Nr. 10 UStG), its cancellation "Storno-Gutschrift"', () => {
    assert.equal(statementTitle(regularGutschrift), 'Gutschrift');
    assert.equal(statementTitle(cancelledGutschrift), 'Storno-Gutschrift');
    assert.equal(statementTitle(privateSettlement), 'Provisionsabrechnung');
    assert.equal(statementTitle(partnerInvoiceRequest), 'Provisionsabrechnung – Bitte um Rechnungsstellung');
    assert.equal(statementTitle({ kind: 'settlement', type: 'cancellation' }), 'Storno-Provisionsabrechnung');
  });

  test('a Gutschrift names the self-billing agreement and the tax treatment of the partner', () => {
    assert.deepEqual(notesOf(regularGutschrift), ['Abrechnung im Gutschriftsverfahren gemäß Vereinbarung vom 15.03.2026.']);
    assert.deepEqual(notesOf(smallBusinessGutschrift), [
      'Abrechnung im Gutschriftsverfahren gemäß Vereinbarung vom 10.01.2026.',
      'Gemäß § 19 UStG wird keine Umsatzsteuer berechnet (Steuerbefreiung für Kleinunternehmer).',
    ]);
    assert.deepEqual(notesOf(reverseChargeGutschrift), [
      'Abrechnung im Gutschriftsverfahren gemäß Vereinbarung vom 01.12.2025.',
      'Steuerschuldnerschaft des Leistungsempfängers (§ 13b UStG): Die Umsatzsteuer schulden wir als Leistungsempfänger.',
    ]);
  });

  test('a cancellation names the cancelled statement first', () => {
    assert.deepEqual(notesOf(cancelledGutschrift), [
      'Storno zur Gutschrift GS-2026-0001 vom 05.11.2026.',
      'Abrechnung im Gutschriftsverfahren gemäß Vereinbarung vom 15.03.2026.',
    ]);
  });

  test('a private person gets no VAT because it is no Unternehmer; a partner invoice request says it is no invoice', () => {
    assert.deepEqual(notesOf(privateSettlement), [
      'Es wird keine Umsatzsteuer ausgewiesen, da Sie als Privatperson kein Unternehmer im Sinne des § 2 UStG sind.',
    ]);
    // The request names the amounts the API shows: 10 % of 3,000.00 = 300.00, + 19 % = 57.00, = 357.00.
    assert.deepEqual(notesOf(partnerInvoiceRequest), [
      'Diese Abrechnung ist keine Rechnung. Bitte stellen Sie uns über den Provisionsbetrag von 300,00\u00a0€ zuzüglich 19 % Umsatzsteuer (57,00\u00a0€), insgesamt 357,00\u00a0€, eine Rechnung.',
    ]);
    const { totals: _, ...withoutTotals } = partnerInvoiceRequest;
    assert.deepEqual(statementNotes(withoutTotals), [
      'Diese Abrechnung ist keine Rechnung. Bitte stellen Sie uns über den Provisionsbetrag eine Rechnung zuzüglich Umsatzsteuer in gesetzlicher Höhe.',
    ]);
  });

  test('a cancelled request for the partner’s invoice asks for no invoice', () => {
    const cancelled = { ...partnerInvoiceRequest, type: 'cancellation' as const, precedingStatement: { number: 'PA-2026-0002', issueDate: '2026-11-05' } };
    assert.deepEqual(statementNotes(cancelled), ['Storno zur Provisionsabrechnung PA-2026-0002 vom 05.11.2026.', 'Diese Abrechnung ist keine Rechnung.']);
  });

  test('refuses a Gutschrift to a private person', () => {
    assert.throws(() => statementNotes({ ...regularGutschrift, taxNote: 'private_person' }), /no Unternehmer/);
  });
});

describe('renderStatementDocuments', () => {
  test('zugferd: a PDF/A-3b with the EN 16931 CII embedded as factur-x.xml, the same XML returned', async () => {
    const { pdf, xml } = await renderStatementDocuments(regularGutschrift);
    assert.ok(xml);
    const [attachment, ...others] = attachments(pdf);
    assert.equal(others.length, 0);
    assert.equal(attachment!.name, 'factur-x.xml');
    assert.equal(attachment!.relationship, 'Alternative');
    assert.ok(attachment!.data.equals(xml));
    assert.equal(readCii(xml).bt24, EN16931_ID);
    const xmp = xmpMetadata(pdf)!;
    assert.match(xmp, /<pdfaid:part>3<\/pdfaid:part>/);
    assert.match(xmp, /<fx:ConformanceLevel>EN 16931<\/fx:ConformanceLevel>/);
    assert.equal(fontsReport(pdf).allEmbedded, true);
  });

  test('xrechnung: a plain PDF plus the standalone XRechnung 3.0 CII', async () => {
    const { pdf, xml } = await renderStatementDocuments(reverseChargeGutschrift);
    assert.deepEqual(attachments(pdf), []);
    assert.equal(readCii(xml!).bt24, XRECHNUNG_ID);
  });

  test('none: the PDF only', async () => {
    const { pdf, xml } = await renderStatementDocuments(privateSettlement);
    assert.equal(xml, null);
    assert.equal(pdf.subarray(0, 5).toString(), '%PDF-');
    assert.deepEqual(attachments(pdf), []);
  });

  test('refuses an e-invoice for anything but a Gutschrift', async () => {
    await assert.rejects(renderStatementDocuments({ ...privateSettlement, eInvoice: 'xrechnung' }), /only a Gutschrift/);
    await assert.rejects(renderStatementDocuments({ ...partnerInvoiceRequest, eInvoice: 'zugferd' }), /only a Gutschrift/);
  });

  test('gives byte-identical output for the same snapshot', async () => {
    for (const doc of [regularGutschrift, cancelledGutschrift, privateSettlement]) {
      const first = await renderStatementDocuments(doc);
      const second = await renderStatementDocuments(doc);
      assert.ok(first.pdf.equals(second.pdf), doc.number);
      assert.ok(first.xml === second.xml || first.xml!.equals(second.xml!), doc.number);
    }
  });
});

describe('statement PDF: contents', { skip }, () => {
  test('a Gutschrift shows both parties, the partner’s tax numbers (§ 14 Abs. 4 Nr. 2 UStG), period, lines, VAT and the right to object', async () => {
    const text = pdfText(await renderStatementPdf(regularGutschrift));
    assertContains(text, [
      'Kontor Demo GmbH',
      'Werbeagentur Sonnenschein GmbH',
      'Schillerstraße 12',
      '80336 München',
      'Gutschrift-Nr. GS-2026-0001',
      'Datum 05.11.2026',
      'Kreditor-Nr. 70001',
      'Ihre USt-IdNr. DE811569869',
      'Ihre Steuernummer 143/123/45678',
      'Unsere USt-IdNr. DE123456789',
      'Gutschrift Nr. GS-2026-0001 · Abrechnungszeitraum 01.10.2026–31.10.2026',
      'Pos. Beschreibung Umsatzbasis netto Satz % Provision',
      'Zeitraum 01.10.2026–31.10.2026',
      '1.250,00 € 10 125,00 €',
      '399,99 € 12,5 50,00 €',
      '-120,00 € 10 -12,00 €',
      'Provision netto 163,00 €',
      'zzgl. 19 % USt 30,97 €',
      'Gesamtbetrag 193,97 €',
      'Abrechnung im Gutschriftsverfahren gemäß Vereinbarung vom 15.03.2026.',
      'Wir überweisen den Betrag bis zum 20.11.2026 auf Ihr Konto IBAN DE…3000.',
      'können Sie ihr widersprechen; sie verliert dann ihre Wirkung als Rechnung.',
      // footer: the company's data
      'Amtsgericht Berlin (Charlottenburg)',
      'IBAN: DE02 1203 0000 0000 2020 51',
    ]);
    assert.ok(!text.includes('DE89370400440532013000') && !text.includes('DE89 3704'), 'the partner’s full IBAN is not printed');
  });

  test('a Kleinunternehmer’s Gutschrift shows no VAT, cites § 19 UStG and pays once the bank account is known', async () => {
    const text = pdfText(await renderStatementPdf(smallBusinessGutschrift));
    assertContains(text, [
      'Gutschrift',
      'Ihre Steuernummer 231/456/78901',
      'Gesamtbetrag 192,00 €',
      'Gemäß § 19 UStG wird keine Umsatzsteuer berechnet',
      'Wir überweisen den Betrag, sobald Sie uns Ihre Bankverbindung mitgeteilt haben.',
    ]);
    assert.ok(!/USt \d|Umsatzsteuer 0/.test(text), 'no VAT row');
  });

  test('a reverse-charge Gutschrift shows 0 % and that the company owes the VAT (§ 13b UStG)', async () => {
    const text = pdfText(await renderStatementPdf(reverseChargeGutschrift));
    assertContains(text, [
      'Agence Lumière SARL',
      'FRANKREICH',
      'Ihre USt-IdNr. FR40303265045',
      'Unsere USt-IdNr. DE123456789',
      'Umsatzsteuer 0 % (§ 13b UStG) 0,00 €',
      'Steuerschuldnerschaft des Leistungsempfängers (§ 13b UStG): Die Umsatzsteuer schulden wir als Leistungsempfänger.',
      'IBAN FR…2606',
    ]);
  });

  test('a Storno-Gutschrift names the cancelled Gutschrift and offsets the negative amount', async () => {
    const text = pdfText(await renderStatementPdf(cancelledGutschrift));
    assertContains(text, [
      'Storno-Gutschrift',
      'Storno zur Gutschrift GS-2026-0001 vom 05.11.2026',
      '-1.250,00 € 10 -125,00 €',
      'Gesamtbetrag -193,97 €',
      'Der Betrag von 193,97 € wird mit der Gutschrift GS-2026-0001 verrechnet',
    ]);
    assert.ok(!text.includes('Wir überweisen'), 'nothing is paid out');
  });

  test('a private person’s settlement: no VAT row, the payout amount, and why there is no VAT', async () => {
    const text = pdfText(await renderStatementPdf(privateSettlement));
    assertContains(text, [
      'Provisionsabrechnung',
      'Abrechnungs-Nr. PA-2026-0001',
      'Kreditor-Nr. 70004',
      'Auszahlungsbetrag 3.826,94 €',
      'Es wird keine Umsatzsteuer ausgewiesen, da Sie als Privatperson kein Unternehmer im Sinne des § 2 UStG sind.',
    ]);
    assert.ok(!text.includes('Gutschrift'), 'a settlement is no Gutschrift');
    assert.ok(!/USt \d|Umsatzsteuer 0|USt-IdNr\. DE8/.test(text), 'no VAT row, no tax numbers of the partner');
  });

  test('a request for the partner’s invoice says it is no invoice and shows the net commission to invoice', async () => {
    const text = pdfText(await renderStatementPdf(partnerInvoiceRequest));
    assertContains(text, [
      'Provisionsabrechnung Bitte um Rechnungsstellung',
      'Abrechnungszeitraum 01.07.2026–30.09.2026',
      'Provision netto (zu berechnen) 300,00 €',
      'Diese Abrechnung ist keine Rechnung.',
      'Nach Eingang Ihrer Rechnung überweisen wir den Betrag bis zum 20.11.2026',
    ]);
    assert.ok(!text.includes('Gutschrift'), 'a request is no Gutschrift');
  });
});

function assertNoOverlap(page: Page, label: string): void {
  assert.deepEqual(
    overlaps(page.words).map(([a, b]) => `${describeWord(a)} × ${describeWord(b)}`),
    [],
    `${label}: text overprinted`,
  );
}

describe('statement PDF: layout', { skip }, () => {
  test('no two words overlap on any page of any statement', async () => {
    for (const [name, doc] of Object.entries(allStatements)) {
      for (const [index, page] of readWords(await renderStatementPdf(doc)).entries()) assertNoOverlap(page, `${name} page ${index + 1}`);
    }
  });

  test('the partner stands in the address window, the title near the top, the totals below the lines', async () => {
    for (const doc of Object.values(allStatements)) {
      const pages = readWords(await renderStatementPdf(doc));
      const first = pages[0]!;
      const name = first.words.find((word) => word.text === doc.partner.name.split(' ')[0]);
      assert.ok(
        name && name.yMin >= ADDRESS.y - 1 && name.yMax <= ADDRESS.bottom && Math.abs(name.xMin - ADDRESS.x) < 1,
        `${doc.number}: partner in the window`,
      );
      const title = first.words.find((word) => word.text === statementTitle(doc).split(' ')[0]);
      assert.ok(title && Math.abs(title.yMin - TITLE_Y) < 8 && Math.abs(title.xMin - MARGIN.left) < 1, `${doc.number}: title at ${title?.yMin}`);
      const last = pages.at(-1)!;
      const totalLabel = doc.kind === 'settlement' ? 'Auszahlungsbetrag' : doc.kind === 'partner_invoice' ? '(zu' : 'Gesamtbetrag';
      const total = last.words.find((word) => word.text === totalLabel)!;
      const position = String(doc.lines.length);
      const lastRow = last.words.find((word) => word.text === position && Math.abs(word.xMin - MARGIN.left) < 1);
      assert.ok(lastRow && total && total.yMin > lastRow.yMax, `${doc.number}: totals below the last line`);
    }
  });

  test('60 lines run over several pages: each continuation page names the statement and repeats the column header, every position once', async () => {
    const pages = readWords(await renderStatementPdf(privateSettlement));
    assert.ok(pages.length >= 3, `${pages.length} pages`);
    for (const [index, page] of pages.entries()) {
      const pageLines = lines(page.words).map(lineText);
      if (index > 0) {
        assert.equal(pageLines[0], 'Provisionsabrechnung PA-2026-0001 vom 05.11.2026 – Fortsetzung');
        assert.ok(pageLines[1]!.startsWith('Pos. Beschreibung Umsatzbasis netto Satz % Provision'), pageLines[1]);
      }
      assert.ok(pageLines.some((line) => line.endsWith(`Seite ${index + 1} von ${pages.length}`)));
    }
    const positions = pages.flatMap((page) =>
      page.words.filter((word) => Math.abs(word.xMin - MARGIN.left) < 1 && /^\d{1,3}$/.test(word.text)).map((word) => Number(word.text)),
    );
    assert.deepEqual(
      positions,
      Array.from({ length: 60 }, (_, index) => index + 1),
    );
  });
});

describe('Gutschrift e-invoice: self-billed invoice 389', () => {
  test('the partner is the seller (BG-4) with its tax numbers, the company the buyer (BG-7) with its USt-IdNr.', async () => {
    const xml = await renderStatementFacturXml(regularGutschrift);
    const cii = readCii(xml);
    const parties = ciiParties(xml);
    assert.equal(cii.bt3, '389');
    assert.equal(cii.bt1, 'GS-2026-0001');
    assert.equal(cii.bt2, '20261105');
    assert.equal(parties.seller.name, 'Werbeagentur Sonnenschein GmbH');
    assert.equal(parties.seller.electronicAddress, 'buchhaltung@sonnenschein-werbung.de');
    assert.equal(parties.buyer.name, 'Kontor Demo GmbH');
    assert.equal(parties.buyer.electronicAddress, 'rechnung@kontor-demo.de');
    assert.deepEqual(cii.sellerTaxRegistrations, [
      { scheme: 'VA', id: 'DE811569869' },
      { scheme: 'FC', id: '143/123/45678' },
    ]);
    assert.deepEqual(cii.buyerTaxRegistrations, [{ scheme: 'VA', id: 'DE123456789' }]);
    assert.equal(cii.bt29, '70001');
    assert.equal(cii.bt10, '70001');
    assert.deepEqual(cii.bg14, { start: '20261001', end: '20261031' });
    assert.deepEqual(cii.bt22, ['Abrechnung im Gutschriftsverfahren gemäß Vereinbarung vom 15.03.2026.']);
  });

  test('19 %: category S, one line per statement line (quantity ±1, positive price), totals as issued', async () => {
    const cii = readCii(await renderStatementFacturXml(regularGutschrift));
    assert.deepEqual(
      cii.lines.map((line) => [line.id, line.quantity, line.unitCode, line.price, line.net, line.category, line.rate]),
      [
        ['1', '1', 'C62', '125.00', '125.00', 'S', '19'],
        ['2', '1', 'C62', '50.00', '50.00', 'S', '19'],
        ['3', '-1', 'C62', '12.00', '-12.00', 'S', '19'],
      ],
    );
    assert.deepEqual(cii.vatBreakdown, [{ category: 'S', rate: '19', basis: '163.00', amount: '30.97', reason: undefined, reasonCode: undefined }]);
    assert.deepEqual(cii.totals, { bt106: '163.00', bt109: '163.00', bt110: '30.97', bt112: '193.97', bt115: '193.97' });
  });

  test('the company pays the partner: SEPA transfer 58 to the partner’s IBAN by the payout date', async () => {
    const cii = readCii(await renderStatementFacturXml(regularGutschrift));
    assert.equal(cii.bt81, '58');
    assert.equal(cii.bt84, 'DE89370400440532013000');
    assert.equal(cii.bt85, 'Werbeagentur Sonnenschein GmbH');
    assert.equal(cii.bt83, 'GS-2026-0001');
    assert.equal(cii.bt9, '20261120');
    assert.equal(cii.bt20, 'Wir überweisen den Betrag bis zum 20.11.2026 auf Ihr Konto IBAN DE…3000.');
  });

  test('Kleinunternehmer: category E with its reason, seller by Steuernummer only; no IBAN: means 1 without account', async () => {
    const cii = readCii(await renderStatementXRechnung(smallBusinessGutschrift));
    assert.deepEqual(cii.sellerTaxRegistrations, [{ scheme: 'FC', id: '231/456/78901' }]);
    assert.equal(cii.vatBreakdown[0]!.category, 'E');
    assert.equal(cii.vatBreakdown[0]!.rate, '0');
    assert.equal(cii.vatBreakdown[0]!.reason, 'Steuerbefreiung für Kleinunternehmer (§ 19 UStG)');
    assert.equal(cii.totals.bt110, '0.00');
    assert.equal(cii.bt81, '1');
    assert.equal(cii.bt84, undefined);
  });

  test('reverse charge: category AE with VATEX-EU-AE, both VAT IDs; the XRechnung seller contact is the partner’s own', async () => {
    const xml = await renderStatementXRechnung(reverseChargeGutschrift);
    const cii = readCii(xml);
    assert.equal(cii.bt24, XRECHNUNG_ID);
    assert.deepEqual(cii.sellerTaxRegistrations, [{ scheme: 'VA', id: 'FR40303265045' }]);
    assert.deepEqual(cii.buyerTaxRegistrations, [{ scheme: 'VA', id: 'DE123456789' }]);
    assert.deepEqual(
      cii.vatBreakdown.map((entry) => [entry.category, entry.rate, entry.amount, entry.reason, entry.reasonCode]),
      [['AE', '0', '0.00', 'Reverse charge', 'VATEX-EU-AE']],
    );
    // BR-DE-5/6/7 and BT-34: the partner's name, telephone and e-mail.
    assert.equal(cii.bt41, 'Agence Lumière SARL');
    assert.equal(cii.bt42, '+33 1 23 45 67 89');
    assert.equal(cii.bt43, 'compta@agence-lumiere.fr');
    assert.equal(ciiParties(xml).seller.electronicAddress, 'compta@agence-lumiere.fr');
  });

  test('a partner’s contact person and telephone are the seller contact’s (BT-41, BT-42)', async () => {
    const cii = readCii(await renderStatementXRechnung(regularGutschrift));
    assert.deepEqual([cii.bt41, cii.bt42, cii.bt43], ['Sabine Sonnenschein', '+49 89 4711 0', 'buchhaltung@sonnenschein-werbung.de']);
  });

  test('never the company’s data in the partner’s place: ZUGFeRD leaves out what the partner has not given (issue 24)', async () => {
    // The partner gave no telephone and no e-mail: BT-42, BT-43 and BT-34 are left out.
    const doc = { ...reverseChargeGutschrift, eInvoice: 'zugferd' as const, partner: { ...reverseChargeGutschrift.partner, phone: null, email: null } };
    const xml = await renderStatementFacturXml(doc);
    const cii = readCii(xml);
    assert.equal(cii.bt41, 'Agence Lumière SARL');
    assert.equal(cii.bt42, undefined);
    assert.equal(cii.bt43, undefined);
    assert.equal(ciiParties(xml).seller.electronicAddress, undefined);
    const seller = /<ram:SellerTradeParty>[\s\S]*?<\/ram:SellerTradeParty>/.exec(xml.toString())![0];
    for (const companyValue of [company.phone!, company.email!, company.contactName!])
      assert.ok(!seller.includes(companyValue), `the seller party holds the company's ${companyValue}`);
    assert.deepEqual(await ciiSchemaErrors(xml), []);
  });

  test('an XRechnung is not written without the partner’s telephone or e-mail (BR-DE-6/7)', async () => {
    const noPhone = { ...reverseChargeGutschrift, partner: { ...reverseChargeGutschrift.partner, phone: null } };
    await assert.rejects(renderStatementXRechnung(noPhone), /needs the partner's telephone \(BR-DE-6\/7\)/);
    const neither = { ...reverseChargeGutschrift, partner: { ...reverseChargeGutschrift.partner, phone: undefined, email: null } };
    await assert.rejects(renderStatementXRechnung(neither), /needs the partner's telephone and e-mail/);
  });

  test('cancellation: 389 with negative quantities, BG-3 the cancelled Gutschrift, offset (97) instead of a transfer, no due date', async () => {
    const cii = readCii(await renderStatementXRechnung(cancelledGutschrift));
    assert.equal(cii.bt3, '389');
    assert.equal(cii.bt25, 'GS-2026-0001');
    assert.equal(cii.bt26, '20261105');
    assert.equal(cii.bt22[0], 'Storno zur Gutschrift GS-2026-0001 vom 05.11.2026.');
    assert.deepEqual(
      cii.lines.map((line) => [line.quantity, line.price, line.net]),
      [
        ['-1', '125.00', '-125.00'],
        ['-1', '50.00', '-50.00'],
        ['1', '12.00', '12.00'],
      ],
    );
    assert.deepEqual(cii.totals, { bt106: '-163.00', bt109: '-163.00', bt110: '-30.97', bt112: '-193.97', bt115: '-193.97' });
    assert.equal(cii.bt81, '97');
    assert.equal(cii.bt84, undefined);
    assert.equal(cii.bt9, undefined);
  });

  test('every Gutschrift’s CII in both flavours is valid against the CII D16B schema', async () => {
    for (const [name, doc] of Object.entries(gutschriften)) {
      assert.deepEqual(await ciiSchemaErrors(await renderStatementFacturXml(doc)), [], `${name} Factur-X`);
      assert.deepEqual(await ciiSchemaErrors(await renderStatementXRechnung(doc)), [], `${name} XRechnung`);
    }
  });

  test('no e-invoice for a settlement or a request for the partner’s invoice', async () => {
    await assert.rejects(renderStatementXRechnung(privateSettlement), /no Gutschrift/);
    await assert.rejects(renderStatementFacturXml(partnerInvoiceRequest), /no Gutschrift/);
  });
});
