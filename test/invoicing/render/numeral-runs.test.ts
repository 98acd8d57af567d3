import assert from 'node:assert/strict';
import { test } from 'node:test';
import PDFDocument from 'pdfkit';
import { FONT, NUMERAL_WORD, registerFonts } from '../../../src/modules/invoicing/render/pdf/fonts.ts';
import { shortcuts } from '../../../src/modules/invoicing/render/shortcuts.ts';

// Numeral words (amounts, dates, numbers) are not shaped by fontkit but put together from
// their characters' runs (pdf/fonts.ts, issue 26). That gives fontkit's run only if no
// substitution or kerning of the fonts ties a numeral character to its neighbour. This
// proves it for every pair and every triple of the characters NUMERAL_WORD admits, and for
// random words up to 16 characters, in both fonts: the same glyphs, the same positions and
// the same advance width, to the last bit.

type Run = { glyphs: { id: number }[]; positions: Record<string, number>[]; advanceWidth: number };
type Embedded = { layoutRun(text: string): Run; layoutCached(text: string): Run; layoutCache?: Record<string, unknown> };

/** Every character of Latin-1, Latin Extended-A, typographic marks and € that the pattern admits as a word by itself. */
function numeralCharacters(): string[] {
  const candidates = [0x20, 0x7e, 0xa0, 0x17f, 0x2010, 0x203a, 0x20ac, 0x20ac];
  const chars: string[] = [];
  for (let i = 0; i < candidates.length; i += 2) {
    for (let code = candidates[i]!; code <= candidates[i + 1]!; code++) {
      const char = String.fromCodePoint(code);
      if (NUMERAL_WORD.test(char)) chars.push(char);
    }
  }
  return chars;
}

function fontOf(name: string): Embedded {
  const pdf = new PDFDocument({ autoFirstPage: false });
  registerFonts(pdf);
  pdf.font(name);
  return (pdf as unknown as { _font: Embedded })._font;
}

function plain(run: Run) {
  return { glyphs: run.glyphs.map((glyph) => glyph.id), positions: run.positions.map((position) => ({ ...position })), advanceWidth: run.advanceWidth };
}

test('the numeral characters are the digits and the marks amounts and dates are written with, no letter', () => {
  assert.equal(numeralCharacters().join(''), ' #%()+,-./0123456789:\u00a0€');
});

test('a numeral word put together from its characters is the run fontkit shapes for it, in both fonts', () => {
  assert.equal(shortcuts.wordRuns, true);
  const chars = numeralCharacters();
  let seed = 7;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const words = new Set<string>();
  for (const a of chars) for (const b of chars) for (const c of chars) words.add(a + b + c).add(a + b);
  for (let i = 0; i < 3000; i++) {
    const length = 4 + Math.floor(next() * 13);
    words.add(Array.from({ length }, () => chars[Math.floor(next() * chars.length)]).join(''));
  }
  for (const name of [FONT.regular, FONT.bold]) {
    const font = fontOf(name);
    font.layoutCache = undefined; // every word put together here, none read back from a cache
    for (const word of words) {
      assert.deepEqual(plain(font.layoutCached(word)), plain(font.layoutRun(word)), `${name}: ${JSON.stringify(word)}`);
    }
  }
});

test('a word with a letter is shaped by fontkit: kerning moves "T" and "e" closer, and so does "1.Te"', () => {
  const font = fontOf(FONT.regular);
  const kerned = font.layoutCached('Te');
  const apart = font.layoutRun('T').advanceWidth + font.layoutRun('e').advanceWidth;
  assert.ok(kerned.advanceWidth < apart, `"Te" is ${kerned.advanceWidth}, T + e ${apart}`);
  assert.deepEqual(plain(font.layoutCached('1.Te')), plain(font.layoutRun('1.Te')));
});
