-- Webhooks: endpoints per company, one delivery per event and endpoint, and every HTTP
-- attempt. Events come from the outbox (`events`): a dispatcher fans each event out to
-- the endpoints subscribed at that moment and marks it dispatched in the same statement,
-- so an event is fanned out exactly once whatever crashes or how many workers run.

-- NULL until fanned out. Not a cursor over seq: seq is drawn at insert, not at commit,
-- so a cursor could pass an event that commits later with a lower seq.
alter table events add column dispatched_at timestamptz;
create index events_undispatched on events (seq) where dispatched_at is null;

create table webhook_endpoints (
  company_id text not null references companies (id),
  id text not null,
  url text not null check (length(url) between 8 and 2048 and url ~ '^https?://'),
  -- Subscribed event kinds; empty = every kind.
  event_types text[] not null default '{}',
  -- The signing secret (whsec_…), sealed with the instance secret: it is read back to sign.
  secret_sealed text not null,
  status text not null default 'active' check (status in ('active', 'failing', 'removed')),
  -- Set when a delivery ran out of its retry window; cleared by the next success.
  failing_since timestamptz,
  removed_at timestamptz,
  created_at timestamptz not null default now(),
  primary key (company_id, id)
);
-- `kontor admin webhook remove ID` finds an endpoint by its id alone (ids are global).
create index webhook_endpoints_id on webhook_endpoints (id);

create table webhook_deliveries (
  company_id text not null,
  id bigint generated always as identity,
  endpoint_id text not null,
  event_id text not null,
  event_seq bigint not null,
  status text not null default 'pending' check (status in ('pending', 'delivering', 'delivered', 'failed', 'cancelled')),
  -- Attempts started (counted at claim, so a worker that dies mid-attempt still counts).
  attempts integer not null default 0 check (attempts >= 0),
  -- Transport (real) time: when the next attempt is due.
  next_attempt_at timestamptz not null,
  first_attempt_at timestamptz,
  last_attempt_at timestamptz,
  last_response_status integer,
  last_error text check (length(last_error) <= 300),
  delivered_at timestamptz,
  -- The claim: the worker holding the delivery, until when (database real time), and
  -- when the current attempt started (transport time).
  locked_by text,
  locked_until timestamptz,
  claimed_at timestamptz,
  created_at timestamptz not null default now(),
  primary key (company_id, id),
  unique (company_id, endpoint_id, event_id),
  foreign key (company_id, endpoint_id) references webhook_endpoints (company_id, id),
  foreign key (company_id, event_id) references events (company_id, id),
  check ((status = 'delivering') = (locked_by is not null and locked_until is not null))
);
-- The claim walks each endpoint's due deliveries oldest first (per-endpoint limits).
create index webhook_deliveries_due on webhook_deliveries (company_id, endpoint_id, next_attempt_at, event_seq) where status = 'pending';
create index webhook_deliveries_leased on webhook_deliveries (locked_until) where status = 'delivering';
create index webhook_deliveries_event on webhook_deliveries (company_id, event_id);

-- Every attempt, as the admin sees it (`kontor admin webhook deliveries`). No request
-- or response bodies, no headers: the error is a short text without secrets.
create table webhook_attempts (
  company_id text not null,
  delivery_id bigint not null,
  attempt integer not null check (attempt >= 1),
  endpoint_id text not null,
  event_id text not null,
  started_at timestamptz not null,
  duration_ms integer check (duration_ms >= 0),
  response_status integer,
  error text check (length(error) <= 300),
  worker_id text,
  primary key (company_id, delivery_id, attempt),
  foreign key (company_id, delivery_id) references webhook_deliveries (company_id, id)
);
create index webhook_attempts_endpoint on webhook_attempts (company_id, endpoint_id, started_at);
