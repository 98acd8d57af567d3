// The PDF/A output intent (sRGB ICC profile) with its stream compressed once per process.
// pdfkit's `_addColorOutputIntent` reads the same 3 KB profile for every PDF/A document
// and deflates it again (~0.2 ms per invoice, issue 26). This writes the same objects
// in the same key order with the profile already deflated: a stream whose dictionary
// carries /Filter when it is made is written as given, so the bytes equal pdfkit's
// (the renderer tests compare them).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { deflateSync } from 'node:zlib';

type IntentPdf = PDFKit.PDFDocument & {
  ref(data: object): { write(chunk: Uint8Array): void; end(): void };
  _root: { data: { OutputIntents?: object[] } };
  _addColorOutputIntent: () => void;
};

let profile: { raw: Buffer; deflated: Buffer } | null = null;

function sRgbProfile(): { raw: Buffer; deflated: Buffer } {
  if (!profile) {
    const require = createRequire(import.meta.url);
    const raw = readFileSync(path.join(path.dirname(require.resolve('pdfkit')), 'data', 'sRGB_IEC61966_2_1.icc'));
    // pdfkit deflates with zlib's defaults, as here.
    profile = { raw, deflated: deflateSync(raw) };
  }
  return profile;
}

/** Makes this PDF/A document write its output intent from the once-deflated profile. */
export function usePrecompressedOutputIntent(pdf: PDFKit.PDFDocument): void {
  const doc = pdf as IntentPdf;
  if (typeof doc._addColorOutputIntent !== 'function') throw new Error('pdfkit no longer has _addColorOutputIntent');
  doc._addColorOutputIntent = function (this: IntentPdf) {
    const { raw, deflated } = sRgbProfile();
    const colorProfileRef = this.ref({ Length: raw.length, N: 3, Filter: 'FlateDecode' });
    colorProfileRef.write(deflated);
    colorProfileRef.end();
    const intentRef = this.ref({
      Type: 'OutputIntent',
      S: 'GTS_PDFA1',
      Info: new String('sRGB IEC61966-2.1'),
      OutputConditionIdentifier: new String('sRGB IEC61966-2.1'),
      DestOutputProfile: colorProfileRef,
    });
    intentRef.end();
    this._root.data.OutputIntents = [intentRef];
  };
}
