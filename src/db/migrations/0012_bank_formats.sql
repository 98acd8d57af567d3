-- Every bank statement format the import reads (issue 12): camt.053 (statement), camt.052
-- (intraday report) and camt.054 (notification) in versions .001.02 to .001.13, MT940
-- (statement) and MT942 (intraday report). The entries of a report or notification carry
-- the same entry_key as the same booking in the day's statement, so it is stored once.
alter table bank_statements drop constraint bank_statements_format_check;
alter table bank_statements add constraint bank_statements_format_check
  check (format ~ '^(camt\.05[234]\.001\.(0[2-9]|1[0-3])|mt94[02])$');

-- Entries stored before issue 12 carry keys of the earlier scheme (the bank reference
-- alone, or content counted per statement part). An import recognises them by what the
-- booking is (account, dates, direction, amount) and gives them the new key; this index
-- finds them.
create index bank_entries_booking on bank_entries (company_id, account, booking_date);
