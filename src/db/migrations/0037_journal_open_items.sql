-- Issue 24 (DATEV open items): the number of the document whose open item a journal entry
-- settles. DATEV's OPOS clears an item only by a payment or credit whose Belegfeld 1 equals
-- the item's (Buchungsstapel, field 11), so the export writes this number there and keeps
-- the entry's own number beside it. Set on a storno (the cancelled invoice), a statement's
-- cancellation (the cancelled statement), a payout to a partner who invoiced (the partner's
-- invoice) and the reversal of a recorded partner invoice; null where the entry's own
-- document number is the key (an invoice, a payment, a Gutschrift).
alter table journal_entries add column if not exists settles_number text
  check (settles_number is null or length(settles_number) between 1 and 255);

-- Entries written before: the storno's and the cancellation's reference, from the documents
-- (the amounts and lines stay as booked).
update journal_entries e
   set settles_number = original.number
  from invoices storno
  join invoices original on original.company_id = storno.company_id and original.id = storno.cancels_invoice_id
 where e.document_type = 'storno'
   and e.settles_number is null
   and storno.company_id = e.company_id
   and storno.id = e.document_id;

update journal_entries e
   set settles_number = original.number
  from commission_statements cancellation
  join commission_statements original on original.company_id = cancellation.company_id and original.id = cancellation.cancels_statement_id
 where e.document_type = 'commission_statement'
   and e.settles_number is null
   and cancellation.company_id = e.company_id
   and cancellation.id = e.document_id
   and cancellation.type = 'cancellation'
   and original.number is not null;
