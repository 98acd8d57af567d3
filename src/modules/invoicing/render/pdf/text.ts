// Measured text: every block of the PDF is broken into lines here and each line is drawn
// on its own at a position computed from its measured height, so nothing pdfkit wraps on
// its own can run into the next block (the cause of overprinted addresses before).
import { drawLine } from './direct-line.ts';

/** Text as it may be printed: tabs and other blanks as one space, control characters dropped, line breaks kept. */
export function printable(text: string): string {
  return (
    text
      .replace(/\r\n?/g, '\n')
      // Tabs, no-break and other Unicode spaces (not the non-breaking space in "12,00 €").
      .replace(/[\t\v\f\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/g, ' ')
      // Other C0/C1 controls, zero-width characters and the byte-order mark print as nothing
      // (or as a box): dropped.
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this removes
      .replace(/[\u0000-\u0008\u000e-\u001f\u007f-\u009f\u200b-\u200d\u2060\ufeff]/g, '')
      .replace(/ {2,}/g, ' ')
      .split('\n')
      .map((line) => line.trim())
      .join('\n')
      .trim()
  );
}

/** One line of a paragraph (no line breaks inside). */
function width(pdf: PDFKit.PDFDocument, text: string): number {
  return pdf.widthOfString(text);
}

/** Splits a word that is wider than `max` into pieces that fit, after hyphens where possible. */
function breakWord(pdf: PDFKit.PDFDocument, word: string, max: number): string[] {
  const pieces: string[] = [];
  let rest = word;
  while (rest.length > 0 && width(pdf, rest) > max) {
    // The longest prefix that fits (at least one character, so a narrow column still ends).
    let low = 1;
    let high = rest.length;
    while (low < high) {
      const mid = Math.ceil((low + high) / 2);
      if (width(pdf, rest.slice(0, mid)) <= max) low = mid;
      else high = mid - 1;
    }
    // Prefer to break after a hyphen or slash inside that prefix.
    const soft = Math.max(rest.lastIndexOf('-', low - 2), rest.lastIndexOf('/', low - 2));
    const cut = soft >= Math.floor(low / 2) ? soft + 1 : low;
    pieces.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  if (rest) pieces.push(rest);
  return pieces;
}

/**
 * The lines `text` takes in a column `max` points wide with the current font and size:
 * broken at spaces, and inside words only where a word alone is too wide. Line breaks in
 * the text are kept. An empty text takes no line.
 */
export function wrapLines(pdf: PDFKit.PDFDocument, text: string, max: number): string[] {
  const lines: string[] = [];
  for (const paragraph of printable(text).split('\n')) {
    let line = '';
    for (const word of paragraph.split(' ')) {
      if (!word) continue;
      const candidate = line ? `${line} ${word}` : word;
      if (width(pdf, candidate) <= max) {
        line = candidate;
        continue;
      }
      if (line) lines.push(line);
      const pieces = breakWord(pdf, word, max);
      line = pieces.pop() ?? '';
      lines.push(...pieces);
    }
    if (line) lines.push(line);
  }
  return lines;
}

/** The line cut to `max` points with a trailing ellipsis (the whole line when it fits). */
export function ellipsize(pdf: PDFKit.PDFDocument, line: string, max: number): string {
  if (width(pdf, line) <= max) return line;
  let low = 0;
  let high = line.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (width(pdf, `${line.slice(0, mid).trimEnd()}…`) <= max) low = mid;
    else high = mid - 1;
  }
  return `${line.slice(0, low).trimEnd()}…`;
}

/** The font size (from `size` down to `min` in steps of `step` points) at which `text` fits on one line of `max` points; it stays set. */
export function fittingSize(pdf: PDFKit.PDFDocument, text: string, max: number, size: number, min: number, step = 0.5): number {
  let current = size;
  pdf.fontSize(current);
  while (current > min && width(pdf, text) > max) {
    current = Math.max(min, current - step);
    pdf.fontSize(current);
  }
  return current;
}

/** Distance from one line's top to the next at the current font and size. */
export function lineStep(pdf: PDFKit.PDFDocument, gap = 0): number {
  return pdf.currentLineHeight(true) + gap;
}

export type Align = 'left' | 'right';

/** Draws prepared lines from `y` down, each on its own (pdfkit breaks nothing); returns the y below. */
export function drawLines(
  pdf: PDFKit.PDFDocument,
  lines: string[],
  x: number,
  y: number,
  options: { width?: number; align?: Align; gap?: number } = {},
): number {
  const step = lineStep(pdf, options.gap ?? 0);
  let top = y;
  for (const line of lines) {
    const left = options.align === 'right' && options.width !== undefined ? x + options.width - width(pdf, line) : x;
    drawLine(pdf, line, left, top);
    top += step;
  }
  return top;
}
