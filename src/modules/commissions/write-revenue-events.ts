import type { Insertable } from 'kysely';
import { bulkInsert } from '../../db/bulk-insert.ts';
import type { RevenueEventsTable } from '../../db/schema-commissions.ts';
import type { Trx } from '../../db/transaction.ts';
import { calendarDate } from '../../shared/clock.ts';
import { AppError, RetryTransaction, validationFailed } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { centsNumber } from '../../shared/money.ts';
import { loadLedgerContext } from './ledger/ledger-context.ts';
import { type LedgerLockMode, lockLedgers } from './ledger/ledger-locks.ts';
import { reconcileCustomers } from './ledger/reconcile-customers.ts';
import { reconcileEvents } from './ledger/reconcile-events.ts';
import { accrueRevenue, type EntryRow, entryRows, insertLedgerEntries, type LedgerRevenue, storeNewAnchors } from './ledger/write-entries.ts';
import type { PreparedEvent } from './revenue-event-input.ts';
import { type RevenueEventView, revenueEventView } from './revenue-event-view.ts';
import {
  customerRefs,
  findCustomersByRef,
  findEntriesOfEvents,
  findEventsByRef,
  findLines,
  findProducts,
  type Pair,
  pairKey,
  type RevenueEventRow,
  refundedCents,
} from './revenue-events.repository.ts';

// createRevenueEvent for a batch of requests in one transaction (revenue-event-writer.ts
// gathers concurrent requests): each event is stored once per (source, external_ref) with
// its lines and ledger entries; a repeat answers 200 with the first event. Refusals are
// per event (its outcome), never the batch's: the others are written.

export type EventOutcome =
  | { status: 201 | 200; body: RevenueEventView }
  | { error: AppError }
  /** A refund of an event written in this same batch: submitted again after it. */
  | { defer: true };

type Planned = {
  index: number;
  event: PreparedEvent;
  row: Insertable<RevenueEventsTable> & { id: string; paid_on: string; customer_id: string | null };
  lines: { net_cents: number; product_id: string | null; description: string | null }[];
  reverses: RevenueEventRow | null;
  refundedBefore: bigint;
  customer: { source: string; external_ref: string } | null;
};

export async function writeRevenueEvents(trx: Trx, companyId: string, events: readonly PreparedEvent[], now: Date): Promise<EventOutcome[]> {
  const outcomes: (EventOutcome | undefined)[] = new Array(events.length);
  const company = await trx.selectFrom('companies').select('timezone').where('id', '=', companyId).executeTakeFirstOrThrow();
  const refs = dedupe(events.map((e) => ({ source: e.source, ref: e.externalRef })));
  const existing = await findEventsByRef(trx, companyId, refs);

  // The first request of a reference in the batch creates it; later ones repeat it.
  const firstOf = new Map<string, number>();
  const repeats: { index: number; of: string | number }[] = [];
  events.forEach((event, index) => {
    const key = pairKey(event.source, event.externalRef);
    const stored = existing.get(key);
    if (stored) repeats.push({ index, of: stored.id });
    else if (firstOf.has(key)) repeats.push({ index, of: firstOf.get(key) as number });
    else firstOf.set(key, index);
  });
  const fresh = [...firstOf.values()];

  const customers = await findCustomersByRef(
    trx,
    companyId,
    dedupe(fresh.flatMap((i) => (events[i]!.customer ? [{ source: events[i]!.customer!.source, ref: events[i]!.customer!.externalRef }] : []))),
  );
  const products = await findProducts(
    trx,
    companyId,
    dedupe(fresh.flatMap((i) => events[i]!.lines.flatMap((l) => (l.productRef ? [{ source: events[i]!.source, ref: l.productRef }] : [])))),
    [...new Set(fresh.flatMap((i) => events[i]!.lines.flatMap((l) => (l.productNumber ? [l.productNumber] : []))))],
  );
  const originals = await findEventsByRef(
    trx,
    companyId,
    dedupe(fresh.flatMap((i) => (events[i]!.reversesRef ? [{ source: events[i]!.source, ref: events[i]!.reversesRef! }] : []))),
  );
  const refunded = await refundedCents(
    trx,
    companyId,
    [...originals.values()].map((o) => o.id),
  );

  const planned: Planned[] = [];
  for (const index of fresh) {
    const event = events[index]!;
    const outcome = plan(event, index);
    if ('error' in outcome || 'defer' in outcome) outcomes[index] = outcome;
    else planned.push(outcome);
  }

  function plan(event: PreparedEvent, index: number): Planned | { error: AppError } | { defer: true } {
    let customerId: string | null = null;
    if (event.customer) {
      const customer = customers.get(pairKey(event.customer.source, event.customer.externalRef));
      if (!customer) return { error: new AppError('customer_not_found') };
      customerId = customer.id;
    }
    const unknownNumbers: string[] = [];
    const unknownRefs: string[] = [];
    const lines = event.lines.map((line) => {
      let productId: string | null = null;
      if (line.productRef) {
        productId = products.byRef.get(pairKey(event.source, line.productRef)) ?? null;
        if (!productId) unknownRefs.push(line.productRef);
      } else if (line.productNumber) {
        productId = products.byNumber.get(line.productNumber) ?? null;
        if (!productId) unknownNumbers.push(line.productNumber);
      }
      return { net_cents: centsNumber(line.netCents), product_id: productId, description: line.description };
    });
    if (unknownNumbers.length || unknownRefs.length)
      return {
        error: new AppError('commission.product_not_found', {
          product_numbers: [...new Set(unknownNumbers)].sort(),
          product_refs: [...new Set(unknownRefs)].sort(),
        }),
      };
    let reverses: RevenueEventRow | null = null;
    let refundedBefore = 0n;
    if (event.reversesRef) {
      const key = pairKey(event.source, event.reversesRef);
      reverses = originals.get(key) ?? null;
      if (!reverses)
        // The sale is in this batch (before or after the refund: requests of one burst may
        // arrive in any order): the refund goes into the next batch, after it.
        return firstOf.has(key) && firstOf.get(key) !== index ? { defer: true } : { error: new AppError('commission.revenue_event_not_found') };
      if (reverses.reverses_id !== null)
        return {
          error: validationFailed([{ loc: ['body', 'reverses_ref'], type: 'enum', msg: 'reverses_ref names a refund; a refund reverses a revenue event' }]),
        };
      if (event.customer && customerId !== reverses.customer_id)
        return { error: validationFailed([{ loc: ['body', 'customer'], type: 'enum', msg: 'A refund belongs to the customer of the event it reverses' }]) };
      customerId = reverses.customer_id;
      // Earlier refunds, stored or planned in this batch.
      refundedBefore = -(refunded.get(reverses.id) ?? 0n);
      const left = BigInt(reverses.net_cents) - refundedBefore;
      if (-event.netCents > left)
        return {
          error: validationFailed([
            {
              loc: ['body', 'net_amount'],
              type: 'less_than_minimum',
              msg: `The refunds of an event cannot exceed its net amount; ${formatLeft(left)} EUR are left to refund`,
            },
          ]),
        };
      refunded.set(reverses.id, (refunded.get(reverses.id) ?? 0n) + event.netCents);
    }
    const customer = event.customer ? { source: event.customer.source, external_ref: event.customer.externalRef } : null;
    const id = newId('rev');
    return {
      index,
      event,
      lines,
      reverses,
      refundedBefore,
      customer,
      row: {
        company_id: companyId,
        id,
        kind: 'api',
        external_source: event.source,
        external_ref: event.externalRef,
        occurred_at: event.occurredAt,
        paid_on: calendarDate(event.occurredAt, company.timezone),
        net_cents: centsNumber(event.netCents),
        currency: 'EUR',
        customer_id: customerId,
        reverses_id: reverses?.id ?? null,
        description: event.description,
        invoice_id: null,
        allocation_id: null,
        created_at: now,
      },
    };
  }

  if (planned.length > 0) {
    const inserted = await bulkInsert(
      trx,
      'revenue_events',
      {
        company_id: 'text',
        id: 'text',
        kind: 'text',
        external_source: 'text',
        external_ref: 'text',
        occurred_at: 'timestamptz',
        paid_on: 'date',
        net_cents: 'bigint',
        currency: 'text',
        customer_id: 'text',
        reverses_id: 'text',
        description: 'text',
        invoice_id: 'text',
        allocation_id: 'text',
        created_at: 'timestamptz',
      },
      planned.map((p) => p.row),
      { onConflictDoNothing: true, returning: 'id' },
    );
    // Another transaction stored one of these references first: run again, it is a repeat now.
    if (inserted.length !== planned.length) throw new RetryTransaction();
    await bulkInsert(
      trx,
      'revenue_event_lines',
      { company_id: 'text', event_id: 'text', position: 'integer', net_cents: 'bigint', product_id: 'text', description: 'text' },
      planned.flatMap((p) => p.lines.map((line, i) => ({ company_id: companyId, event_id: p.row.id, position: i + 1, ...line }))),
    );
  }

  // Ledger (issue 24). New revenue of a customer appends its entries (the fast path, under
  // the customer's ledger lock shared); revenue paid before a customer's first-paid anchor
  // moves it, and that customer's ledger is computed again. A refund computes the entries
  // of its sale and the sale's refunds again (lock exclusive).
  const sales = planned.filter((p) => p.reverses === null);
  const refunds = planned.filter((p) => p.reverses !== null);
  await lockLedgers(trx, companyId, [
    ...sales.map((p): [string | null, LedgerLockMode] => [p.row.customer_id, 'shared']),
    ...refunds.map((p): [string | null, LedgerLockMode] => [p.row.customer_id, 'exclusive']),
  ]);
  const written: EntryRow[] = [];
  const late = new Set<string | null>();
  if (sales.length > 0) {
    const ctx = await loadLedgerContext(trx, companyId, new Set(sales.map((p) => p.row.customer_id)));
    if (ctx) {
      const rows: EntryRow[] = [];
      // In paid-day order: the batch's first qualifying revenue of a customer sets its anchor.
      const byPaidDay = [...sales].sort((a, b) => (a.row.paid_on < b.row.paid_on ? -1 : a.row.paid_on > b.row.paid_on ? 1 : 0));
      for (const p of byPaidDay) {
        const revenue: LedgerRevenue = {
          customerId: p.row.customer_id,
          paidOn: p.row.paid_on,
          paidAt: p.event.occurredAt,
          eventId: p.row.id,
          sourceType: 'revenue_event',
          sourceId: p.event.externalRef,
          servicePeriodStart: p.row.paid_on,
          basisFor: (productIds) =>
            p.lines.reduce(
              (sum, line) => (productIds === null || (line.product_id !== null && productIds.has(line.product_id)) ? sum + BigInt(line.net_cents) : sum),
              0n,
            ),
        };
        rows.push(
          ...entryRows(
            companyId,
            revenue,
            accrueRevenue(ctx, revenue, () => late.add(p.row.customer_id)),
            now,
          ),
        );
      }
      await storeNewAnchors(trx, companyId, ctx, new Set([...late].map((id) => id ?? '')));
      const fast = late.size === 0 ? rows : rows.filter((row) => !late.has(row.customer_id ?? null));
      await insertLedgerEntries(trx, companyId, ctx, fast);
      written.push(...fast);
    }
  }
  if (late.size > 0) written.push(...(await reconcileCustomers(trx, companyId, late, now)));
  const refundedSales = [...new Set(refunds.filter((p) => !late.has(p.row.customer_id)).map((p) => (p.reverses as RevenueEventRow).id))];
  written.push(...(await reconcileEvents(trx, companyId, refundedSales, [], now)));
  const entriesOf = new Map<string, EntryRow[]>();
  for (const row of written) entriesOf.set(row.revenue_event_id, [...(entriesOf.get(row.revenue_event_id) ?? []), row]);

  for (const p of planned) {
    outcomes[p.index] = {
      status: 201,
      body: revenueEventView(p.row as RevenueEventRow, {
        lines: p.lines,
        entries: entriesOf.get(p.row.id) ?? [],
        customer: p.reverses ? null : p.customer,
        reversesRef: p.event.reversesRef,
      }),
    };
  }
  // A refund without a customer of its own shows the reversed event's customer.
  const needCustomer = planned.filter((p) => p.reverses && p.row.customer_id).map((p) => p.row.customer_id as string);
  if (needCustomer.length > 0) {
    const refsById = await customerRefs(trx, companyId, needCustomer);
    for (const p of planned) {
      const outcome = outcomes[p.index] as { body: RevenueEventView };
      if (p.reverses && p.row.customer_id) outcome.body.customer = refsById.get(p.row.customer_id) ?? null;
    }
  }
  await answerRepeats(trx, companyId, repeats, existing, outcomes);
  return outcomes as EventOutcome[];
}

/** Repeats answer 200 with the first event: a stored one as it is now, one of this batch as just written. */
async function answerRepeats(
  trx: Trx,
  companyId: string,
  repeats: readonly { index: number; of: string | number }[],
  existing: Map<string, RevenueEventRow>,
  outcomes: (EventOutcome | undefined)[],
): Promise<void> {
  const stored = repeats.filter((r) => typeof r.of === 'string').map((r) => r.of as string);
  const views = await storedEventViews(
    trx,
    companyId,
    [...existing.values()].filter((row) => stored.includes(row.id)),
  );
  for (const repeat of repeats) {
    const first = typeof repeat.of === 'string' ? views.get(repeat.of) : outcomes[repeat.of];
    if (first && 'body' in first) outcomes[repeat.index] = { status: 200, body: first.body };
    else if (first) outcomes[repeat.index] = first;
    else throw new Error('a repeated revenue event has no first answer');
  }
}

/** The views of stored events (lines, entries, customer, the reversed event's reference). */
export async function storedEventViews(
  trx: Trx,
  companyId: string,
  rows: readonly RevenueEventRow[],
): Promise<Map<string, { status: 200; body: RevenueEventView }>> {
  const out = new Map<string, { status: 200; body: RevenueEventView }>();
  if (rows.length === 0) return out;
  const ids = rows.map((row) => row.id);
  const lines = await findLines(trx, companyId, ids);
  const entries = await findEntriesOfEvents(trx, companyId, ids);
  const customers = await customerRefs(trx, companyId, [...new Set(rows.flatMap((row) => (row.customer_id ? [row.customer_id] : [])))]);
  const reversedIds = rows.flatMap((row) => (row.reverses_id ? [row.reverses_id] : []));
  const reversed = new Map<string, string | null>();
  if (reversedIds.length > 0) {
    const found = await trx
      .selectFrom('revenue_events')
      .select(['id', 'external_ref'])
      .where('company_id', '=', companyId)
      .where('id', 'in', reversedIds)
      .execute();
    for (const row of found) reversed.set(row.id, row.external_ref);
  }
  for (const row of rows) {
    out.set(row.id, {
      status: 200,
      body: revenueEventView(row, {
        lines: lines.get(row.id) ?? [],
        entries: entries.get(row.id) ?? [],
        customer: row.customer_id ? (customers.get(row.customer_id) ?? null) : null,
        reversesRef: row.reverses_id ? (reversed.get(row.reverses_id) ?? null) : null,
      }),
    });
  }
  return out;
}

function dedupe(pairs: readonly Pair[]): Pair[] {
  const seen = new Map<string, Pair>();
  for (const pair of pairs) seen.set(pairKey(pair.source, pair.ref), pair);
  return [...seen.values()];
}

function formatLeft(cents: bigint): string {
  const abs = cents < 0n ? -cents : cents;
  return `${cents < 0n ? '-' : ''}${abs / 100n}.${(abs % 100n).toString().padStart(2, '0')}`;
}
