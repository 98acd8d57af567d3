// The visual PDF, read back with the pure-JS reader: § 14 UStG contents, German number
// and date formats, embedded fonts, page breaks and byte-stable output.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { renderInvoicePdf, warmUpRenderers } from '../../../src/modules/invoicing/render/index.ts';
import { domesticInvoice, longInvoice, notTaxableInvoice, reverseChargeInvoice, smallBusinessInvoice, stornoInvoice, xrechnungInvoice } from './fixtures.ts';
import { extractPages, fontsReport } from './pdf-reader.ts';

/** All page text in one string, non-breaking spaces as plain ones. */
async function pdfText(pdf: Buffer): Promise<string> {
  return extractPages(pdf)
    .join('\n')
    .replace(/\u00a0/g, ' ');
}

function assertContains(text: string, expected: string[]): void {
  for (const part of expected) assert.ok(text.includes(part), `PDF text lacks "${part}"`);
}

before(async () => {
  await warmUpRenderers();
});

describe('renderInvoicePdf', () => {
  test('prints the § 14 UStG particulars of a domestic 19 % / 7 % invoice', async () => {
    const text = await pdfText(await renderInvoicePdf(domesticInvoice));
    assertContains(text, [
      // seller (letterhead and footer) and buyer with attention line
      'Kontor Demo GmbH',
      'Friedrichstraße 123',
      '10117 Berlin',
      'Steuernummer: ',
      '30/123/45678',
      'USt-IdNr.: DE123456789',
      'IBAN: DE02 1203 0000 0000 2020 51',
      'BIC: BYLADEM1001',
      'Deutsche Kreditbank Berlin',
      'rechnung@kontor-demo.de',
      'Tel. +49 30 1234567',
      'Müller & Söhne Maschinenbau GmbH',
      'z. Hd. Hans Müller',
      'Königsallee 7a',
      '40212 Düsseldorf',
      // header data
      'Rechnung RE-2026-000123',
      'Rechnungsnummer',
      'Rechnungsdatum',
      '21.11.2026',
      'Kundennummer',
      'K-10042',
      'Leistungszeitraum',
      '01.10.–31.10.2026',
      'Fällig am',
      '05.12.2026',
      // table header and lines with German numbers
      'Pos.',
      'Beschreibung',
      'Einzelpreis',
      'Betrag netto',
      'Kontor Business – Monatsabonnement',
      '1.450,00 €',
      '12.500',
      '0,0015 €',
      '3,5',
      // totals per rate
      'Nettobetrag 19 % USt',
      '2.361,54 €',
      'zzgl. 19 % USt',
      '448,69 €',
      'Nettobetrag 7 % USt',
      '268,90 €',
      'zzgl. 7 % USt',
      '18,82 €',
      'Gesamt netto',
      '2.630,44 €',
      'Umsatzsteuer',
      '467,51 €',
      'Gesamtbetrag brutto',
      '3.097,95 €',
      'Seite 1 von 1',
    ]);
    assert.match(text, /Zahlbar ohne Abzug bis 05\.12\.2026 auf das Konto IBAN DE02 1203 0000 0000 2020 51/);
    assert.match(text, /Verwendungszweck: RE-2026-000123\./);
  });

  test('embeds every font (DejaVu Sans regular and bold, no standard Helvetica)', async () => {
    for (const pdf of [await renderInvoicePdf(domesticInvoice), await renderInvoicePdf(domesticInvoice, { pdfA: true })]) {
      const report = fontsReport(pdf);
      assert.equal(report.allEmbedded, true);
      assert.ok(
        report.fonts.every((font) => /DejaVuSans/.test(font)),
        report.fonts.join(', '),
      );
      assert.ok(!pdf.includes('/Helvetica'));
    }
  });

  test('small business invoice shows the § 19 note and no VAT amounts', async () => {
    const text = await pdfText(await renderInvoicePdf(smallBusinessInvoice));
    assertContains(text, ['Gemäß § 19 UStG wird keine Umsatzsteuer berechnet', 'Gesamtbetrag', '910,00 €', 'Steuernummer: ', '21/815/08150']);
    assert.ok(!text.includes('zzgl.'), 'no VAT line on a Kleinunternehmer invoice');
    assert.ok(!text.includes('Umsatzsteuer\n'), 'no VAT total on a Kleinunternehmer invoice');
  });

  test('reverse charge invoice names the reverse charge and both VAT IDs', async () => {
    const text = await pdfText(await renderInvoicePdf(reverseChargeInvoice));
    assertContains(text, [
      'Steuerschuldnerschaft des Leistungsempfängers',
      'Ihre USt-IdNr.',
      'ATU58219378',
      'USt-IdNr.: DE123456789',
      'ÖSTERREICH',
      '1070 Wien',
    ]);
  });

  test('not-taxable invoice to Switzerland carries the note and the country line', async () => {
    const text = await pdfText(await renderInvoicePdf(notTaxableInvoice));
    assertContains(text, ['Nicht im Inland steuerbare Leistung', 'SCHWEIZ', '8001 Zürich', '4.800,00 €', 'nicht im Inland steuerbar']);
  });

  test('prints the Leitweg-ID of a public buyer', async () => {
    const text = await pdfText(await renderInvoicePdf(xrechnungInvoice));
    assertContains(text, ['Leitweg-ID', '04011000-1234512345-06', 'Stadtverwaltung Musterstadt']);
  });

  test('storno is titled Stornorechnung, references the original and negates amounts', async () => {
    const text = await pdfText(await renderInvoicePdf(stornoInvoice));
    assertContains(text, [
      'Stornorechnung ST-2026-000007',
      'Storno zu Rechnung RE-2026-000123 vom 21.11.2026',
      '-1.450,00 €',
      '1.450,00 €',
      '-3.097,95 €',
      'Der Betrag von 3.097,95 € wird mit Rechnung RE-2026-000123 verrechnet',
    ]);
    assert.ok(!text.includes('Zahlbar ohne Abzug'));
  });

  test('breaks 500 lines over pages with running head, column header and page numbers', async () => {
    const doc = longInvoice(500);
    const pages = extractPages(await renderInvoicePdf(doc));
    assert.ok(pages.length > 10, `${pages.length} pages`);
    const total = pages.length;
    pages.forEach((page, index) => {
      assert.ok(page.includes(`Seite ${index + 1} von ${total}`), `page ${index + 1} number`);
      assert.ok(page.includes('Beschreibung') || index === total - 1, `page ${index + 1} table header`);
    });
    assert.ok(pages[1]!.includes('Rechnung RE-2026-000999 vom 21.11.2026 – Fortsetzung'));
    const all = pages.join('\n');
    for (const position of [1, 250, 499, 500]) assert.match(all, new RegExp(`^${position}$`, 'm'), `position ${position}`);
    assert.ok(pages.at(-1)!.includes('Gesamtbetrag brutto'));
  });

  test('gives byte-identical output for the same snapshot', async () => {
    for (const doc of [domesticInvoice, stornoInvoice]) {
      const first = await renderInvoicePdf(doc);
      const second = await renderInvoicePdf(doc);
      assert.ok(first.equals(second), doc.number);
      const issued = `(D:${doc.issueDate.replaceAll('-', '')}000000Z)`;
      assert.ok(first.toString('latin1').includes(issued), 'creation date from the issue date');
    }
  });

  test('gives the same bytes whatever the process rendered before (shared font caches)', async () => {
    // Fill the process-wide layout cache and glyph decodings with other documents first.
    for (const doc of [longInvoice(40), stornoInvoice, reverseChargeInvoice, notTaxableInvoice, xrechnungInvoice]) await renderInvoicePdf(doc);
    const warm = await renderInvoicePdf(domesticInvoice, { pdfA: true });
    const cold = execFileSync(process.execPath, [fileURLToPath(new URL('./render-cold.ts', import.meta.url))], { maxBuffer: 16 * 1024 * 1024 });
    assert.ok(warm.equals(cold), 'first document of a fresh process equals a later one');
  });
});
