// The CII read back with fast-xml-parser: business terms per VAT verdict, XRechnung and
// Factur-X specifics, storno references, and byte-stable output.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { type InvoiceDocument, stornoNote } from '../../../src/modules/invoicing/document.ts';
import { renderFacturX, renderFacturXml, renderXRechnungCii, warmUpRenderers } from '../../../src/modules/invoicing/render/index.ts';
import { legalName } from '../../../src/shared/german-format.ts';
import { readCii } from './cii.ts';
import { ciiSchemaErrors } from './cii-schema.ts';
import { allFixtures, domesticInvoice, notTaxableInvoice, reverseChargeInvoice, smallBusinessInvoice, stornoInvoice, xrechnungInvoice } from './fixtures.ts';
import { attachments, catalogDict, fontsReport, xmpMetadata } from './pdf-reader.ts';

const XRECHNUNG_ID = 'urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0';
const EN16931_ID = 'urn:cen.eu:en16931:2017';

const compact = (date: string) => date.replaceAll('-', '');

before(async () => {
  await warmUpRenderers();
});

function assertHeaderAndTotals(doc: InvoiceDocument, cii: ReturnType<typeof readCii>): void {
  assert.equal(cii.hasHeaderDelivery, true, 'CII schema: ApplicableHeaderTradeDelivery is mandatory');
  assert.equal(cii.bt1, doc.number);
  assert.equal(cii.bt2, compact(doc.issueDate));
  assert.equal(cii.bt3, doc.type === 'storno' ? '384' : '380');
  assert.equal(cii.bt5, 'EUR');
  const refund = doc.totals.gross.startsWith('-');
  // A negative amount due (storno) is offset or refunded: no due date, no transfer to the seller.
  assert.equal(cii.bt9, refund ? undefined : compact(doc.dueDate));
  assert.equal(cii.bt10, doc.buyerReference);
  assert.ok(cii.bt20, 'BT-20 payment terms');
  if (refund) assert.match(cii.bt20!, /verrechnet; einen bereits gezahlten Betrag erstatten wir Ihnen/);
  // A storno names the cancelled invoice once, as its first note.
  assert.deepEqual(cii.bt22, doc.precedingInvoice ? [`${stornoNote(doc.precedingInvoice)}.`, ...doc.notes] : doc.notes);
  if (doc.servicePeriod.start === doc.servicePeriod.end) {
    assert.equal(cii.bt72, compact(doc.servicePeriod.start), 'a single day is the date of supply BT-72');
    assert.deepEqual(cii.bg14, { start: undefined, end: undefined });
  } else {
    assert.deepEqual(cii.bg14, { start: compact(doc.servicePeriod.start), end: compact(doc.servicePeriod.end) });
    assert.equal(cii.bt72, undefined);
  }
  assert.equal(cii.bt81, refund ? '97' : '58');
  assert.equal(cii.bt83, doc.number);
  assert.equal(cii.bt84, refund ? undefined : doc.seller.iban);
  // BT-85 is the payee (account holder), never the bank's name.
  assert.equal(cii.bt85, refund ? undefined : (doc.seller.accountHolder ?? legalName(doc.seller)));
  assert.deepEqual(cii.totals, {
    bt106: doc.totals.net,
    bt109: doc.totals.net,
    bt110: doc.totals.tax,
    bt112: doc.totals.gross,
    bt115: doc.totals.gross,
  });
  assert.equal(cii.lines.length, doc.lines.length);
  doc.lines.forEach((line, index) => {
    const read = cii.lines[index]!;
    assert.equal(read.quantity, line.quantity);
    assert.equal(read.net, line.netAmount);
    assert.equal(read.unitCode, line.unitCode);
    assert.ok(!read.price!.startsWith('-'), 'BR-27: unit price never negative');
  });
  assert.deepEqual(
    cii.vatBreakdown.map((entry) => [entry.category, entry.rate, entry.basis, entry.amount]),
    doc.vatBreakdown.map((entry) => [entry.category, String(entry.rate), entry.taxableAmount, entry.taxAmount]),
  );
}

describe('CII against the EN 16931 CII D16B XML schema', () => {
  for (const [name, doc] of Object.entries(allFixtures)) {
    test(`${name}: the Factur-X and the XRechnung CII are schema-valid, one text per invoice note`, async () => {
      for (const xml of [await renderFacturXml(doc), await renderXRechnungCii(doc)]) {
        assert.deepEqual(await ciiSchemaErrors(xml), []);
        // EN 16931 BG-1: each note has one text (BT-22); the Factur-X schema allows no second
        // ram:Content, which the library once wrote for a storno's two notes.
        const notes = [...xml.toString().matchAll(/<ram:IncludedNote>([\s\S]*?)<\/ram:IncludedNote>/g)];
        for (const note of notes) assert.equal(note[1]!.match(/<ram:Content>/g)?.length, 1, note[0]);
      }
    });
  }

  test('the check refuses what the schema forbids: an element out of its place', async () => {
    const xml = (await renderFacturXml(stornoInvoice)).toString();
    const misplaced = xml.replace(/(<ram:InvoiceCurrencyCode>EUR<\/ram:InvoiceCurrencyCode>)/, '$1<ram:BuyerReference>x</ram:BuyerReference>');
    assert.notEqual(misplaced, xml);
    const errors = await ciiSchemaErrors(misplaced);
    assert.equal(errors.length, 1);
    assert.match(errors[0]!, /BuyerReference.*not expected/);
  });
});

describe('CII business terms per verdict', () => {
  for (const [name, doc] of Object.entries(allFixtures)) {
    test(`${name}: header, BG-14, payment and totals BT-106…BT-115 match the snapshot`, async () => {
      assertHeaderAndTotals(doc, readCii(await renderFacturXml(doc)));
      assertHeaderAndTotals(doc, readCii(await renderXRechnungCii(doc)));
    });
  }

  test('domestic: category S 19/7 on lines, seller VAT ID BT-31 and tax number BT-32', async () => {
    const cii = readCii(await renderFacturXml(domesticInvoice));
    assert.deepEqual(new Set(cii.lines.map((line) => `${line.category}/${line.rate}`)), new Set(['S/19', 'S/7']));
    assert.deepEqual(cii.sellerTaxRegistrations, [
      { scheme: 'VA', id: 'DE123456789' },
      { scheme: 'FC', id: '30/123/45678' },
    ]);
    assert.ok(cii.vatBreakdown.every((entry) => entry.reason === undefined && entry.reasonCode === undefined));
  });

  test('small business: category E with the § 19 exemption reason, seller identified by its tax number', async () => {
    const cii = readCii(await renderFacturXml(smallBusinessInvoice));
    assert.ok(cii.lines.every((line) => line.category === 'E' && line.rate === '0'));
    assert.equal(cii.vatBreakdown[0]!.category, 'E');
    assert.match(cii.vatBreakdown[0]!.reason!, /§ 19 UStG/);
    assert.deepEqual(cii.sellerTaxRegistrations, [{ scheme: 'FC', id: '21/815/08150' }]);
    assert.equal(cii.bt29, '21/815/08150', 'BR-CO-26 needs BT-29 without a VAT ID');
  });

  test('reverse charge: category AE, VATEX-EU-AE and both VAT IDs (BT-31, BT-48)', async () => {
    const cii = readCii(await renderFacturXml(reverseChargeInvoice));
    assert.ok(cii.lines.every((line) => line.category === 'AE' && line.rate === '0'));
    assert.equal(cii.vatBreakdown[0]!.category, 'AE');
    assert.equal(cii.vatBreakdown[0]!.reasonCode, 'VATEX-EU-AE');
    assert.equal(cii.vatBreakdown[0]!.amount, '0.00');
    assert.deepEqual(cii.sellerTaxRegistrations[0], { scheme: 'VA', id: 'DE123456789' });
    assert.deepEqual(cii.buyerTaxRegistrations, [{ scheme: 'VA', id: 'ATU58219378' }]);
  });

  test('not taxable: category O, VATEX-EU-O, no VAT IDs at all (BR-O-02), no line rate', async () => {
    const cii = readCii(await renderFacturXml(notTaxableInvoice));
    assert.ok(cii.lines.every((line) => line.category === 'O' && line.rate === undefined));
    assert.equal(cii.vatBreakdown[0]!.category, 'O');
    assert.equal(cii.vatBreakdown[0]!.rate, '0', 'XRechnung BR-DE-14 wants BT-119');
    assert.equal(cii.vatBreakdown[0]!.reasonCode, 'VATEX-EU-O');
    assert.match(cii.vatBreakdown[0]!.reason!, /Nicht im Inland steuerbar/);
    assert.deepEqual(cii.sellerTaxRegistrations, [{ scheme: 'FC', id: '30/123/45678' }]);
    assert.deepEqual(cii.buyerTaxRegistrations, []);
    assert.equal(cii.bt29, '30/123/45678');
  });

  test('storno: type 384, negative quantities, positive prices, BT-25/BT-26 name the original', async () => {
    const cii = readCii(await renderFacturXml(stornoInvoice));
    assert.equal(cii.bt3, '384');
    assert.ok(cii.lines.every((line) => line.quantity!.startsWith('-') && !line.price!.startsWith('-')));
    assert.equal(cii.bt25, 'RE-2026-000123');
    assert.equal(cii.bt26, '20261121');
    assert.equal(cii.totals.bt115, '-3097.95');
  });
});

describe('XRechnung 3.0 CII', () => {
  test('claims XRechnung 3.0 and carries Leitweg-ID, seller contact and electronic addresses', async () => {
    const cii = readCii(await renderXRechnungCii(xrechnungInvoice));
    assert.equal(cii.bt24, XRECHNUNG_ID);
    assert.equal(cii.bt10, '04011000-1234512345-06');
    assert.deepEqual(cii.bt49, { id: '04011000-1234512345-06', scheme: '0204' });
    assert.equal(cii.bt41, 'Erika Mustermann');
    assert.equal(cii.bt42, '+49 30 1234567');
    assert.equal(cii.bt43, 'rechnung@kontor-demo.de');
  });

  test('gives byte-identical XML for the same snapshot', async () => {
    assert.ok((await renderXRechnungCii(stornoInvoice)).equals(await renderXRechnungCii(stornoInvoice)));
  });
});

describe('Factur-X EN 16931 hybrid', () => {
  test('embeds factur-x.xml (EN 16931 id) as /Alternative and declares PDF/A-3 and the fx: conformance level', async () => {
    const { pdf, xml } = await renderFacturX(domesticInvoice);
    const [attachment, ...others] = attachments(pdf);
    assert.equal(others.length, 0);
    assert.equal(attachment!.name, 'factur-x.xml');
    assert.equal(attachment!.relationship, 'Alternative');
    assert.equal(attachment!.subtype, 'text#2Fxml');
    assert.ok(attachment!.data.equals(xml), 'the embedded XML is the returned one');
    assert.equal(readCii(attachment!.data).bt24, EN16931_ID);
    assert.match(catalogDict(pdf), /\/AF \[\d+ 0 R\]/);
    assert.match(catalogDict(pdf), /\/OutputIntents/);
    const xmp = xmpMetadata(pdf)!;
    assert.match(xmp, /<pdfaid:part>3<\/pdfaid:part>/);
    assert.match(xmp, /<pdfaid:conformance>B<\/pdfaid:conformance>/);
    assert.match(xmp, /<fx:ConformanceLevel>EN 16931<\/fx:ConformanceLevel>/);
    assert.match(xmp, /<fx:DocumentFileName>factur-x.xml<\/fx:DocumentFileName>/);
    assert.match(xmp, /<pdfaSchema:namespaceURI>urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#<\/pdfaSchema:namespaceURI>/);
    assert.equal(fontsReport(pdf).allEmbedded, true);
  });

  test('gives byte-identical PDF/A-3 for the same snapshot', async () => {
    const first = await renderFacturX(stornoInvoice);
    const second = await renderFacturX(stornoInvoice);
    assert.ok(first.pdf.equals(second.pdf));
    assert.ok(first.xml.equals(second.xml));
  });
});
