-- Invoices written by a person in the back-office app (issue 15). They are real invoices:
-- numbered from the one gapless range shared with the API's, booked, mailed, paid on the
-- bank statement and dunned like every other. But the company's product never created
-- them and cannot look them up, so the API does not see them (interface §1): its routes
-- read only `origin = 'api'`, and no webhook event is ever written for them (below).
-- A Stornorechnung copies its original's origin (cancel-invoice.ts copies the row).
alter table invoices add column origin text not null default 'api' check (origin in ('api', 'app'));

-- A note the person wrote on the draft, printed on the invoice (BT-22) when it is issued.
alter table invoices add column note text check (note is null or length(note) between 1 and 500);

-- An app invoice has no reference in the API's namespace: no source, so POST /invoices can
-- never meet it with 409 invoice_external_ref_exists. A reference given on the command
-- line (`kontor admin invoice draft`) names the draft once among the company's app invoices.
alter table invoices add constraint invoices_app_without_source check (origin = 'api' or external_source is null);
create unique index invoices_app_ref on invoices (company_id, external_ref) where origin = 'app' and external_ref is not null;

-- No webhook event for an app invoice: whatever writes an invoice event (issue, mail,
-- payment on the bank import, overdue, dunning, cancellation) does so in the transaction
-- of the change; this trigger drops the outbox row of an app invoice in that same
-- statement, so no module has to remember the rule and no event of one is ever fanned out.
create function events_skip_app_invoices() returns trigger language plpgsql as $$
begin
  if exists (select 1 from invoices i where i.company_id = new.company_id and i.id = new.subject_id and i.origin = 'app') then
    return null;
  end if;
  return new;
end
$$;
create trigger events_no_app_invoices before insert on events
  for each row when (new.type like 'invoice.%' and new.subject_id is not null) execute function events_skip_app_invoices();
