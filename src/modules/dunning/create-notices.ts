import type { DunningLevel } from '../../db/schema-dunning.ts';
import type { Trx } from '../../db/transaction.ts';
import { type DailyTaskContext, enqueueJob } from '../../jobs/index.ts';
import { addDays } from '../../shared/dates.ts';
import { newId } from '../../shared/ids.ts';
import { sellerOf } from '../invoicing/build-document.ts';
import type { Buyer, Seller } from '../invoicing/document.ts';
import { BASE_RATE_FILE_NAME } from './base-rate-file.ts';
import { activeBaseRates, type BaseRate, type BaseRateSetup, missingHalfYears } from './base-rates.ts';
import { computeClaim, isBusinessCustomer } from './claim.ts';
import { dueForNoticeQuery, insertNotice, type NoticeCandidate, type SentNotice, sentNotices } from './dunning.repository.ts';
import { buildNoticeDocument } from './notice-document.ts';
import { type DunningPolicy, policyOf } from './policy.ts';

export const SEND_NOTICE_JOB = 'dunning.send_notice';

/** Notices of a run that charge interest for half-years the table has no rate for (the last one carried forward). */
export type StaleBaseRate = { missing_half_years: string[]; carried_forward: { from: string; rate: string }; notices: number };

export type DunningRunSummary = { created: number; enabled: boolean; stale_base_rate?: StaleBaseRate };

/**
 * Daily task `invoices.dunning` (design §5): for every open invoice whose next notice is
 * due on the run's date — the payment reminder `reminder_days` after the due date, each
 * further level `interval_days` after the notice before — the notice is created with its
 * amounts frozen, and the job that renders and mails it is enqueued, both in the
 * scheduler's transaction. One level per invoice and run: after a downtime the levels
 * keep their interval. A partly paid invoice is dunned for the rest.
 *
 * Interest after the Basiszinssatz table's last half-year uses the last rate: such
 * notices are made all the same (a stale rate is the operator's to fix, and a missed
 * notice has its own cost), but the run warns through its log and its summary.
 */
export async function createDueNotices(ctx: DailyTaskContext): Promise<DunningRunSummary> {
  const { db: trx, companyId, clock, date } = ctx;
  const baseRates = activeBaseRates();
  const missing = missingHalfYears(date, baseRates.table);
  const company = await trx.selectFrom('companies').selectAll().where('id', '=', companyId).executeTakeFirstOrThrow();
  const policy = policyOf(company.dunning);
  if (!policy.enabled) return { created: 0, enabled: false };

  const candidates = await dueForNoticeQuery(trx, companyId, {
    firstCutoff: addDays(date, -policy.reminder_days),
    nextCutoff: addDays(date, -policy.interval_days),
    maxLevel: policy.levels,
  }).execute();
  const history = await sentNotices(
    trx,
    companyId,
    candidates.filter((c) => c.dunning_level !== null).map((c) => c.id),
  );
  const setup: NoticeSetup = { policy, seller: sellerOf(company), date, now: clock.now(), baseRates: baseRates.table };
  let created = 0;
  let stale = 0;
  for (const invoice of candidates) {
    const made = await createNotice(trx, companyId, setup, invoice, history.get(invoice.id) ?? []);
    if (!made) continue;
    created += 1;
    // The interest runs through the notice date, so it reaches the missing half-years.
    if (missing.length > 0 && made.interest) stale += 1;
  }
  if (stale === 0) return { created, enabled: true };
  const last = baseRates.table.at(-1)!;
  const staleBaseRate = { missing_half_years: missing, carried_forward: { from: last.from, rate: last.rate }, notices: stale };
  ctx.log(`warning: ${staleBaseRateMessage(staleBaseRate, baseRates)}`);
  return { created, enabled: true, stale_base_rate: staleBaseRate };
}

/** What every notice of a run (or of "Erinnerung jetzt senden") shares. */
export type NoticeSetup = { policy: DunningPolicy; seller: Seller; date: string; now: Date; baseRates: readonly BaseRate[] };

/**
 * Makes the next notice of one invoice (level after its dunning_level) with its amounts
 * frozen, and enqueues the job that renders and mails it: the one path of the daily task and
 * of "Erinnerung jetzt senden". Null when nothing is open or a pending or sent notice of
 * that level exists (levels never repeat).
 */
export async function createNotice(
  trx: Trx,
  companyId: string,
  setup: NoticeSetup,
  invoice: NoticeCandidate,
  earlier: SentNotice[],
): Promise<{ noticeId: string; level: DunningLevel; interest: boolean } | null> {
  const { policy, date, now } = setup;
  const level = ((invoice.dunning_level ?? -1) + 1) as DunningLevel;
  const business = isBusinessCustomer(buyerAtIssue(invoice));
  const claim = computeClaim({
    policy,
    level,
    noticeDate: date,
    dueDate: invoice.due_date!,
    grossCents: invoice.total_gross_cents,
    paidCents: invoice.amount_paid_cents,
    business,
    reminderDate: earlier.find((notice) => notice.level === 0)?.notice_date ?? null,
    earlierFeesCents: earlier.reduce((sum, notice) => sum + notice.fee_cents, 0),
    baseRates: setup.baseRates,
  });
  if (claim.openCents <= 0) return null;
  const document = buildNoticeDocument({
    level,
    noticeDate: date,
    seller: setup.seller,
    buyer: buyerOf(invoice),
    business,
    invoice: { number: invoice.number!, issueDate: invoice.issue_date!, dueDate: invoice.due_date!, grossCents: invoice.total_gross_cents },
    previousNoticeDate: earlier.find((notice) => notice.level === level - 1)?.notice_date ?? null,
    paidCents: invoice.amount_paid_cents,
    claim,
  });
  const noticeId = await insertNotice(trx, {
    company_id: companyId,
    id: newId('dun'),
    invoice_id: invoice.id,
    level,
    notice_date: date,
    deadline: claim.deadline,
    open_cents: claim.openCents,
    paid_cents: invoice.amount_paid_cents,
    fee_cents: claim.feeCents,
    fees_cents: claim.feesCents,
    interest_cents: claim.interest?.cents ?? 0,
    lump_sum_cents: claim.lumpSumCents,
    total_cents: claim.totalCents,
    default_since: claim.defaultSince,
    document: JSON.stringify(document),
    created_at: now,
    updated_at: now,
  });
  if (!noticeId) return null; // a notice of this level is pending (or was sent): nothing twice
  await enqueueJob(trx, { name: SEND_NOTICE_JOB, companyId, payload: { notice_id: noticeId }, runAt: now, dedupeKey: `${SEND_NOTICE_JOB}:${noticeId}` });
  return { noticeId, level, interest: Boolean(claim.interest && claim.interest.periods.length > 0) };
}

/** The warning: which half-years, what rate stands in, how many notices, where to add the rate. No customer data. */
export function staleBaseRateMessage(stale: StaleBaseRate, setup: Pick<BaseRateSetup, 'file'>): string {
  const where = setup.file ?? `${BASE_RATE_FILE_NAME} in the data folder (or the file named by KONTOR_BASE_RATES_FILE)`;
  return (
    `the Basiszinssatz table has no rate for ${stale.missing_half_years.join(', ')}: ${stale.notices} notice(s) charge ` +
    `default interest with the rate of ${stale.carried_forward.from} (${stale.carried_forward.rate} %) carried forward. ` +
    `Add the rate the Bundesbank published, e.g. {"from":"${stale.missing_half_years[0]}","rate":"n.nn"}, to ${where} and restart Kontor.`
  );
}

/** Business or consumer is judged as the invoice was issued (its frozen buyer); the customer record only stands in without one. */
function buyerAtIssue(invoice: NoticeCandidate): { customerType: 'business' | 'private'; vatId: string | null } {
  const type = invoice.issued_customer_type;
  if (type === 'business' || type === 'private') return { customerType: type, vatId: invoice.issued_vat_id };
  return { customerType: invoice.customer_type, vatId: invoice.customer_vat_id };
}

/** The customer as the addressee today (current address and e-mail). */
function buyerOf(invoice: NoticeCandidate): Buyer {
  return {
    name: invoice.customer_name,
    street: invoice.customer_street,
    houseNumber: invoice.customer_house_number,
    zip: invoice.customer_zip,
    city: invoice.customer_city,
    countryCode: invoice.customer_country_code ?? 'DE',
    vatId: invoice.customer_vat_id,
    email: invoice.customer_email,
    customerNumber: String(invoice.customer_number),
    customerType: invoice.customer_type,
    contactName: invoice.customer_contact_name,
    leitwegId: invoice.customer_leitweg_id,
  };
}
