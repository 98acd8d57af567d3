import type { Database } from '../../db/connection.ts';
import { inTransaction } from '../../db/transaction.ts';
import type { Clock } from '../../shared/clock.ts';
import { type Actor, recordAudit } from '../audit/audit-log.ts';
import { WebhookError } from './webhook-error.ts';

// "Erneut senden" (the app's endpoint page, `kontor admin webhook resend`): a delivery that
// failed for good, or one waiting for its next retry after failed attempts, is sent again
// at once by the normal delivery (the worker of `serve`/`worker`, or `jobs run`).
//
// The delivery itself goes back to the queue — no fresh delivery of the same event. Why:
// - The history stays one story per event and endpoint: the attempts before and after the
//   re-send are numbered on (attempt 4 follows attempt 3) under the same delivery, so the
//   page shows every attempt, and that a person re-sent it is in the audit trail.
// - The receiver sees the same envelope id (`webhook-id`) again, as with any retry, and
//   deduplicates by it (interface §6 rule 3). A new delivery would be a second copy of
//   the event that the tables rule out anyway (one delivery per endpoint and event).
// A delivery that had failed for good gets a fresh retry window (3 days from the re-sent
// attempt: `first_attempt_at` is set anew by the claim); one still waiting for a retry keeps
// its window and is only made due now. Due-ness is transport (real) time, like every
// webhook time (README); the audit row carries the business time of the person's step.

/**
 * What a re-send applies to: a delivery failed for good, or one waiting for a later retry
 * after a failed attempt (`now`: transport time). Not one already due, being sent, delivered
 * or cancelled.
 */
export function canResend(delivery: { status: string; attempt_count: number; next_attempt_at: Date | string | null }, now: Date): boolean {
  if (delivery.status === 'failed') return true;
  const next = delivery.next_attempt_at === null ? null : new Date(delivery.next_attempt_at).getTime();
  return delivery.status === 'pending' && delivery.attempt_count > 0 && next !== null && next > now.getTime();
}

export type ResendInput = {
  deliveryId: number;
  /** Only a delivery of this company is found (the app, and `--by`: the actor's company). */
  companyId: string;
  /** Transport time the delivery becomes due at; default real time (tests inject it). */
  now?: Date;
};

export type ResendResult = { id: number; endpoint_id: string; event_id: string; status: 'pending'; next_attempt_at: string; attempts_before: number };

export async function resendWebhookDelivery(db: Database, clock: Clock, actor: Actor, input: ResendInput): Promise<ResendResult> {
  const now = input.now ?? new Date();
  return inTransaction(db, async (trx) => {
    const delivery = await trx
      .selectFrom('webhook_deliveries')
      .select(['company_id', 'id', 'endpoint_id', 'event_id'])
      .where('company_id', '=', input.companyId)
      .where('id', '=', input.deliveryId)
      .executeTakeFirst();
    if (!delivery) throw new WebhookError('delivery_unknown', `no webhook delivery ${input.deliveryId}`);
    // KEY SHARE on the endpoint, like the fan-out: a removal (FOR UPDATE, then cancelling the
    // pending deliveries) waits for this re-send and cancels it, or this one sees it removed.
    const endpoint = await trx
      .selectFrom('webhook_endpoints')
      .select(['status'])
      .where('company_id', '=', delivery.company_id)
      .where('id', '=', delivery.endpoint_id)
      .forKeyShare()
      .executeTakeFirstOrThrow();
    if (endpoint.status === 'removed') throw new WebhookError('endpoint_removed', `webhook endpoint ${delivery.endpoint_id} is removed`);
    const before = await trx
      .selectFrom('webhook_deliveries')
      .select(['status', 'attempts', 'next_attempt_at', 'last_response_status', 'last_error'])
      .where('company_id', '=', delivery.company_id)
      .where('id', '=', delivery.id)
      .forUpdate()
      .executeTakeFirstOrThrow();
    if (!canResend({ status: before.status, attempt_count: before.attempts, next_attempt_at: before.next_attempt_at }, now)) {
      const state = before.status === 'pending' ? (before.attempts === 0 ? 'pending (not tried yet)' : 'pending and due now') : before.status;
      throw new WebhookError('not_resendable', `webhook delivery ${delivery.id} is ${state}; only a failed one is sent again`);
    }
    await trx
      .updateTable('webhook_deliveries')
      .set({
        status: 'pending',
        next_attempt_at: now,
        finished_at: null,
        // Failed for good: a fresh window from the re-sent attempt (the claim sets it).
        ...(before.status === 'failed' ? { first_attempt_at: null } : {}),
      })
      .where('company_id', '=', delivery.company_id)
      .where('id', '=', delivery.id)
      .execute();
    await recordAudit(trx, actor, clock.now(), {
      action: 'webhook.delivery_resent',
      subjectType: 'webhook_delivery',
      subjectId: String(delivery.id),
      before: {
        status: before.status,
        attempts: before.attempts,
        last_response_status: before.last_response_status,
        last_error: before.last_error,
        ...(before.status === 'pending' ? { next_attempt_at: before.next_attempt_at.toISOString() } : {}),
      },
      after: { status: 'pending', next_attempt_at: now.toISOString(), endpoint_id: delivery.endpoint_id, event_id: delivery.event_id },
    });
    return {
      id: delivery.id,
      endpoint_id: delivery.endpoint_id,
      event_id: delivery.event_id,
      status: 'pending',
      next_attempt_at: now.toISOString(),
      attempts_before: before.attempts,
    };
  });
}
