-- Steps that cannot happen twice (issue 25 §3). Every form of the app carries a one-time
-- token (`_once`); the first POST with it claims it here (the primary key makes the claim
-- atomic), so a double click, a reload of the POST or a second tab with the same page
-- send nothing twice: the later ones are answered with where the first one led
-- (location) once it has finished. A claim whose step failed is released (deleted).
create table app_form_tokens (
  session_id text not null references app_sessions (id) on delete cascade,
  token text not null,
  claimed_at timestamptz not null,
  finished_at timestamptz,
  location text,
  primary key (session_id, token)
);
create index app_form_tokens_claimed on app_form_tokens (claimed_at);

-- A secret shown once (a new API key, a webhook's signing secret, an invited person's
-- one-time password): the POST stores it sealed for its session and redirects; the GET
-- it leads to takes it out (deleted as it is read), so a reload shows it no more.
create table app_secret_displays (
  id text primary key,
  session_id text not null references app_sessions (id) on delete cascade,
  kind text not null,
  sealed text not null,
  created_at timestamptz not null
);
create index app_secret_displays_created on app_secret_displays (created_at);
