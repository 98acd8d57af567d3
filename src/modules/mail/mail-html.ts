/** The HTML part of a German business mail: the paragraphs, a rule, the sender's footer. */
export function mailHtml(paragraphs: string[][], footer: string[]): string {
  const block = (lines: string[]) => lines.map(escapeHtml).join('<br>\n');
  const body = paragraphs.map((lines) => `<p>${block(lines)}</p>`).join('\n');
  return `<!DOCTYPE html>\n<html lang="de"><head><meta charset="utf-8"></head><body style="font-family: sans-serif">\n${body}\n<hr>\n<p style="color: #555; font-size: 0.9em">${block(footer)}</p>\n</body></html>\n`;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
