import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';
import type { Trx } from '../../db/transaction.ts';

// Stored documents (PDF, XML). Bytes travel as base64 and the database decodes them: a
// 58 KB bytea parameter took PGlite 8 ms to take apart, base64 1.4 ms (measured).

export type InvoiceFiles = { pdf: Buffer; xml: Buffer | null };

export async function storeFiles(trx: Trx, companyId: string, invoiceId: string, files: InvoiceFiles) {
  const rows = [{ kind: 'pdf' as const, content: files.pdf }, ...(files.xml ? [{ kind: 'xml' as const, content: files.xml }] : [])];
  await trx
    .insertInto('invoice_files')
    .values(
      rows.map((r) => ({
        company_id: companyId,
        invoice_id: invoiceId,
        kind: r.kind,
        content: sql<Buffer>`decode(${r.content.toString('base64')}, 'base64')`,
        sha256: createHash('sha256').update(r.content).digest('hex'),
      })),
    )
    .execute();
}

/** The stored documents of an invoice, by kind. */
export async function readFiles(db: Database | Trx, companyId: string, invoiceId: string, kinds: ('pdf' | 'xml')[] = ['pdf', 'xml']) {
  const rows = await db
    .selectFrom('invoice_files')
    .select(['kind', sql<string>`encode(content, 'base64')`.as('content')])
    .where('company_id', '=', companyId)
    .where('invoice_id', '=', invoiceId)
    .where('kind', 'in', kinds)
    .execute();
  const file = (kind: 'pdf' | 'xml') => {
    const row = rows.find((r) => r.kind === kind);
    return row ? Buffer.from(row.content, 'base64') : null;
  };
  return { pdf: file('pdf'), xml: file('xml') };
}
