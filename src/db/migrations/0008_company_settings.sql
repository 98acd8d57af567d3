-- Company-law details for the letterhead (§ 35a GmbHG, § 37a HGB, § 80 AktG), the payee
-- name of the bank account, and the books settings the DATEV export reads.
alter table companies
  add column account_holder text check (account_holder is null or length(account_holder) between 1 and 70),
  add column register_court text,
  add column register_number text,
  add column managing_directors text[] not null default '{}',
  add column datev_consultant_number integer check (datev_consultant_number between 1001 and 9999999),
  add column datev_client_number integer check (datev_client_number between 1 and 99999),
  add column fiscal_year_start text not null default '01-01' check (fiscal_year_start ~ '^(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$');

-- Every accounting period lock (GoBD "Festschreibung") ever set, for the record: a lock only
-- moves forward, so the rows of a company, ordered by date, are its history. period_locks
-- keeps the current one for the checks that read it on every booking.
create table period_lock_history (
  company_id text not null references companies (id),
  locked_until date not null,
  previous_until date,
  locked_at timestamptz not null,
  -- Who set it: a user id once the app sets locks; null when set on the command line.
  locked_by text,
  primary key (company_id, locked_until),
  check (previous_until is null or previous_until < locked_until)
);

insert into period_lock_history (company_id, locked_until, previous_until, locked_at)
select company_id, locked_until, null, updated_at from period_locks;
