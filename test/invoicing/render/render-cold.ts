// Child process for pdf.test.ts: renders the domestic invoice as the first document of a
// fresh process (no warm-up, empty process-wide font caches) and writes the PDF to stdout.
import { renderInvoicePdf } from '../../../src/modules/invoicing/render/index.ts';
import { domesticInvoice } from './fixtures.ts';

process.stdout.write(await renderInvoicePdf(domesticInvoice, { pdfA: true }));
