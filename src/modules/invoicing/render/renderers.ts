import type { StatementDocument } from '../../statements/statement-document.ts';
import type { InvoiceDocument } from '../document.ts';

// What a render thread renders, and with what: an issued invoice (./index.ts) or a
// revenue-share statement (statements/render/, made of this folder's PDF and CII blocks).
// Both are pure functions of their document, so any thread gives the same bytes. Each
// renderer is loaded on its first document (pdfkit, fonts, the e-invoice library), on the
// thread that renders it; a process that only issues invoices never loads the statements'.

/** A document to render, saying which renderer it takes. */
export type RenderRequest = { renders: 'invoice'; doc: InvoiceDocument } | { renders: 'statement'; doc: StatementDocument };

export type RenderedFiles = { pdf: Buffer; xml: Buffer | null };

let invoiceRenderers: Promise<typeof import('./index.ts')> | undefined;
let statementRenderers: Promise<typeof import('../../statements/render/index.ts')> | undefined;

export const loadRenderers = () => {
  invoiceRenderers ??= import('./index.ts');
  return invoiceRenderers;
};

const loadStatementRenderers = () => {
  statementRenderers ??= import('../../statements/render/index.ts');
  return statementRenderers;
};

/** Renders on the calling thread (a render thread, or the caller's with threads = 0). */
export async function renderRequested(request: RenderRequest): Promise<RenderedFiles> {
  switch (request.renders) {
    case 'invoice':
      return (await loadRenderers()).renderInvoiceDocuments(request.doc);
    case 'statement':
      return (await loadStatementRenderers()).renderStatementDocuments(request.doc);
  }
}
