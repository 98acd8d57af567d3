import { byRefParams, EXTERNAL_REF_PATTERN, errorResponses, noQuery, SOURCE_PATTERN } from '../../http/common-schemas.ts';

// CommissionAttribution request and response (interface §2 "Attribution", design §6
// "Attribution body"). End before start is refused with commission.date_range_invalid in
// upsert-attribution.ts (design §3: the commission.* code wins over validation_failed);
// types, patterns and unknown fields are validation_failed here, before anything else.

export const ATTRIBUTION_STATUSES = ['proposed', 'active', 'ended', 'rejected'] as const;
export const ATTRIBUTION_SOURCES = ['api', 'invoice', 'app'] as const;

const nullableDate = (description: string) => ({ type: ['string', 'null'], format: 'date', description }) as const;

export const attributionBody = {
  type: 'object',
  additionalProperties: false,
  required: ['agreement_ref', 'customer'],
  properties: {
    agreement_ref: {
      type: 'string',
      pattern: EXTERNAL_REF_PATTERN,
      description:
        "The agreement's external_ref in the path's source; unknown gives 404 commission.agreement_not_found, an agreement for all customers 422 commission.agreement_takes_no_attributions",
    },
    customer: {
      type: 'object',
      additionalProperties: false,
      required: ['source', 'external_ref'],
      description: 'The customer attributed; unknown gives 404 customer_not_found',
      properties: { source: { type: 'string', pattern: SOURCE_PATTERN }, external_ref: { type: 'string', pattern: EXTERNAL_REF_PATTERN } },
    },
    start_date: nullableDate("First day of the attribution. Omitted or null: the company's today on create, the stored start on update."),
    end_date: nullableDate(
      'Last day (inclusive); omitted or null is open-ended. Setting it ends the attribution. Before start_date is refused with commission.date_range_invalid.',
    ),
  },
} as const;

const string = { type: 'string' } as const;
const nullable = { type: ['string', 'null'] } as const;

// In the order of interface §2.
const attributionResponseFields = {
  id: string,
  agreement_id: string,
  agreement_name: nullable,
  partner_id: string,
  partner_name: nullable,
  customer_id: string,
  customer_name: nullable,
  start_date: { type: 'string', format: 'date' },
  end_date: { type: ['string', 'null'], format: 'date' },
  status: {
    type: 'string',
    enum: [...ATTRIBUTION_STATUSES],
    description:
      "proposed (waits for a person's confirmation), active, ended (active, and end_date lies before the company's today), rejected (by a person; stays rejected)",
  },
  source: { type: 'string', enum: [...ATTRIBUTION_SOURCES], description: 'How it came: api (this PUT), invoice (createInvoice with attribution), app' },
  source_ref: { ...nullable, description: "For source invoice: the invoice's external_ref" },
  conflicts_with_id: {
    ...nullable,
    description: "A proposed attribution: another partner's proposed attribution of the customer that overlaps it (a person decides)",
  },
  confirmed_at: { type: ['string', 'null'], format: 'date-time' },
  external_ref: nullable,
} as const;

export const attributionResponse = {
  type: 'object',
  additionalProperties: false,
  required: Object.keys(attributionResponseFields),
  properties: attributionResponseFields,
} as const;

export const upsertCommissionAttributionSchema = {
  operationId: 'upsertCommissionAttribution',
  tags: ['Revenue share'],
  summary: 'Put a customer under an agreement by reference',
  description:
    'Creates the attribution (201) or updates its dates (200, also when nothing changes). It is active at once, or proposed when the company has a person confirm ' +
    "attributions. Another partner's active attribution of the customer that overlaps gives 409 commission.attribution_conflict with conflicts_with_id; " +
    'the same reference for another customer or agreement gives 409 commission.attribution_reference_mismatch.',
  params: byRefParams,
  querystring: noQuery,
  body: attributionBody,
  response: { 200: attributionResponse, 201: attributionResponse, ...errorResponses },
} as const;

export const retrieveCommissionAttributionSchema = {
  operationId: 'retrieveCommissionAttribution',
  tags: ['Revenue share'],
  summary: 'Get an attribution by reference',
  description: 'Unknown references, and attributions of other companies, give 404 commission.attribution_not_found.',
  params: byRefParams,
  querystring: noQuery,
  response: { 200: attributionResponse, ...errorResponses },
} as const;
