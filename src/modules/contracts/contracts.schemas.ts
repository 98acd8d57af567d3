import { byRefParams, EXTERNAL_REF_PATTERN, errorResponses, noQuery, SOURCE_PATTERN } from '../../http/common-schemas.ts';
import { productFields } from '../products/products.schemas.ts';

// Contract request and response (interface §2 Contract, design §6 contract body). Pricing
// inputs of an item are those of a product (products.schemas.ts): an unknown model and
// negative values are refused with their pricing.* codes, which win over validation_failed.

const date = { type: 'string', format: 'date' } as const;
const nullableDate = { type: ['string', 'null'], format: 'date' } as const;

const itemRequest = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ref: {
      type: ['string', 'null'],
      pattern: EXTERNAL_REF_PATTERN,
      description:
        "The caller's reference of the item (usage names it). Absent: the item's position. The item's terms are agreed when it is added; other terms (a new deal) are a new reference.",
    },
    product_ref: { type: 'string', pattern: EXTERNAL_REF_PATTERN, description: "A product's external_ref in the customer's source" },
    product_number: productFields.product_number,
    description: { type: ['string', 'null'], minLength: 1, maxLength: 1000, description: "The line text; default the product's name" },
    quantity: {
      ...productFields.included_quantity,
      description:
        "Units billed per cycle (flat and advance items); default 1. A change takes effect on the day it is sent (the company's time zone): arrears are billed by the days at each quantity, advance days billed already are adjusted on the next invoice",
    },
    unit: productFields.unit,
    billing_timing: {
      type: ['string', 'null'],
      enum: ['advance', 'arrears', null],
      description:
        'advance: billed for the coming cycle; arrears: for the cycle that ended (usage-priced items). Default advance for flat, arrears for the usage models.',
    },
    unit_price_net: {
      ...productFields.overage_price,
      description: "Agreed net price per unit; default the product's; frozen when the item is added, like every pricing term",
    },
    vat_rate: { type: ['integer', 'null'], enum: [0, 7, 19, null], description: "Default the product's, else 19" },
    pricing_model: productFields.pricing_model,
    included_quantity: productFields.included_quantity,
    overage_price: productFields.overage_price,
    tiers: productFields.tiers,
    ends_after: { ...nullableDate, description: 'Last day the item is billed for' },
  },
} as const;

export const contractBody = {
  type: 'object',
  additionalProperties: false,
  required: ['customer', 'name', 'billing_interval', 'start_date', 'items'],
  properties: {
    customer: {
      type: 'object',
      additionalProperties: false,
      required: ['source', 'external_ref'],
      properties: { source: { type: 'string', pattern: SOURCE_PATTERN }, external_ref: { type: 'string', pattern: EXTERNAL_REF_PATTERN } },
      description: 'The customer by reference; a contract never changes its customer',
    },
    name: { type: 'string', minLength: 1, maxLength: 255 },
    status: { type: 'string', enum: ['draft', 'active', 'paused', 'cancelled'], description: 'Default draft: nothing is billed until the contract is active' },
    billing_interval: { type: 'string', enum: ['month', 'quarter', 'year'] },
    start_date: date,
    billing_starts_on: { ...nullableDate, description: 'Anchor of the billing cycles; default start_date' },
    end_date: { ...nullableDate, description: 'Last day of the contract; a cancelled contract needs it' },
    invoice_mode: { type: 'string', enum: ['draft', 'issue', 'issue_send'], description: 'What the billing run does with each invoice; default issue' },
    payment_terms_days: { type: ['integer', 'null'], minimum: 0, maximum: 365, description: "Default the company's" },
    items: { type: 'array', maxItems: 100, items: itemRequest },
  },
} as const;

const decimalOut = { type: 'string' } as const;
const nullableString255 = { type: ['string', 'null'] } as const;

export const contractResponse = {
  type: 'object',
  additionalProperties: false,
  required: [
    'id',
    'number',
    'external_source',
    'external_ref',
    'customer_external_ref',
    'name',
    'status',
    'billing_interval',
    'start_date',
    'billing_starts_on',
    'end_date',
    'invoice_mode',
    'payment_terms_days',
    'next_billing_date',
    'usage_open_from',
    'items',
    'cycles',
  ],
  properties: {
    id: { type: 'string' },
    number: { type: 'string' },
    external_source: nullableString255,
    external_ref: nullableString255,
    customer_external_ref: nullableString255,
    name: { type: 'string' },
    status: { type: 'string', enum: ['draft', 'active', 'paused', 'cancelled', 'ended'] },
    billing_interval: { type: 'string', enum: ['month', 'quarter', 'year'] },
    start_date: { type: 'string' },
    billing_starts_on: nullableString255,
    end_date: nullableString255,
    invoice_mode: { type: 'string', enum: ['draft', 'issue', 'issue_send'] },
    payment_terms_days: { type: ['integer', 'null'] },
    next_billing_date: nullableString255,
    usage_open_from: nullableString255,
    items: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['ref', 'product_ref', 'description', 'quantity', 'billing_timing', 'unit_price_net', 'pricing_model', 'ends_after'],
        properties: {
          ref: nullableString255,
          product_ref: nullableString255,
          description: { type: 'string' },
          quantity: decimalOut,
          billing_timing: { type: 'string', enum: ['advance', 'arrears'] },
          unit_price_net: decimalOut,
          pricing_model: nullableString255,
          ends_after: nullableString255,
        },
      },
    },
    cycles: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['start', 'end', 'status', 'invoice_id', 'invoice_number', 'invoice_status', 'total_net'],
        properties: {
          start: { type: 'string' },
          end: { type: 'string' },
          status: { type: 'string', enum: ['billed', 'skipped', 'paused', 'failed'] },
          invoice_id: nullableString255,
          invoice_number: nullableString255,
          invoice_status: nullableString255,
          total_net: nullableString255,
        },
      },
    },
  },
} as const;

export const upsertContractSchema = {
  operationId: 'upsertContract',
  tags: ['Contracts'],
  summary: 'Create or update a recurring contract by reference',
  description:
    'Creates the contract (201, with the next contract number) or updates it to what is sent (200, also when nothing changed). ' +
    'Items take price, VAT rate, unit and pricing model from the product they name unless they set them. Every term of an item (product, pricing model, tiers, included_quantity, overage price, unit price, VAT rate, billing timing) is frozen when it is added: ' +
    'sent again it changes nothing, other terms on the same ref are refused with 409 contract.terms_frozen (args: ref, terms). A quantity change takes effect today. ' +
    'Refusals: contract.* (409/422, interface §7), customer_not_found, product_not_found, pricing.*.',
  params: byRefParams,
  querystring: noQuery,
  body: contractBody,
  response: { 200: contractResponse, 201: contractResponse, ...errorResponses },
} as const;

export const retrieveContractSchema = {
  operationId: 'retrieveContract',
  tags: ['Contracts'],
  summary: 'Get a contract by reference, with its items and billing cycles',
  description: 'Unknown references, and contracts of other companies, give 404 contract_not_found.',
  params: byRefParams,
  querystring: noQuery,
  response: { 200: contractResponse, ...errorResponses },
} as const;

const usageRecord = {
  type: 'object',
  additionalProperties: false,
  required: ['external_ref', 'item_ref', 'quantity', 'occurred_at'],
  properties: {
    external_ref: {
      type: 'string',
      pattern: EXTERNAL_REF_PATTERN,
      description: "The caller's id of the record, stored once per contract: a repeat counts as a duplicate and changes nothing",
    },
    item_ref: { type: 'string', pattern: EXTERNAL_REF_PATTERN, description: 'The ref of the contract item the usage counts for' },
    quantity: {
      type: ['number', 'string'],
      'x-decimal': 'nonnegative',
      description: 'Units used: a JSON number or a decimal string, not negative, up to 12 digits before and 6 after the decimal point',
    },
    occurred_at: {
      type: 'string',
      format: 'date-time',
      description: "When the usage happened, with its offset; its calendar day in the company's time zone decides the billing cycle",
    },
  },
} as const;

export const usageBody = {
  type: 'object',
  additionalProperties: false,
  required: ['records'],
  properties: { records: { type: 'array', minItems: 1, maxItems: 1000, items: usageRecord, description: '1 to 1000 usage records' } },
} as const;

const usageResponse = {
  type: 'object',
  additionalProperties: false,
  required: ['recorded', 'duplicates'],
  properties: {
    recorded: { type: 'integer', description: 'Records stored by this request' },
    duplicates: { type: 'integer', description: 'Records whose external_ref was stored before or stands earlier in the batch; nothing changed for them' },
  },
} as const;

export const reportUsageSchema = {
  operationId: 'reportUsage',
  tags: ['Contracts'],
  summary: "Report usage for a contract's items",
  description:
    'Stores up to 1000 usage records at once, all or nothing: 201 when at least one record was stored, 200 when every record was a duplicate. ' +
    'The contract must be active or cancelled (it runs until its end_date), else 409 contract.not_active. ' +
    'A duplicate is not checked further, so a batch repeated after its period was billed answers 200 with duplicates. ' +
    'Refusals of the other records: an item reference the contract lacks gives 404 contract.item_not_found with item_refs; ' +
    'an item billed by its quantity, not by usage, gives 422 contract.item_not_usage_priced with item_refs; ' +
    'a day on which the contract was paused (also after the resume) gives 422 contract.usage_in_pause with refs and pauses; ' +
    "a record whose day (in the company's time zone) lies before usage_open_from belongs to a billed period: 422 contract.usage_period_closed with open_from and refs; " +
    "a record after the contract's end_date or its item's ends_after gives 422 validation_failed at its occurred_at.",
  params: byRefParams,
  querystring: noQuery,
  body: usageBody,
  response: { 200: usageResponse, 201: usageResponse, ...errorResponses },
} as const;
