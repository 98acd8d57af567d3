-- Issue 24: why a bank transaction waits for a person (an unmatched credit, a debit that
-- could not be taken back from an invoice in full), as the import's notes: codes with
-- values (src/modules/payments/import-notes.ts), so the app words the reason in German.
-- `note` keeps the English sentence the command line prints. Null where there is none.
alter table bank_transactions add column notes jsonb;
