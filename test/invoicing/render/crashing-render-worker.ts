import { parentPort } from 'node:worker_threads';

// A render thread that dies on a document numbered CRASH and renders every other one
// with the real worker's code.
parentPort!.on('message', (message: { doc: { number: string } }) => {
  if (message.doc.number === 'CRASH') process.exit(1);
});
await import('../../../src/modules/invoicing/render/render-worker.ts');
