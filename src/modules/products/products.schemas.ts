import { byRefParams, errorResponses, noQuery, nullableString } from '../../http/common-schemas.ts';
import { MAX_UNIT_PRICE } from '../../shared/money.ts';
import { PRICING_MODELS } from './pricing.ts';

// Product request and response (design §6 product body and pricing models).
// pricing_model has no enum and decimals accept a leading minus on purpose: an unknown
// model and negative values are refused with their pricing.* codes, which win over
// validation_failed (design §3). Likewise a tier's from and unit_price are not required
// here, because a tier lacking them is pricing.tier_incomplete.

const DECIMAL_NOTE = 'decimal string with at most 6 decimals, no exponent';

const PRICE_NOTE = `${DECIMAL_NOTE}, at most ${MAX_UNIT_PRICE}`;
const price = (description: string) => ({ type: 'string', 'x-decimal': true, description: `${description}; ${PRICE_NOTE}` }) as const;
const nullablePrice = (description: string) => ({ type: ['string', 'null'], 'x-decimal': true, description: `${description}; ${PRICE_NOTE}` }) as const;
const quantity = (description: string) =>
  ({ type: ['string', 'number', 'null'], 'x-decimal': true, description: `${description}; a JSON number or ${DECIMAL_NOTE}` }) as const;

const tierRequest = {
  type: 'object',
  additionalProperties: false,
  description: 'Covers quantities q with from ≤ q < to. The first tier starts at 0, each next one where the previous ends; only the last may be open-ended.',
  properties: {
    from: quantity('First quantity of the tier (required)'),
    to: quantity('Quantity where the tier ends (exclusive); null or absent: open-ended'),
    unit_price: nullablePrice('Net price per unit within the tier (required)'),
    flat_price: nullablePrice('Net fixed amount added when the tier is reached'),
  },
} as const;

export const productFields = {
  product_number: {
    type: 'string',
    minLength: 1,
    maxLength: 64,
    pattern: '^[A-Za-z0-9][A-Za-z0-9._/-]{0,63}$',
    description: 'Article number, unique within the company',
  },
  name: { type: 'string', minLength: 1, maxLength: 255 },
  description: nullableString(2000),
  unit: nullableString(32, { description: 'Unit printed on invoice lines, e.g. "Stück", "Monat", "h"' }),
  unit_price_net: price('Net price per unit (flat, per_unit), per package (package) or base fee per interval (quota)'),
  vat_rate: { type: 'integer', enum: [0, 7, 19], description: 'VAT rate in percent; default 19' },
  billing_interval: { type: 'string', enum: ['one_off', 'month', 'quarter', 'year'] },
  pricing_model: {
    type: ['string', 'null'],
    description: `One of ${PRICING_MODELS.join(', ')}. Default flat for recurring intervals, per_unit for one_off. An unknown name is refused with pricing.model_unknown.`,
  },
  included_quantity: quantity('Package size (package) or quantity included free (quota); used by no other model'),
  overage_price: nullablePrice('Net price per unit beyond included_quantity (quota only)'),
  tiers: {
    type: ['array', 'null'],
    maxItems: 50,
    items: tierRequest,
    description: 'Price tiers of the graduated and volume models; refused on other models',
  },
} as const;

export const productBody = {
  type: 'object',
  additionalProperties: false,
  required: ['product_number', 'name', 'unit_price_net', 'billing_interval'],
  properties: productFields,
} as const;

const decimalOut = { type: 'string' } as const;
const nullableDecimalOut = { type: ['string', 'null'] } as const;

export const productResponse = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'external_source', 'external_ref', ...Object.keys(productFields)],
  properties: {
    id: { type: 'string' },
    external_source: { type: 'string' },
    external_ref: { type: 'string' },
    product_number: { type: 'string' },
    name: { type: 'string' },
    description: { type: ['string', 'null'] },
    unit: { type: ['string', 'null'] },
    unit_price_net: decimalOut,
    vat_rate: { type: 'integer', enum: [0, 7, 19] },
    billing_interval: { type: 'string', enum: ['one_off', 'month', 'quarter', 'year'] },
    pricing_model: { type: 'string', enum: [...PRICING_MODELS] },
    included_quantity: nullableDecimalOut,
    overage_price: nullableDecimalOut,
    tiers: {
      type: ['array', 'null'],
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['from', 'to', 'unit_price', 'flat_price'],
        properties: { from: decimalOut, to: nullableDecimalOut, unit_price: decimalOut, flat_price: nullableDecimalOut },
      },
    },
  },
} as const;

export const upsertProductSchema = {
  operationId: 'upsertProduct',
  tags: ['Products'],
  summary: 'Create or update a product by reference',
  description:
    'Creates the product (201) or updates it to what is sent (200, also when nothing changed). Omitted optional fields become null. ' +
    'Refusals: an unknown pricing model, negative quantities or prices, and inconsistent pricing inputs give 422 pricing.*; ' +
    'an article number held by another product of the company gives 409 product_number_taken.',
  params: byRefParams,
  querystring: noQuery,
  body: productBody,
  response: { 200: productResponse, 201: productResponse, ...errorResponses },
} as const;

export const retrieveProductSchema = {
  operationId: 'retrieveProduct',
  tags: ['Products'],
  summary: 'Get a product by reference',
  description: 'Unknown references, and products of other companies, give 404 product_not_found.',
  params: byRefParams,
  querystring: noQuery,
  response: { 200: productResponse, ...errorResponses },
} as const;
