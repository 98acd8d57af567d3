import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';
import { inTransaction, type Trx } from '../../db/transaction.ts';
import { leaseUntil } from '../../jobs/claim.ts';

// The statements of delivery, each a single statement where it can be (atomic without an
// explicit transaction, so nothing holds PGlite's one connection between them):
// - dispatchEvents: fan-out of undispatched events to the subscribed endpoints;
// - claimDeliveries: due deliveries handed to one worker under a lease, per-endpoint capped
//   across all workers (the one exception: two statements in a short transaction);
// - releaseExpiredDeliveries: deliveries whose worker died mid-attempt back to the queue;
// - recordAttempts: results of many attempts at once, fenced by (locked_by, attempts), and
//   (recordAttemptsAndRefill) the room they free passed on to the endpoints' next deliveries.
// Transport times (`now`) are passed in (real time, injectable in tests); leases use the
// database server's clock_timestamp(), the one clock all worker processes share.

const companyFilter = (column: string, companyId: string | undefined) => (companyId === undefined ? sql`` : sql`and ${sql.ref(column)} = ${companyId}`);

/**
 * Fans up to `limit` undispatched events (oldest seq first) out to the endpoints of their
 * company subscribed to their kind, and marks them dispatched, in one statement. Events
 * locked by another dispatcher are skipped, so two workers never fan one event out twice.
 */
export async function dispatchEvents(db: Database, options: { now: Date; limit: number; companyId?: string }): Promise<{ events: number; deliveries: number }> {
  const result = await sql<{ events: number; deliveries: number }>`
    with batch as (
      select company_id, id, seq, type from events
      where dispatched_at is null ${companyFilter('company_id', options.companyId)}
      order by seq
      limit ${options.limit}
      for update skip locked
    ), fanned as (
      insert into webhook_deliveries (company_id, endpoint_id, event_id, event_seq, next_attempt_at)
      select b.company_id, w.id, b.id, b.seq, ${options.now}::timestamptz
      from batch b
      join webhook_endpoints w on w.company_id = b.company_id and w.status <> 'removed'
        and (cardinality(w.event_types) = 0 or b.type = any (w.event_types))
      -- Serialises with removeWebhookEndpoint (which locks the endpoint FOR UPDATE, then
      -- cancels its pending deliveries): no delivery is fanned out to an endpoint whose
      -- removal committed, and a removal waits for a fan-out under way, then cancels its rows.
      -- KEY SHARE, the weakest lock FOR UPDATE conflicts with: a claim's FOR NO KEY UPDATE
      -- and an update of the endpoint's health neither wait for a fan-out nor make it wait.
      for key share of w
      on conflict do nothing
      returning 1
    ), marked as (
      update events e set dispatched_at = ${options.now}::timestamptz
      from batch b where e.company_id = b.company_id and e.id = b.id
      returning 1
    )
    select (select count(*) from marked)::int as events, (select count(*) from fanned)::int as deliveries
  `.execute(db);
  return result.rows[0] ?? { events: 0, deliveries: 0 };
}

export type ClaimedDelivery = {
  company_id: string;
  id: number;
  endpoint_id: string;
  event_id: string;
  event_seq: number;
  /** This attempt's number (1 for the first). */
  attempts: number;
  first_attempt_at: Date;
  event_type: string;
  event_created_at: Date;
  data_json: string;
  url: string;
  secret_sealed: string;
  /** The endpoint's free room before this claim: claiming all of it filled the endpoint. */
  endpoint_room: number;
};

export type ClaimDeliveriesOptions = {
  workerId: string;
  now: Date;
  limit: number;
  leaseMs: number;
  /** At most this many deliveries of one endpoint claimed at once, by all workers together. */
  perEndpoint: number;
  companyId?: string;
};

/** Deliveries of the endpoint that some worker holds under a live lease (claimed and not yet recorded). */
const inFlight = (endpoint: string) => sql`(
  select count(*)::int from webhook_deliveries f
  where f.company_id = ${sql.ref(`${endpoint}.company_id`)} and f.endpoint_id = ${sql.ref(`${endpoint}.id`)}
    and f.status = 'delivering' and f.locked_until > clock_timestamp()
)`;

/**
 * An endpoint's oldest due pending deliveries, at most `room` of them, locked (SKIP LOCKED):
 * the lateral subquery both claim statements pick from.
 */
const dueOf = (companyId: string, endpointId: string, room: string, now: Date) => sql`(
  select d.company_id, d.id, d.next_attempt_at, d.event_seq from webhook_deliveries d
  where d.company_id = ${sql.ref(companyId)} and d.endpoint_id = ${sql.ref(endpointId)} and d.status = 'pending'
    and d.next_attempt_at <= ${now}::timestamptz
  order by d.next_attempt_at, d.event_seq
  limit ${sql.ref(room)}
  for update of d skip locked
)`;

/**
 * Takes the rows of `picked` (company_id, id, room) as this worker's `delivering` ones and
 * returns them with their event and endpoint (ClaimedDelivery; `room` as `endpoint_room`).
 */
const takePicked = (claim: { workerId: string; leaseMs: number; now: Date }) => sql`
  update webhook_deliveries d set
    status = 'delivering',
    locked_by = ${claim.workerId},
    locked_until = ${leaseUntil(claim.leaseMs)},
    attempts = d.attempts + 1,
    first_attempt_at = coalesce(d.first_attempt_at, ${claim.now}::timestamptz),
    claimed_at = ${claim.now}::timestamptz
  from picked p, events e, webhook_endpoints w
  where d.company_id = p.company_id and d.id = p.id
    and e.company_id = d.company_id and e.id = d.event_id
    and w.company_id = d.company_id and w.id = d.endpoint_id
  returning d.company_id, d.id, d.endpoint_id, d.event_id, d.event_seq, d.attempts, d.first_attempt_at,
    e.type as event_type, e.created_at as event_created_at, e.data::text as data_json, w.url, w.secret_sealed, p.room as endpoint_room`;

/**
 * Claims up to `limit` due deliveries, oldest first, but per endpoint only as many as it
 * has room for: `perEndpoint` minus its deliveries held by any worker of any process
 * under a live lease. So the limit holds across processes, and an endpoint that hangs
 * fills its own room and no more: other endpoints' deliveries are claimed beside it.
 *
 * Two statements in one transaction. The first locks the endpoints to claim for (those
 * with a due delivery and room, oldest due first; FOR NO KEY UPDATE SKIP LOCKED, so
 * claimers never wait for each other: one skips what another is claiming for). The
 * second counts and claims with a snapshot taken after those locks were granted, so it
 * sees every claim committed for those endpoints before, and no other claim for them
 * can commit until this one does: two claimers never both fill the same room. (In one
 * statement the count would come from a snapshot older than the lock.)
 */
export async function claimDeliveries(db: Database, options: ClaimDeliveriesOptions): Promise<ClaimedDelivery[]> {
  if (options.limit <= 0) return [];
  return inTransaction(db, (trx) => claimInTransaction(trx, options));
}

async function claimInTransaction(trx: Trx, options: ClaimDeliveriesOptions): Promise<ClaimedDelivery[]> {
  const locked = await sql<{ company_id: string; id: string }>`
    select w.company_id, w.id from webhook_endpoints w
    cross join lateral (
      select d.next_attempt_at, d.event_seq from webhook_deliveries d
      where d.company_id = w.company_id and d.endpoint_id = w.id and d.status = 'pending' and d.next_attempt_at <= ${options.now}::timestamptz
      order by d.next_attempt_at, d.event_seq
      limit 1
    ) oldest
    where w.status <> 'removed' ${companyFilter('w.company_id', options.companyId)}
      -- A hint from this statement's snapshot (the claim below counts again): an
      -- endpoint that is full, e.g. one that hangs, is not locked and takes no place.
      and ${inFlight('w')} < ${options.perEndpoint}::int
    order by oldest.next_attempt_at, oldest.event_seq
    limit ${options.limit}
    for no key update of w skip locked
  `.execute(trx);
  if (locked.rows.length === 0) return [];
  const result = await sql<ClaimedDelivery>`
    with quota as (
      select l.company_id, l.id, ${options.perEndpoint}::int - ${inFlight('l')} as room
      from unnest(${locked.rows.map((r) => r.company_id)}::text[], ${locked.rows.map((r) => r.id)}::text[]) as l (company_id, id)
    ), picked as (
      select x.company_id, x.id, q.room from quota q
      cross join lateral ${dueOf('q.company_id', 'q.id', 'q.room', options.now)} x
      where q.room > 0
      order by x.next_attempt_at, x.event_seq
      limit ${options.limit}
    )
    ${takePicked(options)}
  `.execute(trx);
  return result.rows.sort((a, b) => a.event_seq - b.event_seq);
}

export const NO_RESULT = 'no result: the worker stopped or lost its lease during the attempt';

/**
 * Deliveries whose lease ran out while `delivering` (the worker died or hung) become due
 * again at once; their attempt is recorded without a result. Returns how many.
 */
export async function releaseExpiredDeliveries(db: Database, options: { now: Date; limit?: number; companyId?: string }): Promise<number> {
  const result = await sql<{ n: number }>`
    with expired as (
      select company_id, id, locked_by from webhook_deliveries
      where status = 'delivering' and locked_until < clock_timestamp() ${companyFilter('company_id', options.companyId)}
      order by locked_until
      limit ${options.limit ?? 500}
      for update skip locked
    ), released as (
      update webhook_deliveries d set status = 'pending', locked_by = null, locked_until = null,
        next_attempt_at = ${options.now}::timestamptz, last_error = ${NO_RESULT}
      from expired x where d.company_id = x.company_id and d.id = x.id
      returning d.company_id, d.id, d.attempts, d.endpoint_id, d.event_id, d.claimed_at, x.locked_by
    ), recorded as (
      insert into webhook_attempts (company_id, delivery_id, attempt, endpoint_id, event_id, started_at, error, worker_id)
      select company_id, id, attempts, endpoint_id, event_id, coalesce(claimed_at, ${options.now}::timestamptz), ${NO_RESULT}, locked_by
      from released where attempts > 0
      on conflict do nothing
    )
    select count(*)::int as n from released
  `.execute(db);
  return result.rows[0]?.n ?? 0;
}

export type AttemptOutcome = {
  company_id: string;
  id: number;
  attempt: number;
  endpoint_id: string;
  event_id: string;
  /** What the delivery becomes: delivered, pending (retry at nextAttemptAt) or failed. */
  status: 'delivered' | 'pending' | 'failed';
  nextAttemptAt: Date | null;
  startedAt: Date;
  durationMs: number;
  responseStatus: number | null;
  error: string | null;
};

/**
 * Writes many attempts' results in one statement: each attempt row (also of a worker
 * that lost its lease: the request did go out), and the delivery's new state only where
 * this worker still holds it with this attempt (fenced). A retry of an endpoint removed
 * meanwhile is cancelled. An endpoint whose delivery failed for good becomes `failing`;
 * one that accepted a delivery becomes `active` again. Returns the deliveries updated.
 */
export async function recordAttempts(db: Database, workerId: string, now: Date, outcomes: readonly AttemptOutcome[]): Promise<RecordedDelivery[]> {
  return (await recordAttemptsAndRefill(db, workerId, now, outcomes, null)).recorded;
}

export type RecordedDelivery = { company_id: string; id: number; status: string };

export type Refill = { now: Date; leaseMs: number; limit: number };

/**
 * recordAttempts, and in the same statement the room the written results free passes on
 * to their endpoints' next due deliveries, claimed for this worker (oldest first, at most
 * `refill.limit` in all): for each endpoint as many as its deliveries this statement took
 * out of `delivering`. The endpoint's count of deliveries in flight never grows by it, so
 * this needs no lock (claimDeliveries does, to grow into room); it makes a busy endpoint's
 * turnover one statement.
 */
export async function recordAttemptsAndRefill(
  db: Database,
  workerId: string,
  now: Date,
  outcomes: readonly AttemptOutcome[],
  refill: Refill | null,
): Promise<{ recorded: RecordedDelivery[]; claimed: ClaimedDelivery[] }> {
  if (outcomes.length === 0) return { recorded: [], claimed: [] };
  const column = <T>(pick: (o: AttemptOutcome) => T) => outcomes.map(pick);
  const result = await sql<(RecordedDelivery & { kind: 'recorded' }) | (ClaimedDelivery & { kind: 'claimed' })>`
    with r as (
      select * from unnest(
        ${column((o) => o.id)}::bigint[], ${column((o) => o.company_id)}::text[], ${column((o) => o.attempt)}::int[],
        ${column((o) => o.endpoint_id)}::text[], ${column((o) => o.event_id)}::text[], ${column((o) => o.status)}::text[],
        ${column((o) => o.startedAt.toISOString())}::timestamptz[], ${column((o) => o.durationMs)}::int[],
        ${column((o) => o.responseStatus)}::int[], ${column((o) => o.error)}::text[],
        ${column((o) => o.nextAttemptAt?.toISOString() ?? null)}::timestamptz[]
      ) as r (id, company_id, attempt, endpoint_id, event_id, outcome, started_at, duration_ms, response_status, error, next_attempt_at)
    ), updated as (
      update webhook_deliveries d set
        status = case when r.outcome = 'pending' and w.status = 'removed' then 'cancelled' else r.outcome end,
        next_attempt_at = coalesce(r.next_attempt_at, d.next_attempt_at),
        last_attempt_at = r.started_at,
        last_response_status = r.response_status,
        last_error = r.error,
        delivered_at = case when r.outcome = 'delivered' then ${now}::timestamptz end,
        finished_at = case when r.outcome = 'pending' and w.status <> 'removed' then null else ${now}::timestamptz end,
        locked_by = null,
        locked_until = null
      from r, webhook_endpoints w
      where d.company_id = r.company_id and d.id = r.id
        and d.status = 'delivering' and d.locked_by = ${workerId} and d.attempts = r.attempt
        and w.company_id = d.company_id and w.id = d.endpoint_id
      returning d.company_id, d.id, d.endpoint_id, d.status
    ), recorded as (
      insert into webhook_attempts (company_id, delivery_id, attempt, endpoint_id, event_id, started_at, duration_ms, response_status, error, worker_id)
      select company_id, id, attempt, endpoint_id, event_id, started_at, duration_ms, response_status, error, ${workerId} from r
      -- A result that comes back after its delivery was pruned (a worker paused for longer
      -- than the retention) is dropped, not a foreign-key error that would fail the batch.
      where exists (select 1 from webhook_deliveries d where d.company_id = r.company_id and d.id = r.id)
      on conflict do nothing
    ), health as (
      update webhook_endpoints w set
        status = case when h.ok then 'active' else 'failing' end,
        failing_since = case when h.ok then null else ${now}::timestamptz end
      from (
        select company_id, endpoint_id, bool_or(status = 'delivered') as ok, bool_or(status = 'failed') as failed
        from updated group by company_id, endpoint_id
      ) h
      where w.company_id = h.company_id and w.id = h.endpoint_id
        and ((h.ok and w.status = 'failing') or (not h.ok and h.failed and w.status = 'active'))
    ), freed as (
      -- Only room still counted: a delivery whose lease ran out (its worker stalled) no
      -- longer counts for other claimers, who may have taken its place. The join reads
      -- the row as this statement's snapshot shows it, before the update above; the
      -- margin covers a claimer whose snapshot is older than this write.
      select u.company_id, u.endpoint_id, count(*)::int as room
      from updated u
      join webhook_deliveries held on held.company_id = u.company_id and held.id = u.id
      where held.locked_until > clock_timestamp() + interval '5 seconds'
      group by u.company_id, u.endpoint_id
    ), picked as (
      -- The snapshot still shows the rows written above as delivering: none is picked again.
      select x.company_id, x.id, f.room from freed f
      join webhook_endpoints w on w.company_id = f.company_id and w.id = f.endpoint_id and w.status <> 'removed'
      cross join lateral ${dueOf('f.company_id', 'f.endpoint_id', 'f.room', refill?.now ?? now)} x
      order by x.next_attempt_at, x.event_seq
      limit ${refill?.limit ?? 0}
    ), claimed as (
      ${takePicked({ workerId, leaseMs: refill?.leaseMs ?? 0, now: refill?.now ?? now })}
    )
    select 'recorded' as kind, company_id, id, status, null::text as endpoint_id, null::text as event_id, null::bigint as event_seq,
      null::int as attempts, null::timestamptz as first_attempt_at, null::text as event_type, null::timestamptz as event_created_at,
      null::text as data_json, null::text as url, null::text as secret_sealed, null::int as endpoint_room
    from updated
    union all
    select 'claimed', company_id, id, null, endpoint_id, event_id, event_seq, attempts, first_attempt_at, event_type, event_created_at,
      data_json, url, secret_sealed, endpoint_room
    from claimed
  `.execute(db);
  const recorded: RecordedDelivery[] = [];
  const claimed: ClaimedDelivery[] = [];
  for (const row of result.rows) {
    if (row.kind === 'recorded') recorded.push({ company_id: row.company_id, id: row.id, status: row.status });
    else {
      const { kind: _, ...delivery } = row;
      claimed.push(delivery);
    }
  }
  return { recorded, claimed: claimed.sort((a, b) => a.event_seq - b.event_seq) };
}

/**
 * Hands claimed deliveries that were never sent back to the queue (a stopping worker's
 * local queue): pending again, their attempt not counted. Fenced like recordAttempts.
 */
export async function returnClaims(
  db: Database,
  workerId: string,
  claims: readonly Pick<ClaimedDelivery, 'company_id' | 'id' | 'attempts'>[],
): Promise<number> {
  if (claims.length === 0) return 0;
  const result = await sql<{ n: number }>`
    with r as (
      select * from unnest(${claims.map((c) => c.id)}::bigint[], ${claims.map((c) => c.company_id)}::text[], ${claims.map((c) => c.attempts)}::int[])
        as r (id, company_id, attempt)
    ), returned as (
      update webhook_deliveries d set status = 'pending', locked_by = null, locked_until = null, attempts = d.attempts - 1,
        first_attempt_at = case when d.attempts = 1 then null else d.first_attempt_at end
      from r
      where d.company_id = r.company_id and d.id = r.id and d.status = 'delivering' and d.locked_by = ${workerId} and d.attempts = r.attempt
      returning 1
    )
    select count(*)::int as n from returned
  `.execute(db);
  return result.rows[0]?.n ?? 0;
}
