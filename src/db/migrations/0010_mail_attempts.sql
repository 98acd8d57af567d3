-- Crash safety of invoice mail (issue 11): every attempt to mail an invoice is recorded,
-- with its Message-ID and the process that makes it, in a commit before the mail leaves.
-- A process that dies between the mail and the commit of `sent` leaves its attempt
-- `sending` with a dead owner (db/liveness.ts); whoever meets it next settles it: the
-- outbox file tells whether the mail left, over SMTP nobody can know (`unconfirmed`), and
-- the invoice is mailed again only when a person or program asks for it explicitly.

create table invoice_mail_attempts (
  company_id text not null,
  id text not null,
  invoice_id text not null,
  message_id text not null,
  via text not null check (via in ('smtp', 'outbox')),
  -- The liveness token of the process that sends (db/liveness.ts).
  owner text not null,
  state text not null check (state in ('sending', 'sent', 'failed', 'unconfirmed')),
  -- Why it failed: a SendError code (mail_rejected, mail_unreachable, recipient_missing) or
  -- `interrupted` (the process died before the mail left, known from the outbox).
  error_code text,
  -- The German sentence of the SendError, for the answer a replay gives.
  error_message text check (length(error_message) <= 2000),
  -- A resend the caller asked for after an unconfirmed attempt.
  resend boolean not null default false,
  started_at timestamptz not null,
  finished_at timestamptz,
  primary key (company_id, id),
  foreign key (company_id, invoice_id) references invoices (company_id, id),
  check ((state = 'sending') = (finished_at is null)),
  check ((state = 'failed') = (error_code is not null))
);
-- At most one mail of an invoice on its way at a time: a second /send waits for the first.
create unique index invoice_mail_attempts_sending on invoice_mail_attempts (company_id, invoice_id) where state = 'sending';
create index invoice_mail_attempts_invoice on invoice_mail_attempts (company_id, invoice_id, started_at);

-- The process that holds a key's answer open while its mail goes out (createInvoice with
-- send): a replay finding it dead settles the mail and answers at once.
alter table idempotency_keys add column owner text;

-- Dunning notices: a run of the job dunning.send_notice notes when it began to mail, in a
-- commit before the mail leaves. A later run that finds the mark set without `sent` knows
-- the earlier one died while mailing (a live run keeps its job lease): the outbox file
-- tells whether the notice left; over SMTP it counts as sent, marked unconfirmed in
-- `reason`, so the customer never gets the same notice twice.
alter table dunning_notices add column mail_started_at timestamptz;
