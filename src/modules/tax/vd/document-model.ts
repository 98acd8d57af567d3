// A small document model for texts Kontor writes for people (the Verfahrensdokumentation,
// issue 28): numbered sections with paragraphs, bullet lists and simple tables, built once
// from the data and rendered twice (document-model-markdown.ts, document-model-pdf.ts), so
// the Markdown and the PDF always say the same.

/** What someone outside Kontor must still write in: shown visibly in both renderings. */
export type Placeholder = { fill: 'Betreiber' | 'Unternehmen'; what: string };

/** A piece of text: plain, or a placeholder standing where the text will go. */
export type Text = string | Placeholder;

export type Block =
  | { kind: 'paragraph'; text: Text }
  | { kind: 'bullets'; items: Text[] }
  /** `widths` are relative column widths (they need not add up to anything). */
  | { kind: 'table'; columns: string[]; rows: Text[][]; widths?: number[] };

/** A section; its number (1, 1.1, …) follows from its place in the tree. */
export type Section = { title: string; blocks: Block[]; sections?: Section[] };

export type DocumentModel = {
  /** The document's kind, e.g. "Verfahrensdokumentation". */
  title: string;
  subtitle: string;
  /** The title page's lines under the title (company name first). */
  titleLines: string[];
  /** A line at the foot of every PDF page beside the page number, e.g. the company name. */
  footer: string;
  /** Unnumbered paragraphs before section 1. */
  preface: Block[];
  sections: Section[];
};

export const placeholder = (fill: Placeholder['fill'], what: string): Placeholder => ({ fill, what });

export const isPlaceholder = (text: Text): text is Placeholder => typeof text !== 'string';

/** The placeholder's words as both renderings show them (the Markdown adds the bold marks). */
export const placeholderText = (p: Placeholder): string => `[Vom ${p.fill} auszufüllen: ${p.what}]`;

export const paragraph = (text: Text): Block => ({ kind: 'paragraph', text });
export const bullets = (items: Text[]): Block => ({ kind: 'bullets', items });
export const table = (columns: string[], rows: Text[][], widths?: number[]): Block =>
  widths ? { kind: 'table', columns, rows, widths } : { kind: 'table', columns, rows };

/** Each section with its number ("1", "1.2"), depth first in reading order. */
export function numberedSections(sections: readonly Section[], prefix = ''): { number: string; depth: number; section: Section }[] {
  return sections.flatMap((section, index) => {
    const number = `${prefix}${index + 1}`;
    return [{ number, depth: prefix.split('.').length, section }, ...numberedSections(section.sections ?? [], `${number}.`)];
  });
}
