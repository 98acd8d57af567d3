import type { Database } from '../db/connection.ts';
import { inTransaction, type Trx } from '../db/transaction.ts';
import { AdminError } from '../modules/access/admin-error.ts';
import type { Clock } from '../shared/clock.ts';
import { isCalendarDate } from '../shared/dates.ts';
import { messageForLog } from '../shared/error-for-log.ts';
import type { JobLog } from './registry.ts';

// Daily tasks run once per company and local calendar day. The scheduler_runs row that
// says "done" is inserted in the same transaction as the task's work, and only the
// transaction that inserted it runs the task: a second run that day finds the row and
// skips, two runners at once serialise on the primary key (the second waits, then sees
// the committed row and skips), and a task that throws or a process that dies mid-task
// rolls the row back with the work, so the next tick runs it again.

export type DailyTaskContext = {
  /** The transaction that also records this run: write through it, nothing else. */
  db: Trx;
  clock: Clock;
  companyId: string;
  /** The company's local date the run is for (YYYY-MM-DD). */
  date: string;
  log: JobLog;
};

/** Does the day's work for one company and returns a JSON-able summary (stored with the run). */
export type DailyTask = (ctx: DailyTaskContext) => Promise<unknown>;

export type DailyTaskOptions = {
  /** Numeric fields of the task's summary, added up over the companies that ran into the tally's `totals`. */
  totals?: readonly string[];
};

export type DailyTaskRegistry = {
  define(name: string, task: DailyTask, options?: DailyTaskOptions): void;
  /** Tasks in the order they were defined, which is the order they run in per company. */
  entries(): [string, DailyTask, DailyTaskOptions][];
};

export function createDailyTaskRegistry(): DailyTaskRegistry {
  const tasks = new Map<string, [DailyTask, DailyTaskOptions]>();
  return {
    define(name, task, options = {}) {
      if (!/^[a-z][a-z0-9_.:-]{0,99}$/.test(name)) throw new Error(`daily task name ${JSON.stringify(name)} is not a lower-case identifier`);
      if (tasks.has(name)) throw new Error(`daily task ${name} is defined twice`);
      tasks.set(name, [task, options]);
    },
    entries: () => [...tasks.entries()].map(([name, [task, options]]) => [name, task, options]),
  };
}

export const dailyTaskRegistry: DailyTaskRegistry = createDailyTaskRegistry();

export function defineDailyTask(name: string, task: DailyTask, options?: DailyTaskOptions): void {
  dailyTaskRegistry.define(name, task, options);
}

/** `totals` only for a task defined with `totals` (e.g. what webhooks.prune deleted). */
export type DailyTaskTally = { companies: number; ran: number; skipped: number; failed: number; totals?: Record<string, number> };

export type RunDailyTasksOptions = {
  /** The local date to run for in every company; default each company's today by the clock. */
  asOf?: string;
  companyId?: string;
  log?: JobLog;
  registry?: DailyTaskRegistry;
};

/** Runs every daily task for every company (or the one given) unless it already ran for that date. */
export async function runDailyTasks(db: Database, clock: Clock, options: RunDailyTasksOptions = {}): Promise<Record<string, DailyTaskTally>> {
  const log = options.log ?? (() => {});
  const tasks = (options.registry ?? dailyTaskRegistry).entries();
  if (options.asOf !== undefined && !isCalendarDate(options.asOf)) throw new Error(`asOf must be a date YYYY-MM-DD, got ${options.asOf}`);

  const companies = await db
    .selectFrom('companies')
    .select(['id', 'timezone'])
    .$if(options.companyId !== undefined, (qb) => qb.where('id', '=', options.companyId!))
    .orderBy('id')
    .execute();
  if (options.companyId !== undefined && companies.length === 0) throw new AdminError(`no company ${options.companyId}`);

  const tally: Record<string, DailyTaskTally> = {};
  for (const [name, , { totals }] of tasks) {
    tally[name] = {
      companies: companies.length,
      ran: 0,
      skipped: 0,
      failed: 0,
      ...(totals ? { totals: Object.fromEntries(totals.map((key) => [key, 0])) } : {}),
    };
  }
  if (tasks.length === 0 || companies.length === 0) return tally;

  const dates = new Map<string, string>();
  for (const company of companies) {
    try {
      dates.set(company.id, options.asOf ?? clock.today(company.timezone));
    } catch (error) {
      log(`daily tasks: company ${company.id} has an unusable time zone ${company.timezone}: ${messageForLog(error)}`);
    }
  }
  // One read finds what already ran, so the minute-by-minute tick opens no transaction
  // for a day that is done; the insert below still decides when two runners race.
  const done = new Set<string>();
  const distinctDates = [...new Set(dates.values())];
  if (distinctDates.length > 0) {
    const runs = await db
      .selectFrom('scheduler_runs')
      .select(['company_id', 'task', 'run_date'])
      .where('run_date', 'in', distinctDates)
      .$if(options.companyId !== undefined, (qb) => qb.where('company_id', '=', options.companyId!))
      .execute();
    for (const run of runs) done.add(`${run.company_id}\n${run.task}\n${run.run_date}`);
  }

  for (const company of companies) {
    const date = dates.get(company.id);
    for (const [name, task, { totals }] of tasks) {
      const count = tally[name]!;
      if (date === undefined) {
        count.failed += 1;
        continue;
      }
      if (done.has(`${company.id}\n${name}\n${date}`)) {
        count.skipped += 1;
        continue;
      }
      try {
        const run = await runOnce(db, clock, log, { companyId: company.id, name, task, date });
        if (!run.ran) count.skipped += 1;
        else {
          count.ran += 1;
          for (const key of totals ?? []) {
            const value = (run.summary as Record<string, unknown> | null)?.[key];
            if (typeof value === 'number') count.totals![key] = (count.totals![key] ?? 0) + value;
          }
        }
      } catch (error) {
        count.failed += 1;
        log(`daily task ${name} for company ${company.id} on ${date} failed (runs again on the next tick): ${messageForLog(error)}`);
      }
    }
  }
  return tally;
}

async function runOnce(
  db: Database,
  clock: Clock,
  log: JobLog,
  run: { companyId: string; name: string; task: DailyTask; date: string },
): Promise<{ ran: boolean; summary?: unknown }> {
  return inTransaction(db, async (trx) => {
    const inserted = await trx
      .insertInto('scheduler_runs')
      .values({ company_id: run.companyId, task: run.name, run_date: run.date })
      .onConflict((oc) => oc.columns(['company_id', 'task', 'run_date']).doNothing())
      .returning('task')
      .executeTakeFirst();
    if (!inserted) return { ran: false };
    const summary = await run.task({
      db: trx,
      clock,
      companyId: run.companyId,
      date: run.date,
      log: (message) => log(`daily task ${run.name} for company ${run.companyId} on ${run.date}: ${message}`),
    });
    await trx
      .updateTable('scheduler_runs')
      .set({ summary: JSON.stringify(summary ?? null) })
      .where('company_id', '=', run.companyId)
      .where('task', '=', run.name)
      .where('run_date', '=', run.date)
      .execute();
    return { ran: true, summary };
  });
}
