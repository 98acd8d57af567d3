-- Payout runs (issue 15): a person picks issued statements, Kontor marks them paid and
-- writes the SEPA credit-transfer file (pain.001.001.09) for the company's bank, all in one
-- transaction. The file is kept as handed out, so it can be downloaded again and checked
-- against the bank statement later. A statement is paid out by one run only.
create table payout_runs (
  company_id text not null references companies (id),
  id text not null,
  -- MsgId of the file (unique per company, as the bank expects).
  message_id text not null,
  execution_date date not null,
  payment_count integer not null check (payment_count > 0),
  total_cents bigint not null check (total_cents > 0),
  file text not null,
  created_by text not null references users (id),
  created_at timestamptz not null,
  primary key (company_id, id),
  unique (company_id, message_id)
);
create table payout_run_items (
  company_id text not null,
  run_id text not null,
  statement_id text not null,
  partner_id text not null,
  amount_cents bigint not null check (amount_cents > 0),
  -- EndToEndId of the transfer: the statement's number.
  end_to_end_id text not null,
  primary key (company_id, run_id, statement_id),
  unique (company_id, statement_id),
  foreign key (company_id, run_id) references payout_runs (company_id, id),
  foreign key (company_id, statement_id) references commission_statements (company_id, id),
  foreign key (company_id, partner_id) references commission_partners (company_id, id)
);
