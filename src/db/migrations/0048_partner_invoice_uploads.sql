-- The partner hands in its invoice for a request to invoice through the portal (issue 27
-- §3): an e-invoice (XRechnung CII/UBL, ZUGFeRD/Factur-X) that Kontor reads and checks
-- against the statement. An accepted one is recorded like a person's record, with the
-- partner account instead of a person as its recorder (exactly one of the two).
alter table commission_partner_invoices alter column recorded_by drop not null;
alter table commission_partner_invoices add column recorded_by_partner text;
alter table commission_partner_invoices add constraint commission_partner_invoices_one_recorder
  check ((recorded_by is null) <> (recorded_by_partner is null));

-- Every upload, accepted or refused, with what was found: the company sees what the partner
-- tried, and the API's statement says whether the invoice is received and accepted. The
-- file itself is kept only when accepted — as received, byte for byte: an e-invoice is
-- archived in the format it came in (GoBD) — and a refused one keeps only its reasons.
create table partner_invoice_uploads (
  company_id text not null,
  id text not null,
  statement_id text not null,
  account_id text not null,
  received_at timestamptz not null,
  file_name text not null,
  -- xrechnung_cii | xrechnung_ubl | zugferd | pdf (a PDF without e-invoice), null when unreadable
  format text,
  sha256 text not null,
  size integer not null check (size > 0),
  accepted boolean not null,
  -- German sentences for the partner; empty when accepted.
  reasons jsonb not null,
  content bytea,
  primary key (company_id, id),
  check (accepted = (content is not null)),
  foreign key (company_id, statement_id) references commission_statements (company_id, id),
  foreign key (company_id, account_id) references partner_accounts (company_id, id)
);
create index partner_invoice_uploads_statement on partner_invoice_uploads (company_id, statement_id, received_at);
-- Stored as received, like the statements' and invoices' files: out of line, uncompressed
-- (a PDF is deflated already; 0045).
alter table partner_invoice_uploads alter column content set storage external;
