import type { Database } from '../../db/connection.ts';
import { inTransaction } from '../../db/transaction.ts';
import type { Clock } from '../../shared/clock.ts';
import type { PreparedEvent } from './revenue-event-input.ts';
import type { RevenueEventView } from './revenue-event-view.ts';
import { writeRevenueEvents } from './write-revenue-events.ts';

// Concurrent createRevenueEvent requests of a company share one transaction: while a batch
// is written, the requests arriving meanwhile queue and go together into the next one (up
// to MAX_BATCH). One commit per batch instead of per event lifts the write rate far above
// what one commit per request allows, and the partners' balance rows are updated once per
// batch, not once per event. Each request still gets its own answer: refusals are per
// event, and when a batch fails as a whole its events are written one by one, so one
// event's failure never fails another's.

const MAX_BATCH = 500;

type Pending = { event: PreparedEvent; resolve: (answer: RevenueEventAnswer) => void; reject: (error: unknown) => void };
export type RevenueEventAnswer = { status: 200 | 201; body: RevenueEventView };

export class RevenueEventWriter {
  private readonly queues = new Map<string, Pending[]>();

  private readonly db: Database;
  private readonly clock: Clock;

  constructor(db: Database, clock: Clock) {
    this.db = db;
    this.clock = clock;
  }

  submit(companyId: string, event: PreparedEvent): Promise<RevenueEventAnswer> {
    return new Promise((resolve, reject) => {
      const queue = this.queues.get(companyId);
      if (queue) {
        queue.push({ event, resolve, reject });
        return;
      }
      this.queues.set(companyId, [{ event, resolve, reject }]);
      void this.drain(companyId);
    });
  }

  private async drain(companyId: string): Promise<void> {
    const queue = this.queues.get(companyId) as Pending[];
    try {
      while (queue.length > 0) await this.write(companyId, queue.splice(0, MAX_BATCH), queue);
    } finally {
      this.queues.delete(companyId);
    }
  }

  private async write(companyId: string, batch: Pending[], queue: Pending[]): Promise<void> {
    try {
      const outcomes = await inTransaction(this.db, (trx) =>
        writeRevenueEvents(
          trx,
          companyId,
          batch.map((p) => p.event),
          this.clock.now(),
        ),
      );
      const deferred: Pending[] = [];
      outcomes.forEach((outcome, i) => {
        const pending = batch[i] as Pending;
        if ('defer' in outcome) deferred.push(pending);
        else if ('error' in outcome) pending.reject(outcome.error);
        else pending.resolve(outcome);
      });
      // Refunds of events written by this batch: first in the next one.
      queue.unshift(...deferred);
    } catch (error) {
      if (batch.length === 1) {
        (batch[0] as Pending).reject(error);
        return;
      }
      for (const pending of batch) await this.write(companyId, [pending], queue);
    }
  }
}
