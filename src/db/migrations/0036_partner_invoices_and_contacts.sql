-- Issue 24 (statements, payouts and books agree).

-- A request to invoice (statement kind partner_invoice) is paid only against the partner's
-- own invoice, which a person records from the document the partner sent: its number, date
-- and amounts. A difference to the statement is shown and must be confirmed
-- (mismatch_confirmed). The invoice is booked in the same transaction (journal document
-- `<statement id>.invoice`, Belegfeld 1 = the partner's number) and the payout pays its gross.
-- One invoice per statement; a partner's invoice number is recorded once.
create table commission_partner_invoices (
  company_id text not null,
  statement_id text not null,
  partner_id text not null,
  number text not null check (length(number) between 1 and 100),
  invoice_date date not null,
  net_cents bigint not null check (net_cents > 0),
  vat_cents bigint not null check (vat_cents >= 0),
  gross_cents bigint not null,
  mismatch_confirmed boolean not null,
  recorded_by text not null references users (id),
  recorded_at timestamptz not null,
  primary key (company_id, statement_id),
  unique (company_id, partner_id, number),
  check (gross_cents = net_cents + vat_cents),
  foreign key (company_id, statement_id) references commission_statements (company_id, id),
  foreign key (company_id, partner_id) references commission_partners (company_id, id)
);

-- The partner's contact for its e-invoices: in a Gutschrift the partner is the seller, and
-- XRechnung needs the seller contact's name, telephone and e-mail (BR-DE-5/6/7). The API's
-- partner has no telephone; a person sets it in the app (or `kontor admin partner contact`).
-- Nothing of the company stands in for what the partner has not given.
create table commission_partner_contacts (
  company_id text not null,
  partner_id text not null,
  contact_name text check (contact_name is null or length(contact_name) between 1 and 200),
  phone text check (phone is null or length(phone) between 3 and 50),
  updated_by text not null references users (id),
  updated_at timestamptz not null,
  primary key (company_id, partner_id),
  foreign key (company_id, partner_id) references commission_partners (company_id, id)
);

-- Why the statement run left a statement a draft instead of issuing it (German, for a
-- person: what the partner's XRechnung lacks); cleared when it is issued.
alter table commission_statements add column held_reason text check (held_reason is null or length(held_reason) between 1 and 500);
