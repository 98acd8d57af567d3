-- Revenue-share statements are booked in the journal (german-rules §6.2: commission expense
-- against the partner's creditor account). A statement and its cancellation each get one
-- entry under their own statement id, so one document type covers both.
alter table journal_entries drop constraint journal_entries_document_type_check;
alter table journal_entries
  add constraint journal_entries_document_type_check
  check (document_type in ('invoice', 'storno', 'payment', 'commission_statement'));
