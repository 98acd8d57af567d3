-- Issue 24: bank debits that take money back from an invoice (a refund to the customer, a
-- returned direct debit, a returned or recalled credit), src/modules/payments/README.md.
--
-- A reversal: the part of a debit bank transaction applied to one invoice. It takes back
-- `invoice_cents` of the invoice's amount paid and `credit_cents` of the customer credit
-- an over-payment of that invoice left (paid back first), and is booked as its own journal
-- entry (debtor against bank, document_type 'payment', document_id = this id). Append-only.
create table payment_reversals (
  company_id text not null,
  id text not null,
  entry_id text not null,
  transaction_position integer not null,
  invoice_id text not null,
  invoice_cents bigint not null check (invoice_cents >= 0),
  credit_cents bigint not null check (credit_cents >= 0),
  booking_date date not null,
  -- What the debit is: 'refund' (names the invoice), 'return' (the bank marks it as the
  -- return of an earlier booking: camt RtrInf/RvslInd, MT940 RC or a return GVC).
  kind text not null check (kind in ('refund', 'return')),
  -- How the bank marked a return (RtrInf, RvslInd, GVC 109, …) and its reason code (MD06, AM04, …).
  return_marker text check (length(return_marker) <= 40),
  return_reason text check (length(return_reason) <= 40),
  -- The invoice as it was before: a reversal of a paid invoice means invoice.paid was sent
  -- (it is not sent again when the invoice is paid in full once more, design §5).
  status_before text not null check (status_before in ('issued', 'sent', 'partially_paid', 'paid')),
  paid_before_cents bigint not null check (paid_before_cents >= 0),
  -- A person who assigned the debit by hand (the app, `kontor bank assign`); null: the import.
  assigned_by text,
  created_at timestamptz not null,
  primary key (company_id, id),
  check (invoice_cents + credit_cents > 0),
  foreign key (company_id, entry_id, transaction_position) references bank_transactions (company_id, entry_id, position),
  foreign key (company_id, invoice_id) references invoices (company_id, id)
);
create index payment_reversals_invoice on payment_reversals (company_id, invoice_id);
create index payment_reversals_transaction on payment_reversals (company_id, entry_id, transaction_position);

-- A payment remembers whether the invoice had been marked overdue (event invoice.overdue
-- sent) before it: when a reversal opens the invoice again, it is overdue again at once,
-- without the event a second time (design §5: at most once per invoice and kind).
alter table payment_allocations add column invoice_was_overdue boolean not null default false;

-- The customer credit an invoice's over-payments left: found from the invoice's payments.
create index customer_credits_allocation on customer_credits (company_id, allocation_id);

-- A return names the end-to-end reference of the credit it takes back: the earlier credit
-- and the invoices it paid are found by it.
create index bank_transactions_end_to_end on bank_transactions (company_id, end_to_end_id) where end_to_end_id is not null;
