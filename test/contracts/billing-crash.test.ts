import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { BIN, type Booted, type CliWorkspace, cliWorkspace } from '../helpers/cli.ts';
import { usePostgres } from '../helpers/database.ts';
import { poll, watch } from '../helpers/processes.ts';
import { BUSINESS_CUSTOMER } from '../invoicing/helpers.ts';
import { HOSTING } from './helpers.ts';

// A billing date is billed exactly once (issue 13, point 3): `kontor jobs run` killed with
// SIGKILL between each pair of side effects (the commit of one contract's billing, the
// rendering of its documents and their storing, the mail) and started again bills every
// contract once, with gapless numbers, every PDF stored and every mail sent once. On
// PostgreSQL two `kontor worker` processes running the same day's billing at the same time
// share the contracts and bill none twice.

const CONTRACTS = 6;

async function setUp(w: CliWorkspace, count: number, mode: 'issue' | 'issue_send'): Promise<Booted> {
  const server = await w.spawnServer();
  const booted = await w.bootstrap('abo');
  const api = async (method: string, url: string, body: unknown, expected: number[]) => {
    const res = await fetch(`http://127.0.0.1:${server.port}/v1${url}`, {
      method,
      headers: { authorization: `Bearer ${booted.api_key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    assert.ok(expected.includes(res.status), `${method} ${url}: ${res.status} ${await res.text()}`);
  };
  await api('PUT', '/customers/by-ref/crm/kunde-1', BUSINESS_CUSTOMER, [201]);
  await api('PUT', '/products/by-ref/crm/host-s', HOSTING, [201]);
  for (let i = 1; i <= count; i++)
    await api(
      'PUT',
      `/contracts/by-ref/crm/abo-${i}`,
      {
        customer: { source: 'crm', external_ref: 'kunde-1' },
        name: `Abo ${i}`,
        status: 'active',
        billing_interval: 'month',
        start_date: '2026-12-01',
        invoice_mode: mode,
        items: [{ ref: 'hosting', product_number: 'HOST-S', quantity: String(i) }],
      },
      [201],
    );
  server.child.kill('SIGTERM');
  await once(server.child, 'exit');
  return booted;
}

/** What the billing left: per contract its cycles, the invoices with numbers and files, the jobs. */
async function outcome(w: CliWorkspace, companyId: string) {
  return w.withDatabase(async (db) => {
    const cycles = await db
      .selectFrom('contract_cycles')
      .innerJoin('contracts', (j) => j.onRef('contracts.id', '=', 'contract_cycles.contract_id'))
      .select(['contracts.external_ref', 'contract_cycles.status', 'contract_cycles.invoice_id'])
      .where('contract_cycles.company_id', '=', companyId)
      .execute();
    const invoices = await db
      .selectFrom('invoices')
      .select(['id', 'number', 'status', 'contract_external_ref'])
      .where('company_id', '=', companyId)
      .orderBy('number')
      .execute();
    const files = await db.selectFrom('invoice_files').select(['invoice_id', 'kind']).where('company_id', '=', companyId).execute();
    const jobs = await db.selectFrom('jobs').select(['name', 'status', 'locked_by']).where('company_id', '=', companyId).execute();
    return { cycles, invoices, files, jobs };
  });
}

function assertBilledOnce(result: Awaited<ReturnType<typeof outcome>>, count: number) {
  assert.equal(result.invoices.length, count, 'one invoice per contract');
  assert.deepEqual(
    result.invoices.map((invoice) => invoice.number),
    Array.from({ length: count }, (_, i) => `RE-2026-${String(i + 1).padStart(5, '0')}`),
    'gapless numbers',
  );
  assert.deepEqual(new Set(result.invoices.map((invoice) => invoice.contract_external_ref)).size, count);
  assert.equal(result.cycles.length, count, 'one cycle per contract');
  assert.ok(result.cycles.every((cycle) => cycle.status === 'billed'));
  for (const invoice of result.invoices)
    assert.deepEqual(
      result.files
        .filter((file) => file.invoice_id === invoice.id)
        .map((file) => file.kind)
        .sort(),
      ['pdf', 'xml'],
      'PDF and XML stored',
    );
  assert.ok(
    result.jobs.every((job) => job.status === 'done'),
    JSON.stringify(result.jobs.filter((job) => job.status !== 'done')),
  );
}

describe('a billing run killed between its side effects bills every billing date once', () => {
  let w: CliWorkspace;
  let booted: Booted;

  /** `kontor jobs run` as of the 1st, stopped at `step` and killed there. */
  async function killedAt(step: string) {
    const run = watch(process.execPath, [BIN, 'jobs', 'run', '--as-of', '2026-12-01'], { cwd: w.dir, env: { ...w.env, KONTOR_PAUSE_AT: step } });
    await run.waitFor(new RegExp(`paused at ${step.replace('.', '\\.')}`), 60_000);
    run.child.kill('SIGKILL');
    await once(run.child, 'exit');
    // The killed run's leases would run out in minutes: let them run out now.
    await w.withDatabase((db) =>
      db
        .updateTable('jobs')
        .set({ locked_until: new Date(Date.now() - 1000) })
        .where('status', '=', 'running')
        .execute(),
    );
  }

  before(async () => {
    w = await cliWorkspace();
    w.env.KONTOR_NOW = '2026-11-21T10:00:00Z';
    booted = await setUp(w, CONTRACTS, 'issue_send');
    await killedAt('contract-billing.after-commit');
    await killedAt('invoice-render.before-store');
    await killedAt('invoice-mail.after-send');
    const again = await w.run(['jobs', 'run', '--as-of', '2026-12-01', '--json']);
    assert.equal(again.code, 0, again.stderr);
  });
  after(() => w?.cleanup());

  test('each contract has one invoice with its documents, numbers without gaps, every job done', async () => {
    assertBilledOnce(await outcome(w, booted.company_id), CONTRACTS);
  });

  test('each invoice was mailed once', async () => {
    const mails = readdirSync(path.join(w.dataDir, 'outbox', booted.company_id)).filter((name) => name.endsWith('.eml'));
    assert.equal(mails.length, CONTRACTS);
    const result = await outcome(w, booted.company_id);
    assert.ok(result.invoices.every((invoice) => invoice.status === 'sent'));
  });

  test('a run of the next day finds nothing to bill', async () => {
    const next = await w.run(['jobs', 'run', '--as-of', '2026-12-02', '--json']);
    assert.equal(next.code, 0, next.stderr);
    assert.equal(JSON.parse(next.stdout).tasks['contracts.billing'].totals.contracts, 0);
    assert.equal((await outcome(w, booted.company_id)).invoices.length, CONTRACTS);
  });
});

describe('two workers bill the same day at the same time (PostgreSQL)', { skip: !usePostgres && 'needs PostgreSQL (KONTOR_TEST_DB=postgres)' }, () => {
  const COUNT = 60;
  let w: CliWorkspace;
  let booted: Booted;

  before(async () => {
    w = await cliWorkspace();
    w.env.KONTOR_NOW = '2026-11-21T10:00:00Z';
    booted = await setUp(w, COUNT, 'issue');
    const env = { ...w.env, KONTOR_NOW: '2026-12-01T06:00:00Z' };
    const workers = [watch(process.execPath, [BIN, 'worker'], { cwd: w.dir, env }), watch(process.execPath, [BIN, 'worker'], { cwd: w.dir, env })];
    try {
      await poll(
        'all contracts billed and rendered',
        async () => {
          const result = await outcome(w, booted.company_id);
          return result.files.length === COUNT * 2 && result.jobs.every((job) => job.status === 'done');
        },
        90_000,
      );
    } finally {
      for (const worker of workers) worker.child.kill('SIGTERM');
      await Promise.all(workers.map((worker) => (worker.child.exitCode === null ? once(worker.child, 'exit') : undefined)));
    }
  });
  after(() => w?.cleanup());

  test('each contract billed once, numbers gapless, every document stored', async () => {
    assertBilledOnce(await outcome(w, booted.company_id), COUNT);
  });
});
