import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Database } from '../../db/connection.ts';
import type { ExponentialBackoff } from '../../jobs/backoff.ts';
import type { Sealer } from '../../shared/secrets.ts';
import { createDeliveryPump, type PumpSettings, type WebhookTally } from './delivery-pump.ts';
import { RETRY_WINDOW_MS, WEBHOOK_BACKOFF } from './retry-schedule.ts';

export type { WebhookTally } from './delivery-pump.ts';

// Webhook delivery for one worker. `start()` is the poll loop of `kontor serve` and
// `kontor worker`; `drain()` delivers what is due now and returns (`kontor jobs run`).
// Both run the same pump (delivery-pump.ts):
//   1. dispatchEvents: undispatched events → one delivery per subscribed endpoint;
//   2. claimDeliveries: due deliveries into per-endpoint queues, under a lease, at most
//      `perEndpoint` of one endpoint held by all workers together;
//   3. sendWebhook; results written in batches (recordAttempts), fenced by the lease.
// Several workers in several processes may run at once: claims never overlap, and the
// per-endpoint limit holds for all of them together (give every worker the same value).

export type WebhookLog = (message: string) => void;

export type WebhookDeliveryOptions = {
  workerId?: string;
  /** Transport time (due-ness of retries, the 3-day window); default real time. Tests inject it. */
  now?: () => Date;
  /** Per attempt: connect, answer and body (default 10 s). */
  timeoutMs?: number;
  /** Attempts on the wire in this worker (default 256). */
  concurrency?: number;
  /** Deliveries of one endpoint claimed (so at most on the wire) at once, by all workers together (default 16). */
  perEndpoint?: number;
  /** Deliveries claimed ahead in this worker in all (default 2048). */
  maxHeld?: number;
  /** Deliveries claimed per statement (default 200). */
  claimBatch?: number;
  /** Events fanned out per statement (default 1000). */
  dispatchBatch?: number;
  /** While deliveries keep the loop busy, events are fanned out at most this often (default 20 ms). */
  dispatchEveryMs?: number;
  /** Pause of the loop when nothing is due (default 200 ms). */
  pollMs?: number;
  /** How long a claim holds (database real time); must exceed timeoutMs by far (default 2 min). */
  leaseMs?: number;
  retryWindowMs?: number;
  backoff?: ExponentialBackoff;
  /**
   * Results are written when this many are waiting, or after flushMs (defaults 200, 20 ms);
   * those of an endpoint this worker filled at once, with the next claim: its room frees
   * only when they are written.
   */
  flushBatch?: number;
  flushMs?: number;
  /** Result writes under way at once (default 2). */
  flushConcurrency?: number;
  log?: WebhookLog;
};

export type WebhookDeps = { db: Database; sealer: Sealer };
export type WebhookWorker = { workerId: string; tally: WebhookTally; stop(): Promise<void> };
export type WebhookDrainOptions = { companyId?: string; maxDeliveries?: number; log?: WebhookLog };

export type WebhookDelivery = {
  /** The poll loop (serve/worker) until stop(); stop waits for attempts on the wire. */
  start(options?: { log?: WebhookLog }): WebhookWorker;
  /** Fans out and delivers everything due now (at most `maxDeliveries`, default 10,000, attempts), then returns. */
  drain(options?: WebhookDrainOptions): Promise<WebhookTally>;
};

function stderrLog(message: string) {
  process.stderr.write(`${new Date().toISOString()} kontor webhooks: ${message}\n`);
}

function settings(options: WebhookDeliveryOptions): PumpSettings {
  return {
    workerId: options.workerId ?? `webhooks:${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`,
    now: options.now ?? (() => new Date()),
    timeoutMs: options.timeoutMs ?? 10_000,
    concurrency: options.concurrency ?? 256,
    perEndpoint: options.perEndpoint ?? 16,
    maxHeld: options.maxHeld ?? 2048,
    claimBatch: options.claimBatch ?? 200,
    dispatchBatch: options.dispatchBatch ?? 1000,
    dispatchEveryMs: options.dispatchEveryMs ?? 20,
    leaseMs: options.leaseMs ?? 120_000,
    policy: { windowMs: options.retryWindowMs ?? RETRY_WINDOW_MS, backoff: options.backoff ?? WEBHOOK_BACKOFF },
    flushBatch: options.flushBatch ?? 200,
    flushMs: options.flushMs ?? 20,
    flushConcurrency: options.flushConcurrency ?? 2,
  };
}

export function webhookDelivery(deps: WebhookDeps, options: WebhookDeliveryOptions = {}): WebhookDelivery {
  const pollMs = options.pollMs ?? 200;
  return {
    start(startOptions = {}) {
      const log = startOptions.log ?? options.log ?? stderrLog;
      const pump = createDeliveryPump(deps, settings(options), log);
      let stopping = false;
      const loop = async () => {
        while (!stopping) {
          try {
            const step = await pump.step();
            if (step.more) continue;
          } catch (error) {
            log(`webhook delivery step failed: ${(error as Error).message}`);
            await new Promise((resolve) => setTimeout(resolve, pollMs * 5));
          }
          if (!stopping) await pump.waitForRoom(pollMs);
        }
      };
      const looping = loop();
      return {
        workerId: pump.workerId,
        tally: pump.tally,
        async stop() {
          stopping = true;
          pump.wake();
          await looping;
          await pump.returnQueued();
          await pump.finish();
        },
      };
    },

    async drain(drainOptions = {}) {
      const log = drainOptions.log ?? options.log ?? stderrLog;
      const maxDeliveries = drainOptions.maxDeliveries ?? 10_000;
      const pump = createDeliveryPump(deps, settings(options), log, {
        ...(drainOptions.companyId !== undefined ? { companyId: drainOptions.companyId } : {}),
        maxClaims: maxDeliveries,
      });
      try {
        while (pump.claimed() < maxDeliveries) {
          // With nothing held, write the last results before claiming: until then the
          // database counts them as in flight, and the claim would find no room. (The
          // write may claim the endpoints' next deliveries: then it is not idle.)
          if (pump.held() === 0) await pump.flush();
          const idle = pump.held() === 0;
          const step = await pump.step(idle ? 'now' : 'when-due');
          if (step.more) continue;
          if (idle && step.claimed === 0 && step.dispatched === 0) break;
          if (pump.held() > 0) await pump.waitForRoom(pollMs);
        }
      } finally {
        await pump.finish();
      }
      return pump.tally;
    },
  };
}
