// DejaVu Sans, regular and bold, from the dejavu-fonts-ttf npm package. The standard
// Helvetica is never used: it is not embedded and fails PDF/A (einvoice-notes.md).
// The TTF files are parsed once per process with the fontkit that pdfkit itself depends
// on and handed to each document pre-parsed: re-parsing them per document cost ~30 ms.
// Shaped words and decoded glyph outlines are shared between documents as well (below):
// together they halve the rendering time of an invoice.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { shortcuts } from '../shortcuts.ts';
import { useDirectSubsetWriter } from './font-subset.ts';
import { useStringStreamWrites } from './stream-writes.ts';

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
 * searched. Laying out the whole charset once creates every glyph with its character first
 * (and decodes its outline for the subsetter, see decodeOutlinesOnce).
 */
function primeGlyphCache(font: ParsedFont): ParsedFont {
  const run = font.layout(charset()) as { glyphs: { id: number }[] };
  decodeOutlinesOnce(font as TrueTypeFont, run.glyphs);
  return font;
}

/** fontkit's TrueType font and glyph: the private glyf decoder the subsetter calls. */
type DecodedGlyf = { components?: { glyphID: number }[] } | null;
type TrueTypeGlyph = { _decode: () => DecodedGlyf };
type TrueTypeFont = ParsedFont & { getGlyph: (id: number) => TrueTypeGlyph };

/**
 * pdfkit subsets both fonts for every document, and fontkit's subsetter parses each used
 * glyph's whole glyf entry again, only to find the parts of composite glyphs: ~2 ms per
 * invoice. DejaVu Sans is a static TrueType font (no variations, so nothing rewrites the
 * outlines) and no caller writes to a decoded entry: the charset's glyphs and their parts
 * are decoded once per process. Glyphs outside the charset decode as before.
 */
function decodeOutlinesOnce(font: TrueTypeFont, glyphs: { id: number }[]): void {
  const seen = new Set<number>();
  const visit = (id: number): void => {
    if (seen.has(id)) return;
    seen.add(id);
    const glyph = font.getGlyph(id);
    const decoded = glyph._decode();
    glyph._decode = () => decoded;
    for (const component of decoded?.components ?? []) visit(component.glyphID);
  };
  for (const glyph of glyphs) visit(glyph.id);
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

/**
 * Shaped words, shared by all documents of this process. pdfkit shapes text word by word
 * with fontkit (OpenType GSUB/GPOS: more than half of a PDF's rendering time) and keeps the
 * results in `EmbeddedFont.layoutCache`, a plain object per font and document, read and
 * written only as `cache[word]`. The result depends on nothing but the font and the word;
 * pdfkit never mutates a cached run (it concatenates copies), and the glyph objects in it
 * are fontkit's own, shared anyway. Handing each document's EmbeddedFont the same cache
 * lets the labels, headers, footer and recurring words of every invoice be shaped once.
 */
/**
 * A shaped word holds ~3 KB (glyph and position objects), so ≤ ~6 MB per font and process
 * or render thread. An invoice adds 100–200 words, most of them the same every time.
 */
const LAYOUT_CACHE_LIMIT = 2_000;

const layoutCaches = new Map<ParsedFont, Record<string, unknown>>();

/** Documents that take a cache between two counts of its words. */
const COUNT_EVERY = 8;
const takes = new Map<ParsedFont, number>();

/**
 * The cache of `font`, started afresh once it holds LAYOUT_CACHE_LIMIT words (bounds memory;
 * a document adds at most a few hundred, so COUNT_EVERY documents at most a few thousand
 * more). A plain object, counted here when every COUNT_EVERY-th document takes it: behind
 * a Proxy that counted each write, every read of pdfkit's (~2,000 per invoice) took V8's
 * slow path, ~4 % of an invoice's rendering; counting its ~2,000 keys for every document
 * took ~2 % of a statement's (issue 26).
 */
function layoutCacheFor(font: ParsedFont): Record<string, unknown> {
  let cache = layoutCaches.get(font);
  const taken = (takes.get(font) ?? 0) + 1;
  takes.set(font, taken % COUNT_EVERY);
  if (!cache || (taken === COUNT_EVERY && Object.keys(cache).length >= LAYOUT_CACHE_LIMIT)) {
    cache = Object.create(null) as Record<string, unknown>;
    layoutCaches.set(font, cache);
  }
  return cache;
}

/** A shaped run as pdfkit reads it: glyphs, their positions (in 1/1000 em) and the sum of advances. */
type Run = { glyphs: unknown[]; positions: { xAdvance: number }[]; advanceWidth: number };

/** pdfkit's EmbeddedFont: the fields this module touches (not in the typings). */
type EmbeddedFont = {
  font: ParsedFont;
  layoutCache?: Record<string, unknown>;
  subset?: unknown;
  layout(text: string, features: unknown, onlyWidth: boolean): { advanceWidth: number };
  layoutRun(text: string): Run;
  layoutCached(text: string): Run;
  widthOfString(text: string, size: number, features?: unknown): number;
};

/**
 * Characters that no substitution or positioning of DejaVu Sans (regular or bold) ties to a
 * neighbour: shaping a word made only of them gives each character's own glyph at its own
 * advance. Checked for every pair and triple and for random longer words in
 * test/invoicing/render/numeral-runs.test.ts; letters are not among them (kerning: "Te",
 * "A-", "F."). The no-break space is: amounts are written "1.234,56 €" with one.
 */
export const NUMERAL_WORD = /^[0-9,.€ \u00a0+\-%/:()#]+$/;

/** Each numeral character's one-glyph run per font (pdfkit's scaled position), shaped once per process. */
const numeralGlyphs = new Map<ParsedFont, Map<string, { glyph: unknown; position: { xAdvance: number } }>>();

/**
 * The run fontkit would shape for a numeral word (amounts, dates, numbers: most of the words
 * a document prints that no other document prints), put together from its characters'
 * runs: the same glyph objects, the same position objects' values, the same sum in the same
 * order as fontkit's GlyphRun.advanceWidth. Shaping one with fontkit cost ~20 µs, ~1.3 ms of
 * a 20-line statement (issue 26); such words are not kept in the shared cache either, so they
 * no longer push the recurring words out of it.
 */
function numeralRun(embedded: EmbeddedFont, text: string): Run {
  let singles = numeralGlyphs.get(embedded.font);
  if (!singles) {
    singles = new Map();
    numeralGlyphs.set(embedded.font, singles);
  }
  const glyphs: unknown[] = [];
  const positions: { xAdvance: number }[] = [];
  let advanceWidth = 0;
  for (const char of text) {
    let single = singles.get(char);
    if (!single) {
      const run = embedded.layoutRun(char);
      single = { glyph: run.glyphs[0], position: run.positions[0]! };
      singles.set(char, single);
    }
    glyphs.push(single.glyph);
    positions.push(single.position);
    advanceWidth += single.position.xAdvance;
  }
  return { glyphs, positions, advanceWidth };
}

/**
 * pdfkit's layoutCached, with numeral words put together (numeralRun) and other words kept
 * as plain runs: fontkit's GlyphRun sums its positions anew on every read of advanceWidth,
 * and pdfkit reads it for every word it lays out. pdfkit never changes a run it got.
 */
function useWordRuns(embedded: EmbeddedFont): void {
  embedded.layoutCached = function (text: string): Run {
    const cache = this.layoutCache as Record<string, Run> | undefined;
    const cached = cache?.[text];
    if (cached) return cached;
    if (NUMERAL_WORD.test(text)) return numeralRun(this, text);
    const shaped = this.layoutRun(text);
    const run = { glyphs: shaped.glyphs, positions: shaped.positions, advanceWidth: shaped.advanceWidth };
    if (cache) cache[text] = run;
    return run;
  };
}

/**
 * Measured strings, shared by all documents of this process like the shaped words: a line
 * is measured up to three times when it is drawn (our alignment, pdfkit's fragment and its
 * cursor), and labels, amounts and dates recur from invoice to invoice. pdfkit's
 * widthOfString is layout(text).advanceWidth × size / 1000, a sum over the text's shaped
 * words that depends on nothing but the font and the text; the cache keeps that sum and
 * scales it the same way, so every width is the one pdfkit computes. Started afresh at
 * WIDTH_CACHE_LIMIT strings (a string and a number each: well under 1 MB).
 */
const WIDTH_CACHE_LIMIT = 10_000;
const widthCaches = new Map<ParsedFont, Map<string, number>>();

function widthCacheFor(font: ParsedFont): Map<string, number> {
  let cache = widthCaches.get(font);
  if (!cache) {
    cache = new Map();
    widthCaches.set(font, cache);
  }
  return cache;
}

/** Gives the document's EmbeddedFont a widthOfString that looks the unshaped sum up first. */
function useSharedWidths(embedded: EmbeddedFont): void {
  const widths = widthCacheFor(embedded.font);
  const measure = embedded.widthOfString;
  embedded.widthOfString = function (text: string, size: number, features?: unknown): number {
    if (features) return measure.call(this, text, size, features);
    let width = widths.get(text);
    if (width === undefined) {
      width = this.layout(text, undefined, true).advanceWidth;
      if (widths.size >= WIDTH_CACHE_LIMIT) widths.clear();
      widths.set(text, width);
    }
    return width * (size / 1000);
  };
}

/** Makes `name` the current font and gives its EmbeddedFont the process-wide layout cache. */
function useSharedLayoutCache(pdf: PDFKit.PDFDocument, name: string): void {
  pdf.font(name);
  const embedded = (pdf as unknown as { _font: EmbeddedFont })._font;
  // pdfkit leaves layoutCache undefined when the document opts out (fontLayoutCache: false).
  if (embedded.layoutCache) embedded.layoutCache = layoutCacheFor(embedded.font);
  if (shortcuts.subsetWriter) useDirectSubsetWriter(embedded.subset);
  if (shortcuts.widthCache) useSharedWidths(embedded);
  if (shortcuts.wordRuns) useWordRuns(embedded);
}

export function registerFonts(pdf: PDFKit.PDFDocument): void {
  // Every document of ours registers its fonts first: its streams' writes go the quick way.
  useStringStreamWrites(pdf);
  const { regular, bold } = loadFonts();
  // The typings only list paths and buffers; pdfkit's PDFFontFactory takes parsed fonts too.
  pdf.registerFont(FONT.regular, regular as unknown as Buffer);
  pdf.registerFont(FONT.bold, bold as unknown as Buffer);
  // Regular first, so it stays /F1 and bold /F2 as before. Opening a font writes nothing:
  // pdfkit embeds a font only once a page uses it.
  useSharedLayoutCache(pdf, FONT.regular);
  useSharedLayoutCache(pdf, FONT.bold);
  pdf.font(FONT.regular);
}
