import type { Database } from '../../db/connection.ts';
import type { Sealer } from '../../shared/secrets.ts';
import {
  type AttemptOutcome,
  type ClaimedDelivery,
  claimDeliveries,
  dispatchEvents,
  recordAttempts,
  releaseExpiredDeliveries,
  returnClaims,
} from './deliveries.repository.ts';
import { envelopeJson, signedHeaders } from './envelope.ts';
import { afterFailure, type RetryPolicy } from './retry-schedule.ts';
import { type SendResult, sendWebhook } from './send-webhook.ts';
import { signerCache } from './webhook-secret.ts';

// The machinery of one worker's delivery: claimed deliveries wait in a small queue per
// endpoint and go out at most `perEndpoint` at a time; results are buffered and written
// in batches. Claiming (a database round trip) is decoupled from sending: an endpoint
// holds up to `holdPerEndpoint` deliveries, and the pump claims again when that drops to
// half, so a fast receiver never waits for the database and a slow or hanging one only
// fills its own queue (the claim skips endpoints whose queue is full).

export type PumpSettings = {
  workerId: string;
  now: () => Date;
  timeoutMs: number;
  concurrency: number;
  perEndpoint: number;
  holdPerEndpoint: number;
  maxHeld: number;
  claimBatch: number;
  dispatchBatch: number;
  leaseMs: number;
  policy: RetryPolicy;
  flushBatch: number;
  flushMs: number;
};

export type WebhookTally = { delivered: number; retried: number; failed: number };

type Held = { running: number; queue: { delivery: ClaimedDelivery; claimedAt: number }[] };

export function createDeliveryPump(deps: { db: Database; sealer: Sealer }, s: PumpSettings, log: (message: string) => void, companyId?: string) {
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
  let capped = new Set<string>();
  let roomWaiter: (() => void) | undefined;
  let roomPending = false;
  let results: AttemptOutcome[] = [];
  let flushing: Promise<void> = Promise.resolve();
  let flushTimer: NodeJS.Timeout | undefined;
  let lastRelease = Number.NEGATIVE_INFINITY;

  const signalRoom = () => {
    const waiter = roomWaiter;
    roomWaiter = undefined;
    if (waiter) waiter();
    else roomPending = true;
  };
  const holdOf = (endpointId: string) => {
    const slot = held.get(endpointId);
    return slot ? slot.running + slot.queue.length : 0;
  };

  const flush = (): Promise<void> => {
    if (flushTimer) clearTimeout(flushTimer);
    flushTimer = undefined;
    flushing = flushing.then(async () => {
      if (results.length === 0) return;
      const batch = results;
      results = [];
      try {
        for (const row of await recordAttempts(deps.db, s.workerId, s.now(), batch)) {
          if (row.status === 'delivered') tally.delivered += 1;
          else if (row.status === 'failed') tally.failed += 1;
          else if (row.status === 'pending') tally.retried += 1;
        }
      } catch (error) {
        // Kept for the next flush; if the database stays away, the leases run out and
        // the deliveries are tried again (at least once).
        results = batch.concat(results);
        log(`recording ${batch.length} webhook attempt(s) failed: ${(error as Error).message}`);
      }
    });
    return flushing;
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
    if (results.length >= s.flushBatch) void flush();
    else flushTimer ??= setTimeout(() => void flush(), s.flushMs);
  };

  const giveBack = (claims: ClaimedDelivery[]) => {
    if (claims.length === 0) return Promise.resolve();
    return returnClaims(deps.db, s.workerId, claims).then(
      () => {},
      (error: Error) => log(`giving back ${claims.length} unsent webhook deliveries failed (their lease will run out): ${error.message}`),
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
        .catch((error: unknown) => log(`webhook attempt ${delivery.event_id} → ${delivery.endpoint_id} crashed: ${(error as Error).message}`))
        .finally(() => {
          slot.running -= 1;
          running -= 1;
          heldTotal -= 1;
          inFlight.delete(run);
          startQueued(endpointId);
          if (running === s.concurrency - 1) for (const id of held.keys()) startQueued(id); // a worker-wide slot came free
          if (slot.running === 0 && slot.queue.length === 0 && held.get(endpointId) === slot) held.delete(endpointId);
          if (heldTotal === 0 || (capped.has(endpointId) && holdOf(endpointId) <= s.holdPerEndpoint / 2)) {
            capped.delete(endpointId);
            signalRoom();
          }
        });
      inFlight.add(run);
    }
    if (slot.running === 0 && slot.queue.length === 0 && held.get(endpointId) === slot) held.delete(endpointId);
    void giveBack(stale);
  };

  return {
    workerId: s.workerId,
    tally,
    held: () => heldTotal,

    /** Fan out, now and then release dead leases, claim into the queues and start. */
    async step(maxClaims = Number.POSITIVE_INFINITY): Promise<{ dispatched: number; claimed: number; more: boolean }> {
      const at = s.now();
      if (performance.now() - lastRelease >= Math.min(5_000, s.leaseMs / 4)) {
        lastRelease = performance.now();
        await releaseExpiredDeliveries(deps.db, { now: at, ...scope });
      }
      const dispatched = await dispatchEvents(deps.db, { now: at, limit: s.dispatchBatch, ...scope });
      const limit = Math.min(s.claimBatch, s.maxHeld - heldTotal, maxClaims);
      let claimed: ClaimedDelivery[] = [];
      if (limit > 0) {
        const busy = new Map<string, number>();
        for (const id of held.keys()) busy.set(id, holdOf(id));
        claimed = await claimDeliveries(deps.db, { workerId: s.workerId, now: at, limit, leaseMs: s.leaseMs, perEndpoint: s.holdPerEndpoint, busy, ...scope });
        const claimedAt = performance.now();
        const touched = new Set<string>();
        for (const delivery of claimed) {
          let slot = held.get(delivery.endpoint_id);
          if (!slot) {
            slot = { running: 0, queue: [] };
            held.set(delivery.endpoint_id, slot);
          }
          slot.queue.push({ delivery, claimedAt });
          heldTotal += 1;
          touched.add(delivery.endpoint_id);
        }
        for (const id of touched) startQueued(id);
        capped = new Set([...held.keys()].filter((id) => holdOf(id) >= s.holdPerEndpoint));
      }
      return { dispatched: dispatched.events, claimed: claimed.length, more: dispatched.events === s.dispatchBatch || (limit > 0 && claimed.length === limit) };
    },

    /** Resolves when a full queue drained to half, nothing is held any more, wake() was called, or after `ms`. */
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

    /** Gives queued deliveries that were not started back (a stopping worker). */
    async returnQueued(): Promise<void> {
      const unsent: ClaimedDelivery[] = [];
      for (const slot of held.values()) {
        for (const item of slot.queue.splice(0)) unsent.push(item.delivery);
      }
      heldTotal -= unsent.length;
      await giveBack(unsent);
    },

    /** Waits for every attempt (queued ones start as slots free) and writes the results. */
    async finish(): Promise<void> {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
      await flush();
      await flushing;
    },
  };
}

export type DeliveryPump = ReturnType<typeof createDeliveryPump>;
