import type { ColumnType, Generated } from 'kysely';
import type { Timestamp } from './schema-types.ts';

// Row types of the webhook tables (migrations/0005_webhooks.sql, 0009_event_retention.sql).

type Nullable<T> = ColumnType<T | null, T | null | undefined, T | null>;

export type WebhookEndpointStatus = 'active' | 'failing' | 'removed';
export type WebhookDeliveryStatus = 'pending' | 'delivering' | 'delivered' | 'failed' | 'cancelled';

export interface WebhookEndpointsTable {
  company_id: string;
  id: string;
  url: string;
  event_types: ColumnType<string[], string[] | undefined, string[]>;
  secret_sealed: string;
  status: ColumnType<WebhookEndpointStatus, WebhookEndpointStatus | undefined, WebhookEndpointStatus>;
  failing_since: Nullable<Date>;
  removed_at: Nullable<Date>;
  created_at: Timestamp;
}

export interface WebhookDeliveriesTable {
  company_id: string;
  id: Generated<number>;
  endpoint_id: string;
  event_id: string;
  event_seq: number;
  status: ColumnType<WebhookDeliveryStatus, WebhookDeliveryStatus | undefined, WebhookDeliveryStatus>;
  attempts: ColumnType<number, number | undefined, number>;
  next_attempt_at: Timestamp;
  first_attempt_at: Nullable<Date>;
  last_attempt_at: Nullable<Date>;
  last_response_status: Nullable<number>;
  last_error: Nullable<string>;
  delivered_at: Nullable<Date>;
  locked_by: Nullable<string>;
  locked_until: Nullable<Date>;
  claimed_at: Nullable<Date>;
  created_at: Timestamp;
  /** When it became delivered, failed or cancelled (real time); null while pending or delivering. */
  finished_at: Nullable<Date>;
}

export interface WebhookAttemptsTable {
  company_id: string;
  delivery_id: number;
  attempt: number;
  endpoint_id: string;
  event_id: string;
  started_at: Timestamp;
  duration_ms: number | null;
  response_status: number | null;
  error: string | null;
  worker_id: string | null;
}
