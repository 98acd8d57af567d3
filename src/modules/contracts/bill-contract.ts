import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';
import type { CycleStatus } from '../../db/schema-contracts.ts';
import { inTransaction, type Trx } from '../../db/transaction.ts';
import { enqueueJob } from '../../jobs/index.ts';
import type { Clock } from '../../shared/clock.ts';
import { newId } from '../../shared/ids.ts';
import { pauseAt } from '../../shared/pause-at.ts';
import { centsToDecimal, type InvoicingDeps, issuingProblems, lineNetCents, RENDER_INVOICE_JOB, type ResolvedLine, writeInvoice } from '../invoicing/index.ts';
import { arrearsPeriod, type BillingPlan, billsUsage, planBilling } from './billing-plan.ts';
import { findContractItemsWithProduct } from './contracts.repository.ts';

// One billing date of one contract, in one transaction (design §6): the contract row is
// locked, its billing date planned (billing-plan.ts), the invoice written (issued, a draft,
// or none for a zero amount), the cycle recorded and the contract moved on to its next
// billing date. The cycle's primary key (contract, billing date) and the lock make a
// billing date billed once, whoever runs it. An invoice that cannot be issued leaves the
// cycle `failed` with the German reason and the billing date where it is: the next run
// tries again. The documents are rendered (and mailed) by the job `invoices.render` that
// commits with the invoice.

export type BillingDeps = { db: Database; clock: Clock; book: InvoicingDeps['book'] };

export type BillingOutcome = { billingDate: string; status: CycleStatus; invoiceId: string | null; reason?: string };

const BILLABLE = ['active', 'paused', 'cancelled'] as const;

/** Bills every billing date of the contract up to `asOf`, each in its own transaction, in order; stops at a failed one. */
export async function billContract(deps: BillingDeps, companyId: string, contractId: string, asOf: string): Promise<BillingOutcome[]> {
  const outcomes: BillingOutcome[] = [];
  for (;;) {
    const outcome = await inTransaction(deps.db, (trx) => billNextDate(trx, deps, companyId, contractId, asOf));
    if (!outcome) return outcomes;
    outcomes.push(outcome);
    await pauseAt('contract-billing.after-commit');
    if (outcome.status === 'failed') return outcomes;
  }
}

async function billNextDate(trx: Trx, deps: BillingDeps, companyId: string, contractId: string, asOf: string): Promise<BillingOutcome | null> {
  const contract = await trx
    .selectFrom('contracts')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('id', '=', contractId)
    .forUpdate()
    .executeTakeFirst();
  const billingDate = contract?.next_billing_date;
  if (!contract || !billingDate || billingDate > asOf || !(BILLABLE as readonly string[]).includes(contract.status)) return null;
  const items = await findContractItemsWithProduct(trx, companyId, contractId);
  const usage = items.some(billsUsage) ? await usageSums(trx, companyId, contractId, contract, billingDate) : new Map<string, string>();
  const plan = planBilling(contract, items, usage, billingDate);
  const lines: ResolvedLine[] = plan.lines.map((line) => {
    const item = items.find((candidate) => candidate.ref === line.itemRef)!;
    return {
      description: line.description,
      quantity: line.quantity,
      unit: line.unit,
      unitPriceNet: line.unitPriceNet,
      vatRate: line.vatRate,
      netCents: lineNetCents({ quantity: line.quantity, unitPriceNet: line.unitPriceNet, vatRate: line.vatRate }),
      taxExemptionReason: null,
      productNumber: item.product_number ?? null,
      productId: item.product_id,
      servicePeriod: line.servicePeriod,
    };
  });
  const totalCents = lines.reduce((sum, line) => sum + line.netCents, 0);
  const now = deps.clock.now();

  if (totalCents === 0) {
    const status: CycleStatus = plan.paused ? 'paused' : 'skipped';
    await recordCycle(trx, companyId, contractId, plan, { status, invoiceId: null, totalNet: plan.lines.length ? '0.00' : null, reason: null }, now);
    await moveOn(trx, companyId, contractId, plan, now);
    return { billingDate, status, invoiceId: null };
  }

  const company = await trx.selectFrom('companies').selectAll().where('id', '=', companyId).executeTakeFirstOrThrow();
  const customer = await trx
    .selectFrom('customers')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('id', '=', contract.customer_id)
    .executeTakeFirstOrThrow();
  const issue = contract.invoice_mode !== 'draft';
  if (issue) {
    const problems = await issuingProblems(trx, { company, customer, lines }, deps.clock.today(company.timezone));
    if (problems.length > 0) {
      await recordCycle(trx, companyId, contractId, plan, { status: 'failed', invoiceId: null, totalNet: null, reason: problems.join(' ') }, now);
      return { billingDate, status: 'failed', invoiceId: null, reason: problems.join(' ') };
    }
  }
  const invoiceId = newId('inv');
  const servicePeriod = {
    start: lines.reduce((min, line) => (line.servicePeriod!.start < min ? line.servicePeriod!.start : min), lines[0]!.servicePeriod!.start),
    end: lines.reduce((max, line) => (line.servicePeriod!.end > max ? line.servicePeriod!.end : max), lines[0]!.servicePeriod!.end),
  };
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
  });
  const totalNet = centsToDecimal(totalCents);
  await recordCycle(trx, companyId, contractId, plan, { status: 'billed', invoiceId, totalNet, reason: null }, now);
  await moveOn(trx, companyId, contractId, plan, now);
  if (issue)
    await enqueueJob(trx, {
      name: RENDER_INVOICE_JOB,
      companyId,
      payload: { invoice_id: invoiceId, send: contract.invoice_mode === 'issue_send' },
      runAt: now,
      dedupeKey: `${RENDER_INVOICE_JOB}:${invoiceId}`,
    });
  return { billingDate, status: 'billed', invoiceId };
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

/** The cycle row of this billing date: new, or a failed one again (attempts counted) or now done. */
async function recordCycle(trx: Trx, companyId: string, contractId: string, plan: BillingPlan, result: CycleResult, now: Date) {
  await trx
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
    )
    .execute();
}

/** The contract after a billing date is done: items billed until, usage period, next billing date, ended after the final one. */
async function moveOn(trx: Trx, companyId: string, contractId: string, plan: BillingPlan, now: Date) {
  for (const [ref, until] of plan.billedUntil)
    await trx
      .updateTable('contract_items')
      .set({ billed_until: until })
      .where('company_id', '=', companyId)
      .where('contract_id', '=', contractId)
      .where('ref', '=', ref)
      .execute();
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
