-- Issue 24: quantity changes and pauses prorated by day, and contract credit.
--
-- contract_items.quantities: the item's quantities by the day each took effect,
-- [{"from": date, "quantity": decimal string}] in order of "from"; the last one is the
-- item's quantity. Null: the item has had one quantity since its start (rows from before).
alter table contract_items add column quantities jsonb;

-- contract_items.billed_quantities: the days billed so far by quantity (items not billed by
-- usage) and the quantity each was billed at, [{"from", "to", "quantity"}] without gaps
-- (paused days at "0"). The billing run compares them with the quantities as they stand
-- now and puts the difference on the next invoice. Null: as the item stands (rows from
-- before; the first change or billing writes them).
alter table contract_items add column billed_quantities jsonb;

-- Credit of a contract that its invoice could not carry in full (an invoice's net per VAT
-- rate never goes below zero): one row per credit line of a billing, with the whole
-- credit; what invoices used of it is in contract_credit_uses, the rest is still open.
-- Append-only: amounts are never changed.
create table contract_credits (
  company_id text not null,
  contract_id text not null,
  -- The billing whose plan produced the credit, and its place among that billing's credits.
  billing_date date not null,
  position integer not null check (position >= 1),
  item_ref text not null,
  vat_rate smallint not null check (vat_rate in (0, 7, 19)),
  -- The line text (a quantity adjustment, a pause, an item's end), as the invoice showed it.
  description text not null check (length(description) between 1 and 1000),
  service_period_start date not null,
  service_period_end date not null,
  amount_cents bigint not null check (amount_cents between 1 and 99999999999),
  created_at timestamptz not null,
  primary key (company_id, contract_id, billing_date, position),
  foreign key (company_id, contract_id) references contracts (company_id, id),
  check (service_period_end >= service_period_start)
);

-- What an invoice used of a contract credit (a line on it, at the credit's VAT rate).
create table contract_credit_uses (
  company_id text not null,
  contract_id text not null,
  billing_date date not null,
  position integer not null,
  invoice_id text not null,
  -- The billing date of the invoice that used it.
  used_on date not null,
  amount_cents bigint not null check (amount_cents between 1 and 99999999999),
  created_at timestamptz not null,
  primary key (company_id, contract_id, billing_date, position, invoice_id),
  foreign key (company_id, contract_id, billing_date, position) references contract_credits (company_id, contract_id, billing_date, position),
  foreign key (company_id, invoice_id) references invoices (company_id, id)
);
