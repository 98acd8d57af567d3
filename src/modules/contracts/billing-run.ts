import { defineDailyTask, defineJob, enqueueJob } from '../../jobs/index.ts';
import { isDatabaseError } from '../../shared/error-for-log.ts';
import { AppError } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { formatCents } from '../../shared/money.ts';
import '../invoicing/invoice-documents.ts'; // the job that renders and mails what the run issues
import { type BillingOutcome, billContract, recordBillingFailure } from './bill-contract.ts';

// The billing run (design §6): a daily task finds the contracts whose next billing date
// has come and hands them, in chunks, to jobs that bill them (bill-contract.ts). The jobs
// commit with the task's run, so a run killed midway loses nothing, and any number of
// workers share the chunks. A contract billed already finds nothing left to bill.
// One contract's failure never stops another's billing (issue 24): an invoice that cannot
// be issued fails its cycle inside billContract; anything else thrown while one contract is
// billed is caught here, recorded as that contract's failed cycle (a German reason with an
// error reference) and logged by kind and reference only — never the error's message or
// stack, which may hold data — and the job goes on with the next contract. Only when even
// that record cannot be written (the database is gone) does the job fail and retry.

export const BILL_CONTRACTS_JOB = 'contracts.bill';

/** Contracts per job: small enough that two workers share a run evenly, large enough to keep job overhead low. */
const CHUNK = 20;

export type BillContractsPayload = { contract_ids: string[]; as_of: string };

defineDailyTask(
  'contracts.billing',
  async ({ db, clock, companyId, date }) => {
    const due = await db
      .selectFrom('contracts')
      .select('id')
      .where('company_id', '=', companyId)
      .where('next_billing_date', '<=', date)
      .where('status', 'in', ['active', 'paused', 'cancelled'])
      .orderBy('number')
      .execute();
    for (let at = 0; at < due.length; at += CHUNK) {
      const ids = due.slice(at, at + CHUNK).map((row) => row.id);
      await enqueueJob(db, {
        name: BILL_CONTRACTS_JOB,
        companyId,
        payload: { contract_ids: ids, as_of: date },
        runAt: clock.now(),
        dedupeKey: `${BILL_CONTRACTS_JOB}:${companyId}:${date}:${ids[0]}`,
      });
    }
    return { contracts: due.length };
  },
  { totals: ['contracts'] },
);

defineJob<BillContractsPayload>({
  name: BILL_CONTRACTS_JOB,
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['contract_ids', 'as_of'],
    properties: {
      contract_ids: { type: 'array', minItems: 1, maxItems: 1000, items: { type: 'string', pattern: '^ctr_[0-9a-z]{26}$' } },
      as_of: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
    },
  },
  async handler({ db, clock, job, services, log }) {
    const invoicing = services.invoicing;
    if (!invoicing) throw new Error('this process has no invoice booking and renderers');
    const companyId = job.company_id;
    if (!companyId) throw new Error('the job names no company');
    const asOf = job.payload.as_of;
    for (const contractId of job.payload.contract_ids) {
      let outcomes: BillingOutcome[];
      try {
        outcomes = await billContract({ db, clock, bookingWrites: invoicing.bookingWrites }, companyId, contractId, asOf);
      } catch (error) {
        const reference = newId('err');
        const billingDate = await recordBillingFailure({ db, clock }, companyId, contractId, asOf, reference).catch(() => {
          throw error;
        });
        log(
          `contract ${contractId}: billing date ${billingDate ?? asOf} not billed, the next run tries again: unexpected error ${errorKind(error)} (reference ${reference})`,
        );
        continue;
      }
      const failed = outcomes.find((outcome) => outcome.status === 'failed');
      if (failed) log(`contract ${contractId}: billing date ${failed.billingDate} not billed, the next run tries again: ${failed.logReason ?? failed.reason}`);
      const ended = outcomes.find((outcome) => outcome.creditLeftCents);
      if (ended?.creditLeftCents)
        log(
          `contract ${contractId}: ended with ${formatCents(ended.creditLeftCents)} EUR of credit no invoice carries; refund it to the customer (the contract's page in the app lists it)`,
        );
    }
  },
});

/** What kind of error it was, in words that hold no data: the class and a stable code (an AppError's, a database error's SQLSTATE and constraint). */
function errorKind(error: unknown): string {
  if (error instanceof AppError) return `AppError ${error.code}`;
  if (isDatabaseError(error)) {
    const constraint = typeof error.constraint === 'string' ? ` ${error.constraint}` : '';
    return `DatabaseError ${String(error.code)}${constraint}`;
  }
  if (error instanceof Error) return error.constructor?.name && error.constructor.name !== 'Error' ? error.constructor.name : error.name || 'Error';
  return typeof error;
}
