import type { Database } from '../../../db/connection.ts';
import { kontorVersion } from '../../../shared/version.ts';
import { renderMarkdown } from './document-model-markdown.ts';
import { renderDocumentPdf } from './document-model-pdf.ts';
import { gatherVdFacts } from './verfahrensdokumentation-facts.ts';
import { verfahrensdokumentationModel } from './verfahrensdokumentation-model.ts';

// The draft of a company's Verfahrensdokumentation (GoBD Rz. 151–155; issue 28 §3): the
// facts read from the database, one document model, rendered as Markdown and as A4 PDF.
// Reads only. The same data and the same `now` give the same Markdown and the same bytes.

/** The company name as a file name part: letters (umlauts spelled out), digits and dashes. */
function slug(name: string): string {
  const spelled = name
    .replace(/ä/g, 'ae')
    .replace(/ö/g, 'oe')
    .replace(/ü/g, 'ue')
    .replace(/Ä/g, 'Ae')
    .replace(/Ö/g, 'Oe')
    .replace(/Ü/g, 'Ue')
    .replace(/ß/g, 'ss')
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '');
  const cleaned = spelled
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  return cleaned || 'Firma';
}

export async function verfahrensdokumentation(db: Database, companyId: string, now: Date): Promise<{ markdown: string; pdf: Buffer; fileName: string }> {
  const facts = await gatherVdFacts(db, companyId, now);
  const model = verfahrensdokumentationModel({ facts, version: kontorVersion() });
  const pdf = await renderDocumentPdf(model, now);
  return { markdown: renderMarkdown(model), pdf, fileName: `Verfahrensdokumentation_${slug(facts.company.name)}_${facts.today}` };
}
