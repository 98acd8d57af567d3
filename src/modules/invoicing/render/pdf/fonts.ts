// DejaVu Sans, regular and bold, from the dejavu-fonts-ttf npm package. The standard
// Helvetica is never used: it is not embedded and fails PDF/A (einvoice-notes.md).
// The TTF files are parsed once per process with the fontkit that pdfkit itself depends
// on and handed to each document pre-parsed: re-parsing them per document cost ~30 ms.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

export const FONT = { regular: 'DejaVuSans', bold: 'DejaVuSans-Bold' } as const;

/** A parsed fontkit font; pdfkit's registerFont accepts any object with `layout`. */
type ParsedFont = { layout: (text: string) => unknown };
type Fontkit = { create: (buffer: Uint8Array) => ParsedFont };

let parsed: { regular: ParsedFont; bold: ParsedFont } | null = null;

function loadFontkit(): Fontkit {
  const require = createRequire(import.meta.url);
  const pdfkitRequire = createRequire(require.resolve('pdfkit'));
  return pdfkitRequire('fontkit') as Fontkit;
}

function fontDirectory(): string {
  const require = createRequire(import.meta.url);
  return path.join(path.dirname(require.resolve('dejavu-fonts-ttf/package.json')), 'ttf');
}

/**
 * Every character a German invoice is likely to print: ASCII, Latin-1, Latin Extended-A,
 * typographic quotes and dashes, €.
 */
function charset(): string {
  const ranges: [number, number][] = [
    [0x20, 0x7e],
    [0xa0, 0x17f],
    [0x2010, 0x2027],
    [0x2030, 0x203a],
    [0x20ac, 0x20ac],
  ];
  return ranges.map(([from, to]) => String.fromCodePoint(...Array.from({ length: to - from + 1 }, (_, i) => from + i))).join('');
}

/**
 * fontkit caches glyph objects with the characters they were first created for, and
 * pdfkit builds the ToUnicode map from those. Subsetting a composite glyph (Ä = A + ¨)
 * creates its parts without characters; with the font shared between documents, a later
 * document would then map "A" or "o" to nothing and its text could not be copied or
 * searched. Laying out the whole charset once creates every glyph with its character first.
 */
function primeGlyphCache(font: ParsedFont): ParsedFont {
  font.layout(charset());
  return font;
}

/** Reads and parses both fonts once (warm-up calls this at start). */
export function loadFonts(): { regular: ParsedFont; bold: ParsedFont } {
  if (!parsed) {
    const fontkit = loadFontkit();
    const dir = fontDirectory();
    parsed = {
      regular: primeGlyphCache(fontkit.create(readFileSync(path.join(dir, 'DejaVuSans.ttf')))),
      bold: primeGlyphCache(fontkit.create(readFileSync(path.join(dir, 'DejaVuSans-Bold.ttf')))),
    };
  }
  return parsed;
}

export function registerFonts(pdf: PDFKit.PDFDocument): void {
  const { regular, bold } = loadFonts();
  // The typings only list paths and buffers; pdfkit's PDFFontFactory takes parsed fonts too.
  pdf.registerFont(FONT.regular, regular as unknown as Buffer);
  pdf.registerFont(FONT.bold, bold as unknown as Buffer);
  pdf.font(FONT.regular);
}
