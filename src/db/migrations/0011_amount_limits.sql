-- Every amount of an invoice is payable in one SEPA transfer (issue 11): each line net and
-- each total within ± 999,999,999.99 EUR (src/shared/money.ts MAX_AMOUNT). createInvoice
-- refuses more with validation_failed before it writes; these checks hold the line for any
-- other writer. NOT VALID: rows stored before are not re-read (a wrong one would block the
-- migration instead of the write that made it); every row written from now on is checked.

alter table invoices add constraint invoices_amounts_payable check (
  total_net_cents between -99999999999 and 99999999999
  and total_tax_cents between -99999999999 and 99999999999
  and total_gross_cents between -99999999999 and 99999999999
) not valid;

alter table invoice_lines add constraint invoice_lines_net_payable check (net_cents between -99999999999 and 99999999999) not valid;
