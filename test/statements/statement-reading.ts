// Reading a rendered statement back for the tests: the PDF's text as poppler's pdftotext
// sees it (layout mode, whitespace folded), and the parties of a CII beyond what the
// invoice tests' reader exposes.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { XMLParser } from 'fast-xml-parser';

/** The whole text of the PDF, every run of whitespace (line breaks, no-break spaces) as one space. */
export function pdfText(pdf: Buffer): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'kontor-statement-'));
  try {
    const file = path.join(dir, 'statement.pdf');
    writeFileSync(file, pdf);
    return execFileSync('pdftotext', ['-layout', '-enc', 'UTF-8', file, '-'], { encoding: 'utf8' }).replace(/\s+/g, ' ');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

type Node = Record<string, unknown>;
const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', parseTagValue: false });

function text(node: unknown): string | undefined {
  if (node === undefined || node === null) return undefined;
  return typeof node === 'object' ? ((node as Node)['#text'] as string | undefined) : String(node);
}

function at(node: unknown, ...keys: string[]): unknown {
  return keys.reduce<unknown>((current, key) => (current as Node | undefined)?.[key], node);
}

/** Seller (BG-4) and buyer (BG-7) names and electronic addresses of a CII. */
export function ciiParties(xml: Buffer) {
  const root = parser.parse(xml.toString())['rsm:CrossIndustryInvoice'];
  const agreement = at(root, 'rsm:SupplyChainTradeTransaction', 'ram:ApplicableHeaderTradeAgreement');
  const party = (key: string) => {
    const node = at(agreement, key);
    return {
      name: text(at(node, 'ram:Name')),
      electronicAddress: text(at(node, 'ram:URIUniversalCommunication', 'ram:URIID')),
      city: text(at(node, 'ram:PostalTradeAddress', 'ram:CityName')),
    };
  };
  return { seller: party('ram:SellerTradeParty'), buyer: party('ram:BuyerTradeParty') };
}
