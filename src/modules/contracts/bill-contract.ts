import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';
import type { CycleStatus } from '../../db/schema-contracts.ts';
import { inTransaction, type Trx } from '../../db/transaction.ts';
import { enqueueJob } from '../../jobs/index.ts';
import type { Clock } from '../../shared/clock.ts';
import { newId } from '../../shared/ids.ts';
import { pauseAt } from '../../shared/pause-at.ts';
import { centsToDecimal, type InvoicingDeps, issuingProblems, lineNetCents, RENDER_INVOICE_JOB, type ResolvedLine, writeInvoice } from '../invoicing/index.ts';
import { arrearsPeriod, type BillingPlan, billingCycle, billsUsage, planBilling } from './billing-plan.ts';
import { creditsAfter } from './billing-state.ts';
import { applyCredits, type SettledLines } from './contract-credit.ts';
import { findContractItemsWithProduct, openCreditsColumn } from './contracts.repository.ts';

// One billing date of one contract, in one transaction (design §6): the contract row is
// locked, its billing date planned (billing-plan.ts), the invoice written (issued, a draft,
// or none when nothing goes on one), the cycle recorded and the contract moved on to its
// next billing date. The cycle's primary key (contract, billing date) and the lock make a
// billing date billed once, whoever runs it. An invoice that cannot be issued leaves the
// cycle `failed` with the German reason and the billing date where it is: the next run
// tries again. The documents are rendered (and mailed) by the job `invoices.render` that
// commits with the invoice. The planned lines go on the invoice with the contract's
// credits it can carry (contract-credit.ts); credits used and carried commit with it.

export type BillingDeps = { db: Database; clock: Clock; bookingWrites: InvoicingDeps['bookingWrites'] };

/**
 * `reason`: German, for a person (kept with the cycle); `logReason`: the same without the
 * customer's name, for logs. `creditLeftCents`: after the final billing, contract credit no
 * invoice will carry any more (a person refunds it; the contract's page lists it).
 */
export type BillingOutcome = {
  billingDate: string;
  status: CycleStatus;
  invoiceId: string | null;
  reason?: string;
  logReason?: string;
  creditLeftCents?: number;
};

const BILLABLE = ['active', 'paused', 'cancelled'] as const;

/**
 * Bills every billing date of the contract up to `asOf`, each in its own transaction, in
 * order; stops at a failed one. A billing that moved the contract past `asOf` (or ended it)
 * ends the loop: no transaction only to find nothing due (issue 26: 4 of a contract's ~21
 * round trips). Whatever changes the contract after the commit is found by the next run,
 * as it would be had it come a moment after that transaction.
 */
export async function billContract(deps: BillingDeps, companyId: string, contractId: string, asOf: string): Promise<BillingOutcome[]> {
  const outcomes: BillingOutcome[] = [];
  for (;;) {
    // Planned afresh each time (the sessions' force_custom_plan), foreign-key checks too: with
    // reused plans (useCachedPlans) a connection kept the plan it made for each check while
    // the run's tables were small, a scan that grew with them; at 10,000 contracts the
    // journal entry's statement took 4 ms instead of 0.7 (issue 26, decisions.md).
    const billed = await inTransaction(deps.db, (trx) => billNextDate(trx, deps, companyId, contractId, asOf));
    if (!billed) return outcomes;
    outcomes.push(billed.outcome);
    await pauseAt('contract-billing.after-commit');
    if (billed.outcome.status === 'failed' || !billed.moreDue) return outcomes;
  }
}

/** A billing date done, and whether the contract has another one due by `asOf`. */
type Billed = { outcome: BillingOutcome; moreDue: boolean };

async function billNextDate(trx: Trx, deps: BillingDeps, companyId: string, contractId: string, asOf: string): Promise<Billed | null> {
  const contract = await trx
    .selectFrom('contracts')
    .selectAll()
    .select(openCreditsColumn.as('open_credits'))
    .where('company_id', '=', companyId)
    .where('id', '=', contractId)
    .forUpdate()
    .executeTakeFirst();
  const billingDate = contract?.next_billing_date;
  if (!contract || !billingDate || billingDate > asOf || !(BILLABLE as readonly string[]).includes(contract.status)) return null;
  const items = await findContractItemsWithProduct(trx, companyId, contractId);
  const usage = items.some(billsUsage) ? await usageSums(trx, companyId, contractId, contract, billingDate) : new Map<string, string>();
  const plan = planBilling(contract, items, usage, billingDate);
  const settled = applyCredits(plan.lines, contract.open_credits);
  const lines: ResolvedLine[] = settled.lines.map((line) => {
    const item = items.find((candidate) => candidate.ref === line.itemRef);
    return {
      description: line.description,
      quantity: line.quantity,
      unit: line.unit,
      unitPriceNet: line.unitPriceNet,
      vatRate: line.vatRate,
      netCents: lineNetCents({ quantity: line.quantity, unitPriceNet: line.unitPriceNet, vatRate: line.vatRate }),
      taxExemptionReason: null,
      productNumber: item?.product_number ?? null,
      productId: item?.product_id ?? null,
      servicePeriod: line.servicePeriod,
    };
  });
  const totalCents = lines.reduce((sum, line) => sum + line.netCents, 0);
  const now = deps.clock.now();
  const creditLeft = plan.final ? creditsAfter(contract.open_credits, settled, billingDate).reduce((sum, credit) => sum + credit.openCents, 0) : 0;
  const left = creditLeft > 0 ? { creditLeftCents: creditLeft } : {};
  // moveOn sets the next billing date to plan.next (null after the final billing: ended).
  const moreDue = plan.next !== null && plan.next <= asOf;

  // Nothing to charge or credit on an invoice (credits are carried): no invoice.
  if (lines.length === 0) {
    const status: CycleStatus = plan.paused ? 'paused' : 'skipped';
    await recordCycle(trx, companyId, contractId, plan, { status, invoiceId: null, totalNet: null, reason: null }, now);
    await recordCredits(trx, companyId, contractId, billingDate, settled, null, now);
    await moveOn(trx, companyId, contractId, plan, now);
    return { outcome: { billingDate, status, invoiceId: null, ...left }, moreDue };
  }

  const company = await trx.selectFrom('companies').selectAll().where('id', '=', companyId).executeTakeFirstOrThrow();
  const customer = await trx
    .selectFrom('customers')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('id', '=', contract.customer_id)
    .executeTakeFirstOrThrow();
  const issue = contract.invoice_mode !== 'draft';
  let periodLock: { lockedUntil: string | null } | undefined;
  if (issue) {
    const checked = await issuingProblems(trx, { company, customer, lines }, deps.clock.today(company.timezone));
    const problems = checked.problems;
    periodLock = checked.periodLock;
    if (problems.length > 0) {
      const reason = problems.join(' ');
      await recordCycle(trx, companyId, contractId, plan, { status: 'failed', invoiceId: null, totalNet: null, reason }, now);
      return { outcome: { billingDate, status: 'failed', invoiceId: null, reason, logReason: withoutName(reason, customer) }, moreDue: false };
    }
  }
  const invoiceId = newId('inv');
  const servicePeriod = {
    start: lines.reduce((min, line) => (line.servicePeriod!.start < min ? line.servicePeriod!.start : min), lines[0]!.servicePeriod!.start),
    end: lines.reduce((max, line) => (line.servicePeriod!.end > max ? line.servicePeriod!.end : max), lines[0]!.servicePeriod!.end),
  };
  // What needs no invoice row goes first: from the invoice number's draw in writeInvoice to
  // the commit, every other billing transaction of the company waits on the number's row
  // lock (and the change feed's), so the fewer statements after the draw, the more
  // contracts a run bills per second (issue 26). The cycle refers to the invoice row: it
  // goes into the invoice's own statement; the credits used (rare) follow it.
  await moveOn(trx, companyId, contractId, plan, now);
  if (issue)
    await enqueueJob(trx, {
      name: RENDER_INVOICE_JOB,
      companyId,
      payload: { invoice_id: invoiceId, send: contract.invoice_mode === 'issue_send' },
      runAt: now,
      dedupeKey: `${RENDER_INVOICE_JOB}:${invoiceId}`,
      // Before the next bill jobs: the render threads work while the run goes on billing.
      priority: 1,
    });
  await writeInvoice(trx, deps, {
    company,
    customer,
    invoiceId,
    lines,
    body: {
      external_ref: null,
      service_period: servicePeriod,
      ...(contract.payment_terms_days !== null ? { payment_terms_days: contract.payment_terms_days } : {}),
    },
    externalSource: null,
    paymentTermsDays: contract.payment_terms_days ?? company.payment_terms_days,
    issue,
    contract: { id: contractId, externalRef: contract.external_ref },
    ...(periodLock ? { periodLock } : {}),
    // The cycle refers to the invoice row: it goes into the invoice's statement.
    alongside: [cycleWrite(trx, companyId, contractId, plan, { status: 'billed', invoiceId, totalNet: centsToDecimal(totalCents), reason: null }, now)],
  });
  await recordCredits(trx, companyId, contractId, billingDate, settled, invoiceId, now);
  return { outcome: { billingDate, status: 'billed', invoiceId, ...left }, moreDue };
}

/** A reason with the customer named by number instead of name (a name is personal data; logs carry none). */
function withoutName(reason: string, customer: { name: string; kundennummer: number }): string {
  return customer.name ? reason.split(`Kunde ${customer.name}`).join(`Kunde ${customer.kundennummer}`).split(customer.name).join('…') : reason;
}

/** Per usage-billed item, the usage summed over the arrears period of this billing date. */
async function usageSums(
  trx: Trx,
  companyId: string,
  contractId: string,
  contract: { usage_open_from: string | null; start_date: string; end_date: string | null },
  billingDate: string,
): Promise<Map<string, string>> {
  const { from, to } = arrearsPeriod(contract, billingDate);
  const rows = await trx
    .selectFrom('usage_records')
    .select(['item_ref', sql<string>`sum(quantity)::text`.as('total')])
    .where('company_id', '=', companyId)
    .where('contract_id', '=', contractId)
    .where('occurred_on', '>=', from)
    .where('occurred_on', '<=', to)
    .groupBy('item_ref')
    .execute();
  return new Map(rows.map((row) => [row.item_ref, row.total]));
}

type CycleResult = { status: CycleStatus; invoiceId: string | null; totalNet: string | null; reason: string | null };

/**
 * After billing the contract threw (anything: a bug, data no rule foresaw, a database
 * error): its next billing date due by `asOf` is recorded `failed` in a transaction of its
 * own, with a reason a person can read and a reference for the log, and stays due — the
 * next run tries again. Null when nothing is due (the error came after the last date).
 */
export async function recordBillingFailure(
  deps: Pick<BillingDeps, 'db' | 'clock'>,
  companyId: string,
  contractId: string,
  asOf: string,
  reference: string,
): Promise<string | null> {
  return inTransaction(deps.db, async (trx) => {
    const contract = await trx
      .selectFrom('contracts')
      .select(['next_billing_date', 'status', 'start_date', 'billing_starts_on', 'end_date', 'billing_interval'])
      .where('company_id', '=', companyId)
      .where('id', '=', contractId)
      .forUpdate()
      .executeTakeFirst();
    const billingDate = contract?.next_billing_date;
    if (!contract || !billingDate || billingDate > asOf || !(BILLABLE as readonly string[]).includes(contract.status)) return null;
    const reason = `Die Abrechnung ist an einem unerwarteten Fehler gescheitert (Fehlerreferenz ${reference}); der nächste Lauf versucht es erneut. Bleibt der Fehler, bitte mit dieser Referenz den Betrieb informieren.`;
    await recordCycle(
      trx,
      companyId,
      contractId,
      { billingDate, cycle: billingCycle(contract, billingDate) },
      { status: 'failed', invoiceId: null, totalNet: null, reason },
      deps.clock.now(),
    );
    return billingDate;
  });
}

/** The cycle row of this billing date: new, or a failed one again (attempts counted) or now done. */
async function recordCycle(trx: Trx, companyId: string, contractId: string, plan: Pick<BillingPlan, 'billingDate' | 'cycle'>, result: CycleResult, now: Date) {
  await cycleWrite(trx, companyId, contractId, plan, result, now).execute();
}

/** recordCycle's upsert, not yet run (it goes into the invoice's statement when one is billed). */
function cycleWrite(trx: Trx, companyId: string, contractId: string, plan: Pick<BillingPlan, 'billingDate' | 'cycle'>, result: CycleResult, now: Date) {
  return trx
    .insertInto('contract_cycles')
    .values({
      company_id: companyId,
      contract_id: contractId,
      billing_date: plan.billingDate,
      start_date: plan.cycle.start,
      end_date: plan.cycle.end,
      status: result.status,
      invoice_id: result.invoiceId,
      total_net: result.totalNet,
      reason: result.reason,
      updated_at: now,
    })
    .onConflict((oc) =>
      oc.columns(['company_id', 'contract_id', 'billing_date']).doUpdateSet((eb) => ({
        status: eb.ref('excluded.status'),
        invoice_id: eb.ref('excluded.invoice_id'),
        total_net: eb.ref('excluded.total_net'),
        reason: eb.ref('excluded.reason'),
        attempts: sql<number>`contract_cycles.attempts + 1`,
        updated_at: eb.ref('excluded.updated_at'),
      })),
    );
}

/**
 * The credits of this billing the invoice could not carry in full (kept whole, with the
 * part the invoice used), and the uses of credits carried from earlier billings.
 */
async function recordCredits(trx: Trx, companyId: string, contractId: string, billingDate: string, settled: SettledLines, invoiceId: string | null, now: Date) {
  if (settled.credits.length > 0)
    await trx
      .insertInto('contract_credits')
      .values(
        settled.credits.map((credit) => ({
          company_id: companyId,
          contract_id: contractId,
          billing_date: billingDate,
          position: credit.position,
          item_ref: credit.itemRef,
          vat_rate: credit.vatRate,
          description: credit.description,
          service_period_start: credit.servicePeriod.start,
          service_period_end: credit.servicePeriod.end,
          amount_cents: credit.amountCents,
          created_at: now,
        })),
      )
      .execute();
  const uses = [
    ...settled.uses,
    ...settled.credits.filter((credit) => credit.usedCents > 0).map((credit) => ({ billingDate, position: credit.position, amountCents: credit.usedCents })),
  ];
  if (uses.length === 0) return;
  // A credit is only used by lines of an invoice: there is one whenever something was used.
  if (invoiceId === null) throw new Error('contract credit used without an invoice');
  await trx
    .insertInto('contract_credit_uses')
    .values(
      uses.map((use) => ({
        company_id: companyId,
        contract_id: contractId,
        billing_date: use.billingDate,
        position: use.position,
        invoice_id: invoiceId,
        used_on: billingDate,
        amount_cents: use.amountCents,
        created_at: now,
      })),
    )
    .execute();
}

/** The contract after a billing date is done: items' days billed, usage period, next billing date, ended after the final one. */
async function moveOn(trx: Trx, companyId: string, contractId: string, plan: BillingPlan, now: Date) {
  const refs = [...new Set([...plan.billedUntil.keys(), ...plan.billed.keys()])];
  // One statement for every item whose record changed.
  if (refs.length > 0) {
    const rows = refs.map(
      (ref) => sql`(${ref}::text, ${plan.billedUntil.get(ref) ?? null}::date, ${plan.billed.has(ref) ? JSON.stringify(plan.billed.get(ref)) : null}::jsonb)`,
    );
    await sql`
      update contract_items as i
      set billed_until = coalesce(v.billed_until, i.billed_until), billed_quantities = coalesce(v.billed, i.billed_quantities)
      from (values ${sql.join(rows)}) as v(ref, billed_until, billed)
      where i.company_id = ${companyId} and i.contract_id = ${contractId} and i.ref = v.ref`.execute(trx);
  }
  const latest = [...plan.billedUntil.values()].sort().at(-1);
  await trx
    .updateTable('contracts')
    .set({
      next_billing_date: plan.next,
      usage_open_from: plan.usageOpenFrom,
      last_billing_date: plan.billingDate,
      ...(latest ? { billed_until: sql<string>`greatest(billed_until, ${latest}::date)` } : {}),
      ...(plan.final ? { status: 'ended' as const } : {}),
      updated_at: now,
    })
    .where('company_id', '=', companyId)
    .where('id', '=', contractId)
    .execute();
}
