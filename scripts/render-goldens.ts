// `node scripts/render-goldens.ts DIR`: renders every invoice and statement fixture of the
// renderer tests (XML in both flavours, PDF, page images at 100 dpi) into DIR, so two
// versions of the renderers can be compared file by file (`cmp`, `compare -metric AE`).
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { renderFacturX, renderInvoicePdf, renderXRechnungCii } from '../src/modules/invoicing/render/index.ts';
import { renderStatementDocuments, renderStatementFacturXml, renderStatementXRechnung } from '../src/modules/statements/render/index.ts';
import { allFixtures, longInvoice } from '../test/invoicing/render/fixtures.ts';
import { allStatements, gutschriften } from '../test/statements/fixtures.ts';

const dir = process.argv[2];
if (!dir) throw new Error('usage: node scripts/render-goldens.ts DIR');
mkdirSync(dir, { recursive: true });
const write = (name: string, bytes: Buffer) => writeFileSync(path.join(dir, name), bytes);
const pages = (name: string) => execFileSync('pdftoppm', ['-png', '-r', '100', path.join(dir, `${name}.pdf`), path.join(dir, name)]);

for (const [name, doc] of Object.entries({ ...allFixtures, long40: longInvoice(40) })) {
  write(`invoice-${name}-xrechnung.xml`, await renderXRechnungCii(doc));
  const fx = await renderFacturX(doc);
  write(`invoice-${name}-facturx.xml`, fx.xml);
  write(`invoice-${name}.pdf`, fx.pdf);
  write(`invoice-${name}-plain.pdf`, await renderInvoicePdf(doc));
  pages(`invoice-${name}`);
}
for (const [name, doc] of Object.entries(gutschriften)) {
  write(`statement-${name}-facturx.xml`, await renderStatementFacturXml(doc));
  write(`statement-${name}-xrechnung.xml`, await renderStatementXRechnung(doc));
}
for (const [name, doc] of Object.entries(allStatements)) {
  const files = await renderStatementDocuments(doc);
  write(`statement-${name}.pdf`, files.pdf);
  if (files.xml) write(`statement-${name}-doc.xml`, files.xml);
  pages(`statement-${name}`);
}
console.log(`written to ${dir}`);
