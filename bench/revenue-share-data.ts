// What the revenue-share bench scripts (issue 14) share: partner bodies, a small pool for
// set-up calls of the module operations, the check that every partner's kept balance
// equals the sums of its entries, and the environment of a measured `kontor serve`.
import { sql } from 'kysely';
import type { Database } from '../src/db/connection.ts';
import type { PartnerInput } from '../src/modules/commissions/upsert-partner.ts';
import type { Target } from './targets.ts';

export const PARTNER_ADDRESS = { street: 'Hafenstraße', house_number: '3', zip: '20457', city: 'Hamburg', country_code: 'DE' } as const;

/** A business partner who agreed to self-billing (a Gutschrift with ZUGFeRD, e_invoice_format auto), or a private person (a settlement). */
export function partnerBody(name: string, kind: 'gutschrift' | 'private', email: string | null): PartnerInput {
  return kind === 'gutschrift'
    ? {
        name,
        email,
        tax_status: 'domestic_regular',
        billing_mode: 'self_billing',
        self_billing_agreed_on: '2026-01-15',
        vat_id: 'DE136695976',
        ...PARTNER_ADDRESS,
      }
    : { name, email, tax_status: 'private_person', billing_mode: 'settlement', ...PARTNER_ADDRESS };
}

/** Runs `work` for every item, at most `concurrency` at a time. */
export async function inPool<T>(items: readonly T[], concurrency: number, work: (item: T, index: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, async () => {
      while (next < items.length) {
        const index = next++;
        await work(items[index] as T, index);
      }
    }),
  );
}

export type BalanceCheck = { partners: number; entries: number; mismatched: string[] };

/** Every partner of the company: kept balance columns against the sums of its entries by status. */
export async function checkBalances(db: Database, companyId: string): Promise<BalanceCheck> {
  const rows = await sql<{ id: string; kept: string; summed: string; entries: string }>`
    select p.id,
           concat_ws('/', p.balance_open_cents, p.balance_statemented_cents, p.balance_paid_cents) as kept,
           concat_ws('/', coalesce(e.open, 0), coalesce(e.statemented, 0), coalesce(e.paid, 0)) as summed,
           coalesce(e.n, 0)::text as entries
    from commission_partners p
    left join (select partner_id,
                      sum(amount_cents) filter (where status = 'open') as open,
                      sum(amount_cents) filter (where status = 'statemented') as statemented,
                      sum(amount_cents) filter (where status = 'paid') as paid,
                      count(*) as n
               from commission_entries where company_id = ${companyId} group by partner_id) e on e.partner_id = p.id
    where p.company_id = ${companyId}`.execute(db);
  return {
    partners: rows.rows.length,
    entries: rows.rows.reduce((sum, row) => sum + Number(row.entries), 0),
    mismatched: rows.rows.filter((row) => row.kept !== row.summed).map((row) => `${row.id}: kept ${row.kept}, entries ${row.summed}`),
  };
}

/** The environment of a measured `kontor serve`: the target's database, no worker, warnings only, a fixed clock. */
export function serverEnv(target: Target, now: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn', KONTOR_WORKER: 'off', KONTOR_NOW: now };
  delete env.DATABASE_URL;
  delete env.KONTOR_DATA;
  if (target.kind === 'postgres') env.DATABASE_URL = target.url;
  return env;
}

export const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;
