// The ```sh examples of README.md as a person would type them: each block split into its
// commands (a command runs on over `\` line ends and open quotes), each command with the
// `#` comment lines written right under it (what it answers), or, for a block's last
// command, the bare ``` block that follows the block (what it prints). A block is skipped when the
// line before its fence says `<!-- readme-examples: skip (reason) -->`.

export type Expectation =
  /** `# 201 {"id":"cus_…",…}`: the HTTP status (curl) and the JSON fields shown. */
  | { kind: 'answer'; status?: number; json?: string }
  /** `# kontor: …`: the command is refused with this sentence on stderr (exit 1). */
  | { kind: 'refusal'; text: string }
  /** Any other comment under a command: lines of its output. */
  | { kind: 'lines'; lines: string[] };

export type Command = { line: number; text: string; expect?: Expectation };
export type Block = { line: number; commands: Command[]; skip?: string };

const FENCE = /^(\s*)```(\S*)\s*(.*)$/;
const SKIP = /^<!--\s*readme-examples:\s*skip\s*\((.+)\)\s*-->$/;

/** The ```sh blocks of a Markdown text, in order. */
export function shellBlocks(markdown: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!);
    if (!open) continue;
    const indent = open[1]!.length;
    let end = i + 1;
    while (end < lines.length && !/^\s*```\s*$/.test(lines[end]!)) end++;
    if (open[2] === 'sh') {
      let before = i - 1;
      while (before >= 0 && lines[before]!.trim() === '') before--;
      const skip = before >= 0 ? SKIP.exec(lines[before]!.trim())?.[1] : undefined;
      const body = lines.slice(i + 1, end).map((l) => l.slice(Math.min(indent, l.length - l.trimStart().length)));
      const block: Block = { line: i + 1, commands: splitCommands(body, i + 2), ...(skip ? { skip } : {}) };
      blocks.push(block);
      // A bare ``` block right after it shows what its last command prints.
      let next = end + 1;
      while (next < lines.length && lines[next]!.trim() === '') next++;
      const last = block.commands.at(-1);
      if (last && !last.expect && /^\s*```\s*$/.test(lines[next] ?? '')) {
        let close = next + 1;
        while (close < lines.length && !/^\s*```\s*$/.test(lines[close]!)) close++;
        const shown = lines.slice(next + 1, close).filter((l) => l.trim() !== '');
        if (shown.length) last.expect = { kind: 'lines', lines: shown };
      }
    }
    i = end;
  }
  return blocks;
}

/** Whether a shell line leaves a quote open, given the quote open before it. */
function quoteAfter(line: string, open: string | undefined): string | undefined {
  let quote = open;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote === "'") {
      if (c === "'") quote = undefined;
    } else if (c === '\\') {
      i++;
    } else if (quote === '"') {
      if (c === '"') quote = undefined;
    } else if (c === "'" || c === '"') {
      quote = c;
    } else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]!))) {
      break;
    }
  }
  return quote;
}

function splitCommands(body: string[], firstLine: number): Command[] {
  const commands: Command[] = [];
  let current: Command | undefined;
  let quote: string | undefined;
  let comments: string[] = [];
  let commentsOf: Command | undefined;
  const closeComments = () => {
    if (commentsOf && comments.length) commentsOf.expect = expectation(comments);
    comments = [];
    commentsOf = undefined;
  };
  body.forEach((raw, index) => {
    const trimmed = raw.trim();
    if (!current) {
      if (trimmed.startsWith('#')) {
        if (commentsOf) comments.push(trimmed.replace(/^#\s?/, ''));
        return;
      }
      closeComments();
      if (trimmed === '') return;
      current = { line: firstLine + index, text: raw };
    } else {
      current.text += `\n${raw}`;
    }
    quote = quoteAfter(raw, quote);
    if (!quote && !/\\$/.test(raw)) {
      commands.push(current);
      commentsOf = current;
      current = undefined;
    }
  });
  closeComments();
  if (current) throw new Error(`README line ${current.line}: the command does not end (open quote or trailing \\)`);
  return commands;
}

function expectation(comments: string[]): Expectation {
  const text = comments.join('\n');
  if (text.startsWith('kontor:')) return { kind: 'refusal', text };
  const answer = /^(?:(\d{3})\b\s*)?(\{[\s\S]*)?$/.exec(text);
  if (answer && (answer[1] || answer[2])) {
    return { kind: 'answer', ...(answer[1] ? { status: Number(answer[1]) } : {}), ...(answer[2] ? { json: firstObject(answer[2]) } : {}) };
  }
  return { kind: 'lines', lines: comments };
}

/** The first balanced `{…}` of a text (what follows it, e.g. "; the same request again answers 200", is prose). */
function firstObject(text: string): string {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return text.slice(0, i + 1);
  }
  return text;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The fields an answer shown in the README promises, as patterns on the compact JSON
 * answer: `"key":value` for every plain value (strings, numbers, true/false/null), where
 * `…` inside a string stands for any text (`"id":"cus_…"` → an id starting with cus_).
 */
export function fieldPatterns(template: string): { shown: string; pattern: RegExp }[] {
  const pairs = template.matchAll(/"([\w.]+)":\s*("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?|true|false|null)/g);
  return [...pairs].map(([, key, value]) => {
    const shown = `"${key}":${value}`;
    const body = value!.startsWith('"') ? `"${escapeRegExp(value!.slice(1, -1)).replace(/…/g, '[^"]*')}"` : escapeRegExp(value!);
    return { shown, pattern: new RegExp(`"${escapeRegExp(key!)}":${body}`) };
  });
}

/** A line of output shown in the README as a pattern: `…` is any text, runs of blanks any blanks. */
export function linePattern(shown: string): RegExp {
  const parts = shown
    .trim()
    .split('…')
    .map((part) =>
      part
        .split(/\s+/)
        .map((word) => escapeRegExp(word))
        .join('\\s+'),
    );
  return new RegExp(`^\\s*${parts.join('.*')}\\s*$`, 'm');
}
