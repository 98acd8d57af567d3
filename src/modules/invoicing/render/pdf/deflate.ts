// The deflate level of a PDF's streams. pdfkit deflates every stream (page contents, font
// files, ToUnicode maps, the embedded XML) with `zlib.deflateSync(data)`, zlib's default
// level 6: ~1.3 ms of an invoice's ~6 ms (issue 26). Level 1 takes ~0.9 ms and makes the
// compressed streams ~5 % larger (31.8 → 33.4 KB for the 10-line invoice); the streams
// inflate to the same bytes, so the document is the same (the renderer tests compare every
// fixture's objects and inflated streams both ways). pdfkit offers no option for the level,
// so while one of our documents ends — synchronously, which is when pdfkit deflates —
// zlib's deflateSync called without options uses level 1; it is restored at once, and
// nothing else can run in between.
import zlib from 'node:zlib';
import { shortcuts } from '../shortcuts.ts';

const PDF_DEFLATE: zlib.ZlibOptions = { level: 1 };

/** Runs `write` (pdfkit work that deflates streams) with the PDF deflate level. */
export function withPdfDeflate<T>(write: () => T): T {
  if (!shortcuts.pdfDeflate) return write();
  const original = zlib.deflateSync;
  zlib.deflateSync = ((buffer: zlib.InputType, options?: zlib.ZlibOptions) => original(buffer, options ?? PDF_DEFLATE)) as typeof zlib.deflateSync;
  try {
    return write();
  } finally {
    zlib.deflateSync = original;
  }
}

/** Ends a pdfkit document: every page, font and metadata stream is deflated and written now. */
export function endPdf(pdf: PDFKit.PDFDocument): void {
  withPdfDeflate(() => pdf.end());
}
