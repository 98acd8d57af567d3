import { Worker } from 'node:worker_threads';
import type { StatementDocument } from '../../statements/statement-document.ts';
import type { InvoiceDocument } from '../document.ts';
import type { RenderedInvoice } from './index.ts';
import type { RenderReply, ThreadRequest } from './render-worker.ts';
import { type RenderedFiles, type RenderRequest, renderRequested } from './renderers.ts';

// Rendering costs ~20 ms of CPU per invoice or statement. Render threads keep it off the
// event loop, so the main thread goes on serving requests and the database while another
// core renders. Threads start on the first render (a process that never issues pays
// nothing); a thread that dies fails its pending renders and is replaced on next use.
// threads = 0 renders on the calling thread.

export type RenderPool = {
  render(doc: InvoiceDocument): Promise<RenderedInvoice>;
  /** A revenue-share statement's PDF and e-invoice (statements/render/), on the same threads. */
  renderStatement(doc: StatementDocument): Promise<RenderedFiles>;
  close(): Promise<void>;
};

type Pending = { resolve(value: RenderedFiles): void; reject(error: Error): void };
type Thread = { worker: Worker; ready: Promise<void>; pending: Map<number, Pending>; busy: number };

const toBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** A render thread's failure as an Error with the thread's class name and stack (for the log, render-failure.ts). */
function threadError(reply: RenderReply): Error {
  const error = new Error(reply.error ?? 'render thread sent no PDF');
  if (reply.errorClass) error.name = reply.errorClass;
  if (reply.stack) error.stack = reply.stack;
  return error;
}

/** `workerScript` is the thread's code (tests give one that crashes on purpose). */
export function createRenderPool(threads: number, workerScript: URL = new URL('./render-worker.ts', import.meta.url)): RenderPool {
  if (threads <= 0) return poolOf(renderRequested, async () => {});
  const pool: (Thread | null)[] = Array.from({ length: threads }, () => null);
  let nextId = 1;

  function start(slot: number): Thread {
    // Bounded heaps make the thread collect in time: each document leaves zlib streams
    // whose native buffers are freed only when their wrappers are collected, and with
    // V8's default sizes a render thread grew by ~450 MiB over 600 invoices (a few MiB with these
    // limits). A 4 MiB young generation cost ~15 % render time in GC; 16 MiB costs none.
    // The working set (fonts, a layout cache of at most 2,000 words, the e-invoice
    // schemas) stays far below 128 MiB.
    const worker = new Worker(workerScript, { resourceLimits: { maxOldGenerationSizeMb: 128, maxYoungGenerationSizeMb: 16 } });
    const pending = new Map<number, Pending>();
    let markReady!: () => void;
    const ready = new Promise<void>((resolve) => {
      markReady = resolve;
    });
    worker.on('message', (reply: RenderReply) => {
      if (reply.id === 0) return markReady();
      const waiting = pending.get(reply.id);
      pending.delete(reply.id);
      if (!waiting) return;
      if (reply.error !== undefined || !reply.pdf) waiting.reject(threadError(reply));
      else waiting.resolve({ pdf: toBuffer(reply.pdf), xml: reply.xml ? toBuffer(reply.xml) : null });
    });
    const fail = (error: Error) => {
      pool[slot] = null;
      markReady();
      for (const waiting of pending.values()) waiting.reject(error);
      pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`render thread stopped (exit code ${code})`)));
    // An idle thread does not keep the process alive; a render in flight does (render()).
    // After the listeners: a 'message' listener refs the thread's port again.
    worker.unref();
    const thread = { worker, ready, pending, busy: 0 };
    pool[slot] = thread;
    return thread;
  }

  /** The thread with the fewest renders in flight (started when its slot is empty). */
  function pick(): Thread {
    let best: Thread | null = null;
    for (let slot = 0; slot < pool.length; slot++) {
      const thread = pool[slot] ?? start(slot);
      if (!best || thread.pending.size < best.pending.size) best = thread;
    }
    return best!;
  }

  async function onThread(request: RenderRequest): Promise<RenderedFiles> {
    const thread = pick();
    if (thread.busy++ === 0) thread.worker.ref();
    try {
      await thread.ready;
      const id = nextId++;
      return await new Promise<RenderedFiles>((resolve, reject) => {
        thread.pending.set(id, { resolve, reject });
        thread.worker.postMessage({ id, ...request } satisfies ThreadRequest);
      });
    } finally {
      if (--thread.busy === 0) thread.worker.unref();
    }
  }

  return poolOf(onThread, async () => {
    await Promise.all(pool.map((thread) => thread?.worker.terminate()));
  });
}

function poolOf(render: (request: RenderRequest) => Promise<RenderedFiles>, close: () => Promise<void>): RenderPool {
  return {
    render: (doc) => render({ renders: 'invoice', doc }),
    renderStatement: (doc) => render({ renders: 'statement', doc }),
    close,
  };
}
