import type { Ajv, ErrorObject } from 'ajv';

// What every string of a request must be, whatever its schema says: text a person could
// type. PostgreSQL cannot store NUL at all (it answered 500), and other control characters
// would end up in printed addresses, e-invoices and bank transfers. So validation.ts runs
// every schema through withTextRules, which marks each string with `x-text`:
//   - 'line' (names, streets, references, query and path values): no C0 control character
//     (tab and newline included), no DEL, no C1 control character (U+0080–U+009F), no line
//     or paragraph separator (U+2028, U+2029);
//   - 'multiline' (the texts that are printed as paragraphs: MULTILINE_FIELDS): the same,
//     but tab, newline and CR LF are allowed;
// and neither may hold a lone UTF-16 surrogate (a JSON escape like "\ud800", which is no
// character and would be stored as U+FFFD), nor a bidirectional control (Unicode's
// Bidi_Control: U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), which makes a text
// display as something else ("Müller GmbH" + U+202E + "fdp.exe" reads "Müller GmbHexe.pdf").
// A zero-width non-joiner or joiner (U+200C, U+200D) belongs inside words of Persian, the
// Indic scripts and emoji sequences (and at a word's end in Malayalam chillus and Indic half
// forms), so it is allowed right after a character it joins from (a letter, a combining mark,
// an emoji or its modifier) and refused anywhere else: at the start, after a blank, digit or
// sign, or after another joiner (docs/decisions.md, issue 24). A refusal is
// validation_failed, type `pattern`.
//
// The `date` and `date-time` formats are narrowed to the years 1900–9999: PostgreSQL
// refuses year 0, and no invoice, service period or change feed reaches outside them.

/** Properties whose text is printed as a paragraph (an invoice line's or a product's description, the reason for 0 % VAT). */
export const MULTILINE_FIELDS: ReadonlySet<string> = new Set(['description', 'tax_exemption_reason']);

type TextKind = 'line' | 'multiline';

const FORBIDDEN: Record<TextKind, RegExp> = {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
  line: /[\u0000-\u001f\u007f-\u009f\u2028\u2029\p{Bidi_Control}]/u,
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
  multiline: /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u2028\u2029\p{Bidi_Control}]|\r(?!\n)/u,
};

/** A zero-width (non-)joiner that follows no letter, combining mark (a virama, VS16), emoji or skin tone: at the start, after a blank, digit, sign or another joiner. */
const STRAY_JOINER = /(?<![\p{L}\p{M}\p{Extended_Pictographic}\p{Emoji_Modifier}])[\u200c\u200d]/u;

export const TEXT_MESSAGES: Record<TextKind, string> = {
  line: 'Input must be one line of text without control characters (direction controls included)',
  multiline: 'Input must be text without control characters other than tab and line breaks (direction controls included)',
};

/** Whether `text` is acceptable as a `kind` text. */
export function isPlainText(text: string, kind: TextKind): boolean {
  if (!text.isWellFormed() || FORBIDDEN[kind].test(text)) return false;
  return !(text.includes('\u200c') || text.includes('\u200d')) || !STRAY_JOINER.test(text);
}

const MIN_YEAR = 1900;
const MAX_YEAR = 9999;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;

/** A calendar date YYYY-MM-DD that exists, in the years 1900–9999. */
export function isDate(text: string): boolean {
  const match = DATE.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (year < MIN_YEAR || year > MAX_YEAR) return false;
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** An RFC 3339 date-time with a zone (no leap second) in the years 1900–9999, which `new Date()` reads. */
export function isDateTime(text: string): boolean {
  const match = DATE_TIME.exec(text);
  if (!match || !isDate(match[1]!)) return false;
  const [hour, minute, second] = [Number(match[2]), Number(match[3]), Number(match[4])];
  if (hour > 23 || minute > 59 || second > 59) return false;
  if (match[5] !== undefined && (Number(match[5]) > 23 || Number(match[6]) > 59)) return false;
  return Number.isFinite(Date.parse(text));
}

/** Adds the `x-text` keyword and the narrowed date formats (after ajv-formats, whose date formats they replace). */
export function addTextRules(ajv: Ajv): void {
  ajv.addFormat('date', { type: 'string', validate: isDate });
  ajv.addFormat('date-time', { type: 'string', validate: isDateTime });
  ajv.addKeyword({
    keyword: 'x-text',
    type: 'string',
    schemaType: 'string',
    errors: true,
    validate: function text(kind: TextKind, data: string) {
      const self = text as { errors?: Partial<ErrorObject>[] };
      self.errors = [];
      if (isPlainText(data, kind)) return true;
      self.errors.push({ keyword: 'x-text', params: { kind } });
      return false;
    },
  });
}

const SUBSCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
const SUBSCHEMAS = new Set([
  'items',
  'prefixItems',
  'additionalItems',
  'additionalProperties',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'if',
  'then',
  'else',
  'contains',
]);

function mark(schema: unknown, property: string | undefined): unknown {
  if (Array.isArray(schema)) return schema.map((item) => mark(item, property));
  if (!schema || typeof schema !== 'object') return schema;
  const marked: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (SUBSCHEMA_MAPS.has(key) && value && typeof value === 'object') {
      marked[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, mark(sub, key === 'properties' ? name : undefined)]));
    } else if (SUBSCHEMAS.has(key)) {
      // An array's items and the branches of a combination are still that property's text.
      marked[key] = mark(value, key === 'additionalProperties' ? undefined : property);
    } else {
      marked[key] = value;
    }
  }
  const types = Array.isArray(marked.type) ? marked.type : [marked.type];
  if (types.includes('string') && !('x-text' in marked)) {
    marked['x-text'] = property !== undefined && MULTILINE_FIELDS.has(property) ? 'multiline' : 'line';
  }
  return marked;
}

const marked = new WeakMap<object, object>();

/**
 * The schema with every string marked `x-text` (a copy: the route's own schema also feeds
 * the OpenAPI document). The same schema gives the same copy, so Ajv's cache still hits
 * when an app is built again.
 */
export function withTextRules(schema: object): object {
  let copy = marked.get(schema);
  if (!copy) {
    copy = mark(schema, undefined) as object;
    marked.set(schema, copy);
  }
  return copy;
}
