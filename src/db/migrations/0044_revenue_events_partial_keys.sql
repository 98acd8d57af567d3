-- An event's payment allocation and its debit's reversal are unique per company, but most
-- events have neither: every event sent over the API carries null in both. The unique
-- constraints indexed those nulls too, two index entries per API event that no look-up
-- ever reads (issue 26: revenue events per second). Partial unique indexes keep the same
-- rule for the rows that have a value (nulls were never in conflict) and skip the rest.
alter table revenue_events drop constraint revenue_events_company_id_allocation_id_key;
create unique index revenue_events_allocation on revenue_events (company_id, allocation_id) where allocation_id is not null;
alter table revenue_events drop constraint revenue_events_company_id_reversal_id_key;
create unique index revenue_events_reversal on revenue_events (company_id, reversal_id) where reversal_id is not null;
