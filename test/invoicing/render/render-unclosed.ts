// Child process for render-pool.test.ts: renders through a render thread and never closes
// the pool; the process must end by itself once the work is done.
import { createRenderPool } from '../../../src/modules/invoicing/render/render-pool.ts';
import { domesticInvoice } from './fixtures.ts';

const rendered = await createRenderPool(1).render(domesticInvoice);
process.stdout.write(`rendered ${rendered.pdf.subarray(0, 5).toString()}\n`);
