// Rendering time of one issued invoice after warm-up (not a test):
//   node test/invoicing/render/measure.ts [runs]
import { writeFileSync } from 'node:fs';
import { renderInvoiceDocuments, warmUpRenderers } from '../../../src/modules/invoicing/render/index.ts';
import { allFixtures, domesticInvoice, xrechnungInvoice } from './fixtures.ts';

const runs = Number(process.argv[2] ?? 60);
const outDir = process.env['RENDER_OUT'];

async function median(label: string, render: () => Promise<unknown>): Promise<void> {
  for (let i = 0; i < 10; i++) await render();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await render();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(1);
  console.log(`${label}: median ${at(0.5)} ms, p90 ${at(0.9)} ms (${runs} runs)`);
}

const start = performance.now();
await warmUpRenderers();
console.log(`warm-up: ${(performance.now() - start).toFixed(0)} ms`);
await median('zugferd, 10 lines (Factur-X PDF/A-3 + CII)', () => renderInvoiceDocuments(domesticInvoice));
await median('xrechnung, 4 lines (PDF + XRechnung CII)', () => renderInvoiceDocuments(xrechnungInvoice));
await median('none, 10 lines (PDF only)', () => renderInvoiceDocuments({ ...domesticInvoice, eInvoice: 'none' }));

if (outDir) {
  for (const [name, doc] of Object.entries(allFixtures)) {
    for (const kind of ['zugferd', 'xrechnung'] as const) {
      const { pdf, xml } = await renderInvoiceDocuments({ ...doc, eInvoice: kind });
      writeFileSync(`${outDir}/${name}-${kind}.pdf`, pdf);
      if (xml) writeFileSync(`${outDir}/${name}-${kind}.xml`, xml);
    }
  }
}
