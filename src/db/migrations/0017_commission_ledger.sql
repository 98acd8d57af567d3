-- Revenue share, part 2 (issue 14; interface §2 Attribution, Revenue event, Ledger entry;
-- design §6): attributions of customers to agreements, revenue events (reported through
-- the API, or written for an invoice's payment by the bank import), the ledger of
-- commission entries, and the anchors of agreements counted from the first paid revenue.

alter table companies
  -- Attributions made through the API stay `proposed` until a person confirms them.
  add column attributions_need_confirmation boolean not null default false,
  -- Statements of the statement run stay `draft` until a person issues them.
  add column statements_need_review boolean not null default false;

create table commission_attributions (
  company_id text not null references companies (id),
  id text not null,
  agreement_id text not null,
  -- The agreement's partner, kept here so the conflict check needs no join.
  partner_id text not null,
  customer_id text not null,
  start_date date not null,
  -- The last day (inclusive); null: open-ended.
  end_date date,
  -- Stored states; `ended` is shown once end_date lies before the company's today.
  status text not null check (status in ('proposed', 'active', 'rejected')),
  -- How it came: 'api' (PUT by reference), 'invoice' (createInvoice's attribution).
  source text not null check (source in ('api', 'invoice', 'app')),
  -- For 'invoice': the invoice's external_ref.
  source_ref text,
  -- A proposed attribution that overlaps another partner's attribution of the customer.
  conflicts_with_id text,
  confirmed_at timestamptz,
  -- Who confirmed or rejected it (a user's e-mail, or 'cli').
  decided_by text,
  decided_at timestamptz,
  external_source text not null,
  external_ref text not null,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  primary key (company_id, id),
  unique (company_id, external_source, external_ref),
  foreign key (company_id, agreement_id) references commission_agreements (company_id, id),
  foreign key (company_id, partner_id) references commission_partners (company_id, id),
  foreign key (company_id, customer_id) references customers (company_id, id),
  check (end_date is null or end_date >= start_date)
);
create index commission_attributions_customer on commission_attributions (company_id, customer_id);
create index commission_attributions_agreement on commission_attributions (company_id, agreement_id);

-- Paid revenue. Kind 'api': reported by createRevenueEvent, identified by (source,
-- external_ref). Kind 'invoice_payment': one payment (allocation) of an invoice, written by
-- the bank import in its transaction when the payment earns a share.
create table revenue_events (
  company_id text not null references companies (id),
  id text not null,
  kind text not null check (kind in ('api', 'invoice_payment')),
  external_source text,
  external_ref text,
  -- When the revenue was paid (the payment's booking day at midnight for payments).
  occurred_at timestamptz not null,
  -- occurred_at as a date in the company's time zone: the day the qualification uses.
  paid_on date not null,
  net_cents bigint not null,
  currency text not null default 'EUR' check (currency = 'EUR'),
  customer_id text,
  -- A refund: the event it reverses (its net is negative).
  reverses_id text,
  description text,
  -- For 'invoice_payment': the invoice and the payment.
  invoice_id text,
  allocation_id text,
  created_at timestamptz not null,
  primary key (company_id, id),
  unique (company_id, external_source, external_ref),
  unique (company_id, allocation_id),
  foreign key (company_id, customer_id) references customers (company_id, id),
  foreign key (company_id, reverses_id) references revenue_events (company_id, id),
  check ((kind = 'api') = (external_ref is not null)),
  check ((kind = 'invoice_payment') = (allocation_id is not null)),
  check (reverses_id is null or net_cents < 0)
);
create index revenue_events_reverses on revenue_events (company_id, reverses_id) where reverses_id is not null;

create table revenue_event_lines (
  company_id text not null,
  event_id text not null,
  position integer not null,
  net_cents bigint not null,
  product_id text,
  description text,
  primary key (company_id, event_id, position),
  foreign key (company_id, event_id) references revenue_events (company_id, id),
  foreign key (company_id, product_id) references products (company_id, id)
);

-- Month 1 of an agreement anchored at the first paid revenue: per customer ('' for revenue
-- without a customer), set by the first entry and kept.
create table commission_anchors (
  company_id text not null,
  agreement_id text not null,
  customer_key text not null,
  anchor_date date not null,
  primary key (company_id, agreement_id, customer_key),
  foreign key (company_id, agreement_id) references commission_agreements (company_id, id)
);

-- The ledger: one entry per paid revenue and qualifying agreement. Written once; only its
-- status and statement change. The partner's balance columns are kept equal to the sums of
-- its entries by status, in the transaction that changes them.
create table commission_entries (
  company_id text not null,
  id text not null,
  -- Order of writing, for cursor paging.
  seq bigint generated always as identity,
  partner_id text not null,
  agreement_id text not null,
  customer_id text,
  revenue_event_id text not null,
  -- 'invoice' (source_id = the invoice's id) or 'revenue_event' (source_id = its external_ref).
  source_type text not null check (source_type in ('invoice', 'revenue_event')),
  source_id text,
  service_period_start date not null,
  paid_at timestamptz not null,
  paid_on date not null,
  contract_month integer,
  -- Exact decimal text of the tier's percent.
  percent text not null,
  basis_cents bigint not null,
  amount_cents bigint not null,
  status text not null check (status in ('open', 'statemented', 'paid', 'void')),
  statement_id text,
  -- A refund's entry: the entry whose revenue it reverses.
  reverses_entry_id text,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  primary key (company_id, id),
  foreign key (company_id, partner_id) references commission_partners (company_id, id),
  foreign key (company_id, agreement_id) references commission_agreements (company_id, id),
  foreign key (company_id, revenue_event_id) references revenue_events (company_id, id),
  check ((status in ('statemented', 'paid')) = (statement_id is not null))
);
create index commission_entries_seq on commission_entries (company_id, seq);
create index commission_entries_partner on commission_entries (company_id, partner_id, status, paid_on);
create index commission_entries_event on commission_entries (company_id, revenue_event_id);
create index commission_entries_reverses on commission_entries (company_id, reverses_entry_id) where reverses_entry_id is not null;
