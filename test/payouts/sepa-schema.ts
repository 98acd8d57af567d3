import { readFileSync } from 'node:fs';
import path from 'node:path';
import { validateXML } from 'xmllint-wasm';

// The EPC schema (test/fixtures/sepa/, a copy of ../shared/reference/sepa/): the errors of
// a payout file, empty when it is valid.

const XSD = readFileSync(path.resolve(import.meta.dirname, '../fixtures/sepa/pain.001.001.09.xsd'), 'utf8');

export async function sepaSchemaErrors(xml: string): Promise<string[]> {
  const result = await validateXML({ xml: { fileName: 'payout.xml', contents: xml }, schema: { fileName: 'pain.001.001.09.xsd', contents: XSD } });
  return result.errors.map((error) => error.rawMessage);
}
