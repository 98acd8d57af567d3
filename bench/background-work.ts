// The background figures in `npm run bench`: bank import, webhook delivery and the daily
// dunning run (issue 4), usage ingest and the contract billing run (issue 13), the revenue
// share (issue 14: the bank import with the ledger, revenue events through the API, reading
// a partner with a long ledger, the statement run). Each has its own script (bank-import.ts,
// webhooks.ts, dunning-run.ts, usage-ingest.ts, billing-run.ts, bank-import-ledger.ts,
// revenue-events.ts, partner-read.ts, statement-run.ts) that sets up its data, measures and
// ends with one JSON line; this runs them one after the other, collects those lines and
// renders their targets and a table for RESULTS.md.
import path from 'node:path';
import type { AppPagesFigures } from './app-pages.ts';
import type { ChildOutput } from './bank-import-child.ts';
import type { LedgerImportFigures } from './bank-import-ledger.ts';
import type { PartnerReadFigures } from './partner-read.ts';
import { ROOT, runNode } from './processes.ts';
import type { RevenueEventsFigures } from './revenue-events.ts';
import type { StatementRunFigures } from './statement-run.ts';
import { lastJsonLine } from './stats.ts';

type Database = 'pglite' | 'postgres';
type BankImport = ChildOutput & { database: Database; invoices: number; debits?: number; fileMb: number };
type DunningRun = {
  database: Database;
  invoices: number;
  selectionMs: number;
  indexUsed: boolean;
  runSeconds: number;
  noticesCreated: number;
  mails: number;
  rerunSeconds: number;
  rerunJobs: number;
};
type Webhooks = {
  events: number;
  backlog_events_per_s: number;
  steady_rate_recorded: number;
  lag_p50_ms: number;
  lag_p99_ms: number;
  duplicates: number;
  signature_ok: boolean;
};

type UsageIngest = {
  database: Database;
  fresh: { recordsPerS: number };
  duplicates: { recordsPerS: number };
  target: number;
  refsSent: number;
  rowsStored: number;
};
type BillingRun = {
  database: Database;
  contracts: number;
  runSeconds: number;
  invoices: number;
  invoicesPerSecond: number;
  files: number;
  renderBusyShare: number;
  renderMsPerInvoice: number;
  processCpuShare: number;
  peakRssMiB: number;
  rerunSeconds: number;
  rerunInvoices: number;
};

export type BackgroundResult = {
  bank: BankImport[];
  dunning: DunningRun[];
  webhooks: Partial<Record<Database, Webhooks>>;
  usage: UsageIngest[];
  billing: { renderThreads: number; results: BillingRun[] };
  revenueShare: {
    ledgerImport: LedgerImportFigures[];
    revenueEvents: RevenueEventsFigures[];
    partnerRead: PartnerReadFigures[];
    statementRun: { concurrency: number; results: StatementRunFigures[] };
  };
  /** Issue 15: the back-office app's pages with 100,000 invoices. */
  appPages: AppPagesFigures[];
};

const LABEL: Record<Database, string> = { pglite: 'PGlite', postgres: 'PostgreSQL' };

export async function measureBackgroundWork(only: Database | undefined, log: (text: string) => void): Promise<BackgroundResult> {
  const args = only ? ['--only', only] : [];
  const run = async <T>(name: string, timeoutMs: number) => {
    log(`${name} (bench/${name}.ts)`);
    return lastJsonLine<T>(await runNode([path.join(ROOT, 'bench', `${name}.ts`), ...args], process.env, timeoutMs));
  };
  const bank = await run<{ results: BankImport[] }>('bank-import', 15 * 60_000);
  const webhooks = await run<{ webhooks: Partial<Record<Database, Webhooks>> }>('webhooks', 15 * 60_000);
  const dunning = await run<{ results: DunningRun[] }>('dunning-run', 20 * 60_000);
  const usage = await run<{ results: UsageIngest[] }>('usage-ingest', 15 * 60_000);
  const billing = await run<{ renderThreads: number; results: BillingRun[] }>('billing-run', 30 * 60_000);
  const ledgerImport = await run<{ results: LedgerImportFigures[] }>('bank-import-ledger', 15 * 60_000);
  const revenueEvents = await run<{ results: RevenueEventsFigures[] }>('revenue-events', 15 * 60_000);
  const partnerRead = await run<{ results: PartnerReadFigures[] }>('partner-read', 15 * 60_000);
  const statementRun = await run<{ concurrency: number; results: StatementRunFigures[] }>('statement-run', 20 * 60_000);
  const appPages = await run<{ results: AppPagesFigures[] }>('app-pages', 20 * 60_000);
  return {
    bank: bank.results,
    webhooks: webhooks.webhooks,
    dunning: dunning.results,
    usage: usage.results,
    billing,
    revenueShare: { ledgerImport: ledgerImport.results, revenueEvents: revenueEvents.results, partnerRead: partnerRead.results, statementRun },
    appPages: appPages.results,
  };
}

export type BackgroundTarget = { what: string; figure: string; goal: string; met: boolean };

export function backgroundTargets(result: BackgroundResult): BackgroundTarget[] {
  const list: BackgroundTarget[] = [];
  for (const bank of result.bank.filter((b) => b.database === 'postgres')) {
    list.push({
      what: `PostgreSQL: import a camt.053 of ${bank.invoices.toLocaleString('en-US')} credits${bank.debits ? ` and ${bank.debits.toLocaleString('en-US')} debits` : ''}`,
      figure: `${bank.seconds} s`,
      goal: '< 10 s',
      met: bank.seconds < 10,
    });
    list.push({ what: 'PostgreSQL: peak memory of that import (process RSS)', figure: `${bank.maxRssMb} MB`, goal: '< 300 MB', met: bank.maxRssMb < 300 });
  }
  for (const [database, figures] of Object.entries(result.webhooks) as [Database, Webhooks][]) {
    list.push({
      what: `${LABEL[database]}: webhook delivery, one worker`,
      figure: `${Math.round(figures.backlog_events_per_s)} events/s`,
      goal: '≥ 500 /s',
      met: figures.backlog_events_per_s >= 500,
    });
    list.push({
      what: `${LABEL[database]}: webhook delivery lag p99 at ${Math.round(figures.steady_rate_recorded)}/s`,
      figure: `${figures.lag_p99_ms} ms`,
      goal: '< 1 s',
      met: figures.lag_p99_ms < 1000,
    });
  }
  for (const run of result.dunning) {
    list.push({
      what: `${LABEL[run.database]}: \`jobs run\` over ${run.invoices.toLocaleString('en-US')} invoices, ${run.noticesCreated} notices (index used: ${run.indexUsed ? 'yes' : 'no'})`,
      figure: `${run.runSeconds} s`,
      goal: '< 30 s',
      met: run.runSeconds < 30 && run.indexUsed,
    });
  }
  for (const usage of result.usage)
    list.push({
      what: `${LABEL[usage.database]}: reportUsage, batches of 1000, 4 connections, duplicates checked`,
      figure: `${Math.round(usage.fresh.recordsPerS).toLocaleString('en-US')} records/s`,
      goal: `≥ ${usage.target.toLocaleString('en-US')} /s`,
      met: usage.fresh.recordsPerS >= usage.target && usage.refsSent === usage.rowsStored,
    });
  for (const run of result.billing.results) {
    const limit = run.database === 'postgres' ? 100 : 150;
    list.push({
      what: `${LABEL[run.database]}: billing run of ${run.contracts.toLocaleString('en-US')} contracts → issued invoices with PDF and ZUGFeRD`,
      figure: `${run.runSeconds} s (${run.invoicesPerSecond}/s)`,
      goal: `< ${limit} s`,
      met: run.runSeconds < limit && run.invoices === run.contracts && run.files === 2 * run.contracts,
    });
    list.push({
      what: `${LABEL[run.database]}: peak memory of that run (process RSS)`,
      figure: `${run.peakRssMiB} MiB`,
      goal: '< 1024 MiB',
      met: run.peakRssMiB < 1024,
    });
    list.push({
      what: `${LABEL[run.database]}: the same day's run again`,
      figure: `${run.rerunSeconds} s, ${run.rerunInvoices} invoices`,
      goal: '< 2 s, none',
      met: run.rerunSeconds < 2 && run.rerunInvoices === 0,
    });
  }
  list.push(...revenueShareTargets(result.revenueShare));
  for (const r of result.appPages.filter((f) => f.database === 'postgres')) {
    for (const p of r.pages)
      list.push({
        what: `App with ${r.invoices.toLocaleString('en-US')} invoices: ${p.page}, p95 on the server`,
        figure: `${p.p95Ms} ms`,
        goal: '< 100 ms',
        met: p.p95Ms < 100,
      });
    list.push({ what: "App's first load: JavaScript gzipped", figure: `${r.jsGzipBytes} bytes`, goal: '< 300 KB', met: r.jsGzipBytes < 300 * 1024 });
  }
  return list;
}

/** Issue 14's targets, all on PostgreSQL (PGlite's figures are in the tables, for information). */
function revenueShareTargets(figures: BackgroundResult['revenueShare']): BackgroundTarget[] {
  const list: BackgroundTarget[] = [];
  const n = (value: number) => value.toLocaleString('en-US');
  for (const r of figures.ledgerImport.filter((f) => f.database === 'postgres'))
    list.push({
      what: `PostgreSQL: import a camt.053 of ${n(r.invoices)} credits writing ${n(r.entries)} commission entries (balances = Σ entries)`,
      figure: `${r.ledger.seconds} s (${r.plain.seconds} s without agreements)`,
      goal: '< 10 s',
      met: r.ledger.seconds < 10 && r.entries === 2 * r.invoices && r.balances.mismatched.length === 0,
    });
  for (const r of figures.revenueEvents.filter((f) => f.database === 'postgres'))
    list.push({
      what: `PostgreSQL: createRevenueEvent, ${r.connections} in flight, ${r.agreements} agreements for all customers (stored = sent, balances = Σ entries)`,
      figure: `${n(r.measured.eventsPerS)} events/s (${n(r.measured.entriesPerS)} entries/s)`,
      goal: '≥ 5,000 /s',
      met: r.measured.eventsPerS >= 5000 && r.measured.errors === 0 && r.eventsStored === r.refsSent,
    });
  for (const r of figures.partnerRead.filter((f) => f.database === 'postgres'))
    list.push({
      what: `PostgreSQL: retrieveCommissionPartner with ${n(r.entries)} entries, median of ${n(r.withEntries.count)} sequential GETs`,
      figure: `${r.withEntries.p50Ms} ms (p99 ${r.withEntries.p99Ms} ms)`,
      goal: '< 5 ms',
      met: r.withEntries.p50Ms < 5,
    });
  for (const r of figures.statementRun.results.filter((f) => f.database === 'postgres'))
    list.push({
      what: `PostgreSQL: statement run of ${n(r.partners)} partners × ${r.linesPerStatement} lines → issued, PDF (and ZUGFeRD) stored, mailed`,
      figure: `${r.runSeconds} s`,
      goal: '< 60 s',
      met: r.runSeconds < 60 && r.statements === r.partners && r.files.pdf === r.partners && r.jobsFailed === 0 && r.balances.mismatched.length === 0,
    });
  return list;
}

function renderRevenueShare(figures: BackgroundResult['revenueShare']): string {
  const n = (value: number) => value.toLocaleString('en-US');
  const pct = (share: number) => `${Math.round(share * 100)} %`;
  return [
    '#### Revenue share (issue 14)',
    '',
    '| bank import with ledger (bench/bank-import-ledger.ts) | credits | entries written | import with ledger | without agreements | peak RSS with / without | balances = Σ entries | attributions made by | other CPU load before |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...figures.ledgerImport.map(
      (r) =>
        `| ${LABEL[r.database]} | ${n(r.invoices)} | ${n(r.entries)} | ${r.ledger.seconds} s | ${r.plain.seconds} s | ${r.ledger.maxRssMb} / ${r.plain.maxRssMb} MB | ${r.balances.mismatched.length === 0 ? 'yes' : '**no**'} | ${r.attributionsMadeBy === 'module' ? 'upsertCommissionAttribution' : 'SQL'} | ${pct(r.busyBefore.ledger)} |`,
    ),
    '',
    '| revenue events (bench/revenue-events.ts) | in flight | events/s | entries/s | p50 / p99 | CPU µs per event: client + server (+ PostgreSQL) | stored = refs sent | entries = 3 × events | other CPU load before |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...figures.revenueEvents.map(
      (r) =>
        `| ${LABEL[r.database]} | ${r.connections} | ${n(r.measured.eventsPerS)} | ${n(r.measured.entriesPerS)} | ${r.measured.p50Ms} / ${r.measured.p99Ms} ms | ${[
          r.measured.cpu.client,
          r.measured.cpu.server,
          r.measured.cpu.database,
        ]
          .filter((v) => v !== undefined)
          .map((v) => Math.round(v as number))
          .join(
            ' + ',
          )} | ${r.eventsStored === r.refsSent ? `yes (${n(r.eventsStored)})` : '**no**'} | ${r.eventsWithout3Entries === 0 ? 'yes' : '**no**'} | ${pct(r.measured.busyBefore)} |`,
    ),
    '',
    '| partner read (bench/partner-read.ts) | entries | GETs | p50 / p99 with the entries | p50 / p99 without entries | other CPU load before |',
    '| --- | --- | --- | --- | --- | --- |',
    ...figures.partnerRead.map(
      (r) =>
        `| ${LABEL[r.database]} | ${n(r.entries)} | ${n(r.withEntries.count)} | ${r.withEntries.p50Ms} / ${r.withEntries.p99Ms} ms | ${r.withoutEntries.p50Ms} / ${r.withoutEntries.p99Ms} ms | ${pct(r.busyBefore)} |`,
    ),
    '',
    `| statement run (bench/statement-run.ts, ${figures.statementRun.concurrency} jobs at a time) | partners × lines | run | all issued after | statements / PDF / XML / mails | handler time make / deliver | rendering alone GS / AB | process CPU | peak RSS | same day again | other CPU load before |`,
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...figures.statementRun.results.map(
      (r) =>
        `| ${LABEL[r.database]} | ${n(r.partners)} × ${r.linesPerStatement} | ${r.runSeconds} s | ${r.issuedAfterSeconds} s | ${n(r.statements)} / ${n(r.files.pdf)} / ${n(r.files.xml)} / ${n(r.mails)} | ${r.makeJobSeconds} / ${r.deliverJobSeconds} s | ${r.renderMs.gutschrift} / ${r.renderMs.settlement} ms | ${r.processCpuShare} cores | ${r.peakRssMiB} MiB (${r.rssBeforeMiB} at start) | ${r.rerunSeconds} s, ${r.rerunStatements} statements | ${pct(r.busyBefore)} |`,
    ),
  ].join('\n');
}

export function renderBackground(result: BackgroundResult): string {
  const rows = backgroundTargets(result).map((t) => `| ${t.what} | ${t.figure} | ${t.goal} | ${t.met ? 'yes' : '**no**'} |`);
  const bank = result.bank.map(
    (b) =>
      `| ${LABEL[b.database]} | ${b.invoices} | ${b.debits ?? 0} | ${b.fileMb} MB | ${b.seconds} s | ${b.maxRssMb} MB (${b.rssBeforeMb} MB before) | ${b.paid} paid, ${b.partiallyPaid} partly, ${b.credited} EUR credit${b.reversed ? `; ${b.reversed} EUR taken back from ${b.invoicesReversed} invoices, ${b.debitsUnassigned} EUR of debits left` : ''} |`,
  );
  const hooks = (Object.entries(result.webhooks) as [Database, Webhooks][]).map(
    ([database, w]) =>
      `| ${LABEL[database]} | ${w.events} | ${Math.round(w.backlog_events_per_s)} | ${Math.round(w.steady_rate_recorded)} | ${w.lag_p50_ms} / ${w.lag_p99_ms} ms | ${w.duplicates} | ${w.signature_ok ? 'yes' : 'no'} |`,
  );
  const dunning = result.dunning.map(
    (d) =>
      `| ${LABEL[d.database]} | ${d.invoices} | ${d.selectionMs} ms (${d.indexUsed ? 'index' : '**scan**'}) | ${d.runSeconds} s | ${d.noticesCreated} / ${d.mails} | ${d.rerunSeconds} s, ${d.rerunJobs} jobs |`,
  );
  return [
    '#### Payments, webhooks, dunning (issue 4); usage and the billing run (issue 13); revenue share (issue 14)',
    '',
    '| target | figure | goal | met |',
    '| --- | --- | --- | --- |',
    ...rows,
    '',
    '| bank import | credits = open invoices | debits | file | import | peak RSS of the importing process | outcome |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...bank,
    '',
    '| webhooks (one worker, local receiver) | backlog events | delivered /s | steady rate /s | lag p50 / p99 | duplicates | signature |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...hooks,
    '',
    '| dunning `jobs run` | issued invoices | selection | run (notices rendered and mailed) | notices / mails | same day again |',
    '| --- | --- | --- | --- | --- | --- |',
    ...dunning,
    '',
    '| usage ingest (bench/usage-ingest.ts) | new records/s | duplicates/s | stored = distinct refs sent |',
    '| --- | --- | --- | --- |',
    ...result.usage.map(
      (u) =>
        `| ${LABEL[u.database]} | ${Math.round(u.fresh.recordsPerS).toLocaleString('en-US')} | ${Math.round(u.duplicates.recordsPerS).toLocaleString('en-US')} | ${u.refsSent === u.rowsStored ? 'yes' : '**no**'} |`,
    ),
    '',
    `| billing run (bench/billing-run.ts, ${result.billing.renderThreads} render threads) | contracts | run | invoices/s | render threads busy | render per invoice | process CPU | peak RSS | same day again |`,
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...result.billing.results.map(
      (b) =>
        `| ${LABEL[b.database]} | ${b.contracts} | ${b.runSeconds} s | ${b.invoicesPerSecond} | ${Math.round(b.renderBusyShare * 100)} % | ${b.renderMsPerInvoice} ms | ${b.processCpuShare} cores | ${b.peakRssMiB} MiB | ${b.rerunSeconds} s, ${b.rerunInvoices} invoices |`,
    ),
    '',
    renderRevenueShare(result.revenueShare),
  ].join('\n');
}
