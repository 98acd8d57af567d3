import { localName } from './camt-xml.ts';
import { StatementError, type StatementFormat, type StatementKind } from './statement.ts';

// Which ISO 20022 message an XML file holds, told by the namespace of the element under
// <Document>. Banks declare it in every legitimate way: a default namespace, a prefix on
// every element (JAXB's ns2:), a prefix on the root and the default namespace below, the
// Document inside an envelope with a business application header. Some declare a prefix
// and then use none: when nothing resolves, the one ISO 20022 namespace declared counts.
// Anything else is refused with a message that says what the file is.

export type CamtMessage = {
  format: StatementFormat;
  kind: StatementKind;
  /** How messages name one Stmt / Rpt / Ntfctn. */
  label: 'statement' | 'report' | 'notification';
  /** The local element names from the root to the message element (BkToCstmrStmt …). */
  path: string[];
  /** Stmt, Rpt or Ntfctn. */
  item: string;
};

const MESSAGES: Record<string, { element: string; item: string; kind: StatementKind; label: CamtMessage['label'] }> = {
  '052': { element: 'BkToCstmrAcctRpt', item: 'Rpt', kind: 'report', label: 'report' },
  '053': { element: 'BkToCstmrStmt', item: 'Stmt', kind: 'statement', label: 'statement' },
  '054': { element: 'BkToCstmrDbtCdtNtfctn', item: 'Ntfctn', kind: 'notification', label: 'notification' },
};

const FIRST_VERSION = 2;
const LAST_VERSION = 13;

const ISO_NAMESPACE = /^urn:iso:std:iso:20022:tech:xsd:([a-z]{4})\.(\d{3})\.(\d{3})\.(\d{2})$/;

const DOWNLOAD = 'download the account statement as camt.053 (or MT940) from online banking';

/** ISO 20022 messages people download by mistake, as the refusal names them. */
const OTHER_MESSAGES: Record<string, string> = {
  'pain.001': 'a pain.001 payment order (a transfer you send to the bank)',
  'pain.008': 'a pain.008 direct debit order (collections you send to the bank)',
  'pain.002': "a pain.002 payment status report (the bank's answer to a payment order)",
  'camt.086': "a camt.086 bank services billing statement (the bank's charges)",
};

const OTHER_ROOTS: Record<string, string> = {
  CrossIndustryInvoice: 'an e-invoice (CII, as XRechnung or ZUGFeRD write it)',
  Invoice: 'an e-invoice (UBL Invoice)',
  CreditNote: 'an e-invoice (UBL CreditNote)',
};

type Element = { local: string; prefix: string | null; declarations: Map<string, string> };

const TAG = /<(\/?)([^\s/>!?]+)((?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>/y;
const ATTRIBUTE = /([^\s=/>]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;
const SKIPPED: [string, string][] = [
  ['<?', '?>'],
  ['<!--', '-->'],
  ['<![CDATA[', ']]>'],
  ['<!', '>'],
];

/**
 * The root and, when there is a <Document> (at most 4 levels down), the elements from the
 * root to the Document's first child, with their namespace declarations. Reads only the
 * head of a well-formed file.
 */
function scanHead(xml: string): { root: string | null; path: Element[] } {
  const stack: Element[] = [];
  let root: string | null = null;
  let document: Element[] = [];
  let at = 0;
  for (let tags = 0; tags < 500; tags++) {
    const lt = xml.indexOf('<', at);
    if (lt < 0) break;
    const skipped = SKIPPED.find(([open]) => xml.startsWith(open, lt));
    if (skipped) {
      const end = xml.indexOf(skipped[1], lt + skipped[0].length);
      if (end < 0) break;
      at = end + skipped[1].length;
      continue;
    }
    TAG.lastIndex = lt;
    const tag = TAG.exec(xml);
    if (!tag) break;
    at = TAG.lastIndex;
    const [, closing, name, attributes, selfClosing] = tag as unknown as [string, string, string, string, string];
    if (closing) {
      stack.pop();
      if (stack.length === 0) break;
      continue;
    }
    const declarations = new Map<string, string>();
    for (const [, attribute, double, single] of attributes.matchAll(ATTRIBUTE)) {
      if (attribute === 'xmlns') declarations.set('', (double ?? single ?? '').trim());
      else if (attribute!.startsWith('xmlns:')) declarations.set(attribute!.slice(6), (double ?? single ?? '').trim());
    }
    const element: Element = { local: localName(name), prefix: name.includes(':') ? name.split(':', 1)[0]! : null, declarations };
    root ??= element.local;
    stack.push(element);
    if (document.length > 0 && stack.at(-2) === document.at(-1)) return { root, path: [...stack] };
    if (element.local === 'Document' && document.length === 0 && stack.length <= 4) document = [...stack];
    if (selfClosing) stack.pop();
  }
  return { root, path: document };
}

/** The namespace an element is in: the nearest declaration of its prefix (or of the default). */
function namespaceOf(path: Element[], index: number): string | null {
  const key = path[index]!.prefix ?? '';
  for (let i = index; i >= 0; i--) {
    const value = path[i]!.declarations.get(key);
    if (value !== undefined) return value === '' ? null : value;
  }
  return null;
}

/** Tells which camt message the file is; refuses everything else with what the file is and what to download instead. */
export function identifyCamt(xml: string): CamtMessage {
  const { root, path } = scanHead(xml);
  const documentIndex = path.findIndex((e) => e.local === 'Document');
  if (documentIndex < 0) {
    const what = root ? (OTHER_ROOTS[root] ?? `XML with the root element <${root}>`) : 'XML without a root element';
    throw new StatementError(`the file is ${what}, not an ISO 20022 bank statement; ${DOWNLOAD}`);
  }
  const message = path[documentIndex + 1];
  const declared = new Set(path.flatMap((e) => [...e.declarations.values()]).filter((ns) => ISO_NAMESPACE.test(ns) && !ns.includes(':xsd:head.')));
  const namespace =
    (message ? namespaceOf(path, documentIndex + 1) : null) ?? namespaceOf(path, documentIndex) ?? (declared.size === 1 ? [...declared][0]! : null);
  if (!namespace) throw new StatementError(`the XML <Document> declares no ISO 20022 namespace, so it is no bank statement Kontor can read; ${DOWNLOAD}`);
  const match = ISO_NAMESPACE.exec(namespace);
  if (!match) throw new StatementError(`the XML <Document> has the namespace "${namespace.slice(0, 100)}", which is no ISO 20022 message; ${DOWNLOAD}`);
  const [, area, number, variant, version] = match as unknown as [string, string, string, string, string];
  const id = `${area}.${number}`;
  const camt = area === 'camt' && variant === '001' ? MESSAGES[number] : undefined;
  if (!camt) throw new StatementError(`the file is ${OTHER_MESSAGES[id] ?? `an ISO 20022 ${id} message`}, not an account statement; ${DOWNLOAD}`);
  const versionNumber = Number(version);
  if (versionNumber < FIRST_VERSION || versionNumber > LAST_VERSION)
    throw new StatementError(
      `the file is ${id}.001.${version}, ${versionNumber < FIRST_VERSION ? 'an early' : 'a newer'} version Kontor does not read (it reads ${id}.001.02 to .${LAST_VERSION}); ${DOWNLOAD}`,
    );
  if (message?.local !== camt.element) {
    const other = Object.entries(MESSAGES).find(([, m]) => m.element === message?.local);
    throw new StatementError(
      other
        ? `the namespace says ${id} but the document holds a camt.${other[0]} <${other[1].element}>; the file is damaged, ask the bank for it again`
        : `the ${id} document holds no <${camt.element}>${message ? ` (it holds <${message.local}>)` : ''}; the file is damaged, ask the bank for it again`,
    );
  }
  return {
    format: `${id}.001.${version}` as StatementFormat,
    kind: camt.kind,
    label: camt.label,
    path: path.map((e) => e.local),
    item: camt.item,
  };
}
