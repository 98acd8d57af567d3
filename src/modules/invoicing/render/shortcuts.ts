// Where the renderers go around their libraries' slow paths (issue 26), each giving the
// same bytes as the library would: the CII engine under @e-invoice-eu/core
// (einvoice/cii-engine.ts), the direct TrueType subset writer (pdf/font-subset.ts), Node's
// MD5 for the embedded XML's checksum (pdf/facturx-attachment.ts) and the once-deflated
// PDF/A output intent (pdf/output-intent.ts), all giving the libraries' bytes; and deflate
// level 1 for the PDF's streams (pdf/deflate.ts), giving the same objects and the same
// inflated streams; and text widths measured once per process (pdf/fonts.ts), giving the
// widths pdfkit computes; and a stream's drawing operators turned into bytes at once
// (pdf/stream-writes.ts), giving pdfkit's bytes; and numeral words put together from their
// characters' runs, other words kept as plain runs (pdf/fonts.ts), giving fontkit's runs;
// and each prepared line's text operators written at once (pdf/direct-line.ts), giving
// pdfkit's bytes.
// The renderer tests switch them off to render every fixture the libraries' way and
// compare; nothing else touches this.
export const shortcuts = {
  ciiEngine: true,
  subsetWriter: true,
  nativeChecksum: true,
  outputIntent: true,
  pdfDeflate: true,
  widthCache: true,
  stringWrites: true,
  wordRuns: true,
  directLines: true,
};

export type Shortcuts = typeof shortcuts;

/** Runs `render` with some shortcuts set otherwise, then restores them (tests only). */
export async function withShortcuts<T>(settings: Partial<Shortcuts>, render: () => Promise<T>): Promise<T> {
  const saved = { ...shortcuts };
  Object.assign(shortcuts, settings);
  try {
    return await render();
  } finally {
    Object.assign(shortcuts, saved);
  }
}

/** Runs `render` with every shortcut off: the libraries' own paths. */
export function withoutShortcuts<T>(render: () => Promise<T>): Promise<T> {
  return withShortcuts(
    {
      ciiEngine: false,
      subsetWriter: false,
      nativeChecksum: false,
      outputIntent: false,
      pdfDeflate: false,
      widthCache: false,
      stringWrites: false,
      wordRuns: false,
      directLines: false,
    },
    render,
  );
}
