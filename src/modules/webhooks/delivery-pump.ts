import type { Database } from '../../db/connection.ts';
import { messageForLog } from '../../shared/error-for-log.ts';
import type { Sealer } from '../../shared/secrets.ts';
import {
  type AttemptOutcome,
  type ClaimedDelivery,
  claimDeliveries,
  dispatchEvents,
  recordAttemptsAndRefill,
  releaseExpiredDeliveries,
  returnClaims,
} from './deliveries.repository.ts';
import { envelopeJson, signedHeaders } from './envelope.ts';
import { afterFailure, type RetryPolicy } from './retry-schedule.ts';
import { type SendResult, sendWebhook } from './send-webhook.ts';
import { signerCache } from './webhook-secret.ts';

// The machinery of one worker's delivery: claimed deliveries wait in a small queue per
// endpoint and go out as the worker's slots allow; results are buffered and written in
// batches. The per-endpoint limit is the database's: a claim takes only the room an
// endpoint has left among all workers, and a claimed delivery keeps its place until its
// result is written. The statement that writes results also claims the endpoints' next
// due deliveries into the room they free (recordAttemptsAndRefill), so a busy endpoint
// turns over in one statement per batch of answers, not a write and then a claim. Results
// of an endpoint whose room this worker filled are written in the next turn of the event
// loop; others wait up to `flushMs` to be written together. The loop's claim
// (claimDeliveries) takes new room: new events, room others freed, other endpoints.
// A slow or hanging endpoint fills its own room and nothing else.

export type PumpSettings = {
  workerId: string;
  now: () => Date;
  timeoutMs: number;
  concurrency: number;
  perEndpoint: number;
  maxHeld: number;
  claimBatch: number;
  dispatchBatch: number;
  /** While busy, fan out at most this often (unless the last fan-out was a full batch). */
  dispatchEveryMs: number;
  leaseMs: number;
  policy: RetryPolicy;
  flushBatch: number;
  flushMs: number;
  flushConcurrency: number;
};

export type WebhookTally = { delivered: number; retried: number; failed: number };

// `full`: the last claim took all the endpoint's room, so every worker waits for this
// worker's results before it can send there again.
type Held = { running: number; queue: { delivery: ClaimedDelivery; claimedAt: number }[]; full: boolean };

export function createDeliveryPump(
  deps: { db: Database; sealer: Sealer },
  s: PumpSettings,
  log: (message: string) => void,
  options: { companyId?: string; maxClaims?: number } = {},
) {
  const { companyId, maxClaims = Number.POSITIVE_INFINITY } = options;
  const scope = companyId === undefined ? {} : { companyId };
  const signer = signerCache((sealed) => deps.sealer.open(sealed));
  // A queued delivery not started this long after its claim is given back unsent: its
  // lease could run out during the attempt and another worker send it at the same time.
  const staleAfterMs = Math.max(s.leaseMs / 2, s.leaseMs - s.timeoutMs - 10_000);

  const tally: WebhookTally = { delivered: 0, retried: 0, failed: 0 };
  const held = new Map<string, Held>();
  const inFlight = new Set<Promise<void>>();
  let running = 0;
  let heldTotal = 0;
  let claimedTotal = 0;
  let claiming = true;
  let roomWaiter: (() => void) | undefined;
  let roomPending = false;
  let results: AttemptOutcome[] = [];
  const writing = new Set<Promise<void>>();
  let flushTimer: NodeJS.Timeout | undefined;
  let flushSoon: NodeJS.Immediate | undefined;
  let lastRelease = Number.NEGATIVE_INFINITY;
  let lastDispatch = Number.NEGATIVE_INFINITY;
  let lastDispatchFull = false;

  const signalRoom = () => {
    const waiter = roomWaiter;
    roomWaiter = undefined;
    if (waiter) waiter();
    else roomPending = true;
  };

  /** Writes the waiting results in one statement (with the refill of the room they free). */
  const write = async (batch: AttemptOutcome[]): Promise<boolean> => {
    const now = s.now();
    const limit = claiming ? Math.min(batch.length, maxClaims - claimedTotal) : 0;
    try {
      const written = await recordAttemptsAndRefill(deps.db, s.workerId, now, batch, { now, leaseMs: s.leaseMs, limit });
      for (const row of written.recorded) {
        if (row.status === 'delivered') tally.delivered += 1;
        else if (row.status === 'failed') tally.failed += 1;
        else if (row.status === 'pending') tally.retried += 1;
      }
      take(written.claimed);
      return true;
    } catch (error) {
      // Kept, and tried again in a second while the pump runs: they hold their endpoints'
      // room until written. If the database stays away, the leases run out and the
      // deliveries are tried again (at least once).
      results = batch.concat(results);
      log(`recording ${batch.length} webhook attempt(s) failed: ${messageForLog(error)}`);
      if (claiming) flushTimer ??= setTimeout(() => void flush(), 1_000);
      return false;
    }
  };

  /**
   * Starts a write of the waiting results unless `flushConcurrency` writes are under way
   * (then the first to end starts it); resolves when the writes under way have ended.
   * Writes overlap so that answers arriving during one need not wait for it (PostgreSQL;
   * on PGlite they queue for the one connection).
   */
  const flush = (): Promise<void> => {
    if (flushTimer) clearTimeout(flushTimer);
    if (flushSoon) clearImmediate(flushSoon);
    flushTimer = undefined;
    flushSoon = undefined;
    if (results.length > 0 && writing.size < s.flushConcurrency) {
      const batch = results;
      results = [];
      const done: Promise<void> = write(batch).then((ok) => {
        writing.delete(done);
        if (ok && results.length > 0) void flush();
      });
      writing.add(done);
    }
    return Promise.all(writing).then(() => {});
  };

  const attempt = async (delivery: ClaimedDelivery): Promise<void> => {
    const startedAt = s.now();
    let result: SendResult;
    try {
      const body = envelopeJson({ id: delivery.event_id, type: delivery.event_type, createdAt: delivery.event_created_at, dataJson: delivery.data_json });
      const headers = signedHeaders(signer(delivery.secret_sealed), delivery.event_id, body, new Date());
      result = await sendWebhook(delivery.url, headers, body, s.timeoutMs);
    } catch (error) {
      result = { durationMs: 0, status: null, error: `could not sign the delivery: ${(error as Error).message}`.slice(0, 300) };
    }
    const next = result.error === null ? null : afterFailure(delivery.attempts, delivery.first_attempt_at, s.now(), s.policy);
    results.push({
      company_id: delivery.company_id,
      id: delivery.id,
      attempt: delivery.attempts,
      endpoint_id: delivery.endpoint_id,
      event_id: delivery.event_id,
      status: next === null ? 'delivered' : next.status,
      nextAttemptAt: next?.status === 'pending' ? next.nextAttemptAt : null,
      startedAt,
      durationMs: result.durationMs,
      responseStatus: result.status,
      error: result.error,
    });
    // In the next turn of the event loop, so the answers that arrived meanwhile go into
    // the same statement (on PGlite statements run on this thread and block the loop).
    if (results.length >= s.flushBatch || held.get(delivery.endpoint_id)?.full) flushSoon ??= setImmediate(() => void flush());
    else flushTimer ??= setTimeout(() => void flush(), s.flushMs);
  };

  const giveBack = (claims: ClaimedDelivery[]) => {
    if (claims.length === 0) return Promise.resolve();
    return returnClaims(deps.db, s.workerId, claims).then(
      () => {},
      (error: Error) => log(`giving back ${claims.length} unsent webhook deliveries failed (their lease will run out): ${messageForLog(error)}`),
    );
  };

  /** Starts queued deliveries of the endpoint while it and the worker have free slots. */
  const startQueued = (endpointId: string) => {
    const slot = held.get(endpointId);
    if (!slot) return;
    const stale: ClaimedDelivery[] = [];
    while (slot.running < s.perEndpoint && running < s.concurrency && slot.queue.length > 0) {
      const { delivery, claimedAt } = slot.queue.shift()!;
      if (performance.now() - claimedAt > staleAfterMs) {
        heldTotal -= 1;
        stale.push(delivery);
        continue;
      }
      slot.running += 1;
      running += 1;
      const run: Promise<void> = attempt(delivery)
        .catch((error: unknown) => log(`webhook attempt ${delivery.event_id} → ${delivery.endpoint_id} crashed: ${messageForLog(error)}`))
        .finally(() => {
          slot.running -= 1;
          running -= 1;
          heldTotal -= 1;
          inFlight.delete(run);
          startQueued(endpointId);
          if (running === s.concurrency - 1) for (const id of held.keys()) startQueued(id); // a worker-wide slot came free
          if (slot.running === 0 && slot.queue.length === 0 && held.get(endpointId) === slot) held.delete(endpointId);
          if (heldTotal === 0) signalRoom();
        });
      inFlight.add(run);
    }
    if (slot.running === 0 && slot.queue.length === 0 && held.get(endpointId) === slot) held.delete(endpointId);
    void giveBack(stale);
  };

  /** Queues claimed deliveries per endpoint and starts what the slots allow. */
  function take(claimed: readonly ClaimedDelivery[]) {
    claimedTotal += claimed.length;
    const claimedAt = performance.now();
    const touched = new Map<string, { claimed: number; room: number }>();
    for (const delivery of claimed) {
      let slot = held.get(delivery.endpoint_id);
      if (!slot) {
        slot = { running: 0, queue: [], full: false };
        held.set(delivery.endpoint_id, slot);
      }
      slot.queue.push({ delivery, claimedAt });
      heldTotal += 1;
      const room = touched.get(delivery.endpoint_id) ?? { claimed: 0, room: delivery.endpoint_room };
      room.claimed += 1;
      touched.set(delivery.endpoint_id, room);
    }
    for (const [id, room] of touched) {
      held.get(id)!.full = room.claimed >= room.room;
      startQueued(id);
    }
  }

  return {
    workerId: s.workerId,
    tally,
    held: () => heldTotal,

    /** How many deliveries this pump claimed (by the loop's claims and by refills). */
    claimed: () => claimedTotal,

    /**
     * Now and then releases dead leases; fans out (while busy at most every
     * `dispatchEveryMs`, unless `dispatch` is 'now'); claims into the queues and starts
     * what the slots allow.
     */
    async step(dispatch: 'now' | 'when-due' = 'when-due'): Promise<{ dispatched: number; claimed: number; more: boolean }> {
      const at = s.now();
      if (performance.now() - lastRelease >= Math.min(5_000, s.leaseMs / 4)) {
        lastRelease = performance.now();
        await releaseExpiredDeliveries(deps.db, { now: at, ...scope });
      }
      let dispatched = 0;
      if (dispatch === 'now' || lastDispatchFull || performance.now() - lastDispatch >= s.dispatchEveryMs) {
        lastDispatch = performance.now();
        dispatched = (await dispatchEvents(deps.db, { now: at, limit: s.dispatchBatch, ...scope })).events;
        lastDispatchFull = dispatched === s.dispatchBatch;
      }
      const limit = claiming ? Math.min(s.claimBatch, s.maxHeld - heldTotal, maxClaims - claimedTotal) : 0;
      const claimed =
        limit > 0 ? await claimDeliveries(deps.db, { workerId: s.workerId, now: at, limit, leaseMs: s.leaseMs, perEndpoint: s.perEndpoint, ...scope }) : [];
      take(claimed);
      return { dispatched, claimed: claimed.length, more: lastDispatchFull || (limit > 0 && claimed.length === limit) };
    },

    /** Resolves when nothing is held any more, wake() was called, or after `ms`. */
    waitForRoom(ms: number): Promise<void> {
      if (roomPending) {
        roomPending = false;
        return Promise.resolve();
      }
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          roomWaiter = undefined;
          resolve();
        }, ms);
        roomWaiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    },
    wake: signalRoom,

    /** Writes the results waiting now (after any write under way). */
    flush,

    /** Gives queued deliveries that were not started back and claims nothing more (a stopping worker). */
    async returnQueued(): Promise<void> {
      claiming = false;
      const unsent: ClaimedDelivery[] = [];
      for (const slot of held.values()) {
        for (const item of slot.queue.splice(0)) unsent.push(item.delivery);
      }
      heldTotal -= unsent.length;
      await giveBack(unsent);
    },

    /** Waits for every attempt (queued ones start as slots free) and writes the results; claims nothing more. */
    async finish(): Promise<void> {
      claiming = false;
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
      while (writing.size > 0) await flush();
      await flush();
    },
  };
}

export type DeliveryPump = ReturnType<typeof createDeliveryPump>;
