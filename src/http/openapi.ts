import type { SwaggerTransform } from '@fastify/swagger';
import type { FastifySwaggerUiOptions } from '@fastify/swagger-ui';
import { ERROR_CATALOGUE, type ErrorCode } from '../shared/errors.ts';

// What the OpenAPI document (/v1/openapi.json, /docs) says beyond the route schemas: each
// operation's refusals, one response per status with its codes and their meanings from
// ERROR_CATALOGUE (the sentences the service answers with). Documentation only: the
// transform below rewrites the copy @fastify/swagger documents, while the routes' own
// 4xx/5xx schemas (common-schemas.ts) keep shaping the error bodies that are sent.

/**
 * Every /v1 operation: the key and its scope (auth.ts), the Service-Version header, the
 * schemas, a failure, and what any request can meet before it is routed (transport.ts,
 * transport-hooks.ts: an unreadable request, a time-out, an unknown Expect, a server
 * that is shutting down).
 */
export const EVERY_OPERATION_ERRORS = [
  'api_key_admin_required',
  'api_key_entity_not_accessible',
  'api_key_entity_not_single',
  'api_key_expired',
  'api_key_invalid',
  'api_key_missing',
  'api_key_scope_missing',
  'api_key_user_inactive',
  'api_version_unknown',
  'validation_failed',
  'internal_error',
  'malformed_request',
  'request_timeout',
  'expectation_failed',
  'service_unavailable',
] as const satisfies readonly ErrorCode[];

/** Requests that carry a body (POST, PUT): what the body parser refuses before validation. */
export const BODY_ERRORS = ['malformed_body', 'unsupported_media_type', 'payload_too_large'] as const satisfies readonly ErrorCode[];

/** Answers to a path or method that no operation serves, so listed on none. */
export const ROUTING_ERRORS = ['route_not_found', 'method_not_allowed'] as const satisfies readonly ErrorCode[];

const PRICING_ERRORS = [
  'pricing.model_unknown',
  'pricing.negative_value',
  'pricing.overage_needs_quota',
  'pricing.package_size_missing',
  'pricing.quantity_negative',
  'pricing.tier_incomplete',
  'pricing.tier_invalid',
  'pricing.tiers_empty',
  'pricing.tiers_overlap',
] as const satisfies readonly ErrorCode[];

const DOCUMENT_ERRORS = ['invoice_not_found', 'invoice_not_issued', 'invoice_pdf_missing'] as const satisfies readonly ErrorCode[];

/**
 * Each operation's own refusals, by operationId: interface §7's "Returned by" column, plus
 * what the code throws beyond it (conflict_retry wherever inTransaction runs out of attempts,
 * the not-found codes of the retrieve operations, a draft or missing PDF on send, an
 * exhausted number range on cancel). Every documented operation needs an entry.
 */
export const OPERATION_ERRORS: Record<string, readonly ErrorCode[]> = {
  upsertCustomer: ['conflict_retry', 'customer_number_range_exhausted'],
  retrieveCustomer: ['customer_not_found'],
  upsertProduct: ['conflict_retry', 'product_number_taken', ...PRICING_ERRORS],
  retrieveProduct: ['product_not_found'],
  upsertContract: [
    'conflict_retry',
    'customer_not_found',
    'product_not_found',
    'contract.customer_mismatch',
    'contract.date_range_invalid',
    'contract.end_before_billed',
    'contract.ended',
    'contract.interval_mismatch',
    'contract.item_product_changed',
    'contract.not_active',
    'contract.not_draft',
    'contract.terms_frozen',
    ...PRICING_ERRORS,
  ],
  retrieveContract: ['contract_not_found'],
  reportUsage: [
    'conflict_retry',
    'contract_not_found',
    'contract.item_not_found',
    'contract.item_not_usage_priced',
    'contract.not_active',
    'contract.usage_in_pause',
    'contract.usage_period_closed',
  ],
  createInvoice: [
    'idempotency_key_invalid',
    'idempotency_key_missing',
    'idempotency_key_reused',
    'conflict_retry',
    'invoice_external_ref_exists',
    'customer_not_found',
    'product_not_found',
    'commission.agreement_not_found',
    'commission.agreement_takes_no_attributions',
    'commission.attribution_conflict',
    'commission.attribution_reference_mismatch',
    'invoice_not_issuable',
    'period_locked',
    'invoice_render_failed',
  ],
  listInvoices: [],
  retrieveInvoice: ['invoice_not_found'],
  retrieveInvoiceByRef: ['invoice_not_found'],
  downloadInvoicePdf: DOCUMENT_ERRORS,
  downloadInvoiceXml: DOCUMENT_ERRORS,
  sendInvoice: ['conflict_retry', 'invoice_send_failed', ...DOCUMENT_ERRORS],
  cancelInvoice: ['conflict_retry', 'invoice_not_found', 'invoice_not_cancellable', 'invoice_not_issuable', 'period_locked', 'invoice_render_failed'],
  // commission.supplier_not_found as interface §7 lists it: no request field names a
  // supplier yet (each partner gets its own), so the API does not answer it today.
  upsertCommissionPartner: [
    'conflict_retry',
    'commission.billing_mode_invalid',
    'commission.creditor_number_range_exhausted',
    'commission.e_invoice_format_invalid',
    'commission.min_payout_invalid',
    'commission.partner_archived',
    'commission.partner_kind_invalid',
    'commission.partner_name_missing',
    'commission.supplier_not_found',
    'commission.tax_status_invalid',
  ],
  retrieveCommissionPartner: ['commission.partner_not_found'],
  // commission.condition_not_found for every condition_id: no conditions exist yet.
  upsertCommissionAgreement: [
    'conflict_retry',
    'commission.agreement_partner_mismatch',
    'commission.agreement_terms_frozen',
    'commission.anchor_invalid',
    'commission.applies_to_invalid',
    'commission.condition_not_found',
    'commission.date_range_invalid',
    'commission.partner_not_found',
    'commission.product_not_found',
    'commission.product_scope_invalid',
    'commission.start_date_missing',
    'commission.tiers_empty',
  ],
  upsertCommissionAttribution: [
    'conflict_retry',
    'customer_not_found',
    'commission.agreement_not_found',
    'commission.agreement_takes_no_attributions',
    'commission.attribution_conflict',
    'commission.attribution_reference_mismatch',
    'commission.date_range_invalid',
  ],
  retrieveCommissionAttribution: ['commission.attribution_not_found'],
  createRevenueEvent: [
    'conflict_retry',
    'customer_not_found',
    'commission.product_not_found',
    'commission.revenue_event_not_found',
    'commission.revenue_lines_do_not_add_up',
  ],
  listCommissionEntries: ['commission.partner_not_found'],
  listCommissionStatements: ['commission.partner_not_found'],
  retrieveCommissionStatement: ['commission.statement_not_found'],
  downloadCommissionStatementPdf: ['commission.statement_not_found'],
};

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

/** The codes an operation can answer with, in catalogue order. */
export function documentedErrors(operationId: string, method: string): ErrorCode[] {
  const codes = new Set<ErrorCode>([
    ...EVERY_OPERATION_ERRORS,
    ...(METHODS_WITH_BODY.has(method.toUpperCase()) ? BODY_ERRORS : []),
    ...(OPERATION_ERRORS[operationId] ?? []),
  ]);
  return (Object.keys(ERROR_CATALOGUE) as ErrorCode[]).filter((code) => codes.has(code));
}

// The extra fields of detail (interface §7 "Extra fields"), declared where a status carries such a code.
const strings = { type: 'array', items: { type: 'string' } } as const;
const EXTRA_FIELDS: Partial<Record<ErrorCode, Record<string, object>>> = {
  validation_failed: {
    errors: {
      type: 'array',
      description: 'One entry per problem: loc (path starting with body, query, params or headers), type (rule name), msg',
      items: {
        type: 'object',
        properties: { loc: { type: 'array', items: { type: ['string', 'integer'] } }, type: { type: 'string' }, msg: { type: 'string' } },
      },
    },
  },
  api_key_scope_missing: { scope: { type: 'string', description: 'The scope the operation needs' } },
  api_version_unknown: { supported: { ...strings, description: 'The versions offered' } },
  'pricing.model_unknown': { supported: { ...strings, description: 'The pricing models offered' } },
  invoice_external_ref_exists: { invoice_id: { type: 'string', description: 'The invoice that has this external_ref' } },
  invoice_not_issuable: { messages: { ...strings, description: 'German sentences for a person; not to be parsed' } },
  invoice_not_cancellable: { messages: { ...strings, description: 'German sentences for a person; not to be parsed' } },
  invoice_send_failed: {
    send_error: {
      type: 'object',
      description: 'Why the mail did not leave, as in send_error of createInvoice',
      properties: { code: { type: 'string' }, message: { type: 'string' } },
    },
  },
  product_not_found: { product_ref: { type: 'string' }, product_number: { type: 'string' } },
  'commission.attribution_conflict': {
    conflicts_with_id: { type: 'string', description: "The other partner's attribution that holds the customer in the overlapping period" },
  },
  'commission.product_not_found': { product_numbers: { ...strings, description: 'The article numbers the company lacks, sorted' } },
  'contract.item_not_found': { item_refs: { ...strings, description: 'The item references the contract lacks, sorted' } },
  'contract.usage_period_closed': {
    open_from: { type: 'string', format: 'date', description: "The contract's usage_open_from: usage before this day is billed" },
    refs: { ...strings, description: 'The external_refs of the refused records, in batch order' },
  },
  'contract.item_not_usage_priced': { item_refs: { ...strings, description: 'The named items billed by their quantity, sorted' } },
  'contract.usage_in_pause': {
    refs: { ...strings, description: 'The external_refs of the records dated on a paused day, in batch order' },
    pauses: {
      type: 'array',
      description: 'The pauses those days fall in',
      items: { type: 'object', properties: { from: { type: 'string', format: 'date' }, until: { type: ['string', 'null'], format: 'date' } } },
    },
  },
  'contract.terms_frozen': {
    args: {
      type: 'object',
      description: 'For an item: its ref and the agreed terms the request would change (none when an item was left out)',
      properties: { ref: { type: 'string' }, terms: strings },
    },
  },
};

function refusalResponse(codes: ErrorCode[]) {
  const extra = Object.assign({}, ...codes.map((code) => EXTRA_FIELDS[code] ?? {}));
  return {
    // @fastify/swagger's key for the response's own description, kept out of its schema.
    'x-response-description': codes.map((code) => `- \`${code}\`: ${ERROR_CATALOGUE[code][1]}`).join('\n'),
    type: 'object',
    description: 'A refusal: {detail: {code, message, ...}}; detail.code is the stable machine-readable code',
    required: ['detail'],
    properties: {
      detail: {
        type: 'object',
        required: ['code', 'message'],
        // Further fields are allowed (JSON Schema's default); an explicit additionalProperties
        // would show as "additionalProp1" in every example of the /docs page.
        properties: {
          code: { type: 'string', enum: codes },
          message: { type: 'string', description: 'A readable sentence; not to be parsed' },
          ...extra,
        },
      },
    },
  };
}

/**
 * @fastify/swagger's `transform`: an operation's generic 4xx/5xx entries become one response
 * per status it can answer with. Returns new objects; the route's schema stays as it is.
 */
export const documentRefusals: SwaggerTransform = ({ schema, url, route }) => {
  const operationId = schema?.operationId;
  if (!schema || schema.hide || !operationId) return { schema, url };
  const method = Array.isArray(route.method) ? route.method[0] : route.method;
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of documentedErrors(operationId, String(method))) {
    const status = ERROR_CATALOGUE[code][0];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const response: Record<string, unknown> = Object.fromEntries(
    Object.entries((schema.response ?? {}) as Record<string, unknown>).filter(([status]) => !/^[45]xx$/i.test(status)),
  );
  for (const status of [...byStatus.keys()].sort((a, b) => a - b)) response[status] = refusalResponse(byStatus.get(status)!);
  return { schema: { ...schema, response }, url };
};

// The /docs page: Kontor in its title, top bar and icon, nothing loaded from elsewhere.
const WORDMARK =
  '<svg xmlns="http://www.w3.org/2000/svg" width="176" height="40" viewBox="0 0 176 40">' +
  '<text x="0" y="29" fill="#ffffff" font-family="Helvetica, Arial, sans-serif" font-size="26" font-weight="700">Kontor API</text></svg>';
const ICON =
  '<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#1b1b1b"/>' +
  '<text x="16" y="23" fill="#ffffff" font-family="Helvetica, Arial, sans-serif" font-size="20" font-weight="700" text-anchor="middle">K</text></svg>';

export const DOCS_TITLE = 'Kontor API';

export const docsUiOptions = {
  routePrefix: '/docs',
  staticCSP: true,
  theme: { title: DOCS_TITLE, favicon: [{ filename: 'kontor.svg', rel: 'icon', type: 'image/svg+xml', sizes: 'any', content: ICON }] },
  logo: { type: 'image/svg+xml', content: WORDMARK },
} satisfies FastifySwaggerUiOptions;
