-- Mahnsperre (issue 25): a person stops dunning for one invoice or for all invoices of a
-- customer, with a reason, until someone lifts it. While a stop holds, the daily dunning
-- task (and "Erinnerung jetzt senden") creates no notice for the invoice; overdue marking
-- goes on. Setting a stop cancels the invoice's notices that were made but not yet mailed.
-- A back-office fact: audit rows, no webhook event. Rows stay after lifting (the history).
create table dunning_stops (
  company_id text not null,
  id text not null,
  -- Exactly one of the two: the invoice or the customer the stop is for.
  invoice_id text,
  customer_id text,
  reason text not null check (length(btrim(reason)) between 1 and 500),
  set_by text not null references users (id),
  set_at timestamptz not null,
  lifted_by text references users (id),
  lifted_at timestamptz,
  primary key (company_id, id),
  foreign key (company_id, invoice_id) references invoices (company_id, id),
  foreign key (company_id, customer_id) references customers (company_id, id),
  check ((invoice_id is null) <> (customer_id is null)),
  check ((lifted_at is null) = (lifted_by is null))
);
-- One stop in force per invoice and per customer; the dunning selection probes these
-- (an anti-join per candidate invoice, no scan).
create unique index dunning_stops_invoice on dunning_stops (company_id, invoice_id) where lifted_at is null and invoice_id is not null;
create unique index dunning_stops_customer on dunning_stops (company_id, customer_id) where lifted_at is null and customer_id is not null;
