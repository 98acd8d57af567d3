import { EXTERNAL_REF_PATTERN, errorResponses, noQuery, nullableString, SOURCE_PATTERN } from '../../http/common-schemas.ts';

// createRevenueEvent (interface §2 "Revenue event", §4, design §6 "Revenue event body"):
// paid revenue the service does not see itself. Amounts are decimal strings in EUR with at
// most two decimals (a fraction of a cent is validation_failed, type decimal, checked in
// create-revenue-event.ts); a refund is negative and names the event it reverses.

/** The most lines an event carries. */
export const MAX_REVENUE_LINES = 500;

const ref = { type: 'string', pattern: EXTERNAL_REF_PATTERN } as const;
const amount = {
  type: 'string',
  'x-decimal': true,
  description: 'Net amount in EUR as a decimal string with at most two decimals ("120.00"); negative for a refund',
} as const;

const lineRequest = {
  type: 'object',
  additionalProperties: false,
  required: ['net_amount'],
  properties: {
    net_amount: amount,
    product_ref: { ...ref, description: "A product's external_ref in the event's source" },
    product_number: { type: 'string', minLength: 1, maxLength: 64, description: "A product's article number" },
    description: nullableString(1000),
  },
} as const;

export const revenueEventBody = {
  type: 'object',
  additionalProperties: false,
  required: ['source', 'external_ref', 'occurred_at', 'net_amount'],
  properties: {
    source: { type: 'string', pattern: SOURCE_PATTERN, description: "Name of the caller's system" },
    external_ref: { ...ref, description: "The caller's id of the event; an event is stored once per (source, external_ref)" },
    occurred_at: { type: 'string', format: 'date-time', description: "When the revenue was paid (its day in the company's time zone decides)" },
    net_amount: amount,
    currency: { type: 'string', enum: ['EUR'], description: 'EUR only (the default)' },
    customer: {
      type: ['object', 'null'],
      additionalProperties: false,
      required: ['source', 'external_ref'],
      properties: { source: { type: 'string', pattern: SOURCE_PATTERN }, external_ref: ref },
      description: 'The customer who paid; an unknown customer gives 404 customer_not_found',
    },
    reverses_ref: {
      type: ['string', 'null'],
      pattern: EXTERNAL_REF_PATTERN,
      description: 'For a refund: the external_ref of the event it reverses, in the same source',
    },
    description: nullableString(1000),
    lines: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_REVENUE_LINES,
      items: lineRequest,
      description:
        "The parts of the revenue, adding up to net_amount; a line may name a product. Omitted: one line of the whole amount without a product. On a refund, lines naming products take back each agreement's share of those lines only (its product scope); a refund naming no product takes back every share pro rata.",
    },
  },
} as const;

const string = { type: 'string' } as const;
const nullable = { type: ['string', 'null'] } as const;

const entrySummary = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'partner_id', 'agreement_id', 'contract_month', 'percent', 'basis_cents', 'amount_cents', 'status'],
  properties: {
    id: string,
    partner_id: string,
    agreement_id: string,
    contract_month: { type: ['integer', 'null'] },
    percent: { type: 'number' },
    basis_cents: { type: 'integer' },
    amount_cents: { type: 'integer' },
    status: { type: 'string', enum: ['open', 'statemented', 'paid', 'void'] },
  },
} as const;

const revenueEventResponseFields = {
  id: string,
  source: string,
  external_ref: string,
  occurred_at: { type: 'string', format: 'date-time' },
  paid_on: { type: 'string', format: 'date', description: "occurred_at's day in the company's time zone" },
  net_amount: string,
  currency: { type: 'string', enum: ['EUR'] },
  customer: {
    type: ['object', 'null'],
    additionalProperties: false,
    required: ['source', 'external_ref'],
    properties: { source: string, external_ref: string },
  },
  customer_id: nullable,
  reverses_ref: nullable,
  reverses_id: nullable,
  description: nullable,
  lines: {
    type: 'array',
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['net_amount', 'product_id', 'description'],
      properties: { net_amount: string, product_id: nullable, description: nullable },
    },
  },
  entries: { type: 'array', items: entrySummary, description: 'The ledger entries the event wrote (as they are now)' },
  created_at: { type: 'string', format: 'date-time' },
} as const;

export const revenueEventResponse = {
  type: 'object',
  additionalProperties: false,
  required: Object.keys(revenueEventResponseFields),
  properties: revenueEventResponseFields,
} as const;

export const createRevenueEventSchema = {
  operationId: 'createRevenueEvent',
  tags: ['Revenue share'],
  summary: 'Report paid revenue the service does not see itself',
  description:
    'Stores the event once per (source, external_ref) and writes its ledger entries in the same transaction: one per qualifying agreement. ' +
    'A repeat answers 200 with the first event. A refund is a negative net_amount with reverses_ref: it writes negative entries at the original percent ' +
    '(an open entry whose revenue is reversed in full is voided with its reversal). Report only revenue the service does not see already: ' +
    "payments of this API's invoices earn their share when the bank statement shows them.",
  querystring: noQuery,
  body: revenueEventBody,
  response: { 200: revenueEventResponse, 201: revenueEventResponse, ...errorResponses },
} as const;
