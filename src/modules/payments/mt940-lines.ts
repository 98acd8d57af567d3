import { StatementError } from './statement.ts';

// The first pass over an MT940/MT942 file (german-rules §5.3): lines into messages of
// fields. Banks wrap around the tags what is not a tag: SWIFT blocks ({1:…}{2:…}{4:, -}),
// header lines (BUNQNL2A / 940), blank lines, a BOM; and the :86: text wraps at 65
// characters wherever it stands, so a wrapped line may start with ":26:37" (the rest of a
// time) or ":KO:NR:". Only the MT940/MT942 tags open a field, and after a text field only
// a tag that may follow it and reads as one.

export type MtField = {
  /** "20", "28C", "60F", "61", "86", "65F", "13D", "90C", … */
  tag: string;
  /** The text after the tag, then each continuation line as the file has it. */
  lines: string[];
  /** 1-based line number of the tag in the file. */
  line: number;
};

export type MtMessage = {
  fields: MtField[];
  /** The message visibly ended: an end mark (-, -}), a next message or a SWIFT block follows. */
  ended: boolean;
};

/** The tags of MT940 and MT942 (:64:/:65: also with a letter, as banks write :65F:). */
const TAG = /^:(20|21|25|28C?|60[FM]|61|62[FM]|64[A-Z]?|65[A-Z]?|86|13D?|34F|90[DC]|NS):/;

/** Fields whose text wraps freely: a line inside them that looks like a tag may be text. */
const TEXT_FIELDS = new Set(['61', '86', 'NS']);

/** What may follow a text field (an entry, its details, the closing balances, the next message). */
const AFTER_TEXT = /^(20|61|62[FM]|64[A-Z]?|65[A-Z]?|86|90[DC]|NS)$/;

/** A :61: statement line starts with value date, optional entry date and the mark (its errors are the parser's to name). */
const STATEMENT_LINE_START = /^\d{6}(?:\d{4}| {4})?R?[CD]/;

const isBlank = (line: string) => line.trim() === '';

/** Whether a tag-looking line inside a text field opens a field (else it is wrapped text). */
function opensFieldAfterText(tag: string, content: string, nextLine: () => string): boolean {
  if (!AFTER_TEXT.test(tag)) return false;
  if (tag === '61') return STATEMENT_LINE_START.test(content);
  if (tag.startsWith('90')) return /^\d{1,5}[A-Z]{3}\d/.test(content);
  // A new message: its :20: is followed by :21: or :25:.
  if (tag === '20') return /^:(21|25):/.test(nextLine());
  return true;
}

/** Reads the lines into messages; refuses a tag that comes before any :20:. */
export function readMtMessages(content: string): MtMessage[] {
  const lines = content.replace(/^(\uFEFF|ï»¿)/, '').split(/\r\n|\r|\n/);
  const messages: MtMessage[] = [];
  let message: MtMessage | null = null;
  let field: MtField | null = null;
  const end = () => {
    if (message) message.ended = true;
    message = null;
    field = null;
  };

  for (let i = 0; i < lines.length; i++) {
    let line = lines[i]!;
    const nextLine = () => lines.slice(i + 1, i + 4).find((next) => !isBlank(next)) ?? '';
    const inText = () => TEXT_FIELDS.has((field as MtField | null)?.tag ?? '');
    // A lone "-" ends the message, unless it is the end of a wrapped text the statement goes on after.
    const textGoesOn = () => inText() && TAG.test(nextLine()) && !nextLine().startsWith(':20:');
    if (line.startsWith('-}') || (/^-\s*$/.test(line) && !textGoesOn())) {
      end();
      line = line.slice(line.indexOf('{')).trim();
      if (!line.startsWith('{')) continue;
    }
    if (line.startsWith('{')) {
      // SWIFT blocks: a new message; its text (block 4) may go on after "{4:" on the same line.
      end();
      const body = line.lastIndexOf('{4:');
      line = body < 0 ? '' : line.slice(body + 3);
      if (!line.startsWith(':')) continue;
    }
    if (isBlank(line)) continue;

    const match = TAG.exec(line);
    const current = field as MtField | null;
    const opens = match !== null && (!inText() || opensFieldAfterText(match[1]!, line.slice(match[0].length), nextLine));
    if (opens) {
      const tag = match[1]!;
      if (tag === '20') {
        end();
        message = { fields: [], ended: false };
        messages.push(message);
      } else if (!message) {
        throw new StatementError(`line ${i + 1}: :${tag}: comes before the :20: that opens a statement`);
      }
      field = { tag, lines: [line.slice(match[0].length)], line: i + 1 };
      (message as MtMessage).fields.push(field);
    } else if (current) {
      current.lines.push(line);
    }
    // Anything else stands outside a message: header lines of the bank, skipped.
  }
  return messages;
}
