-- The partner asks in the portal to change its payout account, address, VAT ID or tax
-- number (issue 27 §3); an admin of the company confirms or rejects it in the app (four
-- eyes). Until then nothing changes on commission_partners. The requested values are kept
-- here as asked for: the IBAN sealed with the instance secret and masked, never in clear
-- text; `current` holds what was on file when the partner asked (the IBAN masked only).
create table partner_change_requests (
  company_id text not null,
  id text not null,
  partner_id text not null,
  -- The partner account that asked.
  account_id text not null,
  kind text not null check (kind in ('payout_account', 'address', 'vat_id', 'tax_number')),
  requested jsonb not null check (not (requested ? 'iban')),
  current jsonb not null check (not (current ? 'iban') and not (current ? 'iban_sealed')),
  status text not null check (status in ('pending', 'confirmed', 'rejected', 'superseded', 'withdrawn')),
  requested_at timestamptz not null,
  -- When it stopped being pending (confirmed, rejected, superseded, withdrawn).
  decided_at timestamptz,
  -- The admin who confirmed or rejected it; null otherwise.
  decided_by text references users (id),
  -- The reason of a rejection, for the partner.
  decision_note text,
  primary key (company_id, id),
  foreign key (company_id, partner_id) references commission_partners (company_id, id),
  foreign key (company_id, account_id) references partner_accounts (company_id, id),
  check ((status = 'pending') = (decided_at is null)),
  check ((status in ('confirmed', 'rejected')) = (decided_by is not null)),
  check ((status = 'rejected') = (decision_note is not null and length(trim(decision_note)) > 0))
);
-- A new request of the same partner and kind supersedes the pending one: at most one pending.
create unique index partner_change_requests_pending on partner_change_requests (company_id, partner_id, kind) where status = 'pending';
create index partner_change_requests_partner on partner_change_requests (company_id, partner_id, requested_at);
