import type { Database } from '../../db/connection.ts';
import { inTransaction, useCachedPlans } from '../../db/transaction.ts';
import type { Clock } from '../../shared/clock.ts';
import type { PreparedEvent } from './revenue-event-input.ts';
import type { RevenueEventView } from './revenue-event-view.ts';
import { writeRevenueEvents } from './write-revenue-events.ts';

// Concurrent createRevenueEvent requests of a company share transactions: the requests
// that arrive while batches are written queue and go together into the next batch (up to
// MAX_BATCH). One commit per batch instead of per event lifts the write rate far above
// what one commit per request allows, and the partners' balance rows are updated once per
// batch, not once per event. Each request still gets its own answer: refusals are per
// event, and when a batch fails as a whole its events are written one by one, so one
// event's failure never fails another's.
//
// Up to IN_FLIGHT batches of a company are written at once: one batch's inserts overlap
// the other's commit; only the partners' balance rows (locked last, in id order) and new
// anchors (a conflict starts the batch over) make them wait for each other. A batch with
// a refund runs alone: the event it reverses may sit in another batch not yet committed.
// Before a batch is taken, the writer yields once to the event loop, so that the requests
// already received are parsed and join it (on PGlite, whose queries never yield, batches
// would otherwise hold one event each).

const MAX_BATCH = 500;
const IN_FLIGHT = 2;
/**
 * A refund whose sale is not stored yet is tried once more after this pause: a client that
 * sends both at once (an order refunded at once) may have the sale's request still on its
 * way through the server (another connection's auth look-up answered first).
 */
const REFUND_RETRY_MS = 25;

type Pending = { event: PreparedEvent; resolve: (answer: RevenueEventAnswer) => void; reject: (error: unknown) => void; retried?: boolean };
export type RevenueEventAnswer = { status: 200 | 201; body: RevenueEventView };

type CompanyQueue = { waiting: Pending[]; running: number; alone: boolean; scheduled: boolean };

export class RevenueEventWriter {
  private readonly queues = new Map<string, CompanyQueue>();

  private readonly db: Database;
  private readonly clock: Clock;

  constructor(db: Database, clock: Clock) {
    this.db = db;
    this.clock = clock;
  }

  submit(companyId: string, event: PreparedEvent): Promise<RevenueEventAnswer> {
    return new Promise((resolve, reject) => this.enqueue(companyId, [{ event, resolve, reject }]));
  }

  private enqueue(companyId: string, pending: Pending[]): void {
    let queue = this.queues.get(companyId);
    if (!queue) {
      queue = { waiting: [], running: 0, alone: false, scheduled: false };
      this.queues.set(companyId, queue);
    }
    queue.waiting.push(...pending);
    this.schedule(companyId, queue);
  }

  private schedule(companyId: string, queue: CompanyQueue): void {
    if (queue.scheduled) return;
    queue.scheduled = true;
    setImmediate(() => {
      queue.scheduled = false;
      this.start(companyId, queue);
    });
  }

  private start(companyId: string, queue: CompanyQueue): void {
    while (queue.waiting.length > 0 && queue.running < IN_FLIGHT && !queue.alone) {
      const refund = queue.waiting.slice(0, MAX_BATCH).some((p) => p.event.reversesRef !== null);
      if (refund && queue.running > 0) break;
      const batch = queue.waiting.splice(0, MAX_BATCH);
      queue.running++;
      queue.alone = refund;
      void this.write(companyId, batch, queue).finally(() => {
        queue.running--;
        if (refund) queue.alone = false;
        if (queue.waiting.length > 0) this.schedule(companyId, queue);
        else if (queue.running === 0 && !queue.scheduled) this.queues.delete(companyId);
      });
    }
  }

  private async write(companyId: string, batch: Pending[], queue: CompanyQueue): Promise<void> {
    try {
      const outcomes = await inTransaction(this.db, async (trx) => {
        // ~9 foreign-key checks per event: with the session's force_custom_plan each was
        // planned anew, most of PostgreSQL's time per event (issue 26).
        await useCachedPlans(trx);
        return writeRevenueEvents(
          trx,
          companyId,
          batch.map((p) => p.event),
          this.clock.now(),
        );
      });
      const deferred: Pending[] = [];
      const unknownSale: Pending[] = [];
      outcomes.forEach((outcome, i) => {
        const pending = batch[i] as Pending;
        if ('defer' in outcome) deferred.push(pending);
        else if ('error' in outcome && outcome.error.code === 'commission.revenue_event_not_found' && !pending.retried) unknownSale.push(pending);
        else if ('error' in outcome) pending.reject(outcome.error);
        else pending.resolve(outcome);
      });
      // Refunds of events written by this batch: first in the next one.
      queue.waiting.unshift(...deferred);
      if (unknownSale.length > 0) {
        for (const pending of unknownSale) pending.retried = true;
        setTimeout(() => this.enqueue(companyId, unknownSale), REFUND_RETRY_MS);
      }
    } catch (error) {
      if (batch.length === 1) {
        (batch[0] as Pending).reject(error);
        return;
      }
      for (const pending of batch) await this.write(companyId, [pending], queue);
    }
  }
}
