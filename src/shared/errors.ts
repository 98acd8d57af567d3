// The error catalogue: every refusal code with its HTTP status and a readable English
// sentence. Domain code throws AppError(code, fields); http/error-handler.ts renders
// {detail: {code, message?, ...fields}}. Codes beyond interface.md §7 are marked (kontor).

export const ERROR_CATALOGUE = {
  api_key_admin_required: [403, 'The creator of this API key is not an admin of the organisation.'],
  api_key_entity_not_accessible: [403, 'The company of this API key is no longer reachable for its creator.'],
  api_key_entity_not_single: [403, 'This API key is not limited to exactly one company.'],
  api_key_expired: [401, 'This API key has expired.'],
  api_key_invalid: [401, 'The API key is unknown, revoked or not a key of this service.'],
  api_key_missing: [401, 'The request has no Authorization: Bearer header.'],
  api_key_scope_missing: [403, 'The API key lacks the scope this operation needs.'],
  api_key_user_inactive: [401, 'The creator of this API key no longer has access to the organisation.'],
  api_version_unknown: [400, 'The Service-Version header names a version this service does not offer.'],
  validation_failed: [422, 'The request does not fit the schema.'],
  conflict_retry: [409, 'Another request changed the same record at the same moment; repeat the request.'],
  customer_not_found: [404, 'No customer with this reference in the company; create it first.'],
  customer_number_range_exhausted: [409, 'No free customer number is left in 10000 to 69999.'],
  product_not_found: [404, 'No product with this reference or article number in the company.'],
  product_number_taken: [409, 'This article number belongs to another product.'],
  'pricing.model_unknown': [422, 'Unknown pricing model.'],
  'pricing.negative_value': [422, 'Prices and amounts of a pricing model cannot be negative.'],
  'pricing.overage_needs_quota': [422, 'An overage price needs included_quantity.'],
  'pricing.package_size_missing': [422, 'The package model needs the package size in included_quantity.'],
  'pricing.quantity_negative': [422, 'Quantities cannot be negative.'],
  'pricing.tier_incomplete': [422, 'A tier lacks from or unit_price.'],
  'pricing.tier_invalid': [422, 'A tier is invalid: the first starts at 0, each next one starts where the previous ends, and to is above from.'],
  'pricing.tiers_empty': [422, 'A tiered model needs at least one tier.'],
  'pricing.tiers_overlap': [422, 'Tiers overlap, or an open-ended tier is not the last one.'],
  idempotency_key_invalid: [400, 'The Idempotency-Key must be 1 to 255 printable ASCII characters without spaces.'],
  idempotency_key_missing: [400, 'POST /invoices needs the Idempotency-Key header.'],
  idempotency_key_reused: [409, 'This Idempotency-Key was used with a different request body.'],
  invoice_external_ref_exists: [409, 'An invoice with this external_ref exists.'],
  invoice_not_cancellable: [422, 'The invoice cannot be cancelled in its state (paid, even partly).'],
  invoice_not_found: [404, 'No invoice the API can see under this id or reference.'],
  invoice_not_issuable: [422, 'A mandatory detail for issuing is missing on the company, the customer or a line.'],
  invoice_not_issued: [409, 'A draft has no PDF yet.'],
  invoice_pdf_missing: [404, 'The document is not available.'],
  invoice_render_failed: [500, 'Rendering the PDF or e-invoice failed; nothing was created. Repeat the request.'],
  invoice_send_failed: [422, 'The invoice exists but the mail could not be sent; retry via send.'],
  period_locked: [409, 'The accounting period is locked; corrections go into the open period.'],
  contract_not_found: [404, 'No contract with this reference in the company.'],
  'contract.customer_mismatch': [409, 'The contract belongs to another customer; a contract never changes its customer.'],
  'contract.date_range_invalid': [422, 'The end date lies before the start date.'],
  'contract.end_before_billed': [422, 'The end date lies inside a period billed in advance; end on billed_until or later.'],
  'contract.ended': [409, 'The contract has ended and cannot change.'],
  'contract.interval_mismatch': [422, 'A product recurs in another interval than the contract, or is one-off.'],
  'contract.item_not_found': [404, 'Usage names an item reference the contract lacks.'],
  // (kontor) issue 24: usage for an item billed by its quantity, usage dated on a paused day
  'contract.item_not_usage_priced': [422, 'Usage names items billed by their quantity, not by usage; report usage only for usage-priced items.'],
  'contract.usage_in_pause': [422, 'Usage dated on a day the contract was paused is not billed and is refused.'],
  'contract.item_product_changed': [409, 'An item reference keeps its product; use a new item reference.'],
  'contract.not_active': [409, 'The contract is a draft or has ended.'],
  'contract.not_draft': [409, 'A running contract cannot go back to draft.'],
  'contract.terms_frozen': [409, "Interval and start are fixed once the contract runs, an item's terms once it is added (a new deal is a new item ref)."],
  'contract.usage_period_closed': [422, 'Usage before open_from belongs to a billed period.'],
  'commission.agreement_not_found': [404, 'No agreement with this reference.'],
  'commission.agreement_partner_mismatch': [409, 'The agreement belongs to another partner; an agreement never changes its partner.'],
  'commission.agreement_takes_no_attributions': [422, 'The agreement applies to all customers and takes no attributions.'],
  'commission.agreement_terms_frozen': [409, 'The terms of an agreement cannot change once it exists; make a new agreement and end this one with end_date.'],
  'commission.anchor_invalid': [422, 'Unknown anchor; use attribution_start or first_paid_revenue.'],
  'commission.applies_to_invalid': [422, 'Unknown applies_to; use attributed_customers or all_customers.'],
  'commission.attribution_conflict': [409, 'Another partner holds this customer in an overlapping period; end that attribution first.'],
  // (kontor) GET of an attribution by reference
  'commission.attribution_not_found': [404, 'No attribution with this reference.'],
  'commission.attribution_reference_mismatch': [409, 'The attribution reference exists for another customer or agreement.'],
  'commission.billing_mode_invalid': [422, 'Unknown billing mode; use self_billing, settlement or partner_invoice.'],
  'commission.condition_not_found': [404, 'The condition named by condition_id does not exist.'],
  'commission.creditor_number_range_exhausted': [409, 'No free creditor number is left in 70000 to 79999.'],
  'commission.date_range_invalid': [422, 'The end date lies before the start date.'],
  'commission.e_invoice_format_invalid': [422, 'Unknown e-invoice format; use auto, zugferd, xrechnung or none.'],
  'commission.min_payout_invalid': [422, 'The minimum payout must be whole cents and cannot be negative.'],
  'commission.partner_archived': [409, 'The partner is archived and cannot change.'],
  'commission.partner_kind_invalid': [422, 'Unknown partner kind; use sales_partner, developer or other.'],
  'commission.partner_name_missing': [422, 'The partner needs a name.'],
  'commission.partner_not_found': [404, 'No partner with this reference.'],
  'commission.product_not_found': [404, 'A named product does not exist in the company.'],
  'commission.product_scope_invalid': [422, 'The product selection is invalid: name each article number once, or send null for every product.'],
  'commission.revenue_event_not_found': [404, 'reverses_ref names no revenue event of the caller (in this source).'],
  'commission.revenue_lines_do_not_add_up': [422, 'The lines do not add up to net_amount.'],
  'commission.statement_not_found': [404, 'No issued statement with this id.'],
  'commission.start_date_missing': [422, 'The agreement needs a start_date.'],
  'commission.supplier_not_found': [404, 'The supplier to link the partner to does not exist.'],
  'commission.tax_status_invalid': [
    422,
    'Unknown tax status; use domestic_regular, domestic_small_business, eu_reverse_charge, third_country or private_person.',
  ],
  'commission.tiers_empty': [422, 'The agreement needs at least one tier.'],
  // (kontor) transport-level refusals
  route_not_found: [404, 'No such route.'],
  malformed_body: [400, 'The request body is not valid JSON in UTF-8.'],
  malformed_request: [
    400,
    'The request cannot be read: its path is not valid percent-encoded UTF-8, a path segment is too long, or its HTTP is malformed or its headers too large.',
  ],
  request_timeout: [408, 'The request did not arrive completely in time; send it again.'],
  payload_too_large: [413, 'The request body is larger than 1 MiB.'],
  unsupported_media_type: [415, 'Request bodies must be application/json.'],
  method_not_allowed: [405, 'This route does not accept this method.'],
  expectation_failed: [417, 'The Expect header asks for something other than 100-continue, which this service does not offer.'],
  internal_error: [500, 'The service failed; repeat the request.'],
  service_unavailable: [503, 'The service is shutting down; repeat the request.'],
} as const satisfies Record<string, readonly [number, string]>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly fields: Record<string, unknown>;

  constructor(code: ErrorCode, fields: Record<string, unknown> = {}, message?: string) {
    const [status, defaultMessage] = ERROR_CATALOGUE[code];
    super(message ?? defaultMessage);
    this.code = code;
    this.status = status;
    this.fields = fields;
  }
}

export type ValidationIssue = { loc: (string | number)[]; type: string; msg: string };

export function validationFailed(errors: ValidationIssue[]): AppError {
  return new AppError('validation_failed', { errors });
}

/** Thrown inside a transaction to roll it back and run the operation again. */
export class RetryTransaction extends Error {}
