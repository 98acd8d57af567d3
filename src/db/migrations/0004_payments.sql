-- Bank statement import (camt.053, MT940) and the payments it finds (german-rules §5).
-- A file is imported once per company (file_sha256), an entry once per company
-- (entry_key: the bank's AcctSvcrRef, else a hash of the entry, see
-- src/modules/payments/entry-key.ts), so a second import of the same file or of the same
-- entries inside another file books nothing twice.

create table bank_statements (
  company_id text not null references companies (id),
  id text not null,
  file_sha256 text not null check (file_sha256 ~ '^[0-9a-f]{64}$'),
  file_name text check (length(file_name) between 1 and 255),
  format text not null check (format in ('camt.053.001.02', 'camt.053.001.08', 'mt940')),
  -- The account of the statement(s) in the file; null when the file holds several accounts
  -- or names the account without an IBAN that could be derived.
  account_iban text,
  -- Stmt/Id (camt) or :20:/:28C: (MT940) of the statements in the file, comma-separated.
  statement_ref text not null check (length(statement_ref) <= 1000),
  entry_count integer not null check (entry_count >= 0),
  duplicate_count integer not null check (duplicate_count >= 0),
  matched_count integer not null check (matched_count >= 0),
  partially_matched_count integer not null check (partially_matched_count >= 0),
  unmatched_count integer not null check (unmatched_count >= 0),
  ignored_count integer not null check (ignored_count >= 0),
  imported_at timestamptz not null,
  primary key (company_id, id),
  unique (company_id, file_sha256)
);

-- One booking line of the statement (camt Ntry, MT940 :61:). Only new entries are stored;
-- a duplicate of an earlier import is counted on the statement and not stored again.
create table bank_entries (
  company_id text not null,
  id text not null,
  statement_id text not null,
  entry_key text not null check (length(entry_key) between 1 and 255),
  -- Position in the file (1-based), for the person reading the statement alongside.
  position integer not null check (position >= 1),
  account text not null,
  booking_date date not null,
  value_date date,
  direction text not null check (direction in ('credit', 'debit')),
  reversal boolean not null,
  -- The bank's status: BOOK (booked), PDNG (pending), INFO; only BOOK entries are matched.
  bank_status text not null,
  amount numeric(23, 5) not null check (amount >= 0),
  currency text not null check (currency ~ '^[A-Z]{3}$'),
  bank_reference text,
  booking_text text,
  status text not null check (status in ('matched', 'partially_matched', 'unmatched', 'ignored')),
  note text,
  primary key (company_id, id),
  unique (company_id, entry_key),
  foreign key (company_id, statement_id) references bank_statements (company_id, id)
);
create index bank_entries_statement on bank_entries (company_id, statement_id, position);

-- The transactions of an entry (camt TxDtls; a batch entry has several, each with its
-- own amount and remittance text; MT940 has one per :61:).
create table bank_transactions (
  company_id text not null,
  entry_id text not null,
  position integer not null check (position >= 1),
  amount numeric(23, 5) not null check (amount >= 0),
  currency text not null check (currency ~ '^[A-Z]{3}$'),
  remittance_text text,
  end_to_end_id text,
  creditor_reference text,
  payer_name text,
  payer_iban text,
  status text not null check (status in ('matched', 'unmatched', 'ignored')),
  -- Why it stays unmatched or was ignored, in words a person can act on.
  note text,
  -- Cents a person still has to assign by hand (the whole amount of an unmatched credit).
  unassigned_cents bigint not null check (unassigned_cents >= 0),
  primary key (company_id, entry_id, position),
  foreign key (company_id, entry_id) references bank_entries (company_id, id),
  check ((status = 'unmatched') = (unassigned_cents > 0))
);
create index bank_transactions_unassigned on bank_transactions (company_id) where status = 'unmatched';

-- A payment: the part of a bank transaction applied to one invoice. Booked as its own
-- journal entry (document_type 'payment', document_id = this id).
create table payment_allocations (
  company_id text not null,
  id text not null,
  entry_id text not null,
  transaction_position integer not null,
  invoice_id text not null,
  amount_cents bigint not null check (amount_cents > 0),
  booking_date date not null,
  created_at timestamptz not null,
  primary key (company_id, id),
  foreign key (company_id, entry_id, transaction_position) references bank_transactions (company_id, entry_id, position),
  foreign key (company_id, invoice_id) references invoices (company_id, id)
);
create index payment_allocations_invoice on payment_allocations (company_id, invoice_id);

-- Money received beyond the open amount of the invoices a transfer named: a credit of the
-- customer (the debtor account carries it as a credit balance), shown in the app, used or
-- paid back by a person.
create table customer_credits (
  company_id text not null,
  id text not null,
  customer_id text not null,
  amount_cents bigint not null check (amount_cents > 0),
  booking_date date not null,
  entry_id text not null,
  transaction_position integer not null,
  -- The payment whose journal entry carries this surplus (bank against debtor).
  allocation_id text not null,
  created_at timestamptz not null,
  primary key (company_id, id),
  foreign key (company_id, customer_id) references customers (company_id, id),
  foreign key (company_id, allocation_id) references payment_allocations (company_id, id),
  foreign key (company_id, entry_id, transaction_position) references bank_transactions (company_id, entry_id, position)
);
create index customer_credits_customer on customer_credits (company_id, customer_id);
