-- The booking journal (german-rules §6): one balanced entry per booked document (issued
-- invoice, storno, payment), its lines in Soll/Haben, and the accounting-period lock.
-- Append-only (GoBD): entries and lines are never updated or deleted; a mistake is
-- corrected by a reversing entry (a storno books the mirror of its invoice).
-- Documents are referenced by id and number only (no foreign key to the invoicing tables).
create table journal_entries (
  company_id text not null references companies (id),
  id text not null,
  entry_date date not null,
  document_type text not null check (document_type in ('invoice', 'storno', 'payment')),
  document_id text not null check (length(document_id) between 1 and 255),
  document_number text not null check (length(document_number) between 1 and 255),
  description text not null check (length(description) between 1 and 255),
  -- The chart the accounts of this entry belong to (a company may switch charts later).
  chart text not null check (chart in ('SKR03', 'SKR04')),
  -- DATEV Leistungsdatum (end of the service period) and the counterparty's VAT ID for
  -- reverse-charge revenue (ZM); both optional.
  service_date date,
  counterparty_vat_id text check (counterparty_vat_id ~ '^[A-Z]{2}[A-Za-z0-9+*]{2,13}$'),
  created_at timestamptz not null default now(),
  primary key (company_id, id),
  -- One document is booked once.
  unique (company_id, document_type, document_id)
);
create index journal_entries_date on journal_entries (company_id, entry_date);

create table journal_lines (
  company_id text not null,
  entry_id text not null,
  position integer not null check (position >= 1),
  -- G/L account (4 digits) or personal account (debtor 10000–69999, creditor 70000–99999).
  account text not null check (account ~ '^[0-9]{4,8}$'),
  side text not null check (side in ('S', 'H')),
  amount_cents bigint not null check (amount_cents > 0),
  -- DATEV BU-Schlüssel (field 9, up to 4 digits); null on automatic accounts.
  tax_key text check (tax_key ~ '^[0-9]{1,4}$'),
  primary key (company_id, entry_id, position),
  foreign key (company_id, entry_id) references journal_entries (company_id, id)
);

-- The accounting period is locked up to and including locked_until: no booking dated on
-- or before it (rule period_locked).
create table period_locks (
  company_id text primary key references companies (id),
  locked_until date not null,
  updated_at timestamptz not null default now()
);
