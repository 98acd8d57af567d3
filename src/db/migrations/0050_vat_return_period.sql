-- How often the company files the Umsatzsteuer-Voranmeldung (§ 18 Abs. 2 UStG; issue 28 §1:
-- "the company's filing period"): monthly (the default: more than 9,000 € tax in the
-- previous year, and new businesses), quarterly (2,000 to 9,000 €), or annual (exempted by
-- the tax office: only the annual return). vat_return_extension: the tax office granted a
-- Dauerfristverlängerung (§ 46 UStDV), each Voranmeldung is due one month later.
alter table companies
  add column vat_return_period text not null default 'monthly' check (vat_return_period in ('monthly', 'quarterly', 'annual')),
  add column vat_return_extension boolean not null default false;
