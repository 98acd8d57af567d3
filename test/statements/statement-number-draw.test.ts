import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { inTransaction } from '../../src/db/transaction.ts';
import type { CompanyRow } from '../../src/modules/invoicing/build-document.ts';
import { issueDraftStatement } from '../../src/modules/statements/index.ts';
import { makeStatement } from '../../src/modules/statements/make-statement.ts';
import { SELF_BILLING_PARTNER } from '../commissions/helpers.ts';
import { type TestApp, testApp } from '../helpers/app.ts';
import { BIN, type Booted, type CliWorkspace, cliWorkspace } from '../helpers/cli.ts';
import { usePostgres } from '../helpers/database.ts';
import { poll, type Watched, watch } from '../helpers/processes.ts';
import { recording } from '../helpers/recording.ts';
import { partnerIdOf, selfBillingPartnersWithOctoberRevenue } from './self-billing-setup.ts';

// Issue 26, point 3: a statement's number is drawn last in its transaction. The range row
// (one per kind and year, shared by every statement of the run) stays locked from the draw
// until commit, so the reads and the checks come before the draw and only the one statement
// that writes the issued row after it (the delivery job is a part of that statement: it
// costs no round trip under the lock). Numbers stay gapless: a failure after the draw
// rolls the draw back with everything else.

/** What follows the draw: one statement — the issued statement, its event, its delivery job and its booking. */
const AFTER_THE_DRAW = ['with update commission_statements + insert events + insert jobs + insert journal_entries + insert journal_lines'];

function assertDrawnLast(statements: string[]) {
  const first = statements.indexOf('update number_ranges');
  const last = statements.lastIndexOf('update number_ranges');
  assert.ok(first >= 0, `no number drawn: ${statements.join(', ')}`);
  const before = statements.slice(0, first);
  for (const read of ['select commission_partner_contacts', 'select period_locks'])
    assert.ok(before.includes(read), `${read} comes before the draw: ${statements.join(', ')}`);
  assert.deepEqual(
    statements.slice(first).filter((s) => s.startsWith('select')),
    [],
    'no read once the number is drawn',
  );
  assert.deepEqual(statements.slice(last + 1), AFTER_THE_DRAW);
}

describe('the statement number is drawn after everything that does not need it', () => {
  let t: TestApp;
  let company: CompanyRow;
  const period = { start: '2026-10-01', end: '2026-10-31' };

  before(async () => {
    t = await testApp({ now: '2026-11-01T12:00:00Z' });
    company = await selfBillingPartnersWithOctoberRevenue(t, ['run', 'review']);
  });
  after(() => t.close());

  const partnerId = (ref: string) => partnerIdOf(t, ref);

  test('in the statement run: after the draw only the statement, its booking and its event are written', async () => {
    const partner = await partnerId('run');
    const { db, statements } = recording(t.handle.db);
    const made = await inTransaction(db, (trx) => makeStatement(trx, { company, partnerId: partner, period, issueDate: '2026-11-01', now: t.clock.now() }));
    assert.equal(made.outcome, 'made');
    assertDrawnLast(statements);
    // The draft, its entries, the partner's balance and the run's row: one statement.
    assert.deepEqual(
      statements.filter(
        (s) => !s.startsWith('select') && /commission_(entries|statement_runs)|update commission_partners|insert commission_statements/.test(s),
      ),
      ['with update commission_entries + update commission_partners + insert commission_statement_runs + insert commission_statements'],
    );
  });

  test('when a person issues a draft: the same', async () => {
    const partner = await partnerId('review');
    const review = { ...company, statements_need_review: true };
    const draft = await inTransaction(t.handle.db, (trx) =>
      makeStatement(trx, { company: review, partnerId: partner, period, issueDate: '2026-11-01', now: t.clock.now() }),
    );
    assert.ok(draft.outcome === 'made' && draft.statement.status === 'draft');
    const { db, statements } = recording(t.handle.db);
    const issued = await issueDraftStatement({ db, clock: t.clock }, draft.statement.id);
    assert.equal(issued.statement.number, 'GS-2026-00002');
    assertDrawnLast(statements);
  });
});

// Two `kontor admin statement issue` processes on one PostgreSQL database, one of them held
// at a step by KONTOR_PAUSE_AT (src/shared/pause-at.ts) and then killed.
describe('PostgreSQL: issuing statements side by side', { skip: !usePostgres && 'needs several processes on one database' }, () => {
  let w: CliWorkspace;
  let booted: Booted;
  const drafts: string[] = [];
  const started: Watched[] = [];

  const issue = (id: string, pauseAt?: string) => {
    const run = watch(process.execPath, [BIN, 'admin', 'statement', 'issue', id, '--json'], {
      cwd: w.dir,
      env: { ...w.env, ...(pauseAt ? { KONTOR_PAUSE_AT: pauseAt } : {}) },
    });
    started.push(run);
    return run;
  };
  /** The number a finished `issue` printed; fails when it does not finish in time. */
  const issuedNumber = async (run: Watched, timeoutMs = 60_000): Promise<string> => {
    const timer = setTimeout(() => run.child.kill('SIGKILL'), timeoutMs);
    const [code] = await once(run.child, 'exit');
    clearTimeout(timer);
    assert.equal(code, 0, `issue did not finish within ${timeoutMs} ms (or failed):\n${run.output()}`);
    return JSON.parse(run.output()).number;
  };
  const killed = async (run: Watched) => {
    run.child.kill('SIGKILL');
    if (run.child.exitCode === null && run.child.signalCode === null) await once(run.child, 'exit');
  };

  before(async () => {
    w = await cliWorkspace();
    w.env.KONTOR_NOW = '2026-11-02T10:00:00Z';
    const server = await w.spawnServer();
    booted = await w.bootstrap('numbers');
    const api = async (method: string, url: string, body: unknown) => {
      const res = await fetch(`http://127.0.0.1:${server.port}/v1${url}`, {
        method,
        headers: { authorization: `Bearer ${booted.api_key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      assert.ok(res.status === 200 || res.status === 201, `${method} ${url}: ${res.status} ${await res.text()}`);
    };
    for (const i of [1, 2, 3]) {
      await api('PUT', `/commission-partners/by-ref/crm/p-${i}`, { ...SELF_BILLING_PARTNER, name: `Partner ${i} GmbH`, email: `p${i}@partner.example` });
      await api('PUT', `/commission-agreements/by-ref/crm/ag-${i}`, {
        partner_ref: `p-${i}`,
        start_date: '2026-01-01',
        applies_to: 'all_customers',
        tiers: [{ from_month: 1, to_month: null, percent: 10 }],
      });
    }
    await api('POST', '/revenue-events', { source: 'crm', external_ref: 'oct-1', occurred_at: '2026-10-10T10:00:00Z', net_amount: '1000.00' });
    server.child.kill('SIGTERM');
    await once(server.child, 'exit');
    // The company reviews statements: the run leaves one draft per partner, issued below by hand.
    await w.withDatabase((db) => db.updateTable('companies').set({ statements_need_review: true }).where('id', '=', booted.company_id).execute());
    const run = await w.run(['jobs', 'run', '--as-of', '2026-11-01', '--json']);
    assert.equal(run.code, 0, run.stderr);
    const rows = await w.withDatabase((db) =>
      db.selectFrom('commission_statements').select('id').where('company_id', '=', booted.company_id).where('status', '=', 'draft').orderBy('seq').execute(),
    );
    drafts.push(...rows.map((row) => row.id));
    assert.equal(drafts.length, 3);
  });
  after(async () => {
    for (const run of started) if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
    await w?.cleanup();
  });

  test('one held just before its draw, with its reads done, keeps no other from its number', async () => {
    const [a, b] = drafts as [string, string];
    const held = issue(a, 'statement-issue.before-draw');
    await held.waitFor(/paused at statement-issue\.before-draw/, 60_000);
    assert.equal(await issuedNumber(issue(b)), 'GS-2026-00001', 'issued while the other waits');
    await killed(held);
  });

  test('one killed after its draw leaves no gap: the number goes to the next, which waited for it', async () => {
    const [a, , c] = drafts as [string, string, string];
    const held = issue(a, 'statement-issue.after-draw');
    await held.waitFor(/paused at statement-issue\.after-draw/, 60_000);
    const waiting = issue(c);
    // The second waits on the number's range row, locked by the held process's draw.
    await w.withDatabase((db) =>
      poll(
        'the second issue to wait on a lock',
        async () =>
          Number(
            (
              await sql<{
                n: string;
              }>`select count(*)::text as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(db)
            ).rows[0]?.n,
          ) > 0,
        60_000,
      ),
    );
    assert.equal(waiting.child.exitCode, null, 'still waiting');
    await killed(held);
    assert.equal(await issuedNumber(waiting), 'GS-2026-00002', 'the killed draw came back');
    assert.equal(await issuedNumber(issue(a)), 'GS-2026-00003');

    const result = await w.withDatabase(async (db) => ({
      numbers: (await db.selectFrom('commission_statements').select('number').where('company_id', '=', booted.company_id).orderBy('number').execute()).map(
        (row) => row.number,
      ),
      booked: await db.selectFrom('journal_entries').select('document_number').where('company_id', '=', booted.company_id).orderBy('document_number').execute(),
      jobs: await db.selectFrom('jobs').select('dedupe_key').where('company_id', '=', booted.company_id).where('name', '=', 'statements.deliver').execute(),
    }));
    assert.deepEqual(result.numbers, ['GS-2026-00001', 'GS-2026-00002', 'GS-2026-00003']);
    assert.deepEqual(
      result.booked.map((row) => row.document_number),
      result.numbers,
      'each booked once, under its number',
    );
    assert.equal(result.jobs.length, 3, 'one delivery job each: the killed ones rolled theirs back');
  });
});
