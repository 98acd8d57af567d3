// Revenue-share statements (issue 14, point 6): the statement run, issuing, documents,
// mail and the person-side steps. Builds on commissions (the ledger), bookkeeping, mail.

import './statement-run.ts'; // the daily task and its jobs
import './objection-notice.ts'; // the job that mails the company about an objection
import './partner-invoice-notice.ts'; // the job that mails the company a partner's uploaded invoice

export {
  cancelStatement,
  type DecidedStatement,
  issueDraftStatement,
  markStatementPaid,
  markStatementPaidIn,
  objectToStatement,
  StatementError,
  sendStatement,
} from './decide-statement.ts';
export {
  type PartnerContact,
  PartnerContactError,
  partnerContact,
  setPartnerContact,
  xrechnungContactGaps,
} from './partner-contact.ts';
export {
  findPartnerInvoice,
  type PartnerInvoiceField,
  type PartnerInvoiceInput,
  PartnerInvoiceRefused,
  type RecordedPartnerInvoice,
  recordPartnerInvoice,
} from './record-partner-invoice.ts';
export { registerCommissionStatementRoutes } from './statements.routes.ts';
export { PLAIN_PDF_TYPED_REASON, type TypedInvoice, type UploadedFile, type UploadOutcome, uploadPartnerInvoice } from './upload-partner-invoice.ts';
