import { createHash } from 'node:crypto';
import type { QueryCreator } from 'kysely';
import { byteaAsBase64 } from '../../db/bytes.ts';
import type { Database } from '../../db/connection.ts';
import type { DB } from '../../db/schema.ts';
import type { Trx } from '../../db/transaction.ts';

// Stored documents (PDF, XML); how their bytes travel: db/bytes.ts.

export type InvoiceFiles = { pdf: Buffer; xml: Buffer | null };

/** Stores an invoice's files; `ifMissing`: a kind stored already is kept (a rendering done twice). */
export async function storeFiles(trx: Trx, companyId: string, invoiceId: string, files: InvoiceFiles, options: { ifMissing?: boolean } = {}) {
  await filesWrite(trx, companyId, invoiceId, files, options).execute();
}

/** storeFiles' insert, not yet run: for a caller that makes it part of a larger statement. */
export function filesWrite(q: QueryCreator<DB>, companyId: string, invoiceId: string, files: InvoiceFiles, options: { ifMissing?: boolean } = {}) {
  const rows = [{ kind: 'pdf' as const, content: files.pdf }, ...(files.xml ? [{ kind: 'xml' as const, content: files.xml }] : [])];
  const insert = q.insertInto('invoice_files').values(
    rows.map((r) => ({
      company_id: companyId,
      invoice_id: invoiceId,
      kind: r.kind,
      content: r.content,
      sha256: createHash('sha256').update(r.content).digest('hex'),
    })),
  );
  return options.ifMissing ? insert.onConflict((oc) => oc.columns(['company_id', 'invoice_id', 'kind']).doNothing()) : insert;
}

/** The stored documents of an invoice, by kind. */
export async function readFiles(db: Database | Trx, companyId: string, invoiceId: string, kinds: ('pdf' | 'xml')[] = ['pdf', 'xml']) {
  const rows = await db
    .selectFrom('invoice_files')
    .select(['kind', byteaAsBase64('content').as('content')])
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
