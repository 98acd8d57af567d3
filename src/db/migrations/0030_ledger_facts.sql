-- Revenue share, issue 24: the ledger is a function of the facts, whatever order they
-- arrive in. Every invoice payment the bank import books is kept as a fact (a revenue event
-- of kind 'invoice_payment', also when it earns nothing yet: an attribution reported later
-- may make it earn), with what the invoice had received before it, so that its share can be
-- computed again. A bank debit that takes money back from an invoice (a refund to the
-- customer, a returned direct debit) is a fact of its own ('invoice_payment_reversal').
-- Corrections of entries already written are new entries pointing at what they correct.

alter table revenue_events drop constraint revenue_events_kind_check;
alter table revenue_events
  add constraint revenue_events_kind_check check (kind in ('api', 'invoice_payment', 'invoice_payment_reversal')),
  -- Order of writing: the order in which an invoice's payments and reversals were applied.
  add column seq bigint generated always as identity,
  -- For 'invoice_payment_reversal': the bank side's id of the debit's application to the invoice.
  add column reversal_id text,
  -- For the invoice kinds: the invoice's amount_paid before this payment or reversal, the
  -- amount paid (or taken back), and the invoice's gross, all in cents.
  add column paid_before_cents bigint,
  add column paid_cents bigint,
  add column gross_cents bigint;

-- The invoice payments stored so far (only those that earned): what the invoice had before
-- each, counted from the invoice's allocations in the order they were written.
with ordered as (
  select a.company_id, a.id, a.amount_cents, i.total_gross_cents,
         coalesce(sum(a.amount_cents) over (partition by a.company_id, a.invoice_id order by a.created_at, a.booking_date, a.id
                                            rows between unbounded preceding and 1 preceding), 0) as before_cents
  from payment_allocations a
  join invoices i on i.company_id = a.company_id and i.id = a.invoice_id
)
update revenue_events r
set paid_before_cents = o.before_cents, paid_cents = o.amount_cents, gross_cents = o.total_gross_cents
from ordered o
where r.company_id = o.company_id and r.allocation_id = o.id and r.kind = 'invoice_payment';

-- The payments that earned nothing when they were booked become facts too. Their net is the
-- invoice's net pro rata of the amount paid of its gross, counted cumulatively and rounded
-- half up (as ledger/accrual.ts paidShare does).
with ordered as (
  select a.company_id, a.id, a.invoice_id, a.amount_cents, a.booking_date, a.created_at,
         i.customer_id, i.total_net_cents, i.total_gross_cents, c.timezone,
         coalesce(sum(a.amount_cents) over (partition by a.company_id, a.invoice_id order by a.created_at, a.booking_date, a.id
                                            rows between unbounded preceding and 1 preceding), 0) as before_cents
  from payment_allocations a
  join invoices i on i.company_id = a.company_id and i.id = a.invoice_id
  join companies c on c.id = a.company_id
  where not exists (select 1 from revenue_events r where r.company_id = a.company_id and r.allocation_id = a.id)
)
insert into revenue_events (company_id, id, kind, occurred_at, paid_on, net_cents, customer_id, invoice_id, allocation_id,
                            created_at, paid_before_cents, paid_cents, gross_cents)
select o.company_id, 'rev_' || substring(o.id from position('_' in o.id) + 1), 'invoice_payment',
       o.booking_date::timestamp at time zone o.timezone, o.booking_date,
       case when o.total_gross_cents <= 0 then 0 else
         round(o.total_net_cents::numeric * least(greatest(o.before_cents + o.amount_cents, 0), o.total_gross_cents) / o.total_gross_cents)
         - round(o.total_net_cents::numeric * least(greatest(o.before_cents, 0), o.total_gross_cents) / o.total_gross_cents) end,
       o.customer_id, o.invoice_id, o.id, o.created_at, o.before_cents, o.amount_cents, o.total_gross_cents
from ordered o
order by o.company_id, o.invoice_id, o.created_at, o.booking_date, o.id;

alter table revenue_events
  add constraint revenue_events_reversal_kind check ((kind = 'invoice_payment_reversal') = (reversal_id is not null)),
  add constraint revenue_events_invoice_facts check ((kind = 'api') = (paid_cents is null) and (kind = 'api') = (paid_before_cents is null)
                                                     and (kind = 'api') = (gross_cents is null) and (kind = 'api') = (invoice_id is null)),
  add constraint revenue_events_company_id_reversal_id_key unique (company_id, reversal_id);
-- A customer's facts (a late fact makes the ledger of its customer be computed again), and
-- an invoice's payments and reversals.
create index revenue_events_customer on revenue_events (company_id, customer_id, paid_on);
create index revenue_events_invoice on revenue_events (company_id, invoice_id, seq) where invoice_id is not null;

alter table commission_entries
  -- A refund's or reversal's entry: the revenue event whose entry it reverses.
  add column reverses_event_id text,
  -- A correction: the entry it corrects (an open entry voided and written again, or a
  -- statemented or paid one that gets a difference entry).
  add column corrects_entry_id text;
update commission_entries e
set reverses_event_id = o.revenue_event_id
from commission_entries o
where e.reverses_entry_id is not null and o.company_id = e.company_id and o.id = e.reverses_entry_id;
