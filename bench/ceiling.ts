// Child process: the ceiling. The statements an upsert and a retrieve issue (the SQL
// Kysely compiles in src/modules/customers and src/db/number-ranges.ts), sent directly
// through the driver — a pg Pool with one client per connection, or the PGlite instance
// through the same one-call, prepared path Kontor's dialect uses (src/db/pglite-query.ts) —
// with the same concurrency and data as the API runs, without HTTP, Fastify or Kysely.
// Input: one JSON argument (CeilingInput); output: one JSON line on stdout.
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { pgliteParsers, pgTypes } from '../src/db/connection.ts';
import { pgliteQuery } from '../src/db/pglite-query.ts';
import { newId } from '../src/shared/ids.ts';
import { type CpuWatch, cpuMeter } from './cpu.ts';
import { type Measurement, machineBusy, summarize } from './stats.ts';
import { MAX_OPERATIONS, type Scenario, SOURCE, type Steps, steps, type UpsertStep } from './workload.ts';

export type Target = { kind: 'pglite'; dataDir: string } | { kind: 'postgres'; url: string };
export type CeilingInput = { target: Target; companyId: string; duration: number; warmup: number; tag: string; scenarios: Scenario[]; watch: CpuWatch };

const SELECT_BY_REF = 'select * from "customers" where "company_id" = $1 and "external_source" = $2 and "external_ref" = $3';
const UPDATE_CUSTOMER =
  'update "customers" set "name" = $1, "email" = $2, "street" = $3, "house_number" = $4, "zip" = $5, "city" = $6, "country_code" = $7, ' +
  '"vat_id" = $8, "customer_type" = $9, "leitweg_id" = $10, "contact_name" = $11, "updated_at" = $12 where "company_id" = $13 and "id" = $14 returning *';
// insertCustomerWithNextNumber of src/modules/customers/customers.repository.ts.
const INSERT_WITH_NUMBER = `
    with drawn as (
      update number_ranges set next_value = next_value + 1
      where company_id = $1 and range_key = $2 and next_value <= last_value
        and not exists (select 1 from customers c where c.company_id = $3
                        and c.external_source = $4 and c.external_ref = $5)
      returning next_value - 1 as kundennummer
    )
    insert into customers (company_id, id, kundennummer, external_source, external_ref, name, email, street, house_number,
                           zip, city, country_code, vat_id, customer_type, leitweg_id, contact_name, created_at, updated_at)
    select $6, $7, kundennummer, $8, $9, $10, $11::text,
           $12::text, $13::text, $14::text, $15::text, $16::text,
           $17::text, $18, $19::text, $20::text,
           $21::timestamptz, $22::timestamptz
    from drawn
    on conflict (company_id, external_source, external_ref) do nothing
    returning *`;
const INSERT_RANGE =
  'insert into "number_ranges" ("company_id", "range_key", "next_value", "last_value") values ($1, $2, $3, $4) on conflict ("company_id", "range_key") do nothing';

type Row = Record<string, unknown>;
type Query = (sql: string, params: unknown[]) => Promise<{ rows: Row[] }>;
type Driver = { query: Query; close(): Promise<void> };

function postgresDriver(url: string, clients: number): Driver {
  const pool = new pg.Pool({
    connectionString: url,
    max: clients,
    types: pgTypes,
  });
  return {
    query: (sql, params) => pool.query(sql, params),
    close: () => pool.end(),
  };
}

async function pgliteDriver(dataDir: string): Promise<Driver> {
  const db = new PGlite({ dataDir, parsers: pgliteParsers });
  await db.waitReady;
  await db.exec('set plan_cache_mode = force_custom_plan'); // as src/db/connection.ts
  const fast = pgliteQuery(db);
  return {
    query: (sql, params) => fast.query<Row>(sql, params),
    close: () => db.close(),
  };
}

/** upsertCustomer's statements (each autocommit, as there); returns whether it created. */
async function upsert(driver: Driver, companyId: string, step: UpsertStep): Promise<boolean> {
  const b = step.body;
  const fields = [b.name, b.email, b.street, b.house_number, b.zip, b.city, b.country_code, null, b.customer_type, null, b.contact_name];
  const names = ['name', 'email', 'street', 'house_number', 'zip', 'city', 'country_code', 'vat_id', 'customer_type', 'leitweg_id', 'contact_name'];
  for (let attempt = 1; attempt <= 5; attempt++) {
    const existing = (await driver.query(SELECT_BY_REF, [companyId, SOURCE, step.ref])).rows[0];
    if (existing) {
      if (names.every((name, i) => existing[name] === fields[i])) return false;
      await driver.query(UPDATE_CUSTOMER, [...fields, new Date(), companyId, existing.id]);
      return false;
    }
    const now = new Date();
    const [name, email, street, house, zip, city, country, vatId, type, leitwegId, contact] = fields;
    const inserted = await driver.query(INSERT_WITH_NUMBER, [
      companyId,
      'customer',
      companyId,
      SOURCE,
      step.ref,
      companyId,
      newId('cus'),
      SOURCE,
      step.ref,
      name,
      email,
      street,
      house,
      zip,
      city,
      country,
      vatId,
      type,
      leitwegId,
      contact,
      now,
      now,
    ]);
    if (inserted.rows[0]) return true;
    if ((await driver.query(SELECT_BY_REF, [companyId, SOURCE, step.ref])).rows[0]) continue;
    await driver.query(INSERT_RANGE, [companyId, 'customer', 10000, 69999]);
  }
  throw new Error('upsert did not settle after 5 attempts');
}

async function run(driver: Driver, input: CeilingInput, scenario: Scenario, seconds: number, sequence: Steps): Promise<Measurement> {
  const latencies: number[] = [];
  let errors = 0;
  let created = 0;
  let issued = 0;
  const operation =
    scenario.mode === 'get'
      ? async () => {
          const found = await driver.query(SELECT_BY_REF, [input.companyId, SOURCE, sequence.nextRef()]);
          if (!found.rows[0]) throw new Error('prefilled customer not found');
        }
      : async () => {
          if (await upsert(driver, input.companyId, sequence.nextUpsert())) created++;
        };
  const started = performance.now();
  const until = started + seconds * 1000;
  const client = async () => {
    while (performance.now() < until && issued < MAX_OPERATIONS) {
      issued++;
      const t0 = performance.now();
      try {
        await operation();
        latencies.push(performance.now() - t0);
      } catch (error) {
        if (errors++ < 3) process.stderr.write(`  ceiling ${scenario.mode}: ${(error as Error).message}\n`);
      }
    }
  };
  await Promise.all(Array.from({ length: scenario.connections }, client));
  const elapsed = (performance.now() - started) / 1000;
  return summarize(latencies, elapsed, errors, scenario.mode === 'upsert' ? created / Math.max(1, latencies.length) : undefined);
}

async function main(input: CeilingInput) {
  const results: Measurement[] = [];
  const shared = input.target.kind === 'pglite' ? await pgliteDriver(input.target.dataDir) : undefined;
  try {
    for (const scenario of input.scenarios) {
      const name = `${scenario.mode}-c${scenario.connections}`;
      const driver = shared ?? postgresDriver((input.target as { url: string }).url, scenario.connections);
      try {
        const sequence = steps(`${input.tag}-${name}`);
        if (input.warmup > 0) await run(driver, input, scenario, input.warmup, sequence);
        const busyBefore = await machineBusy();
        const meter = cpuMeter(input.watch);
        const measured = await run(driver, input, scenario, input.duration, sequence);
        Object.assign(measured, { busyBefore, cpu: meter(measured.count) });
        process.stderr.write(`  sql ${name}: ${measured.rps.toFixed(0)} ops/s, p50 ${measured.p50.toFixed(2)} ms, p99 ${measured.p99.toFixed(2)} ms\n`);
        results.push(measured);
      } finally {
        if (!shared) await driver.close();
      }
    }
  } finally {
    await shared?.close();
  }
  return { results };
}

const output = await main(JSON.parse(process.argv[2] ?? '{}') as CeilingInput);
process.stdout.write(`${JSON.stringify(output)}\n`);
