import { type Block, type DocumentModel, isPlaceholder, numberedSections, placeholderText, type Text } from './document-model.ts';

// The document model as Markdown (CommonMark with GFM tables). Texts from the data (a
// company name with "*" or "_", an address with "|") are escaped, so they print as typed
// and never turn into markup; placeholders are bold, so they stand out in any viewer.

/** Characters that mean something in Markdown inline text, and line breaks (a table cell or a list item has one line). */
function mdEscape(text: string): string {
  return text
    .replace(/\s*\n\s*/g, ' ')
    .replace(/[\\`*_[\]<>|#~]/g, (c) => `\\${c}`)
    .replace(/^(\d+)\. /, '$1\\. ')
    .replace(/^([-+]) /, '\\$1 ');
}

function inline(text: Text): string {
  // The brackets are ours and stay as they are: nothing after them can make them a link.
  return isPlaceholder(text) ? `**[${mdEscape(placeholderText(text).slice(1, -1))}]**` : mdEscape(text);
}

function block(b: Block): string {
  switch (b.kind) {
    case 'paragraph':
      return inline(b.text);
    case 'bullets':
      return b.items.map((item) => `- ${inline(item)}`).join('\n');
    case 'table': {
      const row = (cells: string[]) => `| ${cells.join(' | ')} |`;
      return [row(b.columns.map(mdEscape)), row(b.columns.map(() => '---')), ...b.rows.map((cells) => row(cells.map(inline)))].join('\n');
    }
  }
}

export function renderMarkdown(doc: DocumentModel): string {
  const parts: string[] = [`# ${mdEscape(doc.title)}`, mdEscape(doc.subtitle), doc.titleLines.map((line) => `**${mdEscape(line)}**`).join('  \n')];
  parts.push(...doc.preface.map(block));
  for (const { number, depth, section } of numberedSections(doc.sections)) {
    parts.push(`${'#'.repeat(Math.min(depth + 1, 6))} ${number} ${mdEscape(section.title)}`);
    parts.push(...section.blocks.map(block));
  }
  return `${parts.join('\n\n')}\n`;
}
