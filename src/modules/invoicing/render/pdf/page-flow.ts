// The body's way down the pages: every block asks for room before it draws, and every new
// page starts with the document's running head, whichever block (a table row, the totals,
// a closing paragraph) needed it. So each continuation page names its document.

export type Flow = {
  pdf: PDFKit.PDFDocument;
  /** The lowest y the body may write to, on every page (above the footer). */
  bottom: number;
  /** Adds a page, draws the running head and returns the y where the body goes on. */
  newPage(): number;
};

export function createFlow(pdf: PDFKit.PDFDocument, bottom: number, runningHead: (pdf: PDFKit.PDFDocument) => number): Flow {
  return {
    pdf,
    bottom,
    newPage() {
      pdf.addPage();
      return runningHead(pdf);
    },
  };
}

/** `y` when `height` fits below it on this page, else the top of a new page. */
export function room(flow: Flow, y: number, height: number): number {
  return y + height <= flow.bottom ? y : flow.newPage();
}
