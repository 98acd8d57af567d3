-- The billing run of contracts (issue 13, design §6).
--
-- contract_cycles is keyed by the billing date, not the cycle start: the final invoice at a
-- contract's end belongs to the last cycle, which was billed on its own start already (its
-- advance items), so one cycle may carry two billings. The table is new with 0013 and
-- nothing wrote to it before this migration.
drop table contract_cycles;
create table contract_cycles (
  company_id text not null,
  contract_id text not null,
  -- The day this billing ran for: a cycle start, or the day after the contract's end.
  billing_date date not null,
  -- The cycle the billing belongs to (the last one, clipped to the end, for the final invoice).
  start_date date not null,
  end_date date not null,
  status text not null check (status in ('billed', 'skipped', 'paused', 'failed')),
  invoice_id text,
  total_net numeric(23, 2),
  -- For failed: the German reason (why the invoice could not be issued).
  reason text,
  attempts integer not null default 1 check (attempts >= 1),
  updated_at timestamptz not null,
  primary key (company_id, contract_id, billing_date),
  foreign key (company_id, contract_id) references contracts (company_id, id),
  foreign key (company_id, invoice_id) references invoices (company_id, id),
  check (end_date >= start_date),
  check ((status = 'billed') = (invoice_id is not null))
);

-- Per advance item: the last day it is billed for. A contract's billed_until is the latest of them.
alter table contract_items add column billed_until date;

-- Pauses of a contract, [{"from": date, "until": date | null}] in order; days inside one
-- are not billed (advance days already billed stay billed).
alter table contracts add column pauses jsonb not null default '[]'::jsonb;
-- The last billing date done (billed, skipped or paused): the schedule goes on from it.
alter table contracts add column last_billing_date date;

-- A line billed for a period of its own (a contract's advance cycle, the arrears of the one before).
alter table invoice_lines add column service_period_start date;
alter table invoice_lines add column service_period_end date;
alter table invoice_lines add constraint invoice_lines_period check ((service_period_start is null) = (service_period_end is null) and service_period_end >= service_period_start);
