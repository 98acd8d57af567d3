import { sql } from 'kysely';
import type { StatementCadence } from '../../db/schema-commissions.ts';
import { inTransaction } from '../../db/transaction.ts';
import { defineDailyTask, defineJob, enqueueJob } from '../../jobs/index.ts';
import { pauseAt } from '../../shared/pause-at.ts';
import type { CompanyRow } from '../invoicing/build-document.ts';
import { makeStatement } from './make-statement.ts';
import { lastClosedPeriod } from './statement-terms.ts';
import './deliver-statement.ts'; // the job that renders, stores and mails what the run issues

// The statement run (design §6): a daily task finds the partners whose last cadence period
// has ended without a decision of the run, and hands them in chunks to jobs; each partner
// is one transaction (make-statement.ts). Runs on every day (serve, worker, `jobs run`), so
// a missed day is caught up; a partner decided before is skipped.

export const MAKE_STATEMENTS_JOB = 'statements.make';
const CHUNK = 20;

export type MakeStatementsPayload = { partner_ids: string[]; as_of: string };

defineDailyTask(
  'commissions.statements',
  async ({ db, clock, companyId, date }) => {
    const month = lastClosedPeriod(date, 'month').end;
    const quarter = lastClosedPeriod(date, 'quarter').end;
    const year = lastClosedPeriod(date, 'year').end;
    const due = await db
      .selectFrom('commission_partners as p')
      .select('p.id')
      .where('p.company_id', '=', companyId)
      .where(
        sql<boolean>`not exists (select 1 from commission_statement_runs r where r.company_id = p.company_id and r.partner_id = p.id
          and r.period_end = case p.statement_cadence when 'month' then ${month}::date when 'quarter' then ${quarter}::date else ${year}::date end)`,
      )
      // Only partners with something open up to that day need a transaction; the rest wait.
      .where(
        sql<boolean>`exists (select 1 from commission_entries e where e.company_id = p.company_id and e.partner_id = p.id and e.status = 'open'
          and e.paid_on <= case p.statement_cadence when 'month' then ${month}::date when 'quarter' then ${quarter}::date else ${year}::date end)`,
      )
      .orderBy('p.kreditorennummer')
      .execute();
    for (let at = 0; at < due.length; at += CHUNK) {
      const ids = due.slice(at, at + CHUNK).map((row) => row.id);
      await enqueueJob(db, {
        name: MAKE_STATEMENTS_JOB,
        companyId,
        payload: { partner_ids: ids, as_of: date },
        runAt: clock.now(),
        dedupeKey: `${MAKE_STATEMENTS_JOB}:${companyId}:${date}:${ids[0]}`,
      });
    }
    return { partners: due.length };
  },
  { totals: ['partners'] },
);

defineJob<MakeStatementsPayload>({
  name: MAKE_STATEMENTS_JOB,
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['partner_ids', 'as_of'],
    properties: {
      partner_ids: { type: 'array', minItems: 1, maxItems: 1000, items: { type: 'string', pattern: '^cpt_[0-9a-z]{26}$' } },
      as_of: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
    },
  },
  async handler({ db, clock, job, log }) {
    const companyId = job.company_id;
    if (!companyId) throw new Error('the job names no company');
    // The company is read once per chunk; each partner is one transaction that reads the
    // partner (locked) and finds its closed period from the partner's cadence.
    const company = (await db.selectFrom('companies').selectAll().where('id', '=', companyId).executeTakeFirstOrThrow()) as CompanyRow;
    const periodOf = (partner: { statement_cadence: StatementCadence }) => lastClosedPeriod(job.payload.as_of, partner.statement_cadence);
    for (const partnerId of job.payload.partner_ids) {
      const made = await inTransaction(db, (trx) =>
        makeStatement(trx, { company, partnerId, period: periodOf, issueDate: job.payload.as_of, now: clock.now() }),
      );
      // Ids only in the log (no personal data); the reason is on the statement for a person.
      if (made.outcome === 'held') log(`statement ${made.statement.id} of partner ${partnerId} stays a draft: its XRechnung lacks the partner's contact`);
      // Crash tests stop here: one partner's statement committed, its documents not yet made.
      await pauseAt('statement-run.after-commit');
    }
  },
});
