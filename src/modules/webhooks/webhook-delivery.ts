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
//   2. claimDeliveries: due deliveries into per-endpoint queues, under a lease;
//   3. sendWebhook, at most `perEndpoint` at a time per endpoint; results written in
//      batches (recordAttempts), fenced by the lease.
// Several workers in several processes may run at once: claims never overlap.

export type WebhookLog = (message: string) => void;

export type WebhookDeliveryOptions = {
  workerId?: string;
  /** Transport time (due-ness of retries, the 3-day window); default real time. Tests inject it. */
  now?: () => Date;
  /** Per attempt: connect, answer and body (default 10 s). */
  timeoutMs?: number;
  /** Attempts on the wire in this worker (default 256). */
  concurrency?: number;
  /** Attempts on the wire per endpoint in this worker (default 16). */
  perEndpoint?: number;
  /** Deliveries claimed ahead per endpoint, sent as slots free (default 4 × perEndpoint). */
  holdPerEndpoint?: number;
  /** Deliveries claimed ahead in this worker in all (default 2048). */
  maxHeld?: number;
  /** Deliveries claimed per statement (default 200). */
  claimBatch?: number;
  /** Events fanned out per statement (default 1000). */
  dispatchBatch?: number;
  /** Pause of the loop when nothing is due (default 200 ms). */
  pollMs?: number;
  /** How long a claim holds (database real time); must exceed timeoutMs by far (default 2 min). */
  leaseMs?: number;
  retryWindowMs?: number;
  backoff?: ExponentialBackoff;
  /** Results are written when this many are waiting, or after flushMs (defaults 200, 20 ms). */
  flushBatch?: number;
  flushMs?: number;
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
  const perEndpoint = options.perEndpoint ?? 16;
  return {
    workerId: options.workerId ?? `webhooks:${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`,
    now: options.now ?? (() => new Date()),
    timeoutMs: options.timeoutMs ?? 10_000,
    concurrency: options.concurrency ?? 256,
    perEndpoint,
    holdPerEndpoint: Math.max(perEndpoint, options.holdPerEndpoint ?? 4 * perEndpoint),
    maxHeld: options.maxHeld ?? 2048,
    claimBatch: options.claimBatch ?? 200,
    dispatchBatch: options.dispatchBatch ?? 1000,
    leaseMs: options.leaseMs ?? 120_000,
    policy: { windowMs: options.retryWindowMs ?? RETRY_WINDOW_MS, backoff: options.backoff ?? WEBHOOK_BACKOFF },
    flushBatch: options.flushBatch ?? 200,
    flushMs: options.flushMs ?? 20,
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
      const pump = createDeliveryPump(deps, settings(options), log, drainOptions.companyId);
      const maxDeliveries = drainOptions.maxDeliveries ?? 10_000;
      let claimed = 0;
      try {
        while (claimed < maxDeliveries) {
          const step = await pump.step(maxDeliveries - claimed);
          claimed += step.claimed;
          if (step.more) continue;
          if (pump.held() === 0) {
            if (step.claimed === 0 && step.dispatched === 0) break;
            continue;
          }
          await pump.waitForRoom(pollMs);
        }
      } finally {
        await pump.finish();
      }
      return pump.tally;
    },
  };
}
