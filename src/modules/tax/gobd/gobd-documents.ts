// The stored documents of the GoBD export: every file Kontor made or received for a record
// of the range, as it was stored (never re-rendered), in dokumente/<folder>/, listed in
// the table Dokumente with the record it belongs to and its SHA-256. Where the database
// keeps the hash of the stored file, the export compares it with the bytes it writes
// (PRUEFSUMME_GESPEICHERT): a difference would show a changed document.

export type GobdDocumentSource = {
  folder: string;
  /** The Name of the table the record is in (index.xml). */
  table: string;
  from: string;
  where: string;
  keys: string[];
  /** SQL of: record id, record number, kind/extension (pdf|xml), content (bytea or text), stored sha256 (or null). */
  select: [id: string, number: string, extension: string, content: string, storedSha256: string];
};

const localDate = (column: string) => `(${column} at time zone {tz})::date`;

export const GOBD_DOCUMENTS: GobdDocumentSource[] = [
  {
    folder: 'rechnungen',
    table: 'Rechnungen',
    from: 'invoice_files x join invoices i on i.company_id = x.company_id and i.id = x.invoice_id',
    where: 'x.company_id = {company} and i.number is not null and i.issue_date between {from} and {to}',
    keys: ['x.company_id', 'x.invoice_id', 'x.kind'],
    select: ['x.invoice_id', 'i.number', 'x.kind', 'x.content', 'x.sha256'],
  },
  {
    folder: 'gutschriften',
    table: 'Gutschriften',
    from: 'commission_statement_files x join commission_statements s on s.company_id = x.company_id and s.id = x.statement_id',
    where: 'x.company_id = {company} and s.number is not null and s.issue_date between {from} and {to}',
    keys: ['x.company_id', 'x.statement_id', 'x.kind'],
    select: ['x.statement_id', 's.number', 'x.kind', 'x.content', 'x.sha256'],
  },
  {
    folder: 'partnerrechnungen',
    table: 'Partnerrechnungen',
    from: 'partner_invoice_uploads x join commission_statements s on s.company_id = x.company_id and s.id = x.statement_id',
    where: `x.company_id = {company} and x.content is not null and ${localDate('x.received_at')} between {from} and {to}`,
    keys: ['x.company_id', 'x.id'],
    select: [
      'x.statement_id',
      "s.number || '_' || x.id",
      "case when x.format = 'pdf' or x.format = 'zugferd' then 'pdf' else 'xml' end",
      'x.content',
      'x.sha256',
    ],
  },
  {
    folder: 'mahnungen',
    table: 'Mahnungen',
    from: 'dunning_notices x join invoices i on i.company_id = x.company_id and i.id = x.invoice_id',
    where: 'x.company_id = {company} and x.pdf is not null and x.notice_date between {from} and {to}',
    keys: ['x.company_id', 'x.id'],
    select: ['x.id', "i.number || '_Stufe' || x.level", "'pdf'", 'x.pdf', 'x.pdf_sha256'],
  },
  {
    folder: 'auszahlungen',
    table: 'Auszahlungen',
    from: 'payout_runs x',
    where: `x.company_id = {company} and ${localDate('x.created_at')} between {from} and {to}`,
    keys: ['x.company_id', 'x.id'],
    select: ['x.id', 'x.message_id', "'xml'", 'x.file', 'null::text'],
  },
];

/** A file name from a document number: letters, digits, `.`, `_` and `-` kept, anything else `_`. */
export const safeName = (text: string) => text.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 120);
