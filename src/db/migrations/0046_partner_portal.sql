-- The partner portal (issue 27): a company's revenue-share partners sign in at /portal with
-- accounts of their own. A partner account is a separate kind from the people of the app
-- (users): it has no membership, no company access and no API key, so nothing of /app or
-- /v1 accepts it; it reaches only its own partner of its own company.
create table partner_accounts (
  company_id text not null,
  id text not null,
  partner_id text not null,
  -- Lower case. One account per address in the whole installation: sign-in finds the
  -- account by the address alone.
  email text not null,
  -- Null until the partner has chosen a password through the invitation link.
  password_hash text,
  active boolean not null,
  created_at timestamptz not null,
  activated_at timestamptz,
  deactivated_at timestamptz,
  primary key (company_id, id),
  foreign key (company_id, partner_id) references commission_partners (company_id, id)
);
create unique index partner_accounts_email on partner_accounts (email);
create index partner_accounts_partner on partner_accounts (company_id, partner_id);

-- An invitation link (valid 7 days, used once): the table holds the SHA-256 of the link's
-- token, never the token. A new invitation of the same account supersedes the older ones.
create table partner_invitations (
  id text primary key,
  company_id text not null,
  account_id text not null,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  accepted_at timestamptz,
  superseded_at timestamptz,
  foreign key (company_id, account_id) references partner_accounts (company_id, id)
);
create index partner_invitations_account on partner_invitations (company_id, account_id);

-- A partner's own actions are in the audit trail too: its actor is the partner account
-- instead of a person (exactly one of the two).
alter table audit_log alter column user_id drop not null;
alter table audit_log add column partner_account_id text;
alter table audit_log add constraint audit_log_one_actor check ((user_id is null) <> (partner_account_id is null));
