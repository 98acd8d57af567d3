-- The audit trail of the back-office app (issue 15, GoBD traceability): every change a
-- person makes is one row with who, when, what, and the values before and after. Rows are
-- only ever added: a trigger refuses every update, delete and truncate, for any role that
-- runs the application's SQL.
create table audit_log (
  organization_id text not null references organizations (id),
  id text not null,
  -- Order of writing, for paging.
  seq bigint generated always as identity,
  company_id text references companies (id),
  user_id text not null references users (id),
  at timestamptz not null,
  -- e.g. 'user.password_changed', 'partner.payout_account_set', 'invoice.issued'.
  action text not null,
  subject_type text not null,
  subject_id text,
  before jsonb,
  after jsonb,
  primary key (organization_id, id)
);
create index audit_log_company on audit_log (organization_id, company_id, seq);

create function audit_log_append_only() returns trigger language plpgsql as $$
begin
  raise exception 'the audit trail is append-only: % is refused', tg_op using errcode = 'P0001';
end
$$;
create trigger audit_log_no_change before update or delete on audit_log
  for each statement execute function audit_log_append_only();
create trigger audit_log_no_truncate before truncate on audit_log
  for each statement execute function audit_log_append_only();
