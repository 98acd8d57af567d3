// XML Schema check of a CII document against the UN/CEFACT CII D16B schema in its EN 16931
// subset, the schema the official EN 16931 artefacts and the KoSIT validator check before
// their Schematron rules. Run by libxml2's xmllint compiled to WebAssembly (xmllint-wasm).
// The schema files are vendored unmodified with their licence in test/fixtures/cii-d16b-xsd.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { validateXML, type XMLFileInfo } from 'xmllint-wasm';

const DIR = path.join(import.meta.dirname, '../../fixtures/cii-d16b-xsd');
const MAIN = 'CrossIndustryInvoice_100pD16B.xsd';
const IMPORTED = ['QualifiedDataType', 'ReusableAggregateBusinessInformationEntity', 'UnqualifiedDataType'].map(
  (name) => `CrossIndustryInvoice_${name}_100pD16B.xsd`,
);

let schemaFiles: { schema: XMLFileInfo; preload: XMLFileInfo[] } | undefined;
function schema() {
  if (!schemaFiles) {
    const file = (fileName: string): XMLFileInfo => ({ fileName, contents: readFileSync(path.join(DIR, fileName), 'utf8') });
    schemaFiles = { schema: file(MAIN), preload: IMPORTED.map(file) };
  }
  return schemaFiles;
}

/** The schema errors of `xml` (empty when it is valid). */
export async function ciiSchemaErrors(xml: Buffer | string): Promise<string[]> {
  const { schema: main, preload } = schema();
  const result = await validateXML({ xml: { fileName: 'invoice.xml', contents: xml.toString() }, schema: main, preload });
  return result.errors.map((error) => error.rawMessage);
}
