import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BinaryCopy, Database } from '../../../db/connection.ts';
import { isCalendarDate } from '../../../shared/dates.ts';
import { formatDate } from '../../../shared/german-format.ts';
import { type Actor, recordAudit } from '../../audit/audit-log.ts';
import { COLUMN_DELIMITER, csvLine, headerLine, RECORD_DELIMITER } from './gobd-csv.ts';
import { GOBD_DOCUMENTS, type GobdDocumentSource, safeName } from './gobd-documents.ts';
import { DTD_FILE, type IndexTable, indexXml } from './gobd-index-xml.ts';
import { type PagedQuery, pages, type QueryParams, queryText } from './gobd-query.ts';
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

export type GobdExportOptions = {
  from: string;
  to: string;
  now: Date;
  actor: Actor;
  pageSize?: number;
  /** On a PostgreSQL server: the stored documents are read as binary COPYs (bytes, not hex text). */
  copyRows?: BinaryCopy;
};

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

/** Documents per page: ~100 PDFs and XMLs of a few dozen KiB each. */
const DOCUMENT_PAGE = 100;
/** Readers of stored documents side by side, each on its own connection (into a folder). */
const DOCUMENT_LANES = 3;

type ExportedDocument = { name: string; id: string; number: string; extension: string; content: Buffer; stored: string | null };

/**
 * A document row as its file: `dokumente/<folder>/<number>.<ext>`; where the number has
 * characters a file name cannot keep, the record id follows it, so names stay unique.
 */
function documentOf(source: GobdDocumentSource, row: Record<string, unknown>): ExportedDocument {
  const [id, number, extension, raw, stored] = [row.c0, row.c1, row.c2, row.c3, row.c4] as [string, string, string, Buffer | string, string | null];
  const safe = safeName(number);
  const base = safe === number ? safe : `${safe}_${safeName(id)}`;
  return {
    name: `dokumente/${source.folder}/${base}.${extension}`,
    id,
    number,
    extension,
    content: typeof raw === 'string' ? Buffer.from(raw, 'utf8') : raw,
    stored,
  };
}

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

  // Tables and documents side by side into a folder; one after the other into a ZIP.
  const tablesTask = () => writeTables(db, sink, params, pageSize, company.timezone);
  const documentsTask = () => writeDocuments(db, sink, params, options.copyRows);
  let tables: GobdExportSummary['tables'];
  let written: Awaited<ReturnType<typeof writeDocuments>>;
  try {
    [tables, written] = sink.sideBySide ? await Promise.all([tablesTask(), documentsTask()]) : [await tablesTask(), await documentsTask()];
  } catch (error) {
    await sink.close().catch(() => {});
    throw error;
  }
  await sink.close();
  const { documents, bytes, mismatches, listSha256 } = written;

  const index = indexXml(
    {
      name: company.name,
      location: company.city ?? '',
      comment: `GoBD-Datenträgerüberlassung (Z3) aus Kontor: Daten vom ${formatDate(from)} bis ${formatDate(to)}`,
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
    documents,
    document_bytes: bytes,
    hash_mismatches: mismatches,
    index_sha256: createHash('sha256').update(index).digest('hex'),
    documents_sha256: listSha256,
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

async function writeTables(db: Database, sink: ExportSink, params: QueryParams, pageSize: number, timeZone: string): Promise<GobdExportSummary['tables']> {
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
      await file.write(page.map((row) => csvLine(table.columns, row, timeZone)).join(''));
      rows += page.length;
    }
    await file.end();
    tables.push({ name: table.name, file: table.file, rows });
  }
  return tables;
}

async function writeDocuments(
  db: Database,
  sink: ExportSink,
  params: QueryParams,
  copy: BinaryCopy | undefined,
): Promise<{ documents: number; bytes: number; mismatches: string[]; listSha256: string }> {
  // The documents, then their list. Each source is read by DOCUMENT_LANES readers, side by
  // side into a folder (one after the other into a ZIP), each taking the records whose key ends in its
  // share of characters, so the database fetches stored documents on several connections.
  // Each reader writes its list lines to a scratch file; dokumente.csv is these files in
  // a fixed order (source by source, reader by reader), so the list does not depend on
  // which reader was faster, and the heap stays flat however many documents there are.
  const scratch = await mkdtemp(path.join(tmpdir(), 'kontor-gobd-'));
  try {
    const results: LaneResult[] = [];
    for (const [s, source] of GOBD_DOCUMENTS.entries()) {
      const lane = (i: number) => writeLane(db, copy, sink, params, source, i, DOCUMENT_LANES, path.join(scratch, `${s}-${i}.csv`));
      const indexes = Array.from({ length: DOCUMENT_LANES }, (_, i) => i);
      if (sink.sideBySide) results.push(...(await Promise.all(indexes.map(lane))));
      else for (const i of indexes) results.push(await lane(i));
    }
    const listHash = createHash('sha256');
    const documentsFile = sink.file(DOCUMENTS_TABLE.file);
    const header = headerLine(DOCUMENT_COLUMNS);
    listHash.update(header);
    await documentsFile.write(header);
    for (const result of results)
      for await (const chunk of createReadStream(result.listFile)) {
        listHash.update(chunk as Buffer);
        await documentsFile.write(chunk as Buffer);
      }
    await documentsFile.end();
    return {
      documents: results.reduce((sum, r) => sum + r.documents, 0),
      bytes: results.reduce((sum, r) => sum + r.bytes, 0),
      mismatches: results.flatMap((r) => r.mismatches),
      listSha256: listHash.digest('hex'),
    };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** The rows of a document query in key order: as one binary COPY where the database offers it, else page by page. */
async function* documentRows(db: Database, copy: BinaryCopy | undefined, query: PagedQuery, params: QueryParams): AsyncGenerator<Record<string, unknown>> {
  if (!copy) {
    for await (const page of pages(db, query, params, DOCUMENT_PAGE)) yield* page;
    return;
  }
  // Every field arrives as its bytes: the content (c3) stays bytes, the rest is text.
  for await (const fields of copy(queryText(query, params)))
    yield Object.fromEntries(fields.map((field, i) => [`c${i}`, field === null || i === 3 ? field : field.toString('utf8')]));
}

type LaneResult = { listFile: string; documents: number; bytes: number; mismatches: string[] };

/** One reader of a document source: its share of the records, written and listed in key order. */
async function writeLane(
  db: Database,
  copy: BinaryCopy | undefined,
  sink: ExportSink,
  params: QueryParams,
  source: GobdDocumentSource,
  lane: number,
  lanes: number,
  listFile: string,
): Promise<LaneResult> {
  // The share: the last character of the record's key (after company_id) modulo the readers.
  const share = lanes === 1 ? '' : ` and ascii(right(${source.keys[1]}, 1)) % ${lanes} = ${lane}`;
  const query = { select: source.select, from: source.from, where: `${source.where}${share}`, keys: source.keys };
  const list = createWriteStream(listFile);
  const result: LaneResult = { listFile, documents: 0, bytes: 0, mismatches: [] };
  try {
    for await (const row of documentRows(db, copy, query, params)) {
      const d = documentOf(source, row);
      await sink.whole(d.name, d.content);
      const sha256 = createHash('sha256').update(d.content).digest('hex');
      const check = d.stored === null ? '' : d.stored === sha256 ? 'ja' : 'nein';
      if (check === 'nein') result.mismatches.push(d.name);
      result.bytes += d.content.length;
      result.documents += 1;
      const line =
        [
          quote(d.name),
          quote(source.table),
          quote(d.id),
          quote(d.number),
          quote(d.extension),
          quote(sha256),
          String(d.content.length),
          check === '' ? '' : quote(check),
        ].join(COLUMN_DELIMITER) + RECORD_DELIMITER;
      if (!list.write(line)) await once(list, 'drain');
    }
    await new Promise<void>((resolve, reject) => list.end((error?: Error | null) => (error ? reject(error) : resolve())));
    return result;
  } finally {
    list.destroy();
  }
}
