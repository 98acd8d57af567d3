// The Factur-X/ZUGFeRD part of a PDF/A-3 (german-rules §3.10): the CII as `factur-x.xml`
// with AFRelationship /Alternative (listed in the catalog's /AF and /EmbeddedFiles), and the
// XMP extension schema declaring the `fx:` properties with conformance level EN 16931.
import { createHash } from 'node:crypto';
import { shortcuts } from '../shortcuts.ts';
import { withPdfDeflate } from './deflate.ts';

const FX_NAMESPACE = 'urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#';

export const FACTURX_FILENAME = 'factur-x.xml';
export const FACTURX_CONFORMANCE = 'EN 16931';

function property(name: string, description: string): string {
  return `
              <rdf:li rdf:parseType="Resource">
                <pdfaProperty:name>${name}</pdfaProperty:name>
                <pdfaProperty:valueType>Text</pdfaProperty:valueType>
                <pdfaProperty:category>external</pdfaProperty:category>
                <pdfaProperty:description>${description}</pdfaProperty:description>
              </rdf:li>`;
}

function facturXmp(): string {
  return `
        <rdf:Description rdf:about="" xmlns:pdfaExtension="http://www.aiim.org/pdfa/ns/extension/" xmlns:pdfaSchema="http://www.aiim.org/pdfa/ns/schema#" xmlns:pdfaProperty="http://www.aiim.org/pdfa/ns/property#">
          <pdfaExtension:schemas>
            <rdf:Bag>
              <rdf:li rdf:parseType="Resource">
                <pdfaSchema:schema>Factur-X PDFA Extension Schema</pdfaSchema:schema>
                <pdfaSchema:namespaceURI>${FX_NAMESPACE}</pdfaSchema:namespaceURI>
                <pdfaSchema:prefix>fx</pdfaSchema:prefix>
                <pdfaSchema:property>
                  <rdf:Seq>${property('DocumentFileName', 'The name of the embedded XML document')}${property('DocumentType', 'The type of the hybrid document in capital letters, e.g. INVOICE or ORDER')}${property('Version', 'The actual version of the standard applying to the embedded XML document')}${property('ConformanceLevel', 'The conformance level of the embedded XML document')}
                  </rdf:Seq>
                </pdfaSchema:property>
              </rdf:li>
            </rdf:Bag>
          </pdfaExtension:schemas>
        </rdf:Description>
        <rdf:Description rdf:about="" xmlns:fx="${FX_NAMESPACE}">
          <fx:DocumentType>INVOICE</fx:DocumentType>
          <fx:DocumentFileName>${FACTURX_FILENAME}</fx:DocumentFileName>
          <fx:Version>1.0</fx:Version>
          <fx:ConformanceLevel>${FACTURX_CONFORMANCE}</fx:ConformanceLevel>
        </rdf:Description>`;
}

/** The parts of pdfkit's document that its `file()` uses (not in the typings). */
type AttachingPdf = PDFKit.PDFDocument & {
  ref(data: object): { end(data?: Uint8Array): void };
  addNamedEmbeddedFile(name: string, ref: object): void;
  _root: { data: { AF?: object[] } };
};

/**
 * What pdfkit's `file()` writes for a Uint8Array (embedded file with /Params, file
 * specification, /EmbeddedFiles name tree, catalog /AF), object for object and key for key,
 * except that the MD5 /CheckSum is Node's (native) instead of pdfkit's JavaScript MD5, which
 * cost ~0.5 ms per 17 KB invoice XML (issue 26). The bytes are the same: the renderer tests
 * compare them with `file()`'s.
 */
function attachFile(pdf: AttachingPdf, data: Uint8Array, options: { name: string; type: string; description: string; relationship: string; at: Date }): void {
  const embedded = pdf.ref({
    Type: 'EmbeddedFile',
    Params: {
      CreationDate: options.at,
      ModDate: options.at,
      CheckSum: new String(createHash('md5').update(data).digest('hex')),
      Size: data.byteLength,
    },
    // pdfkit escapes the MIME type as a PDF name: "/" is #2F.
    Subtype: options.type.replace(/\//g, '#2F'),
  });
  withPdfDeflate(() => embedded.end(data));
  const filespec = pdf.ref({
    Type: 'Filespec',
    AFRelationship: options.relationship,
    F: new String(options.name),
    EF: { F: embedded },
    UF: new String(options.name),
    Desc: new String(options.description),
  });
  filespec.end();
  pdf.addNamedEmbeddedFile(options.name, filespec);
  pdf._root.data.AF = [...(pdf._root.data.AF ?? []), filespec];
}

/** Embeds the CII and declares it in the XMP; `at` fixes the file dates for byte-stable output. */
export function attachFacturX(pdf: PDFKit.PDFDocument, xml: Buffer, at: Date): void {
  const file = { name: FACTURX_FILENAME, type: 'text/xml', description: 'Factur-X/ZUGFeRD invoice (EN 16931)', relationship: 'Alternative' };
  if (shortcuts.nativeChecksum) attachFile(pdf as AttachingPdf, xml, { ...file, at });
  else {
    // pdfkit 0.20 supports `relationship` (AFRelationship); @types/pdfkit does not list it yet.
    const options: PDFKit.Mixins.PDFAttachmentOptions & { relationship: string } = { ...file, creationDate: at, modifiedDate: at };
    pdf.file(xml, options);
  }
  pdf.appendXML(facturXmp());
}
