-- Revenue-share statements (issue 14; interface §2 CommissionStatement, design §6): the
-- statement run puts a partner's open entries of a cadence period on one statement — a
-- Gutschrift (self-billed invoice), a settlement for a private person, or a request to
-- invoice — numbered, booked against the partner's creditor account, rendered and mailed.

create table commission_statements (
  company_id text not null references companies (id),
  id text not null,
  -- Order of creation, for cursor paging.
  seq bigint generated always as identity,
  partner_id text not null,
  kind text not null check (kind in ('self_billing', 'settlement', 'partner_invoice')),
  -- A cancellation reverses an issued statement (negative amounts, its own number).
  type text not null default 'statement' check (type in ('statement', 'cancellation')),
  status text not null check (status in ('draft', 'issued', 'sent', 'cancelled', 'objected')),
  number text,
  issue_date date,
  period_start date not null,
  period_end date not null,
  net_cents bigint not null,
  vat_cents bigint not null,
  gross_cents bigint not null,
  -- Exact decimal text: '19' or '0'.
  vat_rate text not null check (vat_rate in ('19', '0')),
  tax_note text not null check (tax_note in ('regular', 'small_business', 'reverse_charge', 'private_person')),
  -- The statement's lines (StatementLine[]), fixed when it is made.
  lines jsonb not null,
  e_invoice_format text check (e_invoice_format in ('xrechnung', 'zugferd')),
  -- The frozen document (StatementDocument) from the moment it got its number.
  document jsonb,
  cancels_statement_id text,
  cancelled_by_id text,
  objected_at timestamptz,
  sent_at timestamptz,
  -- Set before the mail leaves, so a crash in between never mails twice (the outbox or
  -- 'unconfirmed' decides).
  mail_started_at timestamptz,
  sent_to text,
  paid_at timestamptz,
  -- Who issued, cancelled, objected or paid it by hand ('cli' or a person's e-mail).
  decided_by text,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  primary key (company_id, id),
  unique (company_id, number),
  foreign key (company_id, partner_id) references commission_partners (company_id, id),
  -- A draft has no number; a draft discarded by a person stays `cancelled` without one.
  check (status <> 'draft' or number is null),
  check ((number is null) = (document is null)),
  check (type = 'statement' or cancels_statement_id is not null)
);
create index commission_statements_seq on commission_statements (company_id, seq);
create index commission_statements_partner on commission_statements (company_id, partner_id, seq);

create table commission_statement_files (
  company_id text not null,
  statement_id text not null,
  kind text not null check (kind in ('pdf', 'xml')),
  content bytea not null,
  sha256 text not null,
  created_at timestamptz not null,
  primary key (company_id, statement_id, kind),
  foreign key (company_id, statement_id) references commission_statements (company_id, id)
);

-- One row per partner and cadence period the run has decided: the statement it made, or
-- none (nothing open, or less than the minimum payout: the entries wait for the next period).
create table commission_statement_runs (
  company_id text not null,
  partner_id text not null,
  period_end date not null,
  statement_id text,
  created_at timestamptz not null,
  primary key (company_id, partner_id, period_end),
  foreign key (company_id, partner_id) references commission_partners (company_id, id)
);

create index commission_entries_statement on commission_entries (company_id, statement_id) where statement_id is not null;
