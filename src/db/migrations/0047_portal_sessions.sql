-- Sessions of the partner portal (issue 27 §1): a table of their own, never app_sessions,
-- so that no portal session can ever be taken for a person's. The cookie `kontor_portal`
-- holds a random token, this table its SHA-256. Ended by sign-out (revoked_at), by
-- inactivity (last_seen_at), at expires_at, or by deactivating the account.
create table portal_sessions (
  id text primary key,
  company_id text not null,
  account_id text not null,
  csrf_token text not null,
  created_at timestamptz not null,
  last_seen_at timestamptz not null,
  expires_at timestamptz not null,
  revoked_at timestamptz,
  foreign key (company_id, account_id) references partner_accounts (company_id, id)
);
create index portal_sessions_account on portal_sessions (company_id, account_id) where revoked_at is null;

-- The partner sees each payout with the account it went to, masked (issue 27 §2): kept on
-- the payout's row from now on; earlier rows take it from their own pain.001 file (the
-- creditor IBAN that follows the transfer's EndToEndId).
alter table payout_run_items add column iban_masked text;
update payout_run_items i
set iban_masked = (
  select left(f.iban, 4) || ' •••• ' || right(f.iban, 4)
  from (
    select substring(substring(r.file from position(x.tag in r.file)) from '<IBAN>([A-Z0-9]+)</IBAN>') as iban
    from payout_runs r, (select '<EndToEndId>' || i.end_to_end_id || '</EndToEndId>' as tag) x
    where r.company_id = i.company_id and r.id = i.run_id and position(x.tag in r.file) > 0
  ) f
  where f.iban is not null
);
