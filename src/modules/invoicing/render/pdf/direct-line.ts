// One prepared line of text drawn the way pdfkit's `text(line, x, y, { lineBreak: false })`
// draws it, without pdfkit's general text path. Every line of our documents is measured,
// wrapped and placed by text.ts and drawn on its own; pdfkit takes each through option
// merging, its line and fragment functions, a matrix product for the flip of the y axis,
// eight separate content writes and a layout that concatenates each word's glyphs and
// positions into new arrays: ~20 % of a statement's rendering (issue 26). Here the same
// operators are written as one string, the glyphs encoded word by word into the font's
// subset as pdfkit's encode does (same subset ids, same widths and Unicode maps, in the
// same order), and the cursor left where pdfkit leaves it. The bytes are pdfkit's: the
// renderer tests draw every fixture both ways and compare.
import { shortcuts } from '../shortcuts.ts';

/** A glyph as fontkit gives it in a run. */
type Glyph = { id: number; advanceWidth: number; codePoints: number[] };
type Position = { xAdvance: number; advanceWidth?: number; xOffset: number; yOffset: number };

/** pdfkit's EmbeddedFont: what its encode touches (not in the typings). */
type Font = {
  id: string;
  ascender: number;
  scale: number;
  widths: number[];
  unicode: number[][];
  subset: { includeGlyph(id: number): number };
  layoutCached(text: string): { glyphs: Glyph[]; positions: Position[] };
  ref(): unknown;
};

/** pdfkit's PDFDocument: the fields its text path reads and sets (not in the typings). */
type Document = {
  x: number;
  y: number;
  _font: Font;
  _fontSize: number;
  _textOptions: unknown;
  page: { height: number; fonts: Record<string, unknown>; write(data: string): void };
  widthOfString(text: string, options?: object): number;
};

/** pdfkit's number formatting of an operand (PDFObject.number). */
function number(n: number): string {
  if (n > -1e21 && n < 1e21) return `${Math.round(n * 1e6) / 1e6}`;
  throw new Error(`unsupported number: ${n}`);
}

/** A subset glyph id as pdfkit writes it: four hex digits. */
const hexes: string[] = [];
function hex(gid: number): string {
  let text = hexes[gid];
  if (text === undefined) {
    text = `0000${gid.toString(16)}`.slice(-4);
    hexes[gid] = text;
  }
  return text;
}

/**
 * pdfkit's EmbeddedFont.encode(text) without its layout's array concatenation: the text cut
 * where pdfkit's layout cuts it (after each space or tab), each piece's run from the same
 * cache, each glyph included in the subset in the same order.
 */
function encode(font: Font, text: string): { encoded: string[]; positions: Position[] } {
  const encoded: string[] = [];
  const positions: Position[] = [];
  let last = 0;
  for (let index = 0; index <= text.length; ) {
    const char = text.charCodeAt(index);
    if ((index === text.length && last < index) || char === 32 || char === 9) {
      const run = font.layoutCached(text.slice(last, ++index));
      const glyphs = run.glyphs;
      for (let i = 0; i < glyphs.length; i++) {
        const glyph = glyphs[i]!;
        const gid = font.subset.includeGlyph(glyph.id);
        encoded.push(hex(gid));
        if (font.widths[gid] == null) font.widths[gid] = glyph.advanceWidth * font.scale;
        if (font.unicode[gid] == null) font.unicode[gid] = glyph.codePoints;
        positions.push(run.positions[i]!);
      }
      last = index;
    } else index++;
  }
  return { encoded, positions };
}

/** pdfkit's text operators for `text` at (x, y) in page space, flipped y, as _fragment writes them (left-aligned, no spacing, fill). */
function operators(doc: Document, text: string, x: number, top: number): string {
  const font = doc._font;
  const size = doc._fontSize;
  const dy = (font.ascender / 1000) * size;
  const height = doc.page.height;
  const y = height - top - dy;
  const { encoded, positions } = encode(font, text);
  const out = [`q\n1 0 0 -1 0 ${number(height)} cm\nBT\n1 0 0 1 ${number(x)} ${number(y)} Tm\n/${font.id} ${number(size)} Tf`];
  const scale = size / 1000;
  const commands: string[] = [];
  let last = 0;
  let hadOffset = false;
  let cursor = x;
  const addSegment = (cur: number) => {
    if (last < cur) {
      const position = positions[cur - 1]!;
      const advance = position.xAdvance - position.advanceWidth!;
      commands.push(`<${encoded.slice(last, cur).join('')}> ${number(-advance)}`);
    }
    last = cur;
  };
  const flush = (i: number) => {
    addSegment(i);
    if (commands.length > 0) {
      out.push(`[${commands.join(' ')}] TJ`);
      commands.length = 0;
    }
  };
  let i = 0;
  for (; i < positions.length; i++) {
    const position = positions[i]!;
    if (position.xOffset || position.yOffset) {
      flush(i);
      out.push(`1 0 0 1 ${number(cursor + position.xOffset * scale)} ${number(y + position.yOffset * scale)} Tm`);
      flush(i + 1);
      hadOffset = true;
    } else {
      if (hadOffset) {
        // pdfkit's x has moved on with the glyphs by now: the line goes on where they end.
        out.push(`1 0 0 1 ${number(cursor)} ${number(y)} Tm`);
        hadOffset = false;
      }
      if (position.xAdvance - position.advanceWidth! !== 0) addSegment(i + 1);
    }
    cursor += position.xAdvance * scale;
  }
  flush(i);
  out.push('ET\nQ');
  return out.join('\n');
}

/**
 * Draws one line (no line break in it) at (x, y), top of the line, with the current font,
 * size and colour, as `pdf.text(line, x, y, { lineBreak: false })` does: the same content
 * bytes, the font put on the page, the cursor at the line's end. With the shortcut off,
 * or in a state this does not cover (pdfkit's continued text), pdfkit draws it.
 */
export function drawLine(pdf: PDFKit.PDFDocument, line: string, x: number, y: number): void {
  const doc = pdf as unknown as Document;
  if (!shortcuts.directLines || doc._textOptions || line.includes('\n')) {
    pdf.text(line, x, y, { lineBreak: false });
    return;
  }
  doc.x = x;
  doc.y = y;
  if (line.length > 0) {
    const font = doc._font;
    if (doc.page.fonts[font.id] == null) doc.page.fonts[font.id] = font.ref();
    // pdfkit's save and restore around the line: the matrix stack ends as it was.
    doc.page.write(operators(doc, line, x, y));
  }
  doc.x += doc.widthOfString(line, {});
}
