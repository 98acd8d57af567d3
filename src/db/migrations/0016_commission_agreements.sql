-- Revenue-share agreements (issue 14; interface §2 CommissionAgreement, design §6): the
-- terms under which a partner earns a percentage of paid net revenue. The terms (partner,
-- tiers, applies_to, anchor, products, accrue_from, start_date, basis, condition) are
-- fixed once the agreement exists; name, end_date and contract_reference may change.

create table commission_agreements (
  company_id text not null references companies (id),
  id text not null,
  external_source text not null,
  external_ref text not null,
  partner_id text not null,
  name text check (length(name) between 1 and 255),
  start_date date not null,
  -- The last day of the agreement (inclusive); set later to end the deal.
  end_date date,
  -- Revenue paid before this day earns nothing under the agreement.
  accrue_from date,
  contract_reference text check (length(contract_reference) between 1 and 255),
  applies_to text not null check (applies_to in ('attributed_customers', 'all_customers')),
  -- Month 1 of the tiers is the month of the anchor.
  anchor text not null check (anchor in ('attribution_start', 'first_paid_revenue')),
  basis text not null default 'net_paid' check (basis in ('net_paid')),
  condition_id text,
  -- [{from_month, to_month|null, percent (decimal text)}], contiguous from month 1.
  tiers jsonb not null check (jsonb_typeof(tiers) = 'array' and jsonb_array_length(tiers) > 0),
  created_at timestamptz not null,
  updated_at timestamptz not null,
  primary key (company_id, id),
  unique (company_id, external_source, external_ref),
  foreign key (company_id, partner_id) references commission_partners (company_id, id),
  check (end_date is null or end_date >= start_date),
  -- An agreement for every customer has no attribution to start from.
  check (applies_to = 'attributed_customers' or anchor = 'first_paid_revenue')
);

create index commission_agreements_partner on commission_agreements (company_id, partner_id);

-- The products an agreement is limited to; none means every product.
create table commission_agreement_products (
  company_id text not null,
  agreement_id text not null,
  product_id text not null,
  primary key (company_id, agreement_id, product_id),
  foreign key (company_id, agreement_id) references commission_agreements (company_id, id),
  foreign key (company_id, product_id) references products (company_id, id)
);
