-- A tax warning a person confirmed in the app when issuing a draft (issue 15, design §4):
-- {"kind": "domestic_supply", "messages": [the German warnings shown], "user_id", "email",
-- "confirmed_at"}. Null when nothing had to be confirmed. Kept with the invoice for good.
alter table invoices add column tax_confirmation jsonb;
