-- Overdue marking and dunning (Mahnwesen, german-rules §4): the company's dunning policy,
-- the notices (Zahlungserinnerung, 1./2./letzte Mahnung) and the indexes through which the
-- daily tasks find what is due without reading every invoice.

-- The policy from the company file's `dunning` key, normalised with every key filled in
-- (src/modules/dunning/policy.ts); null = the defaults of design §5.
alter table companies add column dunning jsonb;

-- The date of the last notice sent (the one that set dunning_level): the next level is due
-- `interval_days` after it. Null while no notice went out.
alter table invoices add column last_dunning_on date;
alter table invoices add constraint invoices_dunning_level_range check (dunning_level between 0 and 3);

-- Open invoices not yet marked overdue, by due date (task invoices.overdue).
create index invoices_overdue_watch on invoices (company_id, due_date)
  where type = 'invoice' and status in ('issued', 'sent', 'partially_paid') and not overdue;
-- Open invoices without any notice yet, by due date (the payment reminder, level 0).
create index invoices_dunning_first on invoices (company_id, due_date)
  where type = 'invoice' and status in ('issued', 'sent', 'partially_paid') and dunning_level is null;
-- Open invoices with a notice sent, by the date of the last one (levels 1, 2, 3).
create index invoices_dunning_next on invoices (company_id, last_dunning_on)
  where type = 'invoice' and status in ('issued', 'sent', 'partially_paid') and dunning_level is not null;

-- One row per notice. Created by the daily task with its amounts frozen in `document`
-- (src/modules/dunning/notice-document.ts); the job dunning.send_notice renders the PDF
-- once, mails it and marks it sent. A payment (or a cancellation of the invoice) before
-- the mail went out cancels it; a mail that failed for good marks it failed. Neither
-- blocks a new notice of the same level on a later day; a pending or sent one does.
create table dunning_notices (
  company_id text not null,
  id text not null,
  invoice_id text not null,
  level smallint not null check (level between 0 and 3),
  notice_date date not null,
  -- The new payment deadline printed on the notice.
  deadline date not null,
  status text not null check (status in ('pending', 'sent', 'cancelled', 'failed')),
  -- Cents: what was still open, what had been paid (a change cancels the notice), this
  -- notice's fee, all fees claimed so far (earlier notices included), default interest up
  -- to the notice date, the § 288 Abs. 5 lump sum, and the total claimed.
  open_cents bigint not null check (open_cents > 0),
  paid_cents bigint not null check (paid_cents >= 0),
  fee_cents bigint not null check (fee_cents >= 0),
  fees_cents bigint not null check (fees_cents >= fee_cents),
  interest_cents bigint not null check (interest_cents >= 0),
  lump_sum_cents bigint not null check (lump_sum_cents >= 0),
  total_cents bigint not null,
  -- The first day of default (interest runs from the day after), null for a reminder.
  default_since date,
  document jsonb not null,
  pdf bytea,
  pdf_sha256 text,
  message_id text,
  sent_at timestamptz,
  -- Why it was cancelled (paid, cancelled, amount_changed) or why the mail failed.
  reason text check (length(reason) <= 2000),
  created_at timestamptz not null,
  updated_at timestamptz not null,
  primary key (company_id, id),
  foreign key (company_id, invoice_id) references invoices (company_id, id),
  check (total_cents = open_cents + fees_cents + interest_cents + lump_sum_cents),
  check ((status = 'sent') = (sent_at is not null)),
  check ((pdf is null) = (pdf_sha256 is null)),
  check (level > 0 or (fee_cents = 0 and interest_cents = 0 and lump_sum_cents = 0))
);
-- Levels never repeat: one live (pending or sent) notice per invoice and level.
create unique index dunning_notices_level on dunning_notices (company_id, invoice_id, level) where status in ('pending', 'sent');
create index dunning_notices_invoice on dunning_notices (company_id, invoice_id);
-- PDFs are deflated already: no TOAST compression attempt on every notice.
alter table dunning_notices alter column pdf set storage external;
