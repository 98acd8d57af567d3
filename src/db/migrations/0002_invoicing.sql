-- Invoices (and Stornorechnungen), their lines and stored documents, and the
-- idempotency keys of POST /invoices.

-- A company in Germany selling electronic services to EU consumers must charge the
-- consumer's VAT once its EU-wide B2C sales pass 10,000 EUR (OSS); Kontor then refuses
-- such invoices (rates outside 0/7/19). Set by a person in the app.
alter table companies add column eu_distance_threshold_exceeded boolean not null default false;

create table invoices (
  company_id text not null references companies (id),
  id text not null,
  number text,
  status text not null check (status in ('draft', 'issued', 'sent', 'partially_paid', 'paid', 'cancelled')),
  type text not null check (type in ('invoice', 'storno')),
  external_source text,
  external_ref text,
  customer_id text not null,
  contract_external_ref text,
  currency text not null default 'EUR' check (currency = 'EUR'),
  issue_date date,
  due_date date,
  service_period_start date not null,
  service_period_end date not null,
  payment_terms_days integer not null check (payment_terms_days between 0 and 365),
  total_net_cents bigint not null,
  total_tax_cents bigint not null,
  total_gross_cents bigint not null,
  amount_paid_cents bigint not null default 0,
  vat_verdict text check (vat_verdict in ('domestic', 'small_business', 'reverse_charge', 'not_taxable')),
  e_invoice text check (e_invoice in ('xrechnung', 'zugferd', 'none')),
  -- The InvoiceDocument snapshot taken at issue (src/modules/invoicing/document.ts).
  document jsonb,
  sent_at timestamptz,
  paid_at timestamptz,
  overdue boolean not null default false,
  dunning_level smallint,
  cancels_invoice_id text,
  cancelled_by_invoice_id text,
  -- Position in the company's change feed (GET /invoices?changed_since), drawn under the
  -- company's 'invoice_changes' counter lock so that commit order equals feed order.
  change_seq bigint not null,
  changed_at timestamptz not null,
  created_at timestamptz not null default now(),
  primary key (company_id, id),
  unique (company_id, number),
  unique (company_id, external_source, external_ref),
  unique (company_id, change_seq),
  foreign key (company_id, customer_id) references customers (company_id, id),
  check (service_period_end >= service_period_start),
  check (total_gross_cents = total_net_cents + total_tax_cents),
  check ((status = 'draft') = (number is null)),
  check ((type = 'storno') = (cancels_invoice_id is not null))
);
create index invoices_changed on invoices (company_id, changed_at, change_seq);
create index invoices_customer on invoices (company_id, customer_id);

create table invoice_lines (
  company_id text not null,
  invoice_id text not null,
  position integer not null check (position between 1 and 500),
  description text not null,
  -- The decimal strings as sent (kept for the idempotency comparison and the documents).
  quantity text not null,
  unit text,
  unit_price_net text not null,
  vat_rate smallint not null check (vat_rate in (0, 7, 19)),
  net_cents bigint not null,
  product_id text,
  tax_exemption_reason text,
  primary key (company_id, invoice_id, position),
  foreign key (company_id, invoice_id) references invoices (company_id, id)
);

-- Documents are rendered once at issue and never again.
create table invoice_files (
  company_id text not null,
  invoice_id text not null,
  kind text not null check (kind in ('pdf', 'xml')),
  content bytea not null,
  sha256 text not null,
  created_at timestamptz not null default now(),
  primary key (company_id, invoice_id, kind),
  foreign key (company_id, invoice_id) references invoices (company_id, id)
);

-- Idempotency keys of POST /invoices: per company, never deleted. A key is claimed in
-- the transaction that creates the invoice; a refused request rolls its claim back.
create table idempotency_keys (
  company_id text not null references companies (id),
  key text not null,
  request_hash text not null,
  state text not null check (state in ('pending', 'done')),
  response_status integer,
  response_body text,
  invoice_id text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (company_id, key)
);
