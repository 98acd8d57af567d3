import type {
  PartnerBillingMode,
  PartnerEInvoiceFormat,
  PartnerKind,
  PartnerLanguage,
  PartnerStatus,
  PartnerTaxStatus,
  PayoutRail,
  StatementCadence,
} from '../../db/schema-commissions.ts';
import { byRefParams, errorResponses, noQuery, nullableString } from '../../http/common-schemas.ts';

// CommissionPartner request and response (interface §2 "Revenue-share partner", "Partner
// request fields"). name, kind, tax_status, billing_mode, e_invoice_format and
// min_payout_cents are deliberately loose here: a missing name, an unknown value of those
// four and a negative or fractional minimum payout are refused with their commission.*
// codes, which win over validation_failed (design §3); upsert-partner.ts checks them.
// The payout account (iban, bic) is no request field: it is refused like any unknown field.

export const PARTNER_KINDS = ['sales_partner', 'developer', 'other'] as const satisfies readonly PartnerKind[];
export const TAX_STATUSES = [
  'domestic_regular',
  'domestic_small_business',
  'eu_reverse_charge',
  'third_country',
  'private_person',
] as const satisfies readonly PartnerTaxStatus[];
export const BILLING_MODES = ['self_billing', 'settlement', 'partner_invoice'] as const satisfies readonly PartnerBillingMode[];
export const E_INVOICE_FORMATS = ['auto', 'zugferd', 'xrechnung', 'none'] as const satisfies readonly PartnerEInvoiceFormat[];
export const STATEMENT_CADENCES = ['month', 'quarter', 'year'] as const satisfies readonly StatementCadence[];
export const PAYOUT_RAILS = ['sepa_credit_transfer', 'manual'] as const satisfies readonly PayoutRail[];
export const LANGUAGES = ['de', 'en'] as const satisfies readonly PartnerLanguage[];
const STATUSES = ['active', 'archived'] as const satisfies readonly PartnerStatus[];

/** 999,999,999.99 EUR: the most a SEPA credit transfer can carry (pain.001 InstdAmt). */
export const MAX_MIN_PAYOUT_CENTS = 99_999_999_999;

const oneOf = (values: readonly string[]) => values.join(', ');

const looseEnum = (values: readonly string[], what: string, code: string, byDefault: string) =>
  ({ type: ['string', 'null'], description: `${what}: one of ${oneOf(values)}; default ${byDefault}. Another value is refused with ${code}.` }) as const;

const nullableEnum = <T extends string>(values: readonly T[], description: string) =>
  ({ type: ['string', 'null'], enum: [...values, null], description }) as const;

export const partnerRequestFields = {
  name: {
    type: ['string', 'null'],
    maxLength: 255,
    description: 'Required, 1 to 255 characters; missing or blank is refused with commission.partner_name_missing',
  },
  email: nullableString(254, { format: 'email', description: 'Where statements are sent; without it statements are not mailed' }),
  kind: looseEnum(PARTNER_KINDS, 'Kind of partner', 'commission.partner_kind_invalid', 'other'),
  tax_status: looseEnum(TAX_STATUSES, 'Decides how a statement is taxed', 'commission.tax_status_invalid', 'domestic_regular'),
  billing_mode: looseEnum(
    BILLING_MODES,
    'Kind of statement: a self-billed invoice (Gutschrift), a settlement statement for a private person, or a request that the partner invoices',
    'commission.billing_mode_invalid',
    'self_billing',
  ),
  self_billing_agreed_on: {
    type: ['string', 'null'],
    format: 'date',
    description: 'Day the self-billing agreement (§ 14 Abs. 2 Satz 2 UStG) was made; without it no self-billed invoice is issued',
  },
  self_billing_contract_ref: nullableString(255, { description: 'Reference of the self-billing agreement' }),
  statement_cadence: nullableEnum(STATEMENT_CADENCES, 'How often statements are made; default month'),
  min_payout_cents: {
    type: ['number', 'null'],
    maximum: MAX_MIN_PAYOUT_CENTS,
    description:
      'Smallest open balance, in integer cents, that gets a statement; default 0. Negative or fractional is refused with commission.min_payout_invalid.',
  },
  payout_rail: nullableEnum(PAYOUT_RAILS, 'How payouts are made: sepa_credit_transfer (in the SEPA export of the app) or manual; default sepa_credit_transfer'),
  e_invoice_format: looseEnum(E_INVOICE_FORMATS, 'E-invoice of a self-billed invoice', 'commission.e_invoice_format_invalid', 'auto'),
  language: nullableEnum(LANGUAGES, 'Language of statements and mails; default de'),
  notes: nullableString(2000, { 'x-text': 'multiline' }),
  street: nullableString(255),
  house_number: nullableString(32),
  zip: nullableString(16),
  city: nullableString(255),
  country_code: nullableString(2, { pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2' }),
  vat_id: nullableString(20, {
    description:
      'USt-IdNr. / VAT ID, checked with the check digits of its country; spaces, dots and dashes are removed and letters upper-cased. For a partner in CH the Swiss UID (CHE-123.456.789 MWST).',
  }),
  tax_number: nullableString(32, { description: 'Steuernummer' }),
} as const;

export const partnerBody = {
  type: 'object',
  additionalProperties: false,
  properties: partnerRequestFields,
} as const;

const string = { type: 'string' } as const;
const nullable = { type: ['string', 'null'] } as const;
const nullableDate = { type: ['string', 'null'], format: 'date' } as const;
const nullableDateTime = { type: ['string', 'null'], format: 'date-time' } as const;
const cents = { type: 'integer' } as const;

// In the order of interface §2.
const partnerResponseFields = {
  id: string,
  name: string,
  email: nullable,
  kind: { type: 'string', enum: [...PARTNER_KINDS] },
  tax_status: { type: 'string', enum: [...TAX_STATUSES] },
  billing_mode: { type: 'string', enum: [...BILLING_MODES] },
  self_billing_agreed_on: nullableDate,
  self_billing_contract_ref: nullable,
  self_billing_objected_at: { ...nullableDateTime, description: 'When the partner objected to self-billing; set with the statements, never by the API' },
  statement_cadence: { type: 'string', enum: [...STATEMENT_CADENCES] },
  min_payout_cents: cents,
  payout_rail: { type: 'string', enum: [...PAYOUT_RAILS] },
  e_invoice_format: { type: 'string', enum: [...E_INVOICE_FORMATS] },
  has_payee_account: { type: 'boolean', description: 'Whether a person has set a payout account in the app' },
  iban_masked: { ...nullable, description: 'Masked payout account; set only in the app by a person' },
  bic: nullable,
  payee_changed_at: { ...nullableDateTime, description: 'Last change of the payout account; every change notifies the company' },
  language: { type: 'string', enum: [...LANGUAGES] },
  status: { type: 'string', enum: [...STATUSES], description: 'active, or archived by a person in the app (then upserts are refused)' },
  notes: nullable,
  supplier_id: { type: 'string', description: "The partner's supplier in the company's books" },
  kreditorennummer: { ...nullable, description: 'Creditor number in the books, 70000–79999' },
  street: nullable,
  house_number: nullable,
  zip: nullable,
  city: nullable,
  country_code: nullable,
  vat_id: nullable,
  tax_number: nullable,
  external_source: nullable,
  external_ref: nullable,
  balance: {
    type: 'object',
    additionalProperties: false,
    required: ['open', 'statemented', 'paid'],
    properties: {
      open: { ...cents, description: 'Cents earned, not on a statement' },
      statemented: { ...cents, description: 'Cents on an issued statement, unpaid' },
      paid: { ...cents, description: 'Cents paid out' },
    },
  },
  created_at: nullableDateTime,
} as const;

export const partnerResponse = {
  type: 'object',
  additionalProperties: false,
  required: Object.keys(partnerResponseFields),
  properties: partnerResponseFields,
} as const;

export const upsertCommissionPartnerSchema = {
  operationId: 'upsertCommissionPartner',
  tags: ['Revenue share'],
  summary: 'Create or update a revenue-share partner by reference',
  description:
    'Creates the partner with the next creditor number and its supplier, or updates it to what is sent; 200 either way. ' +
    'Omitted or null optional fields take their default. The payout account cannot be set through the API: iban, bic and any other unknown field are refused. ' +
    'An archived partner gives 409 commission.partner_archived.',
  params: byRefParams,
  querystring: noQuery,
  body: partnerBody,
  response: { 200: partnerResponse, ...errorResponses },
} as const;

export const retrieveCommissionPartnerSchema = {
  operationId: 'retrieveCommissionPartner',
  tags: ['Revenue share'],
  summary: 'Get a revenue-share partner with its balance by reference',
  description: 'Unknown references, and partners of other companies, give 404 commission.partner_not_found.',
  params: byRefParams,
  querystring: noQuery,
  response: { 200: partnerResponse, ...errorResponses },
} as const;
