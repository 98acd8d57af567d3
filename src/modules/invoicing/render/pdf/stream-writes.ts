// How pdfkit writes a stream's content. Every drawing operator (a text's position, its font,
// its glyphs, a colour, a line) reaches PDFReference.write as a short string, and pdfkit
// turns each into its own Uint8Array with a JavaScript loop (`fromBinaryString(chunk +
// '\n')`), to copy all of them into one array when the stream ends: ~1,000 arrays per
// invoice page and ~6 % of an invoice's rendering (issue 26). Here the strings of a stream
// are kept as they come and turned into bytes at once, by Node's latin1 encoder, when the
// stream ends or a binary chunk follows: the same bytes (latin1 keeps a character's low
// byte, as pdfkit's `& 0xff` does), the same /Length and the same order.
import { shortcuts } from '../shortcuts.ts';

/** pdfkit's PDFReference: the fields its write and finalize use (not in the typings). */
type Reference = {
  buffer: Uint8Array[];
  data: { Length?: number; Filter?: string };
  compress: boolean;
  uncompressedLength: number;
  /** Strings written since the last binary chunk, each to be followed by '\n'. */
  pending?: string[];
  write(chunk: string | Uint8Array): void;
  finalize(): void;
};

let installed = false;

/** Written strings as pdfkit's bytes: each followed by '\n', one byte per character (its low byte). */
function linesAsBytes(lines: string[]): Buffer {
  return Buffer.from(`${lines.join('\n')}\n`, 'latin1');
}

/** The strings written so far go into the buffer as one chunk. */
function flush(ref: Reference): void {
  if (!ref.pending || ref.pending.length === 0) return;
  ref.buffer.push(linesAsBytes(ref.pending));
  ref.pending = [];
}

/**
 * Makes pdfkit's references (the class of `pdf`'s catalog) collect written strings; once
 * per process, for every document after. With the shortcut off, pdfkit's own code runs.
 */
export function useStringStreamWrites(pdf: PDFKit.PDFDocument): void {
  if (installed) return;
  const proto = Object.getPrototypeOf((pdf as unknown as { _root: Reference })._root) as Reference;
  const write = proto.write;
  const finalize = proto.finalize;
  proto.write = function (this: Reference, chunk: string | Uint8Array): void {
    if (!shortcuts.stringWrites || typeof chunk !== 'string') {
      flush(this);
      write.call(this, chunk);
      return;
    }
    if (this.pending) this.pending.push(chunk);
    else this.pending = [chunk];
    const length = chunk.length + 1;
    this.uncompressedLength += length;
    this.data.Length = (this.data.Length ?? 0) + length;
    if (this.compress) this.data.Filter = 'FlateDecode';
  };
  proto.finalize = function (this: Reference): void {
    flush(this);
    finalize.call(this);
  };
  installed = true;
}

/** pdfkit's PDFDocument: the writer every object, the cross-reference table and the trailer go through. */
type Document = { _write(data: string | Uint8Array): void; _offset: number };

/**
 * The bytes of a pdfkit document once it ends. pdfkit writes its objects, each line of the
 * cross-reference table and the trailer through `_write`, which makes each string an array
 * by the same loop and pushes it through the document's Readable (~250 chunks per
 * invoice, each converted to a Buffer and emitted as 'data'). With the shortcut, the
 * document's own writer keeps them (strings encoded at once, as above) and counts the same
 * offsets; the Readable then gives only what was written before (the header, in pdfkit's
 * constructor) and says when the document has ended. Without it, everything comes out of
 * the Readable.
 */
export function collectPdf(pdf: PDFKit.PDFDocument): Promise<Buffer> {
  const head: Buffer[] = [];
  const chunks: Buffer[] = [];
  let pending: string[] = [];
  const flushPending = () => {
    if (pending.length === 0) return;
    chunks.push(linesAsBytes(pending));
    pending = [];
  };
  if (shortcuts.stringWrites) {
    const document = pdf as unknown as Document;
    document._write = (data: string | Uint8Array): void => {
      if (typeof data === 'string') {
        pending.push(data);
        document._offset += data.length + 1;
        return;
      }
      flushPending();
      chunks.push(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
      document._offset += data.length;
    };
  }
  return new Promise((resolve, reject) => {
    pdf.on('data', (chunk: Buffer) => head.push(chunk));
    pdf.on('end', () => {
      flushPending();
      resolve(Buffer.concat([...head, ...chunks]));
    });
    pdf.on('error', reject);
  });
}
