-- The back-office app (issue 15, design §7): people sign in with e-mail and password.
-- The bootstrap's password is a one-time password: it must be changed at the first
-- sign-in (so every user existing before this migration must change theirs).
alter table users add column password_change_required boolean not null default true;

-- Sessions: the cookie holds a random token, this table its SHA-256 (a copy of the
-- database opens no session). Ended by sign-out (revoked_at), by inactivity (last_seen_at)
-- or at expires_at. company_id is the company the person works in.
create table app_sessions (
  id text primary key,
  user_id text not null references users (id),
  company_id text references companies (id),
  csrf_token text not null,
  created_at timestamptz not null,
  last_seen_at timestamptz not null,
  expires_at timestamptz not null,
  revoked_at timestamptz
);
create index app_sessions_user on app_sessions (user_id) where revoked_at is null;

-- Sign-in throttling per account and per client address; keys are SHA-256 hashes, so the
-- table holds neither e-mail nor IP addresses.
create table sign_in_throttle (
  key text primary key,
  failures integer not null check (failures > 0),
  window_started_at timestamptz not null,
  locked_until timestamptz
);
