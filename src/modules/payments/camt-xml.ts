import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { decodeText } from './decode-text.ts';
import { StatementError } from './statement.ts';

// The XML side of camt files: bytes to text, the document tree with every <Ntry> kept as
// raw text (parsed one at a time: one tree of a 10,000-entry file costs hundreds of
// megabytes, one entry a few kB), and the helpers that read values out of the untyped tree.
// Element names lose their namespace prefix here; camt-message.ts checks the namespace.

// biome-ignore lint/suspicious/noExplicitAny: the parsed XML tree is untyped; every read goes through the helpers below.
export type Node = any;

const REPEATED = new Set(['Stmt', 'Rpt', 'Ntfctn', 'Bal', 'Ntry', 'NtryDtls', 'TxDtls', 'Ustrd', 'Strd']);

export const localName = (name: string) => {
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(colon + 1);
};

const TREE_OPTIONS = {
  ignoreAttributes: false,
  parseTagValue: false,
  parseAttributeValue: false,
  // Entities are decoded by text(), in one pass and only in the values Kontor reads.
  processEntities: false,
  isArray: (name: string) => REPEATED.has(name),
  transformTagName: localName,
} as const;

const documentParser = new XMLParser({ ...TREE_OPTIONS, stopNodes: ['*.Ntry'] });
const entryParser = new XMLParser(TREE_OPTIONS);

const UTF16LE = new TextDecoder('utf-16le');
const UTF16BE = new TextDecoder('utf-16be');

/** UTF-16 with its byte order mark; otherwise UTF-8, or Windows-1252 when the bytes are not UTF-8 (whatever the declaration says). */
export function decodeXml(bytes: Buffer): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return UTF16LE.decode(bytes.subarray(2));
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return UTF16BE.decode(bytes.subarray(2));
  // A byte order mark before bytes that are not UTF-8 survives the Windows-1252 reading.
  return decodeText(bytes).replace(/^(\ufeff|\u00ef\u00bb\u00bf)/, '');
}

/** The first thing in the file (after a byte order mark and white space) is `<`. */
export function isXmlFile(bytes: Buffer): boolean {
  const utf16 = (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff);
  const head = utf16 ? decodeXml(bytes.subarray(0, 202)) : bytes.subarray(0, 200).toString('latin1');
  return head
    .replace(/^(\u00ef\u00bb\u00bf|\ufeff)/, '')
    .trimStart()
    .startsWith('<');
}

/** A DOCTYPE (and the entities it may declare) never belongs in a bank file. */
const DOCTYPE = /^\s*(?:<\?[\s\S]*?\?>\s*|<!--[\s\S]*?-->\s*)*<!DOCTYPE/;

/** Checks the XML is well-formed and parses it, the entries left as raw text (entryTree). */
export function parseXmlTree(xml: string): Node {
  const head = xml.slice(0, 4096);
  if (head.includes('<!DOCTYPE') && DOCTYPE.test(head))
    throw new StatementError('the XML declares a DOCTYPE, which bank statement files never do; the file is refused');
  const validation = XMLValidator.validate(xml);
  if (validation !== true) {
    const { msg, line } = validation.err;
    if (msg === 'Start tag expected.') throw new StatementError('the XML holds no element after its declaration');
    // The validator reports elements left open at the end as a list: the file was cut off.
    const open = msg.startsWith("Invalid '[") ? [...msg.matchAll(/"([^"]+)"/g)].map((m) => localName(m[1]!)) : [];
    if (open.length)
      throw new StatementError(`the XML is cut off or malformed: it ends inside <${open.at(-1)}> (${open.join('/')}) before its elements are closed`);
    throw new StatementError(`the XML is cut off or malformed: ${msg.replace(/\s+/g, ' ')} (line ${line})`);
  }
  try {
    return documentParser.parse(xml);
  } catch (error) {
    throw new StatementError(`the XML is cut off or malformed: ${(error as Error).message}`);
  }
}

/** The tree of one Ntry from its raw inner text. */
export function entryTree(raw: Node): Node {
  const inner = typeof raw === 'string' ? raw : typeof raw?.['#text'] === 'string' ? raw['#text'] : '';
  return entryParser.parse(`<Entry>${inner}</Entry>`).Entry;
}

/** Control characters are not XML text (and PostgreSQL refuses NUL). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point.
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g;

const ENTITY = /&(?:#x([0-9a-fA-F]{1,6})|#(\d{1,7})|(amp|lt|gt|quot|apos));/g;
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decodeEntity(_match: string, hex: string | undefined, decimal: string | undefined, name: string | undefined): string {
  if (name) return NAMED[name]!;
  const code = hex ? Number.parseInt(hex, 16) : Number(decimal);
  return code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : '';
}

/** The text of an element (its character references decoded): plain string, or the #text of an element with attributes; null when empty or not text. */
export function text(node: Node): string | null {
  let value: string | null = typeof node === 'string' ? node : typeof node?.['#text'] === 'string' ? node['#text'] : null;
  if (value === null) return null;
  if (value.includes('&')) value = value.replace(ENTITY, decodeEntity);
  const clean = value.replace(CONTROL, '').trim();
  return clean === '' ? null : clean;
}

export const list = (node: Node): Node[] => (Array.isArray(node) ? node : node === undefined || node === null || node === '' ? [] : [node]);

/** One child element, or undefined when it is missing or repeated where it may not be. */
export const one = (node: Node, name: string): Node => {
  const value = node !== null && typeof node === 'object' && !Array.isArray(node) ? node[name] : undefined;
  return Array.isArray(value) ? undefined : value;
};

export type DateValue = { date: string } | { invalid: string } | null;

/** Dt or DtTm of a date choice: the date as written (YYYY-MM-DD), { invalid } for a date that does not exist, null when absent. */
export function dateOf(node: Node): DateValue {
  const value = text(one(node, 'Dt')) ?? text(one(node, 'DtTm'));
  if (value === null) return null;
  // xs:date may carry a zone (2026-11-21+01:00); the date is the one written.
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:$|T|Z$|[+-]\d{2}:\d{2}$)/.exec(value);
  if (!match) return { invalid: value.slice(0, 30) };
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
  return year >= 1900 && day >= 1 && day <= days ? { date: value.slice(0, 10) } : { invalid: value.slice(0, 30) };
}
