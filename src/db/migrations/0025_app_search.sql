-- The back-office app's invoice list over 100,000 invoices (issue 15): the default order
-- (newest issue date first, drafts on top) is read from an index, and the search by
-- customer name or invoice number ("contains", any case) uses trigram indexes instead of
-- reading every invoice. pg_trgm is a trusted contrib extension (PostgreSQL ≥ 13: the
-- database owner may create it); PGlite loads it (db/connection.ts).
create extension if not exists pg_trgm;
create index customers_name_trgm on customers using gin (name gin_trgm_ops);
create index invoices_number_trgm on invoices using gin (number gin_trgm_ops);
create index invoices_app_issue_date on invoices (company_id, (coalesce(issue_date, '9999-12-31'::date)), id);
