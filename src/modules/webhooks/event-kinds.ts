// The event kinds an endpoint can subscribe to (interface §6, design §5). An endpoint
// with no kinds gets every kind, also kinds added later.

export const INVOICE_EVENT_KINDS = ['invoice.issued', 'invoice.sent', 'invoice.paid', 'invoice.overdue', 'invoice.dunning_sent', 'invoice.cancelled'] as const;

export const STATEMENT_EVENT_KINDS = [
  'commission_statement.issued',
  'commission_statement.sent',
  'commission_statement.cancelled',
  'commission_statement.objected',
  'commission_statement.paid',
  'commission_statement.partner_invoice_received',
  'commission_statement.partner_invoice_refused',
] as const;

export const EVENT_KINDS: readonly string[] = [...INVOICE_EVENT_KINDS, ...STATEMENT_EVENT_KINDS];
