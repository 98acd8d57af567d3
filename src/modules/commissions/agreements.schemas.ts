import type { AgreementAnchor, AgreementAppliesTo, AgreementBasis } from '../../db/schema-commissions.ts';
import { byRefParams, EXTERNAL_REF_PATTERN, errorResponses, noQuery, nullableString } from '../../http/common-schemas.ts';

// CommissionAgreement request and response (interface §2 "Agreement", "Agreement request
// fields", design §6 "Agreement body"). start_date, tiers, applies_to and anchor are
// deliberately loose here, and so are the bounds inside a tier: a missing start, missing
// or empty tiers, an unknown applies_to or anchor are refused with their commission.*
// codes, which win over validation_failed (design §3); upsert-agreement.ts checks them,
// then the tiers (months, percent) as validation_failed. Types, patterns, lengths and
// unknown fields are validation_failed here, before anything else.

export const APPLIES_TO = ['attributed_customers', 'all_customers'] as const satisfies readonly AgreementAppliesTo[];
export const ANCHORS = ['attribution_start', 'first_paid_revenue'] as const satisfies readonly AgreementAnchor[];
export const BASES = ['net_paid'] as const satisfies readonly AgreementBasis[];
const STATUSES = ['active', 'ended'] as const;

/** The most tiers an agreement has; the most article numbers it is limited to. */
export const MAX_TIERS = 100;
export const MAX_PRODUCTS = 1000;
/** At most 4 decimals in a percent (12.3456 %). */
export const PERCENT_DECIMALS = 4;

const nullableDate = (description: string) => ({ type: ['string', 'null'], format: 'date', description }) as const;

const tierRequest = {
  type: 'object',
  additionalProperties: false,
  required: ['from_month', 'to_month', 'percent'],
  properties: {
    from_month: {
      type: 'integer',
      description: 'First month of the tier, counted from the anchor (month 1 is the month of the anchor); the first tier starts at 1',
    },
    to_month: {
      type: ['integer', 'null'],
      description: 'Last month of the tier (inclusive), at least from_month; null is open-ended, only for the last tier. The next tier starts at to_month + 1.',
    },
    percent: { type: 'number', description: 'Share of the net paid revenue in percent, above 0 and at most 100, with at most 4 decimals (12.5 is 12.5 %)' },
  },
} as const;

export const agreementRequestFields = {
  partner_ref: {
    type: 'string',
    pattern: EXTERNAL_REF_PATTERN,
    description: "The partner's external_ref in the path's source; an unknown partner gives 404 commission.partner_not_found",
  },
  name: nullableString(255, { description: 'Name of the agreement; may change' }),
  start_date: {
    type: ['string', 'null'],
    format: 'date',
    description: 'First day of the agreement; required (missing is refused with commission.start_date_missing); fixed once made',
  },
  end_date: nullableDate(
    'Last day of the agreement (inclusive); may be set or changed later, which ends the deal. Before start_date is refused with commission.date_range_invalid.',
  ),
  accrue_from: nullableDate('Revenue paid before this day earns nothing under the agreement; fixed once made'),
  tiers: {
    type: ['array', 'null'],
    maxItems: MAX_TIERS,
    items: tierRequest,
    description:
      'Percent by month counted from the anchor, contiguous from month 1; required, at least one (missing or empty is refused with commission.tiers_empty); fixed once made',
  },
  applies_to: {
    type: ['string', 'null'],
    description:
      'attributed_customers (customers attributed to the partner; default) or all_customers; another value is refused with commission.applies_to_invalid. Fixed once made.',
  },
  anchor: {
    type: ['string', 'null'],
    description:
      'Where month 1 of the tiers lies: attribution_start (default for attributed_customers) or first_paid_revenue (default, and the only anchor, for all_customers); ' +
      'another value is refused with commission.anchor_invalid. Fixed once made.',
  },
  product_numbers: {
    type: ['array', 'null'],
    maxItems: MAX_PRODUCTS,
    items: { type: 'string', minLength: 1, maxLength: 64 },
    description:
      "Article numbers of the company's products the agreement is limited to; null or omitted is every product. An empty list or a number named twice is refused with " +
      'commission.product_scope_invalid, unknown numbers with 404 commission.product_not_found. Fixed once made.',
  },
  condition_id: nullableString(255, {
    description: 'A condition of the agreement; no conditions exist yet, so any id gives 404 commission.condition_not_found',
  }),
  contract_reference: nullableString(255, { description: 'Reference of the written contract with the partner; may change' }),
  basis: {
    type: ['string', 'null'],
    enum: [...BASES, null],
    description: 'What the percent applies to: net_paid (net revenue actually paid), the default and only value',
  },
} as const;

export const agreementBody = {
  type: 'object',
  additionalProperties: false,
  required: ['partner_ref'],
  properties: agreementRequestFields,
} as const;

const string = { type: 'string' } as const;
const nullable = { type: ['string', 'null'] } as const;
const date = { type: 'string', format: 'date' } as const;
const nullableDateOut = { type: ['string', 'null'], format: 'date' } as const;

// In the order of interface §2.
const agreementResponseFields = {
  id: string,
  partner_id: string,
  partner_name: nullable,
  condition_id: nullable,
  name: nullable,
  start_date: date,
  end_date: nullableDateOut,
  accrue_from: nullableDateOut,
  contract_reference: nullable,
  status: { type: 'string', enum: [...STATUSES], description: "ended once end_date lies before the company's today, else active" },
  external_source: nullable,
  external_ref: nullable,
  applies_to: { type: 'string', enum: [...APPLIES_TO] },
  product_ids: { type: 'array', items: string, description: 'The products the agreement is limited to, sorted; empty is every product' },
  tiers: {
    type: 'array',
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['from_month', 'to_month', 'percent'],
      properties: { from_month: { type: 'integer' }, to_month: { type: ['integer', 'null'] }, percent: { type: 'number' } },
    },
  },
  anchor: { type: 'string', enum: [...ANCHORS] },
  basis: { type: 'string', enum: [...BASES] },
} as const;

export const agreementResponse = {
  type: 'object',
  additionalProperties: false,
  required: Object.keys(agreementResponseFields),
  properties: agreementResponseFields,
} as const;

export const upsertCommissionAgreementSchema = {
  operationId: 'upsertCommissionAgreement',
  tags: ['Revenue share'],
  summary: 'Create or update a revenue-share agreement by reference',
  description:
    'Creates the agreement (201) or updates it (200, also when nothing changes). Its terms are fixed once it exists: partner, tiers, applies_to, anchor, ' +
    'products, accrue_from, start_date, basis and condition; a request with other terms gives 409 commission.agreement_terms_frozen (another partner: ' +
    '409 commission.agreement_partner_mismatch). name, end_date and contract_reference may change; a new deal is a new agreement, the old one ends with end_date.',
  params: byRefParams,
  querystring: noQuery,
  body: agreementBody,
  response: { 200: agreementResponse, 201: agreementResponse, ...errorResponses },
} as const;
