import { createWriteStream, mkdirSync } from 'node:fs';
import path from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { Worker } from 'node:worker_threads';
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
  /** A whole file at once (a document). */
  whole(relativePath: string, content: Uint8Array): Promise<void>;
  /** Takes files side by side (a folder), or strictly one after the other (a ZIP). */
  sideBySide: boolean;
  /** Every file is written (a folder's document writer has caught up and stopped). */
  close(): Promise<void>;
}

/** Files sent to the document writer and not yet written: at most this many wait. */
const WRITER_BACKLOG = 256;

/** Files under `dir`, created with their folders; `dir` must be empty or not exist (checked by the caller). */
export function directorySink(dir: string): ExportSink {
  let documentWriter: ReturnType<typeof startWriter> | undefined;
  const writer = () => {
    documentWriter ??= startWriter();
    return documentWriter;
  };
  const made = new Set<string>();
  const folderOf = (relativePath: string) => {
    const target = path.join(dir, relativePath);
    const folder = path.dirname(target);
    if (!made.has(folder)) {
      mkdirSync(folder, { recursive: true });
      made.add(folder);
    }
    return target;
  };
  return {
    sideBySide: true,
    // Documents go to a thread of their own (file-writer-worker.ts), which writes them in
    // order; at most WRITER_BACKLOG wait, so memory stays bounded.
    whole(relativePath, content) {
      return writer().send(path.join(dir, relativePath), content);
    },
    close: async () => {
      if (documentWriter) await documentWriter.close();
    },
    file(relativePath) {
      const target = folderOf(relativePath);
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
  const sink: ExportSink = {
    sideBySide: false,
    close: async () => {},
    async whole(relativePath, content) {
      const file = sink.file(relativePath);
      await file.write(content);
      await file.end();
    },
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
  };
  return { stream, finish: () => zip.end(), sink };
}

/** The document writer thread: `send` resolves once the backlog has room; `close` once all is written. */
function startWriter() {
  const worker = new Worker(new URL('./file-writer-worker.ts', import.meta.url));
  let sent = 0;
  let written = 0;
  let failure: Error | null = null;
  // Senders waiting for room in the backlog (one per reader of the export).
  let waiting: (() => void)[] = [];
  let ended: (() => void) | null = null;
  const woken = () => {
    const resume = waiting;
    waiting = [];
    for (const wake of resume) wake();
  };
  worker.on('message', (message: { written: number; ended?: boolean; error?: string }) => {
    if (message.error) failure = new Error(`cannot write a document: ${message.error}`);
    else written = message.written;
    woken();
    if (message.ended) ended?.();
  });
  worker.on('error', (error) => {
    failure = error;
  });
  let exited = false;
  worker.on('exit', () => {
    exited = true;
    failure ??= new Error('the document writer stopped');
    woken();
    ended?.();
  });
  const check = () => {
    if (failure) throw failure;
  };
  return {
    async send(file: string, content: Uint8Array) {
      check();
      // A copy of its own (the bytes may share their memory with other rows), handed over
      // to the thread rather than copied once more.
      const own = new Uint8Array(content);
      worker.postMessage({ file, content: own }, [own.buffer]);
      sent += 1;
      while (sent - written > WRITER_BACKLOG && !failure) await new Promise<void>((resolve) => waiting.push(resolve));
      check();
    },
    async close() {
      try {
        if (!exited)
          await new Promise<void>((resolve) => {
            ended = resolve;
            worker.postMessage({ end: true });
          });
        check();
        if (written !== sent) throw new Error(`the document writer wrote ${written} of ${sent} files`);
      } finally {
        await worker.terminate();
      }
    },
  };
}
