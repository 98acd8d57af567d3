-- People, companies and API keys. Organisation-level tables are keyed by their own id;
-- every tenant table is keyed by company_id first (see docs/ARCHITECTURE.md).
create table organizations (
  id text primary key,
  name text not null check (length(name) between 1 and 255),
  created_at timestamptz not null default now()
);

create table users (
  id text primary key,
  email text not null unique,
  password_hash text not null,
  created_at timestamptz not null default now()
);

create table memberships (
  organization_id text not null references organizations (id),
  user_id text not null references users (id),
  role text not null check (role in ('admin', 'member')),
  active boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (organization_id, user_id)
);

create table companies (
  id text primary key,
  organization_id text not null references organizations (id),
  name text not null,
  legal_form text,
  street text,
  house_number text,
  zip text,
  city text,
  country_code text not null default 'DE',
  vat_id text,
  tax_number text,
  email text,
  phone text,
  contact_name text,
  iban text,
  bic text,
  bank_name text,
  small_business boolean not null default false,
  chart text not null default 'SKR03' check (chart in ('SKR03', 'SKR04')),
  timezone text not null default 'Europe/Berlin',
  invoice_number_pattern text not null default 'RE-{yyyy}-{seq:5}',
  payment_terms_days integer not null default 14 check (payment_terms_days between 0 and 365),
  smtp jsonb,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

-- A user reaches a company of their organisation only through a row here.
create table company_access (
  company_id text not null references companies (id),
  user_id text not null references users (id),
  created_at timestamptz not null default now(),
  primary key (company_id, user_id)
);

create table api_keys (
  id text primary key,
  organization_id text not null references organizations (id),
  creator_user_id text not null references users (id),
  company_id text references companies (id),
  all_companies boolean not null default false,
  key_hash text not null unique,
  key_prefix text not null,
  scopes text[] not null,
  expires_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz not null default now(),
  check ((company_id is null) = all_companies)
);

-- Number ranges (customer numbers now; invoice numbers later): one row per company and
-- range, drawn with a row lock inside the transaction that uses the number.
create table number_ranges (
  company_id text not null references companies (id),
  range_key text not null,
  next_value bigint not null,
  last_value bigint not null,
  primary key (company_id, range_key),
  check (next_value <= last_value + 1)
);

create table customers (
  company_id text not null references companies (id),
  id text not null,
  kundennummer integer not null check (kundennummer between 10000 and 69999),
  external_source text not null,
  external_ref text not null,
  name text not null,
  email text,
  street text,
  house_number text,
  zip text,
  city text,
  country_code text,
  vat_id text,
  customer_type text not null check (customer_type in ('business', 'private')),
  leitweg_id text,
  contact_name text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (company_id, id),
  unique (company_id, external_source, external_ref),
  unique (company_id, kundennummer)
);

create table products (
  company_id text not null references companies (id),
  id text not null,
  external_source text not null,
  external_ref text not null,
  product_number text not null,
  name text not null,
  description text,
  unit text,
  unit_price_net numeric not null check (unit_price_net >= 0),
  vat_rate smallint not null check (vat_rate in (0, 7, 19)),
  billing_interval text not null check (billing_interval in ('one_off', 'month', 'quarter', 'year')),
  pricing_model text not null check (pricing_model in ('flat', 'per_unit', 'package', 'graduated', 'volume', 'quota')),
  included_quantity numeric check (included_quantity >= 0),
  overage_price numeric check (overage_price >= 0),
  tiers jsonb,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (company_id, id),
  unique (company_id, external_source, external_ref),
  unique (company_id, product_number)
);

-- Background work: rows written in the transaction of the change that causes them,
-- claimed by workers with FOR UPDATE SKIP LOCKED.
create table jobs (
  id bigint generated always as identity primary key,
  company_id text references companies (id),
  name text not null,
  payload jsonb not null default '{}',
  dedupe_key text unique,
  status text not null default 'pending' check (status in ('pending', 'running', 'done', 'failed')),
  run_at timestamptz not null,
  attempts integer not null default 0,
  max_attempts integer not null default 10,
  locked_by text,
  locked_until timestamptz,
  last_error text,
  created_at timestamptz not null default now(),
  finished_at timestamptz
);
create index jobs_due on jobs (run_at) where status = 'pending';
create index jobs_running on jobs (locked_until) where status = 'running';

-- Outgoing events (the outbox), written with the state change; delivery reads from here.
create table events (
  company_id text not null references companies (id),
  id text not null,
  seq bigint generated always as identity,
  type text not null,
  subject_id text,
  data jsonb not null,
  created_at timestamptz not null default now(),
  primary key (company_id, id)
);
create index events_seq on events (seq);

-- The scheduler runs each daily task once per company and calendar day.
create table scheduler_runs (
  company_id text not null references companies (id),
  task text not null,
  run_date date not null,
  ran_at timestamptz not null default now(),
  summary jsonb,
  primary key (company_id, task, run_date)
);
