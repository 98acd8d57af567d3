import { byRefParams, errorResponses, noQuery, nullableString } from '../../http/common-schemas.ts';

// Customer request and response (interface §2 Customer, §4 upsertCustomer).

export const customerFields = {
  name: { type: 'string', minLength: 1, maxLength: 255 },
  email: nullableString(254, { format: 'email', description: 'Where invoices are sent' }),
  street: nullableString(255),
  house_number: nullableString(32),
  zip: nullableString(16),
  city: nullableString(255),
  country_code: nullableString(2, { pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2' }),
  vat_id: nullableString(20, {
    description:
      'USt-IdNr. / VAT ID, checked with the check digits of its country; spaces, dots and dashes are removed and letters upper-cased. For a customer in CH the Swiss UID, stored as printed: CHE-123.456.789 MWST (or TVA, IVA, no suffix)',
  }),
  customer_type: { type: 'string', enum: ['business', 'private'], description: 'Default business' },
  leitweg_id: nullableString(46, { description: 'Leitweg-ID of a public-sector buyer, checked with its check digits' }),
  contact_name: nullableString(255, { description: 'Printed as an attention line under the name' }),
} as const;

export const customerBody = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: customerFields,
} as const;

export const customerResponse = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'kundennummer', 'external_source', 'external_ref', ...Object.keys(customerFields)],
  properties: {
    id: { type: 'string' },
    kundennummer: { type: ['string', 'null'], description: 'Customer (debtor) number, 10000–69999' },
    external_source: { type: ['string', 'null'] },
    external_ref: { type: ['string', 'null'] },
    ...customerFields,
    customer_type: { type: 'string', enum: ['business', 'private'] },
  },
} as const;

export const upsertCustomerSchema = {
  operationId: 'upsertCustomer',
  tags: ['Customers'],
  summary: 'Create or update a customer by reference',
  description: 'Creates the customer (201, with the next customer number) or updates it to what is sent (200). Omitted optional fields become null.',
  params: byRefParams,
  querystring: noQuery,
  body: customerBody,
  response: { 200: customerResponse, 201: customerResponse, ...errorResponses },
} as const;

export const retrieveCustomerSchema = {
  operationId: 'retrieveCustomer',
  tags: ['Customers'],
  summary: 'Get a customer by reference',
  params: byRefParams,
  querystring: noQuery,
  response: { 200: customerResponse, ...errorResponses },
} as const;
