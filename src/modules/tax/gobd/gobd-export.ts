import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Database } from '../../../db/connection.ts';
import { isCalendarDate } from '../../../shared/dates.ts';
import { type Actor, recordAudit } from '../../audit/audit-log.ts';
import { COLUMN_DELIMITER, csvLine, headerLine, RECORD_DELIMITER } from './gobd-csv.ts';
import { GOBD_DOCUMENTS, safeName } from './gobd-documents.ts';
import { DTD_FILE, type IndexTable, indexXml } from './gobd-index-xml.ts';
import { pages, type QueryParams } from './gobd-query.ts';
import type { ExportSink } from './gobd-sink.ts';
import { GOBD_TABLES, type GobdColumn } from './gobd-tables.ts';

// The GoBD audit export (Datenträgerüberlassung, Z3; issue 28 §3): the company's data of a
// date range as CSV tables described by index.xml (GDPdU Beschreibungsstandard, its DTD
// beside it), and the stored documents with a list tying each file to its record and its
// SHA-256. Streamed: tables and documents are read page by page and written as they come.
// Deterministic: every table in key order, no moment of the export in any file, the same
// data gives the same bytes. Recorded in the audit trail (`gobd.exported`) with the
// person, the range, the row counts and the SHA-256 of index.xml and of the document list.

export class GobdExportError extends Error {
  readonly code: 'invalid_range' | 'company_not_found';
  constructor(code: GobdExportError['code'], message: string) {
    super(message);
    this.name = 'GobdExportError';
    this.code = code;
  }
}

export type GobdExportOptions = { from: string; to: string; now: Date; actor: Actor; pageSize?: number };

export type GobdExportSummary = {
  from: string;
  to: string;
  /** The range lies inside the company's locked period: its data can no longer change. */
  locked: boolean;
  tables: { name: string; file: string; rows: number }[];
  documents: number;
  document_bytes: number;
  /** Documents whose bytes no longer have the SHA-256 stored when they were made. */
  hash_mismatches: string[];
  index_sha256: string;
  documents_sha256: string;
};

const DOCUMENT_COLUMNS: GobdColumn[] = [
  { name: 'DATEI', expr: '', type: 'text', description: 'Pfad der Datei in diesem Export' },
  { name: 'TABELLE', expr: '', type: 'text', description: 'Tabelle des Datensatzes, zu dem die Datei gehört' },
  { name: 'BELEG_ID', expr: '', type: 'text', description: 'ID des Datensatzes' },
  { name: 'BELEGNUMMER', expr: '', type: 'text', description: 'Nummer des Belegs' },
  { name: 'ART', expr: '', type: 'text', description: 'pdf oder xml' },
  { name: 'SHA256', expr: '', type: 'text', description: 'SHA-256 der Datei (hex)' },
  { name: 'BYTES', expr: '', type: 'int', description: 'Größe in Bytes' },
  {
    name: 'PRUEFSUMME_GESPEICHERT',
    expr: '',
    type: 'text',
    description: 'ja: entspricht der bei der Erstellung gespeicherten SHA-256; nein: weicht ab; leer: keine gespeichert',
  },
];

const DOCUMENTS_TABLE: IndexTable = {
  file: 'dokumente.csv',
  name: 'Dokumente',
  description: 'Die gespeicherten Belege (PDF, XML) im Ordner dokumente/, je mit Datensatz und SHA-256',
  primaryKey: 1,
  columns: DOCUMENT_COLUMNS,
  foreignKeys: [],
};

const DTD = () => readFileSync(new URL(DTD_FILE, import.meta.url));

const quote = (text: string) => `"${text.replaceAll('"', '""')}"`;

export async function writeGobdExport(db: Database, companyId: string, options: GobdExportOptions, sink: ExportSink): Promise<GobdExportSummary> {
  const { from, to } = options;
  if (!isCalendarDate(from) || !isCalendarDate(to)) throw new GobdExportError('invalid_range', `from and to must be dates YYYY-MM-DD, got ${from} and ${to}`);
  if (from > to) throw new GobdExportError('invalid_range', `the range starts ${from}, after its end ${to}`);
  const company = await db
    .selectFrom('companies as c')
    .leftJoin('period_locks as l', 'l.company_id', 'c.id')
    .select(['c.name', 'c.city', 'c.timezone', 'l.locked_until'])
    .where('c.id', '=', companyId)
    .executeTakeFirst();
  if (!company) throw new GobdExportError('company_not_found', `no company ${companyId}`);
  const params: QueryParams = { company: companyId, from, to, tz: company.timezone };
  const pageSize = options.pageSize ?? 2000;

  const tables: GobdExportSummary['tables'] = [];
  for (const table of GOBD_TABLES) {
    const file = sink.file(table.file);
    await file.write(headerLine(table.columns));
    let rows = 0;
    for await (const page of pages(
      db,
      { select: table.columns.map((column) => column.expr), from: table.from, where: table.where, keys: table.keys },
      params,
      pageSize,
    )) {
      await file.write(page.map((row) => csvLine(table.columns, row, company.timezone)).join(''));
      rows += page.length;
    }
    await file.end();
    tables.push({ name: table.name, file: table.file, rows });
  }

  // The documents, then their list (kept as lines: a few hundred bytes per document).
  const listed: string[] = [];
  const used = new Set<string>();
  const mismatches: string[] = [];
  let bytes = 0;
  for (const source of GOBD_DOCUMENTS) {
    const query = { select: source.select, from: source.from, where: source.where, keys: source.keys };
    for await (const page of pages(db, query, params, Math.max(1, Math.floor(pageSize / 20)))) {
      for (const row of page) {
        const [id, number, extension, raw, stored] = [row.c0, row.c1, row.c2, row.c3, row.c4] as [string, string, string, Buffer | string, string | null];
        const content = typeof raw === 'string' ? Buffer.from(raw, 'utf8') : raw;
        let name = `dokumente/${source.folder}/${safeName(number)}.${extension}`;
        if (used.has(name)) name = `dokumente/${source.folder}/${safeName(number)}_${safeName(id)}.${extension}`;
        used.add(name);
        const file = sink.file(name);
        await file.write(content);
        await file.end();
        const sha256 = createHash('sha256').update(content).digest('hex');
        const check = stored === null ? '' : stored === sha256 ? 'ja' : 'nein';
        if (check === 'nein') mismatches.push(name);
        bytes += content.length;
        listed.push(
          [
            quote(name),
            quote(source.table),
            quote(id),
            quote(number),
            quote(extension),
            quote(sha256),
            String(content.length),
            check === '' ? '' : quote(check),
          ].join(COLUMN_DELIMITER) + RECORD_DELIMITER,
        );
      }
    }
  }
  listed.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const documentsCsv = headerLine(DOCUMENT_COLUMNS) + listed.join('');
  const documentsFile = sink.file(DOCUMENTS_TABLE.file);
  await documentsFile.write(documentsCsv);
  await documentsFile.end();

  const index = indexXml(
    {
      name: company.name,
      location: company.city ?? '',
      comment: `GoBD-Datenträgerüberlassung (Z3) aus Kontor: Daten vom ${germanDate(from)} bis ${germanDate(to)}`,
    },
    `Kontor ${from} bis ${to}`,
    [...GOBD_TABLES, DOCUMENTS_TABLE],
  );
  const indexFile = sink.file('index.xml');
  await indexFile.write(index);
  await indexFile.end();
  const dtdFile = sink.file(DTD_FILE);
  await dtdFile.write(DTD());
  await dtdFile.end();

  const summary: GobdExportSummary = {
    from,
    to,
    locked: company.locked_until != null && company.locked_until >= to,
    tables,
    documents: listed.length,
    document_bytes: bytes,
    hash_mismatches: mismatches,
    index_sha256: createHash('sha256').update(index).digest('hex'),
    documents_sha256: createHash('sha256').update(documentsCsv).digest('hex'),
  };
  await recordAudit(db, options.actor, options.now, {
    action: 'gobd.exported',
    subjectType: 'gobd_export',
    // The range names the export (the trail shows it as the subject).
    subjectId: `${from}..${to}`,
    after: {
      from,
      to,
      locked: summary.locked,
      rows: Object.fromEntries(tables.map((t) => [t.name, t.rows])),
      documents: summary.documents,
      hash_mismatches: mismatches.length,
      index_sha256: summary.index_sha256,
      documents_sha256: summary.documents_sha256,
    },
  });
  return summary;
}

const germanDate = (iso: string) => `${iso.slice(8, 10)}.${iso.slice(5, 7)}.${iso.slice(0, 4)}`;
