// Invoicing: invoices and Stornorechnungen under German rules — numbers, VAT verdict,
// documents, mail, booking and events.
export type { AppDraftBody } from './app-draft-input.ts';
export { cancelInvoice } from './cancel-invoice.ts';
export { AppDraftError, createAppDraft, replaceAppDraft } from './create-app-draft.ts';
export { createInvoice } from './create-invoice.ts';
export { discardAppDraft } from './discard-app-draft.ts';
export type { InvoiceDocument } from './document.ts';
export { createEarlyRenders, type EarlyRenders } from './early-render.ts';
export { RENDER_INVOICE_JOB, renderStoredDocuments } from './invoice-documents.ts';
export { registerInvoiceRoutes } from './invoices.routes.ts';
export type { InvoicingDeps } from './invoicing-deps.ts';
export type { ResolvedLine } from './resolve-lines.ts';
export { sendInvoice } from './send-invoice.ts';
export { centsToDecimal, exactLineNet, lineNetCents } from './totals.ts';
export { issuingProblems, writeInvoice } from './write-invoice.ts';
