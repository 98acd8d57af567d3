import { byRefParams, EXTERNAL_REF_PATTERN, errorResponses, noQuery, SOURCE_PATTERN } from '../../http/common-schemas.ts';
import { MAX_AMOUNT, MAX_UNIT_PRICE } from '../../shared/money.ts';

// Invoice request and response schemas (interface §2 Invoice and creation request, §4 Invoices).

const ref = { type: 'string', pattern: EXTERNAL_REF_PATTERN } as const;
const nullableDate = { type: ['string', 'null'], format: 'date' } as const;
const decimal = { type: 'string', description: 'Decimal string with two decimals' } as const;
const invoiceRef = {
  type: ['object', 'null'],
  additionalProperties: false,
  required: ['id', 'number', 'external_ref'],
  properties: { id: { type: 'string' }, number: { type: ['string', 'null'] }, external_ref: { type: ['string', 'null'] } },
} as const;

export const invoiceProperties = {
  id: { type: 'string' },
  number: { type: ['string', 'null'], description: 'null while a draft' },
  status: { type: 'string', enum: ['draft', 'issued', 'sent', 'partially_paid', 'paid', 'cancelled'] },
  type: { type: 'string', enum: ['invoice', 'storno'] },
  external_source: { type: ['string', 'null'] },
  external_ref: { type: ['string', 'null'] },
  customer_external_ref: { type: ['string', 'null'] },
  contract_external_ref: { type: ['string', 'null'] },
  total_net: decimal,
  total_tax: decimal,
  total_gross: decimal,
  amount_paid: decimal,
  currency: { type: 'string', enum: ['EUR'] },
  issue_date: nullableDate,
  due_date: nullableDate,
  service_period: {
    type: 'object',
    additionalProperties: false,
    required: ['start', 'end'],
    properties: { start: { type: 'string', format: 'date' }, end: { type: 'string', format: 'date' } },
  },
  sent_at: { type: ['string', 'null'], format: 'date-time' },
  paid_at: { type: ['string', 'null'], format: 'date-time' },
  overdue: { type: 'boolean' },
  dunning_level: { type: ['integer', 'null'] },
  cancels_invoice: invoiceRef,
  cancelled_by: invoiceRef,
} as const;

export const invoiceSchema = { type: 'object', additionalProperties: false, required: Object.keys(invoiceProperties), properties: invoiceProperties } as const;

export const invoiceCreatedSchema = {
  type: 'object',
  additionalProperties: false,
  required: [...Object.keys(invoiceProperties), 'send_error'],
  properties: {
    ...invoiceProperties,
    send_error: {
      type: ['object', 'null'],
      additionalProperties: false,
      required: ['code', 'message'],
      properties: { code: { type: 'string', enum: ['mail_rejected', 'mail_unreachable', 'recipient_missing'] }, message: { type: 'string' } },
    },
  },
} as const;

const line = {
  type: 'object',
  additionalProperties: false,
  required: ['description', 'quantity', 'unit_price_net', 'vat_rate'],
  properties: {
    description: { type: 'string', minLength: 1, maxLength: 1000 },
    quantity: {
      type: ['number', 'string'],
      'x-decimal': 'nonnegative',
      description: 'Up to 12 digits before and 6 after the decimal point; the string form sent is kept',
    },
    unit: { type: ['string', 'null'], maxLength: 32 },
    unit_price_net: {
      type: 'string',
      'x-decimal': 'nonnegative',
      'x-decimal-maximum': MAX_UNIT_PRICE,
      description: `Up to 6 decimals, at most ${MAX_UNIT_PRICE}. The line net (quantity × unit_price_net) and the invoice total must stay within ${MAX_AMOUNT}.`,
    },
    vat_rate: { type: 'integer', enum: [0, 7, 19] },
    product_ref: { ...ref, description: "A product's external_ref in the customer's source" },
    product_number: { type: 'string', minLength: 1, maxLength: 64 },
    tax_exemption_reason: { type: ['string', 'null'], minLength: 1, maxLength: 500, description: 'Why a domestic line has 0 %' },
  },
} as const;

export const createInvoiceBody = {
  type: 'object',
  additionalProperties: false,
  required: ['customer', 'external_ref', 'lines', 'service_period'],
  properties: {
    customer: {
      type: 'object',
      additionalProperties: false,
      required: ['source', 'external_ref'],
      properties: { source: { type: 'string', pattern: SOURCE_PATTERN }, external_ref: ref },
    },
    external_ref: ref,
    lines: { type: 'array', minItems: 1, maxItems: 500, items: line },
    service_period: invoiceProperties.service_period,
    payment_terms_days: { type: 'integer', minimum: 0, maximum: 365 },
    issue: { type: 'boolean' },
    send: { type: 'boolean', description: 'With issue: also mail the invoice' },
    currency: { type: 'string', enum: ['EUR'] },
    attribution: {
      type: 'object',
      additionalProperties: false,
      required: ['partner_ref', 'agreement_ref'],
      properties: { partner_ref: ref, agreement_ref: ref },
    },
  },
} as const;

const idParams = {
  type: 'object',
  additionalProperties: false,
  required: ['id'],
  properties: { id: { type: 'string', pattern: '^[A-Za-z0-9_]{1,64}$' } },
} as const;

const tags = ['Invoices'];

export const createInvoiceSchema = {
  operationId: 'createInvoice',
  tags,
  summary: 'Create an invoice (draft, issued, or issued and mailed)',
  description: 'Needs the Idempotency-Key header. A replay of the same key and body answers 200 with exactly the first answer and Idempotent-Replayed: true.',
  headers: {
    type: 'object',
    properties: { 'idempotency-key': { type: 'string', description: '1–255 printable ASCII characters, no spaces' } },
  },
  querystring: noQuery,
  body: createInvoiceBody,
  response: { 200: invoiceCreatedSchema, 201: invoiceCreatedSchema, ...errorResponses },
} as const;

export const listInvoicesSchema = {
  operationId: 'listInvoices',
  tags,
  summary: 'List invoices in change order',
  querystring: {
    type: 'object',
    additionalProperties: false,
    properties: {
      changed_since: { type: 'string', format: 'date-time', description: 'Invoices whose state changed at or after this instant' },
      status: { type: 'string', enum: ['draft', 'issued', 'sent', 'partially_paid', 'paid', 'cancelled'] },
      type: { type: 'string', enum: ['invoice', 'storno'] },
      customer_source: { type: 'string', pattern: SOURCE_PATTERN },
      customer_ref: ref,
      contract_source: { type: 'string', pattern: SOURCE_PATTERN, description: 'With contract_ref: the invoices a contract billed' },
      contract_ref: ref,
      limit: { type: 'integer', minimum: 1, maximum: 200 },
      cursor: { type: 'string', maxLength: 64 },
    },
  },
  response: {
    200: {
      type: 'object',
      additionalProperties: false,
      required: ['data', 'next_cursor'],
      properties: { data: { type: 'array', items: invoiceSchema }, next_cursor: { type: ['string', 'null'] } },
    },
    ...errorResponses,
  },
} as const;

const one = (operationId: string, summary: string) =>
  ({ operationId, tags, summary, params: idParams, querystring: noQuery, response: { 200: invoiceSchema, ...errorResponses } }) as const;

export const retrieveInvoiceSchema = one('retrieveInvoice', 'Get an invoice');
export const sendInvoiceSchema = {
  ...one('sendInvoice', 'Mail an issued invoice (once)'),
  description:
    'Mails an issued invoice once; an invoice mailed before is answered as it is. When a crash left it unknown whether the last mail left (send_error mail_unconfirmed), it is mailed again only with the body {"resend": true}; without it the answer is 422 invoice_send_failed with send_error.',
  body: {
    type: 'object',
    additionalProperties: false,
    properties: { resend: { type: 'boolean', description: 'Mail again although an interrupted mail may have arrived (mail_unconfirmed).' } },
  },
} as const;
export const cancelInvoiceSchema = {
  ...one('cancelInvoice', 'Cancel an invoice with a Stornorechnung'),
  description: 'Answers 201 with the new storno invoice, 200 with the same storno when the invoice was cancelled before.',
  response: { 200: invoiceSchema, 201: invoiceSchema, ...errorResponses },
} as const;
export const retrieveInvoiceByRefSchema = {
  operationId: 'retrieveInvoiceByRef',
  tags,
  summary: "Get an invoice by the caller's reference",
  params: byRefParams,
  querystring: noQuery,
  response: { 200: invoiceSchema, ...errorResponses },
} as const;
const documentSchema = (operationId: string, summary: string, type: string) =>
  ({
    operationId,
    tags,
    summary,
    params: idParams,
    querystring: noQuery,
    response: { 200: { description: `The document (${type})`, content: { [type]: { schema: { type: 'string', format: 'binary' } } } }, ...errorResponses },
  }) as const;
export const downloadInvoicePdfSchema = documentSchema(
  'downloadInvoicePdf',
  'The PDF of an issued invoice (ZUGFeRD for business customers)',
  'application/pdf',
);
export const downloadInvoiceXmlSchema = documentSchema('downloadInvoiceXml', 'The e-invoice XML (XRechnung CII or the ZUGFeRD CII)', 'application/xml');
