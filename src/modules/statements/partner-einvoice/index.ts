// A partner's uploaded e-invoice (XRechnung, ZUGFeRD/Factur-X) read, checked against the
// EN 16931 rules Kontor runs in-process and compared with its request to invoice. Pure:
// the operation that stores the upload checks the number's uniqueness itself.
export { checkPartnerEInvoice, type PartnerEInvoiceCheck, PLAIN_PDF_REASON, type StatementExpectation } from './check-against-statement.ts';
export { describeBreakdown, en16931Violations, type Violation, vatOf } from './einvoice-rules.ts';
export { MAX_EINVOICE_BYTES, type ReadInvoice, type ReadResult, type ReadVatBreakdown, readEInvoice } from './read-einvoice.ts';
