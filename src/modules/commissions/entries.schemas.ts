import { EXTERNAL_REF_PATTERN, errorResponses, SOURCE_PATTERN } from '../../http/common-schemas.ts';

// listCommissionEntries (interface §2 CommissionEntry, §4; design §3 filters and paging).

const string = { type: 'string' } as const;
const nullable = { type: ['string', 'null'] } as const;

export const ENTRY_STATUSES = ['open', 'statemented', 'paid', 'void'] as const;

const entryFields = {
  id: string,
  partner_id: string,
  partner_name: nullable,
  agreement_id: string,
  customer_id: nullable,
  customer_name: nullable,
  revenue_event_id: string,
  source_type: { type: ['string', 'null'], description: 'invoice (a payment of the invoice source_id) or revenue_event (source_id = its external_ref)' },
  source_id: nullable,
  service_period_start: { type: 'string', format: 'date' },
  paid_at: { type: ['string', 'null'], format: 'date-time' },
  contract_month: { type: ['integer', 'null'], description: 'Months from the anchor; month 1 is the anchor month' },
  percent: { type: 'number' },
  basis_cents: { type: 'integer', description: 'Net paid revenue the percent applies to (negative for a refund)' },
  amount_cents: { type: 'integer', description: 'round half up(basis_cents × percent / 100)' },
  status: { type: 'string', enum: [...ENTRY_STATUSES] },
  statement_id: nullable,
} as const;

export const entrySchema = { type: 'object', additionalProperties: false, required: Object.keys(entryFields), properties: entryFields } as const;

/** The partner filter and paging shared by the entry and statement lists. */
export const partnerListQuery = (statuses: readonly string[]) =>
  ({
    type: 'object',
    additionalProperties: false,
    properties: {
      partner_source: { type: 'string', pattern: SOURCE_PATTERN, description: "With partner_ref: one partner's records" },
      partner_ref: { type: 'string', pattern: EXTERNAL_REF_PATTERN },
      status: { type: 'string', enum: [...statuses] },
      limit: { type: 'integer', minimum: 1, maximum: 200, description: 'Page size, default 50' },
      cursor: { type: 'string', maxLength: 64, description: 'next_cursor of the previous page' },
    },
  }) as const;

export const listCommissionEntriesSchema = {
  operationId: 'listCommissionEntries',
  tags: ['Revenue share'],
  summary: 'List ledger entries, oldest first',
  description:
    'Every share written, in writing order, optionally of one partner (partner_source and partner_ref; unknown → 404 commission.partner_not_found) and in one status. ' +
    'Paging with limit and cursor; an entry keeps its place when its status changes.',
  querystring: partnerListQuery(ENTRY_STATUSES),
  response: {
    200: {
      type: 'object',
      additionalProperties: false,
      required: ['data', 'next_cursor'],
      properties: { data: { type: 'array', items: entrySchema }, next_cursor: { type: ['string', 'null'] } },
    },
    ...errorResponses,
  },
} as const;
