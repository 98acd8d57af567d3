import { errorResponses, noQuery } from '../../http/common-schemas.ts';
import { partnerListQuery } from '../commissions/entries.schemas.ts';

// listCommissionStatements, retrieveCommissionStatement, downloadCommissionStatementPdf
// (interface §2 CommissionStatement, §4; design §3).

const string = { type: 'string' } as const;
const nullable = { type: ['string', 'null'] } as const;
const nullableTime = { type: ['string', 'null'], format: 'date-time' } as const;
const integer = { type: 'integer' } as const;

export const STATEMENT_STATUSES = ['draft', 'issued', 'sent', 'cancelled', 'objected'] as const;

const lineSchema = {
  type: 'object',
  additionalProperties: false,
  required: [
    'position',
    'description',
    'agreement_id',
    'customer_id',
    'customer_name',
    'contract_month',
    'percent',
    'basis_cents',
    'amount_cents',
    'entry_count',
    'period_start',
    'period_end',
  ],
  properties: {
    position: integer,
    description: string,
    agreement_id: string,
    customer_id: nullable,
    customer_name: nullable,
    contract_month: { type: ['integer', 'null'] },
    percent: { type: 'number' },
    basis_cents: integer,
    amount_cents: integer,
    entry_count: { type: 'integer', description: 'How many ledger entries the line adds up' },
    period_start: { type: 'string', format: 'date' },
    period_end: { type: 'string', format: 'date' },
  },
} as const;

const statementFields = {
  id: string,
  partner_id: string,
  partner_name: nullable,
  kind: { type: 'string', enum: ['self_billing', 'settlement', 'partner_invoice'] },
  status: { type: 'string', enum: [...STATEMENT_STATUSES] },
  number: nullable,
  issue_date: { type: ['string', 'null'], format: 'date' },
  period_end: { type: 'string', format: 'date' },
  net_cents: integer,
  vat_cents: integer,
  gross_cents: integer,
  vat_rate: { type: 'number' },
  tax_note: { type: 'string', enum: ['regular', 'small_business', 'reverse_charge', 'private_person'] },
  lines: { type: 'array', items: lineSchema, description: 'One line per agreement, customer, percent and contract month' },
  has_pdf: { type: 'boolean' },
  has_xml: { type: 'boolean' },
  e_invoice_format: nullable,
  document_id: nullable,
  cancels_statement_id: nullable,
  cancelled_by_id: nullable,
  objected_at: nullableTime,
  sent_at: nullableTime,
  paid_at: nullableTime,
  sent_to: nullable,
  partner_invoice: {
    type: ['object', 'null'],
    description:
      "For a request to invoice (kind partner_invoice): the partner's own invoice. `accepted` — recorded by a person in the app or uploaded by the partner in the portal (via) and checked against the statement; the statement is payable. `refused` — the partner's latest upload was refused (reasons: German sentences, as the partner saw them) and none is accepted. `missing` — none handed in yet. Null for other kinds and for cancellations.",
    additionalProperties: false,
    required: ['status', 'number', 'invoice_date', 'net_cents', 'vat_cents', 'gross_cents', 'via', 'received_at', 'reasons'],
    properties: {
      status: { type: 'string', enum: ['missing', 'refused', 'accepted'] },
      number: nullable,
      invoice_date: { type: ['string', 'null'], format: 'date' },
      net_cents: { type: ['integer', 'null'] },
      vat_cents: { type: ['integer', 'null'] },
      gross_cents: { type: ['integer', 'null'] },
      via: { type: ['string', 'null'], enum: ['app', 'portal', null] },
      received_at: nullableTime,
      reasons: { type: 'array', items: { type: 'string' } },
    },
  },
} as const;

export const statementSchema = { type: 'object', additionalProperties: false, required: Object.keys(statementFields), properties: statementFields } as const;

const tags = ['Revenue share'];

export const listCommissionStatementsSchema = {
  operationId: 'listCommissionStatements',
  tags,
  summary: 'List statements, oldest first',
  description:
    'Statements made by the statement run and their cancellations, optionally of one partner (partner_source and partner_ref; unknown → 404 commission.partner_not_found) and in one status; paging with limit and cursor.',
  querystring: partnerListQuery(STATEMENT_STATUSES),
  response: {
    200: {
      type: 'object',
      additionalProperties: false,
      required: ['data', 'next_cursor'],
      properties: { data: { type: 'array', items: statementSchema }, next_cursor: { type: ['string', 'null'] } },
    },
    ...errorResponses,
  },
} as const;

const idParams = {
  type: 'object',
  additionalProperties: false,
  required: ['id'],
  properties: { id: { type: 'string', pattern: '^[A-Za-z0-9_]{1,64}$' } },
} as const;

export const retrieveCommissionStatementSchema = {
  operationId: 'retrieveCommissionStatement',
  tags,
  summary: 'Get a statement',
  description: 'A statement of the company by id; a draft or an unknown id → 404 commission.statement_not_found.',
  params: idParams,
  querystring: noQuery,
  response: { 200: statementSchema, ...errorResponses },
} as const;

export const downloadCommissionStatementPdfSchema = {
  operationId: 'downloadCommissionStatementPdf',
  tags,
  summary: "Download a statement's PDF",
  description: 'The PDF of an issued statement (rendered from its frozen document); a draft or an unknown id → 404 commission.statement_not_found.',
  params: idParams,
  querystring: noQuery,
  response: { ...errorResponses },
} as const;
