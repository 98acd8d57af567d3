// Overdue marking and dunning at scale (issue 4 figure): a `jobs run` over 100,000 issued
// invoices of which 1 % are due for a notice must finish in under 30 s on PostgreSQL, and
// the selection must use an index, not a look at every invoice. PGlite is measured too,
// for information.
//
//   node bench/dunning-run.ts [--only pglite|postgres]
//
// For each database: a company with 1,000 customers (half businesses, half consumers) and
// 100,000 issued invoices inserted by SQL (issuing them through the API takes far too
// long), shaped for the run date D = 2026-06-15:
//   1,000 due for a notice: 400 for the payment reminder (due 7–10 days ago), 300 for the
//         1. Mahnung and 300 for the 2. Mahnung (last notice 14–16 days ago), 1 in 10 partly paid;
//   1,000 reminded 5 days ago (next level not yet due);
//   1,000 overdue already but not yet due for the reminder;
//   1,000 due yesterday (the overdue task marks them today);
//  96,000 not yet due.
// Then EXPLAIN shows the plans of both selections, and one `runDueWork({asOf: D})` runs
// the daily tasks and the 1,000 notice jobs with the real PDF renderer and the outbox
// mailer (.eml files in a temporary data folder). A second run of the same day must do
// nothing. Prints a summary and one final JSON line.
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { type DatabaseHandle, openDatabase } from '../src/db/connection.ts';
import { migrate } from '../src/db/migrate.ts';
import { runDueWork } from '../src/jobs/index.ts';
import { bootstrapOrganization } from '../src/modules/access/index.ts';
import '../src/modules/dunning/index.ts';
import { dueForNoticeQuery, overdueCandidatesQuery } from '../src/modules/dunning/dunning.repository.ts';
import { DEFAULT_POLICY } from '../src/modules/dunning/policy.ts';
import { createMailer } from '../src/modules/mail/index.ts';
import { fixedClock } from '../src/shared/clock.ts';
import { addDays } from '../src/shared/dates.ts';
import { createSealer } from '../src/shared/secrets.ts';
import { COMPANY_FILE } from '../test/helpers/company.ts';
import { onEachTarget, onlyFlag, type Target } from './targets.ts';

const RUN_DATE = '2026-06-15';
const INVOICES = 100_000;
const DUE_FOR_NOTICE = 1_000;
const CUSTOMERS = 1_000;
const { values } = parseArgs({ options: { only: { type: 'string' } } });
const only = onlyFlag(values.only);
const log = (text: string) => process.stderr.write(`${text}\n`);
const seconds = (since: number) => Math.round((performance.now() - since) / 10) / 100;

async function setUp(handle: DatabaseHandle, sealer: ReturnType<typeof createSealer>): Promise<string> {
  await migrate(handle.db);
  const company = await bootstrapOrganization(handle.db, sealer, {
    organizationName: 'Bench org',
    companyFile: JSON.stringify({ ...COMPANY_FILE, name: 'Mahnlauf GmbH', email: 'rechnung@mahnlauf.example' }),
    adminEmail: `bench-${randomBytes(4).toString('hex')}@example.com`,
  });
  const companyId = company.company_id;
  const db = handle.db;
  const d = (days: number) => addDays(RUN_DATE, days);
  await sql`
    insert into customers (company_id, id, kundennummer, external_source, external_ref, name, email, street, house_number,
                           zip, city, country_code, vat_id, customer_type)
    select ${companyId}, 'cus_bench' || lpad(g::text, 6, '0'), 10000 + g, 'bench', 'c' || g, 'Kunde ' || g, 'kunde' || g || '@example.com',
           'Ringstraße', g::text, '80331', 'München', 'DE',
           case when g % 2 = 0 then 'DE136695976' end, case when g % 2 = 0 then 'business' else 'private' end
    from generate_series(1, ${CUSTOMERS}::int) g`.execute(db);
  // Segments by g (see the header): due date, overdue flag, dunning level and last notice date.
  await sql`
    insert into invoices (company_id, id, number, status, type, external_source, external_ref, customer_id, issue_date, due_date,
                          service_period_start, service_period_end, payment_terms_days, total_net_cents, total_tax_cents,
                          total_gross_cents, amount_paid_cents, vat_verdict, e_invoice, document, sent_at, overdue, dunning_level,
                          last_dunning_on, change_seq, changed_at, created_at)
    select ${companyId}, 'inv_bench' || lpad(g::text, 7, '0'), 'RE-2026-' || lpad(g::text, 6, '0'),
           case when paid > 0 then 'partially_paid' when g % 3 = 0 then 'sent' else 'issued' end, 'invoice', 'bench', 'i' || g,
           'cus_bench' || lpad(k::text, 6, '0'), due - 14, due, due - 44, due - 15, 14, 100000, 19000, 119000, paid,
           'domestic', 'none',
           jsonb_build_object('buyer', jsonb_build_object('customerType', case when k % 2 = 0 then 'business' else 'private' end,
                                                          'vatId', case when k % 2 = 0 then 'DE136695976' end)),
           null, due < ${RUN_DATE}::date - 1, level, last, g, now(), now()
    from (
      select g, 1 + g % ${CUSTOMERS}::int as k,
             case when g <= 1000 and g % 10 = 0 then 20000 else 0 end as paid,
             case when g <= 400 then ${d(-7)}::date - g % 4
                  when g <= 700 then ${d(-21)}::date - g % 3
                  when g <= 1000 then ${d(-35)}::date
                  when g <= 2000 then ${d(-12)}::date
                  when g <= 3000 then ${d(-3)}::date - g % 4
                  when g <= 4000 then ${d(-1)}::date
                  else ${RUN_DATE}::date + g % 30 end as due,
             case when g <= 400 then null when g <= 700 then 0 when g <= 1000 then 1 when g <= 2000 then 0 end as level,
             case when g <= 400 then null when g <= 700 then ${d(-14)}::date - g % 3 when g <= 1000 then ${d(-14)}::date
                  when g <= 2000 then ${d(-5)}::date end as last
      from generate_series(1, ${INVOICES}::int) g
    ) s`.execute(db);
  // The notices sent before: the reminder of every dunned invoice, the 1. Mahnung of those at level 1.
  await sql`
    insert into dunning_notices (company_id, id, invoice_id, level, notice_date, deadline, status, open_cents, paid_cents, fee_cents,
                                 fees_cents, interest_cents, lump_sum_cents, total_cents, default_since, document, sent_at,
                                 created_at, updated_at)
    select i.company_id, 'dun_bench' || lpad(n.level::text, 1) || substr(i.id, 10), i.id, n.level,
           case when n.level = i.dunning_level then i.last_dunning_on else i.last_dunning_on - 14 end,
           case when n.level = i.dunning_level then i.last_dunning_on else i.last_dunning_on - 14 end + 10,
           'sent', 119000 - i.amount_paid_cents, i.amount_paid_cents, n.fee, n.fee, 0, 0, 119000 - i.amount_paid_cents + n.fee,
           case when n.level > 0 then i.last_dunning_on - 14 end, '{}'::jsonb, now(), now(), now()
    from invoices i
    join (values (0, 0), (1, 250)) as n(level, fee) on n.level <= i.dunning_level
    where i.company_id = ${companyId} and i.dunning_level is not null`.execute(db);
  await db
    .insertInto('number_ranges')
    .values({ company_id: companyId, range_key: 'invoice_changes', next_value: INVOICES + 1, last_value: Number.MAX_SAFE_INTEGER })
    .execute();
  await sql`analyze`.execute(db);
  return companyId;
}

async function explain(handle: DatabaseHandle, companyId: string): Promise<{ dunning: string[]; overdue: string[]; selectionMs: number; candidates: number }> {
  const cutoffs = {
    firstCutoff: addDays(RUN_DATE, -DEFAULT_POLICY.reminder_days),
    nextCutoff: addDays(RUN_DATE, -DEFAULT_POLICY.interval_days),
    maxLevel: DEFAULT_POLICY.levels,
  };
  const plan = async (query: { explain: (format?: 'text', options?: unknown) => Promise<Record<string, unknown>[]> }) =>
    (await query.explain('text', sql`analyze, costs off, timing off`)).map((row) => String(Object.values(row)[0]));
  const dunning = await plan(dueForNoticeQuery(handle.db, companyId, cutoffs) as never);
  const overdue = await plan(overdueCandidatesQuery(handle.db, companyId, RUN_DATE) as never);
  const t0 = performance.now();
  const candidates = (await dueForNoticeQuery(handle.db, companyId, cutoffs).execute()).length;
  return { dunning, overdue, selectionMs: Math.round((performance.now() - t0) * 10) / 10, candidates };
}

type Figures = {
  database: 'pglite' | 'postgres';
  invoices: number;
  setupSeconds: number;
  selectionMs: number;
  indexUsed: boolean;
  runSeconds: number;
  overdueMarked: number;
  noticesCreated: number;
  jobsDone: number;
  jobsFailed: number;
  mails: number;
  rerunSeconds: number;
  rerunJobs: number;
};

async function measure(target: Target, work: string): Promise<Figures> {
  const t0 = performance.now();
  const handle = await (target.kind === 'postgres'
    ? openDatabase({ kind: 'postgres', url: target.url, poolSize: 8 })
    : openDatabase({ kind: 'pglite', dataDir: target.dataDir }));
  const sealer = createSealer('bench-secret');
  const dataDir = path.join(work, `data-${target.kind}`);
  const mailer = createMailer({ dataDir, sealer });
  try {
    const companyId = await setUp(handle, sealer);
    const setupSeconds = seconds(t0);
    log(`${target.kind}: ${INVOICES} invoices set up in ${setupSeconds} s`);
    const plans = await explain(handle, companyId);
    if (plans.candidates !== DUE_FOR_NOTICE) throw new Error(`${target.kind}: ${plans.candidates} invoices due for a notice, expected ${DUE_FOR_NOTICE}`);
    console.log(`\n${target.kind}: EXPLAIN ANALYZE of the selection of invoices due for a notice (task invoices.dunning):`);
    for (const line of plans.dunning) console.log(`  ${line}`);
    console.log(`${target.kind}: EXPLAIN ANALYZE of the selection of invoices to mark overdue (task invoices.overdue):`);
    for (const line of plans.overdue) console.log(`  ${line}`);
    const planText = [...plans.dunning, ...plans.overdue].join('\n');
    const indexUsed =
      ['invoices_dunning_first', 'invoices_dunning_next', 'invoices_overdue_watch'].every((index) => planText.includes(index)) &&
      !/Seq Scan on invoices/.test(planText);

    const clock = fixedClock(`${RUN_DATE}T12:00:00Z`);
    const t1 = performance.now();
    const summary = await runDueWork({ db: handle.db, clock, mailer }, { asOf: RUN_DATE });
    const runSeconds = seconds(t1);
    const runs = await handle.db
      .selectFrom('scheduler_runs')
      .select(['task', 'summary'])
      .where('company_id', '=', companyId)
      .where('run_date', '=', RUN_DATE)
      .execute();
    const summaryOf = (task: string) => (runs.find((run) => run.task === task)?.summary ?? {}) as { marked?: number; created?: number };
    const mails = readdirSync(path.join(dataDir, 'outbox', companyId)).filter((name) => name.endsWith('.eml')).length;

    const t2 = performance.now();
    const rerun = await runDueWork({ db: handle.db, clock, mailer }, { asOf: RUN_DATE });
    const rerunSeconds = seconds(t2);
    const mailsAfter = readdirSync(path.join(dataDir, 'outbox', companyId)).filter((name) => name.endsWith('.eml')).length;
    if (mailsAfter !== mails) throw new Error(`${target.kind}: the second run of the same day mailed ${mailsAfter - mails} more`);
    return {
      database: target.kind,
      invoices: INVOICES,
      setupSeconds,
      selectionMs: plans.selectionMs,
      indexUsed,
      runSeconds,
      overdueMarked: summaryOf('invoices.overdue').marked ?? 0,
      noticesCreated: summaryOf('invoices.dunning').created ?? 0,
      jobsDone: summary.jobs.done,
      jobsFailed: summary.jobs.failed,
      mails,
      rerunSeconds,
      rerunJobs: rerun.jobs.done + rerun.jobs.failed,
    };
  } finally {
    mailer.close();
    await handle.close();
  }
}

const results = await onEachTarget('dunning', only, measure);

console.log('');
for (const r of results) {
  const verdict = r.database === 'postgres' ? ` (ceiling 30 s, index: ${r.runSeconds < 30 && r.indexUsed ? 'met' : 'MISSED'})` : ' (for information)';
  console.log(
    `${r.database.padEnd(8)} jobs run over ${r.invoices} invoices: ${r.runSeconds} s — ${r.overdueMarked} marked overdue, ${r.noticesCreated} notices created, ${r.jobsDone} jobs done (${r.jobsFailed} failed), ${r.mails} mails; selection ${r.selectionMs} ms through the partial indexes: ${r.indexUsed ? 'yes' : 'NO'}; same day again ${r.rerunSeconds} s, ${r.rerunJobs} jobs${verdict}`,
  );
}
console.log(JSON.stringify({ bench: 'dunning-run', results }));
