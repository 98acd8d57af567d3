import { toValidationIssues, validatorCompiler } from '../../http/validation.ts';
import type { ValidationIssue } from '../../shared/errors.ts';
import { amountLimitIssues } from './amount-limits.ts';
import type { CreateInvoiceLine } from './create-invoice-input.ts';
import { createInvoiceBody } from './invoices.schemas.ts';

// The body of a draft a person writes in the app (or with `kontor admin invoice draft`):
// the shape of POST /invoices, checked by the same schema and amount limits, with three
// differences. The customer may be named by its service id (the app's form) as well as by
// {source, external_ref}; the reference is optional (a draft written by hand has none in the
// caller's system); it is always a draft (`issue` and `send` may only be false), and it may
// carry a note printed on the invoice. No attribution: that names a partner of the API's
// source, and the draft is no part of the API.

export type AppDraftBody = {
  customer: { id: string } | { source: string; external_ref: string };
  external_ref?: string;
  lines: CreateInvoiceLine[];
  service_period: { start: string; end: string };
  payment_terms_days?: number;
  currency?: 'EUR';
  issue?: false;
  send?: false;
  note?: string | null;
};

const api = createInvoiceBody.properties;

export const appDraftSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['customer', 'lines', 'service_period'],
  properties: {
    customer: {
      type: 'object',
      additionalProperties: false,
      properties: { id: { type: 'string', pattern: '^cus_[0-9a-z]{26}$' }, ...api.customer.properties },
    },
    external_ref: api.external_ref,
    lines: api.lines,
    service_period: api.service_period,
    payment_terms_days: api.payment_terms_days,
    currency: api.currency,
    issue: { type: 'boolean', enum: [false] },
    send: { type: 'boolean', enum: [false] },
    note: { type: ['string', 'null'], minLength: 1, maxLength: 500 },
  },
} as const;

const validate = validatorCompiler({ schema: appDraftSchema, httpPart: 'body', method: 'POST', url: 'app-draft' }) as ((data: unknown) => boolean) & {
  errors?: Parameters<typeof toValidationIssues>[0];
};

/**
 * What keeps `body` from being a draft (none: it is one), as the API would say it: `loc`
 * from `body`, the API's rule names. The customer must be named one way, completely.
 */
export function appDraftIssues(body: unknown): ValidationIssue[] {
  if (!validate(body)) return toValidationIssues(validate.errors ?? [], 'body');
  const draft = body as AppDraftBody;
  const customer = draft.customer as Record<string, string | undefined>;
  const byId = customer.id !== undefined;
  const byRef = customer.source !== undefined || customer.external_ref !== undefined;
  if (byId === byRef || (byRef && (customer.source === undefined || customer.external_ref === undefined))) {
    return [{ loc: ['body', 'customer'], type: 'missing', msg: 'Name the customer by id, or by source and external_ref' }];
  }
  if (draft.service_period.end < draft.service_period.start) {
    return [{ loc: ['body', 'service_period', 'end'], type: 'less_than_minimum', msg: 'The service period ends before it starts' }];
  }
  return amountLimitIssues(draft.lines);
}
