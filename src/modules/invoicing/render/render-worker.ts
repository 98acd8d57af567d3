import { parentPort } from 'node:worker_threads';
import { loadRenderers, type RenderRequest, renderRequested } from './renderers.ts';

// A render thread of render-pool.ts: renders the documents it is sent (invoices and
// statements, renderers.ts) and posts the bytes back.
export type ThreadRequest = RenderRequest & { id: number };
/** A failure carries the error's message, class name and stack (the class itself does not cross threads). */
export type RenderReply = { id: number; pdf?: Uint8Array; xml?: Uint8Array | null; error?: string; errorClass?: string; stack?: string };

const port = parentPort;
if (!port) throw new Error('render-worker.ts runs only as a worker thread');
// The fonts and the e-invoice library are shared by both renderers: warm them once.
await (await loadRenderers()).warmUpRenderers();
port.on('message', async ({ id, ...request }: ThreadRequest) => {
  try {
    const { pdf, xml } = await renderRequested(request);
    const reply: RenderReply = { id, pdf, xml };
    // Copied, not transferred: a small Buffer may share Node's pool with other buffers.
    port.postMessage(reply);
  } catch (error) {
    const { message, stack } = error as Error;
    port.postMessage({ id, error: message, errorClass: (error as Error).constructor?.name ?? 'Error', ...(stack ? { stack } : {}) } satisfies RenderReply);
  }
});
port.postMessage({ id: 0 } satisfies RenderReply);
