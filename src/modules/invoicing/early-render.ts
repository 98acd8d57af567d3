import { isDeepStrictEqual } from 'node:util';
import { formatNumberPattern } from '../../shared/number-pattern.ts';
import type { CustomerRow } from '../customers/customers.repository.ts';
import type { CompanyRow } from './build-document.ts';
import type { CreateInvoiceBody } from './create-invoice-input.ts';
import type { InvoiceDocument } from './document.ts';
import type { InvoiceFiles } from './invoice-files.ts';
import { invoiceRangeKey } from './numbering.ts';
import { issuedDocument, issuingVerdict } from './plan-issue.ts';
import { linesWithoutProducts } from './resolve-lines.ts';

// Rendering is a pure function of the InvoiceDocument snapshot (render/README.md), and
// it is most of an issuing request's time. So an issuing request predicts its snapshot
// before its transaction, from what this process saw in earlier transactions (the
// company, the customer, the next number of the range), and starts rendering it at once,
// on a render thread while the transaction does its database work. The transaction
// builds the real snapshot and takes the early rendering only when the two are deeply
// equal; otherwise it renders anew. What is remembered is never trusted, only compared:
// a stale or wrong prediction costs one render, never a wrong document or a number gap.
//
// Requests running side by side predict consecutive numbers in arrival order. On PGlite
// they draw them in that order (one connection, transactions queue), so the predictions
// hit; through a PostgreSQL pool they race for the number and ~90 % missed, each miss a
// wasted render (~13 ms of CPU) that cost a quarter of the issuing throughput. So how
// predictions made beside others in flight fare is counted per company, and while they
// mostly miss only every 8th such request still predicts (to notice when they hit again).
// A request alone in its number range always predicts.
//
// The early rendering starts before the request looks up its idempotency key, so that
// look-up runs beside it too. A replay would waste that rendering: keys this process has
// seen answered (the last 10,000 per process) start none. A replay this process has not
// seen (after a restart, or answered by another process) costs one rendering on a render
// thread, once; its prediction is taken back when it settles.

export type EarlyRender = {
  /** The predicted document and its rendering; null when this request predicts nothing (see above). */
  doc: InvoiceDocument | null;
  rendering: Promise<InvoiceFiles> | null;
  /** Call once when the request is over, issued, refused or replayed. */
  settle(): void;
  /** Whether the prediction was taken (for predictions made beside others in flight). */
  taken(hit: boolean): void;
};

export type EarlyRenders = {
  /**
   * Starts rendering the predicted document of an issuing request; null when there is
   * nothing to predict from or the idempotency key is known to be answered already.
   */
  start(
    companyId: string,
    idempotencyKey: string,
    body: CreateInvoiceBody,
    today: (timeZone: string) => string,
    render: (doc: InvoiceDocument) => Promise<InvoiceFiles>,
  ): EarlyRender | null;
  /** The rendering of `early` if it was made for exactly `doc`, else null. */
  take(early: EarlyRender | null, doc: InvoiceDocument): Promise<InvoiceFiles> | null;
  /** What an issuing transaction read and drew (`early`: its own early render, if any), for the next prediction. */
  remember(company: CompanyRow, customer: CustomerRow, rangeKey: string, drawnSeq: number, early: EarlyRender | null): void;
  /** The idempotency key has an answer (stored now or found stored): its replays start no rendering. */
  answered(companyId: string, idempotencyKey: string): void;
};

type Seen = {
  company: CompanyRow;
  customers: Map<string, CustomerRow>;
  /** The next counter value to predict, per number range. */
  nextSeq: Map<string, number>;
  /** Issuing requests predicted for and not yet settled, per number range. */
  inFlight: Map<string, number>;
  /** Predictions made beside others in flight: decayed counts of hits and misses. */
  beside: { hits: number; misses: number; skipped: number };
};

/** Weight of the older outcomes at each new one (about the last 20 count). */
const DECAY = 0.95;
/** While predictions beside others mostly miss, one such request in this many still predicts. */
const PROBE_EVERY = 8;

/** `maxCompanies` × `maxCustomers` rows and `maxKeys` answered keys at most are kept (oldest dropped first). */
export function createEarlyRenders(options: { maxCompanies?: number; maxCustomers?: number; maxKeys?: number } = {}): EarlyRenders {
  const maxCompanies = options.maxCompanies ?? 100;
  const maxCustomers = options.maxCustomers ?? 1000;
  const maxKeys = options.maxKeys ?? 10_000;
  const seen = new Map<string, Seen>();
  const answeredKeys = new Set<string>();
  const customerKey = (source: string, ref: string) => `${source}\u0000${ref}`;
  const answerKey = (companyId: string, key: string) => `${companyId}\u0000${key}`;
  /** Early renders whose prediction a transaction drew (remember), until they settle. */
  const drawn = new WeakSet<EarlyRender>();

  return {
    start(companyId, idempotencyKey, body, today, render) {
      if (answeredKeys.has(answerKey(companyId, idempotencyKey))) return null;
      const memory = seen.get(companyId);
      const customer = memory?.customers.get(customerKey(body.customer.source, body.customer.external_ref));
      const lines = linesWithoutProducts(body);
      if (!memory || !customer || !lines) return null;
      const { company } = memory;
      const { verdict, messages } = issuingVerdict({ company, customer, lines });
      if (messages.length > 0) return null;
      const issueDate = today(company.timezone);
      const rangeKey = invoiceRangeKey(issueDate);
      const seq = memory.nextSeq.get(rangeKey);
      if (seq === undefined) return null;
      // Requests running side by side predict consecutive numbers.
      memory.nextSeq.set(rangeKey, seq + 1);
      const others = memory.inFlight.get(rangeKey) ?? 0;
      memory.inFlight.set(rangeKey, others + 1);
      const { beside } = memory;
      const predict = others === 0 || beside.hits >= beside.misses || ++beside.skipped % PROBE_EVERY === 0;
      let doc: InvoiceDocument | null = null;
      let rendering: Promise<InvoiceFiles> | null = null;
      if (predict) {
        doc = issuedDocument({ company, customer, lines, body, issueDate }, verdict, formatNumberPattern(company.invoice_number_pattern, issueDate, seq));
        rendering = render(doc);
        rendering.catch(() => {}); // a failed early render is simply not taken
      }
      const taken = (hit: boolean) => {
        if (!rendering || others === 0) return;
        beside.hits = beside.hits * DECAY + (hit ? 1 : 0);
        beside.misses = beside.misses * DECAY + (hit ? 0 : 1);
      };
      let settled = false;
      const early: EarlyRender = {
        doc,
        rendering,
        taken,
        settle() {
          if (settled) return;
          settled = true;
          const left = (memory.inFlight.get(rangeKey) ?? 1) - 1;
          if (left > 0) memory.inFlight.set(rangeKey, left);
          else memory.inFlight.delete(rangeKey);
          // No transaction drew this number (a replay, a refusal): the next request predicts it again.
          if (!drawn.has(early) && memory.nextSeq.get(rangeKey) === seq + 1) memory.nextSeq.set(rangeKey, seq);
        },
      };
      return early;
    },
    take(early, doc) {
      if (!early?.rendering) return null;
      const hit = isDeepStrictEqual(early.doc, doc);
      early.taken(hit);
      return hit ? early.rendering : null;
    },
    remember(company, customer, rangeKey, drawnSeq, early) {
      if (early) drawn.add(early);
      let memory = seen.get(company.id);
      if (!memory) {
        if (seen.size >= maxCompanies) seen.delete(seen.keys().next().value as string);
        memory = { company, customers: new Map(), nextSeq: new Map(), inFlight: new Map(), beside: { hits: 0, misses: 0, skipped: 0 } };
        seen.set(company.id, memory);
      }
      memory.company = company;
      const key = customerKey(customer.external_source, customer.external_ref);
      memory.customers.delete(key);
      if (memory.customers.size >= maxCustomers) memory.customers.delete(memory.customers.keys().next().value as string);
      memory.customers.set(key, customer);
      // The number after this one, after those that other requests in flight will draw.
      // (A refused request's prediction is never drawn: this puts the next one right.)
      const others = (memory.inFlight.get(rangeKey) ?? 0) - (early ? 1 : 0);
      memory.nextSeq.set(rangeKey, drawnSeq + 1 + Math.max(0, others));
    },
    answered(companyId, idempotencyKey) {
      const key = answerKey(companyId, idempotencyKey);
      if (answeredKeys.has(key)) return;
      if (answeredKeys.size >= maxKeys) answeredKeys.delete(answeredKeys.values().next().value as string);
      answeredKeys.add(key);
    },
  };
}
