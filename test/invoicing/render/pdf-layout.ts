// The PDF's words with their boxes, read back by poppler's `pdftotext -bbox` (an
// independent reader, not pdfkit's own view), for layout tests: what overlaps, where a
// block sits, which line a word is on.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export type Word = { text: string; xMin: number; yMin: number; xMax: number; yMax: number };
export type Page = { width: number; height: number; words: Word[] };

/**
 * Whether `pdftotext` (Debian package poppler-utils) is installed. CI installs it and sets
 * KONTOR_TEST_REQUIRE_POPPLER=1, so there a missing tool fails instead of skipping.
 */
export function popplerMissing(): string | false {
  if (spawnSync('pdftotext', ['-v']).error === undefined) return false;
  if (process.env.KONTOR_TEST_REQUIRE_POPPLER === '1') throw new Error('pdftotext is not installed (apt-get install poppler-utils)');
  return 'pdftotext (poppler-utils) is not installed';
}

function unescapeHtml(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

/** Every page's words with their boxes (points, y from the top). */
export function readWords(pdf: Buffer): Page[] {
  const dir = mkdtempSync(path.join(tmpdir(), 'kontor-bbox-'));
  try {
    const file = path.join(dir, 'doc.pdf');
    writeFileSync(file, pdf);
    const html = execFileSync('pdftotext', ['-bbox', '-enc', 'UTF-8', file, '-'], { encoding: 'utf8' });
    return [...html.matchAll(/<page width="([\d.]+)" height="([\d.]+)">([\s\S]*?)<\/page>/g)].map((page) => ({
      width: Number(page[1]),
      height: Number(page[2]),
      words: [...page[3]!.matchAll(/<word xMin="([\d.-]+)" yMin="([\d.-]+)" xMax="([\d.-]+)" yMax="([\d.-]+)">([^<]*)<\/word>/g)].map((m) => ({
        text: unescapeHtml(m[5]!),
        xMin: Number(m[1]),
        yMin: Number(m[2]),
        xMax: Number(m[3]),
        yMax: Number(m[4]),
      })),
    }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Pairs of words whose boxes overlap by more than `tolerance` points in both directions. */
export function overlaps(words: Word[], tolerance = 0.6): [Word, Word][] {
  const found: [Word, Word][] = [];
  const sorted = [...words].sort((a, b) => a.yMin - b.yMin);
  for (let i = 0; i < sorted.length; i++) {
    const a = sorted[i]!;
    for (let j = i + 1; j < sorted.length; j++) {
      const b = sorted[j]!;
      if (b.yMin >= a.yMax - tolerance) break;
      const dx = Math.min(a.xMax, b.xMax) - Math.max(a.xMin, b.xMin);
      const dy = Math.min(a.yMax, b.yMax) - Math.max(a.yMin, b.yMin);
      if (dx > tolerance && dy > tolerance) found.push([a, b]);
    }
  }
  return found;
}

/** "word" (x, y) for assertion messages. */
export function describeWord(word: Word): string {
  return `"${word.text}" (${word.xMin.toFixed(1)}, ${word.yMin.toFixed(1)})`;
}

/** The words of a page between two y positions (their tops), in reading order. */
export function wordsBetween(page: Page, top: number, bottom: number): Word[] {
  return page.words.filter((word) => word.yMin >= top - 0.5 && word.yMax <= bottom + 0.5);
}

/** Words grouped into lines by their top (within 1 pt), top to bottom, left to right. */
export function lines(words: Word[]): Word[][] {
  const result: Word[][] = [];
  for (const word of [...words].sort((a, b) => a.yMin - b.yMin || a.xMin - b.xMin)) {
    const line = result.find((candidate) => Math.abs(candidate[0]!.yMin - word.yMin) < 1);
    if (line) line.push(word);
    else result.push([word]);
  }
  return result.map((line) => line.sort((a, b) => a.xMin - b.xMin));
}

export const lineText = (line: Word[]) => line.map((word) => word.text).join(' ');
