// What the API load (load.ts) and the direct-SQL ceiling (ceiling.ts) both do, so that
// both issue the same statements with the same data.

export const SOURCE = 'bench';
/** Customers created before the runs: updated by the upsert runs, read by the GET runs. */
export const PREFILLED = 2000;
/**
 * Creates per scenario (warm-up and measured period) at most. The customer number range holds 60 000 numbers per company;
 * 4 upsert runs × 12 000 + the prefill stay below it. Past the budget a run sends
 * updates only (the report shows each run's create share).
 */
export const CREATE_BUDGET = 12_000;
/** Requests or operations per run at most, whatever the duration. */
export const MAX_OPERATIONS = 400_000;

export const prefilledRef = (i: number) => `p-${i % PREFILLED}`;

export type CustomerBody = {
  name: string;
  email: string;
  street: string;
  house_number: string;
  zip: string;
  city: string;
  country_code: string;
  customer_type: 'business';
  contact_name: string;
};

export function customerBody(ref: string, version: string): CustomerBody {
  return {
    name: `Kunde ${ref} ${version}`,
    email: `${ref}@example.com`,
    street: 'Hauptstraße',
    house_number: '1',
    zip: '10115',
    city: 'Berlin',
    country_code: 'DE',
    customer_type: 'business',
    contact_name: 'Erika Mustermann',
  };
}

export type UpsertStep = { ref: string; body: CustomerBody; create: boolean };

/**
 * Alternates a create (a new ref `tag-N`) and an update of a prefilled customer (round
 * robin, so concurrent updates rarely meet on one row) whose name changes every time,
 * so that an UPDATE really happens. `tag` is unique per run.
 */
export function upsertSteps(tag: string): () => UpsertStep {
  let n = 0;
  let creates = 0;
  let updates = 0;
  return () => {
    n++;
    if (n % 2 === 1 && creates < CREATE_BUDGET) {
      creates++;
      const ref = `${tag}-${creates}`;
      return { ref, body: customerBody(ref, 'v0'), create: true };
    }
    const ref = prefilledRef(updates++);
    return { ref, body: customerBody(ref, `${tag}-v${n}`), create: false };
  };
}

/** Round robin over the prefilled customers. */
export function readRefs(): () => string {
  let i = 0;
  return () => prefilledRef(i++);
}

/** One scenario's sequence, shared by its warm-up and its measured period (one create budget). */
export type Steps = { nextRef: () => string; nextUpsert: () => UpsertStep };
export const steps = (tag: string): Steps => ({ nextRef: readRefs(), nextUpsert: upsertSteps(tag) });

export type Scenario = { mode: 'upsert' | 'get'; connections: number };
export const SCENARIOS: Scenario[] = [
  { mode: 'upsert', connections: 1 },
  { mode: 'upsert', connections: 16 },
  { mode: 'get', connections: 1 },
  { mode: 'get', connections: 16 },
];
