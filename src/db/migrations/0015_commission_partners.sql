-- Revenue-share partners (issue 14; interface §2 CommissionPartner, design §6) and the
-- suppliers of the company's books. Every partner is also a supplier (Kreditor) with a
-- creditor number (Kreditorennummer) from the company's number range 'creditor',
-- 70000–79999, drawn gapless in the transaction that creates the partner.

create table suppliers (
  company_id text not null references companies (id),
  id text not null,
  name text not null check (length(name) between 1 and 255),
  kreditorennummer integer not null check (kreditorennummer between 70000 and 79999),
  created_at timestamptz not null,
  primary key (company_id, id),
  unique (company_id, kreditorennummer),
  -- Lets a partner's foreign key carry the creditor number too, so the two never differ.
  unique (company_id, id, kreditorennummer)
);

create table commission_partners (
  company_id text not null references companies (id),
  id text not null,
  external_source text not null,
  external_ref text not null,
  name text not null check (length(name) between 1 and 255),
  email text,
  kind text not null check (kind in ('sales_partner', 'developer', 'other')),
  tax_status text not null
    check (tax_status in ('domestic_regular', 'domestic_small_business', 'eu_reverse_charge', 'third_country', 'private_person')),
  billing_mode text not null check (billing_mode in ('self_billing', 'settlement', 'partner_invoice')),
  -- Without an agreement on self-billing (§ 14 Abs. 2 Satz 2 UStG) no Gutschrift is issued.
  self_billing_agreed_on date,
  self_billing_contract_ref text,
  -- Set when the partner objects to a Gutschrift (with the statements), never by the API.
  self_billing_objected_at timestamptz,
  statement_cadence text not null check (statement_cadence in ('month', 'quarter', 'year')),
  min_payout_cents bigint not null default 0 check (min_payout_cents between 0 and 99999999999),
  payout_rail text not null check (payout_rail in ('sepa_credit_transfer', 'manual')),
  e_invoice_format text not null check (e_invoice_format in ('auto', 'zugferd', 'xrechnung', 'none')),
  -- The payout account: set only by a person in the app (IBAN sealed with the instance
  -- secret, shown masked); every change stamps payee_changed_at.
  iban_sealed text,
  iban_masked text,
  bic text,
  payee_changed_at timestamptz,
  language text not null check (language in ('de', 'en')),
  -- Archived only by a person in the app; an archived partner refuses upserts.
  status text not null default 'active' check (status in ('active', 'archived')),
  notes text,
  supplier_id text not null,
  kreditorennummer integer not null check (kreditorennummer between 70000 and 79999),
  street text,
  house_number text,
  zip text,
  city text,
  country_code text,
  vat_id text,
  tax_number text,
  -- The balance, kept: the ledger updates these in the transaction that writes its entries,
  -- so reading a partner never sums entries.
  balance_open_cents bigint not null default 0,
  balance_statemented_cents bigint not null default 0,
  balance_paid_cents bigint not null default 0,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  primary key (company_id, id),
  unique (company_id, external_source, external_ref),
  unique (company_id, kreditorennummer),
  unique (company_id, supplier_id),
  foreign key (company_id, supplier_id, kreditorennummer) references suppliers (company_id, id, kreditorennummer),
  check ((iban_sealed is null) = (iban_masked is null)),
  check (bic is null or iban_sealed is not null)
);
