import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';
import { inTransaction } from '../../db/transaction.ts';
import type { Clock } from '../../shared/clock.ts';
import { type Actor, recordAudit } from '../audit/audit-log.ts';
import { WebhookError } from './webhook-error.ts';

/**
 * `kontor admin webhook remove`: the endpoint gets no further events, and its deliveries
 * still waiting are cancelled. An attempt already on the wire finishes and is recorded.
 * The endpoint row and its attempts stay for the record (until pruned with their events).
 * With `actor` (the app, `--by`) only an endpoint of the actor's company is found, and the
 * audit row `webhook.endpoint_removed` is written in the same transaction.
 */
export async function removeWebhookEndpoint(
  db: Database,
  clock: Clock,
  id: string,
  actor?: Actor,
): Promise<{ id: string; removed_at: string; cancelled_deliveries: number }> {
  const now = clock.now();
  return inTransaction(db, async (trx) => {
    const endpoint = await trx
      .selectFrom('webhook_endpoints')
      .select(['company_id', 'id', 'status', 'url', 'event_types'])
      .where('id', '=', id)
      .$if(actor !== undefined, (qb) => qb.where('company_id', '=', actor?.companyId ?? ''))
      .forUpdate()
      .executeTakeFirst();
    if (!endpoint) throw new WebhookError('endpoint_unknown', `no webhook endpoint ${id}`);
    if (endpoint.status === 'removed') throw new WebhookError('endpoint_removed', `webhook endpoint ${id} is already removed`);
    await trx
      .updateTable('webhook_endpoints')
      .set({ status: 'removed', removed_at: now, failing_since: null })
      .where('company_id', '=', endpoint.company_id)
      .where('id', '=', id)
      .execute();
    const cancelled = await trx
      .updateTable('webhook_deliveries')
      // finished_at in real time (the database's), like every webhook time retention goes by.
      .set({ status: 'cancelled', last_error: 'endpoint removed', finished_at: sql<Date>`now()` })
      .where('company_id', '=', endpoint.company_id)
      .where('endpoint_id', '=', id)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    if (actor) {
      await recordAudit(trx, actor, now, {
        action: 'webhook.endpoint_removed',
        subjectType: 'webhook_endpoint',
        subjectId: id,
        before: { url: endpoint.url, events: endpoint.event_types, status: endpoint.status },
        after: { status: 'removed', cancelled_deliveries: Number(cancelled.numUpdatedRows) },
      });
    }
    return { id, removed_at: now.toISOString(), cancelled_deliveries: Number(cancelled.numUpdatedRows) };
  });
}
