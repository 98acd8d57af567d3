// `node test/statements/write-samples.ts [XML_DIR] [PNG_DIR]`: writes every Gutschrift's CII in
// both flavours (for scripts/einvoice-rules.ts) and every statement's PDF pages as PNG (to look at).
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { renderStatementFacturXml, renderStatementPdf, renderStatementXRechnung } from '../../src/modules/statements/render/index.ts';
import { allStatements, gutschriften } from './fixtures.ts';

const xmlDir = process.argv[2] ?? '/tmp/statement-xml';
const pngDir = process.argv[3] ?? '/tmp/statement-png';
mkdirSync(xmlDir, { recursive: true });
mkdirSync(pngDir, { recursive: true });
for (const [name, doc] of Object.entries(gutschriften)) {
  writeFileSync(path.join(xmlDir, `${name}-facturx.xml`), await renderStatementFacturXml(doc));
  writeFileSync(path.join(xmlDir, `${name}-xrechnung.xml`), await renderStatementXRechnung(doc));
}
for (const [name, doc] of Object.entries(allStatements)) {
  const file = path.join(pngDir, `${name}.pdf`);
  writeFileSync(file, await renderStatementPdf(doc));
  execFileSync('pdftoppm', ['-png', '-r', '60', file, path.join(pngDir, name)]);
}
console.log(`XML in ${xmlDir}, PDF and PNG in ${pngDir}`);
