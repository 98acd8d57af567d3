// Webhooks: endpoints per company, fan-out of outbox events, signed delivery with retries,
// and pruning of old history. Importing this module registers its daily task (tasks.ts).
import './tasks.ts';

export { type AddWebhookEndpointInput, addWebhookEndpoint } from './add-webhook-endpoint.ts';
export {
  type AttemptOutcome,
  type ClaimedDelivery,
  claimDeliveries,
  dispatchEvents,
  recordAttempts,
  recordAttemptsAndRefill,
  releaseExpiredDeliveries,
} from './deliveries.repository.ts';
export { envelopeJson } from './envelope.ts';
export { EVENT_KINDS, INVOICE_EVENT_KINDS, STATEMENT_EVENT_KINDS } from './event-kinds.ts';
export { DELIVERY_STATUSES, type ListWebhookDeliveriesInput, listWebhookDeliveries, type WebhookDeliveryView } from './list-webhook-deliveries.ts';
export { listWebhookEndpoints, type WebhookEndpointView } from './list-webhook-endpoints.ts';
export { PRUNE_LIMIT, type PruneSummary, type PruneWebhookHistoryInput, pruneWebhookHistory } from './prune-webhook-history.ts';
export { removeWebhookEndpoint } from './remove-webhook-endpoint.ts';
export { canResend, type ResendInput, type ResendResult, resendWebhookDelivery } from './resend-delivery.ts';
export { RETRY_WINDOW_MS, WEBHOOK_BACKOFF } from './retry-schedule.ts';
export {
  type WebhookDelivery,
  type WebhookDeliveryOptions,
  type WebhookDeps,
  type WebhookTally,
  type WebhookWorker,
  webhookDelivery,
} from './webhook-delivery.ts';
export { WebhookError, type WebhookErrorCode } from './webhook-error.ts';
export { checkWebhookUrl, WebhookUrlError, type WebhookUrlProblem } from './webhook-url.ts';
