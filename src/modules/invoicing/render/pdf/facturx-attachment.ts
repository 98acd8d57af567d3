// The Factur-X/ZUGFeRD part of a PDF/A-3 (german-rules §3.10): the CII as `factur-x.xml`
// with AFRelationship /Alternative (listed in the catalog's /AF and /EmbeddedFiles), and the
// XMP extension schema declaring the `fx:` properties with conformance level EN 16931.
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

/** Embeds the CII and declares it in the XMP; `at` fixes the file dates for byte-stable output. */
export function attachFacturX(pdf: PDFKit.PDFDocument, xml: Buffer, at: Date): void {
  // pdfkit 0.20 supports `relationship` (AFRelationship); @types/pdfkit does not list it yet.
  const options: PDFKit.Mixins.PDFAttachmentOptions & { relationship: 'Alternative' } = {
    name: FACTURX_FILENAME,
    type: 'text/xml',
    description: 'Factur-X/ZUGFeRD invoice (EN 16931)',
    relationship: 'Alternative',
    creationDate: at,
    modifiedDate: at,
  };
  pdf.file(xml, options);
  pdf.appendXML(facturXmp());
}
