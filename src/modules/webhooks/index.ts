// Webhooks: endpoints per company, fan-out of outbox events, signed delivery with retries.
export { type AddWebhookEndpointInput, addWebhookEndpoint } from './add-webhook-endpoint.ts';
export { claimDeliveries, dispatchEvents, recordAttempts, releaseExpiredDeliveries } from './deliveries.repository.ts';
export { envelopeJson } from './envelope.ts';
export { EVENT_KINDS, INVOICE_EVENT_KINDS, STATEMENT_EVENT_KINDS } from './event-kinds.ts';
export { type ListWebhookDeliveriesInput, listWebhookDeliveries, type WebhookDeliveryView } from './list-webhook-deliveries.ts';
export { listWebhookEndpoints, type WebhookEndpointView } from './list-webhook-endpoints.ts';
export { removeWebhookEndpoint } from './remove-webhook-endpoint.ts';
export { RETRY_WINDOW_MS, WEBHOOK_BACKOFF } from './retry-schedule.ts';
export {
  type WebhookDelivery,
  type WebhookDeliveryOptions,
  type WebhookDeps,
  type WebhookTally,
  type WebhookWorker,
  webhookDelivery,
} from './webhook-delivery.ts';
