-- Recurring contracts, their items, billing cycles and usage (issue 13; interface §2
-- Contract, design §6). A contract belongs to one customer for good; it has its own gapless
-- number from the company's contract_number_pattern (number range 'contract').

alter table companies add column contract_number_pattern text not null default 'V-{seq:5}'
  check (length(contract_number_pattern) between 1 and 64);

create table contracts (
  company_id text not null references companies (id),
  id text not null,
  number text not null,
  external_source text not null,
  external_ref text not null,
  customer_id text not null,
  name text not null check (length(name) between 1 and 255),
  status text not null check (status in ('draft', 'active', 'paused', 'cancelled', 'ended')),
  billing_interval text not null check (billing_interval in ('month', 'quarter', 'year')),
  start_date date not null,
  billing_starts_on date,
  end_date date,
  invoice_mode text not null check (invoice_mode in ('draft', 'issue', 'issue_send')),
  payment_terms_days integer check (payment_terms_days between 0 and 365),
  -- The next day the billing run bills; null when nothing is left to bill.
  next_billing_date date,
  -- Usage before this day belongs to a billed cycle and is refused.
  usage_open_from date,
  -- Last day billed in advance: an end date before it is refused (contract.end_before_billed).
  billed_until date,
  -- When it was first not a draft: interval and start are fixed from then on.
  activated_at timestamptz,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  primary key (company_id, id),
  unique (company_id, external_source, external_ref),
  unique (company_id, number),
  foreign key (company_id, customer_id) references customers (company_id, id),
  check (end_date is null or end_date >= start_date),
  check (billing_starts_on is null or billing_starts_on >= start_date)
);
create index contracts_next_billing on contracts (next_billing_date) where next_billing_date is not null;

-- The items of a contract, by the caller's reference. The price is agreed when the item is
-- added and frozen; a price change is a new item reference.
create table contract_items (
  company_id text not null,
  contract_id text not null,
  ref text not null check (length(ref) between 1 and 255),
  position integer not null check (position >= 1),
  product_id text,
  description text not null check (length(description) between 1 and 1000),
  quantity numeric not null check (quantity >= 0),
  unit text,
  billing_timing text not null check (billing_timing in ('advance', 'arrears')),
  unit_price_net numeric not null check (unit_price_net >= 0),
  vat_rate smallint not null check (vat_rate in (0, 7, 19)),
  pricing_model text not null check (pricing_model in ('flat', 'per_unit', 'package', 'graduated', 'volume', 'quota')),
  included_quantity numeric,
  overage_price numeric,
  tiers jsonb,
  -- Billed from this day (the contract's start, or the day the item was added to a running contract).
  starts_on date not null,
  ends_after date,
  primary key (company_id, contract_id, ref),
  foreign key (company_id, contract_id) references contracts (company_id, id),
  foreign key (company_id, product_id) references products (company_id, id)
);

-- One row per billing date: the cycle that begins on it and what became of it.
create table contract_cycles (
  company_id text not null,
  contract_id text not null,
  start_date date not null,
  end_date date not null,
  status text not null check (status in ('billed', 'skipped', 'paused', 'failed')),
  invoice_id text,
  total_net numeric(23, 2),
  -- For failed: the German reason (why the invoice could not be issued).
  reason text,
  attempts integer not null default 1 check (attempts >= 1),
  updated_at timestamptz not null,
  primary key (company_id, contract_id, start_date),
  foreign key (company_id, contract_id) references contracts (company_id, id),
  foreign key (company_id, invoice_id) references invoices (company_id, id),
  check (end_date >= start_date)
);

-- Usage records: each external_ref once per contract (a repeat counts as duplicate).
create table usage_records (
  company_id text not null,
  contract_id text not null,
  external_ref text not null check (length(external_ref) between 1 and 255),
  item_ref text not null,
  quantity numeric not null check (quantity >= 0),
  occurred_at timestamptz not null,
  -- The calendar day in the company's time zone: which cycle it belongs to.
  occurred_on date not null,
  recorded_at timestamptz not null,
  primary key (company_id, contract_id, external_ref),
  foreign key (company_id, contract_id, item_ref) references contract_items (company_id, contract_id, ref)
);
create index usage_records_cycle on usage_records (company_id, contract_id, item_ref, occurred_on);

alter table invoices add column contract_id text;
alter table invoices add constraint invoices_contract foreign key (company_id, contract_id) references contracts (company_id, id);
create index invoices_contract on invoices (company_id, contract_id) where contract_id is not null;
