import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';
import type { Trx } from '../../db/transaction.ts';

/** Events pruned per company and run at most (with their deliveries and attempts). */
export const PRUNE_LIMIT = 5_000;

export type PruneWebhookHistoryInput = {
  companyId: string;
  /** Real time (transport time, like every webhook time): what "older" is measured from. */
  now: Date;
  retentionDays: number;
  limit?: number;
};

/** What went; `capped` is 1 when the limit stopped the run (more is old enough: the next run goes on). */
export type PruneSummary = { events: number; deliveries: number; attempts: number; capped: 0 | 1 };

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Daily task `webhooks.prune` (retention, `KONTOR_EVENT_RETENTION_DAYS`): deletes a
 * company's events that are done with, oldest first, with their webhook deliveries and
 * attempts, in one statement. An event is done with when it was dispatched more than
 * `retentionDays` ago and every delivery of it is final (delivered, failed or cancelled)
 * and finished more than `retentionDays` ago; an event without deliveries (no endpoint
 * wanted it) goes `retentionDays` after its dispatch. Nothing undispatched, pending or
 * delivering is touched, nor anything of a delivery still in its retention.
 *
 * Final deliveries never change again and a dispatched event gets no new deliveries, so
 * what the statement finds done stays done; events locked by another prune are skipped.
 * Nothing else reads `events` (the invoice change feed has its own positions, idempotency
 * its own table), so nothing else keeps them.
 */
export async function pruneWebhookHistory(db: Database | Trx, input: PruneWebhookHistoryInput): Promise<PruneSummary> {
  const limit = input.limit ?? PRUNE_LIMIT;
  const cutoff = new Date(input.now.getTime() - input.retentionDays * DAY_MS);
  const result = await sql<{ events: number; deliveries: number; attempts: number }>`
    with done as (
      select e.company_id, e.id from events e
      where e.company_id = ${input.companyId} and e.dispatched_at < ${cutoff}::timestamptz
        and not exists (
          select 1 from webhook_deliveries d
          where d.company_id = e.company_id and d.event_id = e.id
            and (d.status not in ('delivered', 'failed', 'cancelled') or d.finished_at >= ${cutoff}::timestamptz)
        )
      order by e.dispatched_at
      limit ${limit}
      for update of e skip locked
    ), their_deliveries as (
      select d.company_id, d.id from webhook_deliveries d
      join done on d.company_id = done.company_id and d.event_id = done.id
    ), attempts_gone as (
      delete from webhook_attempts a using their_deliveries x
      where a.company_id = x.company_id and a.delivery_id = x.id
      returning 1
    ), deliveries_gone as (
      delete from webhook_deliveries d using their_deliveries x
      where d.company_id = x.company_id and d.id = x.id
      returning 1
    ), events_gone as (
      delete from events e using done
      where e.company_id = done.company_id and e.id = done.id
      returning 1
    )
    select (select count(*) from events_gone)::int as events, (select count(*) from deliveries_gone)::int as deliveries,
      (select count(*) from attempts_gone)::int as attempts
  `.execute(db);
  const pruned = result.rows[0] ?? { events: 0, deliveries: 0, attempts: 0 };
  return { ...pruned, capped: pruned.events >= limit ? 1 : 0 };
}
