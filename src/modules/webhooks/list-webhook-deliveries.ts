import type { Database } from '../../db/connection.ts';
import type { WebhookDeliveryStatus } from '../../db/schema-webhooks.ts';
import { AdminError } from '../access/admin-error.ts';

export const DELIVERY_STATUSES: readonly WebhookDeliveryStatus[] = ['pending', 'delivering', 'delivered', 'failed', 'cancelled'];

export type ListWebhookDeliveriesInput = {
  companyId?: string;
  endpointId?: string;
  eventId?: string;
  status?: WebhookDeliveryStatus;
  /** Paging by key: only deliveries of events recorded before this one (`event_seq` of the last row shown); exact with one endpoint. */
  beforeSeq?: number;
  limit?: number;
};

export type WebhookAttemptView = {
  attempt: number;
  started_at: string;
  duration_ms: number | null;
  response_status: number | null;
  error: string | null;
};

export type WebhookDeliveryView = {
  /** The delivery's id (`kontor admin webhook resend ID`). */
  id: number;
  company_id: string;
  endpoint_id: string;
  url: string;
  event_id: string;
  event_type: string;
  /** The event's position in the company's outbox (the paging key). */
  event_seq: number;
  status: WebhookDeliveryStatus;
  /** Attempts started (also one whose worker died before its result was written). */
  attempt_count: number;
  last_response_status: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  delivered_at: string | null;
  attempts: WebhookAttemptView[];
};

/**
 * `kontor admin webhook deliveries` and the app's endpoint page: the newest deliveries (by
 * event) matching the filters, each with every attempt: when, the receiver's status code or the error, how
 * long it took. `next_attempt_at` is set while a retry is waiting.
 */
export async function listWebhookDeliveries(db: Database, input: ListWebhookDeliveriesInput = {}): Promise<WebhookDeliveryView[]> {
  const limit = input.limit ?? 50;
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new AdminError(`--limit must be a whole number from 1 to 1000, got ${input.limit}`);
  if (input.status !== undefined && !DELIVERY_STATUSES.includes(input.status))
    throw new AdminError(`--status must be one of ${DELIVERY_STATUSES.join(', ')}, got ${input.status}`);
  if (input.companyId !== undefined) {
    const company = await db.selectFrom('companies').select('id').where('id', '=', input.companyId).executeTakeFirst();
    if (!company) throw new AdminError(`no company ${input.companyId}`);
  }
  if (input.endpointId !== undefined) {
    const endpoint = await db.selectFrom('webhook_endpoints').select('id').where('id', '=', input.endpointId).executeTakeFirst();
    if (!endpoint) throw new AdminError(`no webhook endpoint ${input.endpointId}`);
  }
  const deliveries = await db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as w', (join) => join.onRef('w.company_id', '=', 'd.company_id').onRef('w.id', '=', 'd.endpoint_id'))
    .innerJoin('events as e', (join) => join.onRef('e.company_id', '=', 'd.company_id').onRef('e.id', '=', 'd.event_id'))
    .select([
      'd.company_id',
      'd.id',
      'd.endpoint_id',
      'w.url',
      'd.event_id',
      'd.event_seq',
      'e.type',
      'd.status',
      'd.attempts',
      'd.last_response_status',
      'd.last_error',
      'd.next_attempt_at',
      'd.delivered_at',
    ])
    .$if(input.companyId !== undefined, (qb) => qb.where('d.company_id', '=', input.companyId!))
    .$if(input.endpointId !== undefined, (qb) => qb.where('d.endpoint_id', '=', input.endpointId!))
    .$if(input.eventId !== undefined, (qb) => qb.where('d.event_id', '=', input.eventId!))
    .$if(input.status !== undefined, (qb) => qb.where('d.status', '=', input.status!))
    .$if(input.beforeSeq !== undefined, (qb) => qb.where('d.event_seq', '<', input.beforeSeq!))
    .orderBy('d.event_seq', 'desc')
    .orderBy('d.endpoint_id')
    .limit(limit)
    .execute();
  if (deliveries.length === 0) return [];

  const attempts = await db
    .selectFrom('webhook_attempts')
    .select(['company_id', 'delivery_id', 'attempt', 'started_at', 'duration_ms', 'response_status', 'error'])
    .where((eb) => eb.or(deliveries.map((d) => eb.and([eb('company_id', '=', d.company_id), eb('delivery_id', '=', d.id)]))))
    .orderBy('attempt')
    .execute();
  const byDelivery = new Map<string, WebhookAttemptView[]>();
  for (const a of attempts) {
    const key = `${a.company_id}/${a.delivery_id}`;
    const list = byDelivery.get(key) ?? [];
    list.push({
      attempt: a.attempt,
      started_at: a.started_at.toISOString(),
      duration_ms: a.duration_ms,
      response_status: a.response_status,
      error: a.error,
    });
    byDelivery.set(key, list);
  }
  return deliveries.map((d) => ({
    id: d.id,
    company_id: d.company_id,
    endpoint_id: d.endpoint_id,
    url: d.url,
    event_id: d.event_id,
    event_type: d.type,
    event_seq: d.event_seq,
    status: d.status,
    attempt_count: d.attempts,
    last_response_status: d.last_response_status,
    last_error: d.last_error,
    next_attempt_at: d.status === 'pending' ? d.next_attempt_at.toISOString() : null,
    delivered_at: d.delivered_at?.toISOString() ?? null,
    attempts: byDelivery.get(`${d.company_id}/${d.id}`) ?? [],
  }));
}
