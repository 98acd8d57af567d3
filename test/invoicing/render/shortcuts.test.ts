// The renderers' shortcuts around their libraries (issue 26: CII engine, TrueType subset
// writer, native MD5 of the embedded XML, once-deflated output intent) give the bytes the
// libraries give, and deflate level 1 gives the same PDF objects with the same inflated
// streams: every fixture, and documents generated with unusual texts and lengths, rendered
// three ways (all shortcuts, all but the deflate level, none) and compared.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { renderNoticePdf } from '../../../src/modules/dunning/render/notice-pdf.ts';
import type { InvoiceDocument } from '../../../src/modules/invoicing/document.ts';
import { renderFacturX, renderInvoicePdf, renderXRechnungCii, warmUpRenderers } from '../../../src/modules/invoicing/render/index.ts';
import { shortcuts, withoutShortcuts, withShortcuts } from '../../../src/modules/invoicing/render/shortcuts.ts';
import { renderStatementDocuments, renderStatementFacturXml, renderStatementXRechnung } from '../../../src/modules/statements/render/index.ts';
import { reminder, secondNotice } from '../../dunning/fixtures.ts';
import { allStatements, gutschriften } from '../../statements/fixtures.ts';
import { allFixtures, longInvoice } from './fixtures.ts';
import { readObjects } from './pdf-reader.ts';

before(async () => {
  await warmUpRenderers();
});

async function invoiceFiles(doc: InvoiceDocument): Promise<Record<string, Buffer>> {
  const facturX = await renderFacturX(doc);
  return {
    'ZUGFeRD PDF': facturX.pdf,
    'factur-x.xml': facturX.xml,
    'XRechnung CII': await renderXRechnungCii(doc),
    'plain PDF': await renderInvoicePdf(doc),
  };
}

/** The PDF's objects with their inflated streams; /Length is left out (it is the compressed length). */
function objectsOf(pdf: Buffer): string[] {
  return [...readObjects(pdf).values()].map(
    (object) => `${object.id}: ${object.dict.replace(/\/Length \d+/, '')} ${object.stream ? object.stream.toString('base64') : '-'}`,
  );
}

async function assertSameBothWays<T extends Record<string, Buffer>>(label: string, render: () => Promise<T>): Promise<void> {
  assert.equal(Object.values(shortcuts).every(Boolean), true, 'shortcuts are on by default');
  const fast = await render();
  const level6 = await withShortcuts({ pdfDeflate: false }, render);
  const library = await withoutShortcuts(render);
  for (const [name, bytes] of Object.entries(library)) {
    assert.ok(bytes.length > 0, `${label}: ${name} is empty`);
    assert.ok(level6[name]?.equals(bytes), `${label}: ${name} differs from the libraries' own rendering (${level6[name]?.length} vs ${bytes.length} bytes)`);
    if (bytes.subarray(0, 5).toString('latin1') === '%PDF-') {
      assert.deepEqual(objectsOf(fast[name]!), objectsOf(bytes), `${label}: ${name} deflated at level 1 holds other objects`);
    } else assert.ok(fast[name]?.equals(bytes), `${label}: ${name} differs from the libraries' own rendering`);
  }
}

/** A small deterministic generator (mulberry32), so a failure names its seed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// XML's special characters, German and Latin Extended-A letters, typographic marks, and
// characters outside the fonts' primed charset (Greek, arrows, a mathematical sign, a CJK
// character DejaVu does not have, an emoji), and combining marks (an acute, a diaeresis: the
// font places them with an offset, which a line's operators write as a Tm of their own).
const ALPHABET = [...'abcXYZ09 &<>"\'äöüßÄÖÜ€„“‚‘–—…łŁśŚžŽőŐ·ΩλΣ→⇒∑中😀/\\()\u0301\u0308'];

function text(next: () => number, min: number, max: number): string {
  const length = min + Math.floor(next() * (max - min + 1));
  return (
    Array.from({ length }, () => ALPHABET[Math.floor(next() * ALPHABET.length)]!)
      .join('')
      .trim()
      .replace(/\s+/g, ' ') || 'x'
  );
}

function variant(seed: number): InvoiceDocument {
  const next = random(seed);
  const base = longInvoice(1 + Math.floor(next() * 30));
  return {
    ...base,
    buyer: { ...base.buyer, name: text(next, 3, 60), street: text(next, 3, 30), city: text(next, 2, 20) },
    seller: { ...base.seller, name: text(next, 3, 50) },
    lines: base.lines.map((line) => ({ ...line, description: text(next, 1, 140) })),
    notes: Array.from({ length: Math.floor(next() * 3) }, () => text(next, 5, 200)),
    buyerReference: text(next, 1, 20),
  };
}

describe('the renderers give the libraries’ bytes', () => {
  test('every invoice fixture: ZUGFeRD PDF and XML, XRechnung CII, plain PDF', async () => {
    for (const [name, doc] of Object.entries({ ...allFixtures, long40: longInvoice(40) })) {
      await assertSameBothWays(name, () => invoiceFiles(doc));
    }
  });

  test('every statement fixture: PDF, embedded or standalone XML, both CII flavours of the Gutschriften', async () => {
    for (const [name, doc] of Object.entries(allStatements)) {
      await assertSameBothWays(name, async () => {
        const files = await renderStatementDocuments(doc);
        return { pdf: files.pdf, ...(files.xml ? { xml: files.xml } : {}) };
      });
    }
    for (const [name, doc] of Object.entries(gutschriften)) {
      await assertSameBothWays(name, async () => ({ facturx: await renderStatementFacturXml(doc), xrechnung: await renderStatementXRechnung(doc) }));
    }
  });

  test('dunning notices', async () => {
    await assertSameBothWays('reminder', async () => ({ pdf: await renderNoticePdf(reminder()) }));
    await assertSameBothWays('second notice', async () => ({ pdf: await renderNoticePdf(secondNotice()) }));
  });

  test('40 generated invoices: 1–30 lines, markup characters, letters beyond Latin-1, glyphs the fonts lack', async () => {
    for (let seed = 1; seed <= 40; seed++) {
      await assertSameBothWays(`seed ${seed}`, () => invoiceFiles(variant(seed)));
    }
  });
});
