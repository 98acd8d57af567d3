import { createWriteStream, mkdirSync } from 'node:fs';
import path from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { Zip, ZipPassThrough } from 'fflate';

// Where the GoBD export's files go: a folder (the CLI, a data medium for the auditor) or
// one ZIP streamed to the reader (the app). Files are written one after the other; each
// takes its bytes in chunks, so nothing holds a whole table in memory.

export interface ExportFile {
  write(chunk: string | Uint8Array): Promise<void>;
  end(): Promise<void>;
}

export interface ExportSink {
  file(relativePath: string): ExportFile;
}

/** Files under `dir`, created with their folders; `dir` must be empty or not exist (checked by the caller). */
export function directorySink(dir: string): ExportSink {
  return {
    file(relativePath) {
      const target = path.join(dir, relativePath);
      mkdirSync(path.dirname(target), { recursive: true });
      const stream = createWriteStream(target);
      const failed = new Promise<never>((_, reject) => stream.once('error', reject));
      failed.catch(() => {});
      return {
        async write(chunk) {
          if (!stream.write(chunk)) await Promise.race([new Promise<void>((resolve) => stream.once('drain', () => resolve())), failed]);
        },
        end: () => Promise.race([new Promise<void>((resolve) => stream.end(() => resolve())), failed]),
      };
    },
  };
}

/**
 * One ZIP (stored, not compressed: PDFs are compressed already, and the bytes stay
 * comparable), streamed. Every entry carries the same fixed time, so the same export gives
 * the same ZIP. `finish()` ends it; `stream` is what a reply sends.
 */
export function zipSink(mtime: Date): { sink: ExportSink; stream: Readable; finish(): void } {
  const stream = new PassThrough();
  const zip = new Zip((error, data, final) => {
    if (error) {
      stream.destroy(error);
      return;
    }
    stream.write(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
    if (final) stream.end();
  });
  const encoder = new TextEncoder();
  return {
    stream,
    finish: () => zip.end(),
    sink: {
      file(relativePath) {
        const entry = new ZipPassThrough(relativePath.split(path.sep).join('/'));
        entry.mtime = mtime;
        zip.add(entry);
        const drained = () => (stream.writableNeedDrain ? new Promise<void>((resolve) => stream.once('drain', () => resolve())) : Promise.resolve());
        return {
          async write(chunk) {
            entry.push(typeof chunk === 'string' ? encoder.encode(chunk) : chunk);
            await drained();
          },
          async end() {
            entry.push(new Uint8Array(0), true);
            await drained();
          },
        };
      },
    },
  };
}
