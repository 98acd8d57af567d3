import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { BIN, type Booted, type CliWorkspace, cliWorkspace } from '../helpers/cli.ts';
import { usePostgres } from '../helpers/database.ts';
import { poll, type Watched, watch } from '../helpers/processes.ts';
import { BUSINESS_CUSTOMER } from '../invoicing/helpers.ts';

// Issue 24, point 5: after a kill -9 the jobs the dead process had claimed waited for their
// 5-minute lease. A claim now records the claiming process's liveness token (db/liveness.ts),
// and a process that starts — or, on PostgreSQL, a worker that runs — takes the jobs of a
// process that has provably ended back at once: on the embedded database every process but
// the one holding the data folder has ended; on PostgreSQL the killed process's session
// advisory lock is gone. A live process's jobs are never taken.

const PAUSE = 'invoice-render.before-store';

/** A contract billed on 2026-12-01 whose invoice is issued: the billing run enqueues its render job (invoices.render). */
async function setUp(w: CliWorkspace): Promise<Booted> {
  const server = await w.spawnServer();
  const booted = await w.bootstrap('lease');
  const api = async (method: string, url: string, body: unknown) => {
    const res = await fetch(`http://127.0.0.1:${server.port}/v1${url}`, {
      method,
      headers: { authorization: `Bearer ${booted.api_key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    assert.equal(res.status, 201, `${method} ${url}: ${await res.text()}`);
  };
  await api('PUT', '/customers/by-ref/crm/kunde-1', BUSINESS_CUSTOMER);
  await api('PUT', '/products/by-ref/crm/host-s', {
    product_number: 'HOST-S',
    name: 'Hosting S',
    unit: 'Monat',
    unit_price_net: '29.00',
    vat_rate: 19,
    billing_interval: 'month',
  });
  await api('PUT', '/contracts/by-ref/crm/abo-1', {
    customer: { source: 'crm', external_ref: 'kunde-1' },
    name: 'Hosting',
    status: 'active',
    billing_interval: 'month',
    start_date: '2026-12-01',
    invoice_mode: 'issue',
    items: [{ ref: 'hosting', product_number: 'HOST-S' }],
  });
  server.child.kill('SIGTERM');
  await once(server.child, 'exit');
  return booted;
}

/** The render job as stored, and whether its invoice has its PDF. */
async function renderJob(w: CliWorkspace) {
  return w.withDatabase(async (db) => {
    const job = await db
      .selectFrom('jobs')
      .select(['id', 'status', 'attempts', 'locked_by', 'locked_owner', 'locked_until', 'last_error', 'payload'])
      .where('name', '=', 'invoices.render')
      .executeTakeFirstOrThrow();
    const pdfs = await db.selectFrom('invoice_files').select('invoice_id').where('kind', '=', 'pdf').execute();
    return { ...job, pdfs: pdfs.length };
  });
}

describe('the jobs of a process killed with kill -9 are taken back at once', () => {
  let w: CliWorkspace;
  const started: Watched[] = [];
  before(async () => {
    w = await cliWorkspace();
    w.env.KONTOR_NOW = '2026-11-21T10:00:00Z';
    await setUp(w);
  });
  after(async () => {
    for (const p of started) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await w?.cleanup();
  });

  /** `kontor jobs run` for 2026-12-01, stopped inside the render job (claimed, running) and killed there with SIGKILL. */
  async function killedWhileRendering(): Promise<Awaited<ReturnType<typeof renderJob>>> {
    const run = watch(process.execPath, [BIN, 'jobs', 'run', '--as-of', '2026-12-01'], { cwd: w.dir, env: { ...w.env, KONTOR_PAUSE_AT: PAUSE } });
    started.push(run);
    await run.waitFor(/paused at invoice-render\.before-store/, 120_000);
    if (usePostgres) {
      // The process lives: the job is running and names its owner.
      const held = await renderJob(w);
      assert.equal(held.status, 'running');
      assert.match(held.locked_owner ?? '', /^pg:-?\d+:-?\d+$/);
    }
    run.child.kill('SIGKILL');
    await once(run.child, 'exit');
    const left = await renderJob(w);
    assert.equal(left.status, 'running', 'the killed process left its job running');
    assert.equal(left.attempts, 1);
    assert.ok(left.locked_until!.getTime() - Date.now() > 4 * 60_000, 'with its lease of 5 minutes still ahead');
    assert.match(left.locked_owner ?? '', usePostgres ? /^pg:/ : /^local:/);
    return left;
  }

  test('a new `kontor jobs run` runs the killed process’s job at once: the invoice gets its PDF, not after 5 minutes', async () => {
    await killedWhileRendering();
    const startedAt = Date.now();
    const again = await w.run(['jobs', 'run', '--as-of', '2026-12-01', '--json']);
    assert.equal(again.code, 0, again.stderr);
    const summary = JSON.parse(again.stdout);
    // Only the render job was due: done once, at its second attempt.
    assert.deepEqual(summary.jobs, { done: 1, failed: 0, retried: 0 }, again.stdout);
    const job = await renderJob(w);
    assert.equal(job.status, 'done');
    assert.equal(job.attempts, 2, 'the killed attempt counts');
    assert.equal(job.locked_owner, null);
    assert.equal(job.pdfs, 1, 'the invoice has its PDF');
    // The lease had more than 4 minutes to run; the run was over long before (even on a busy machine).
    assert.ok(Date.now() - startedAt < 150_000, `took ${Date.now() - startedAt} ms`);
  });
});

describe('PostgreSQL: a running worker takes back the jobs of a process that ends, and never a live one’s', {
  skip: !usePostgres && 'needs several processes on one database',
}, () => {
  let w: CliWorkspace;
  const started: Watched[] = [];
  before(async () => {
    w = await cliWorkspace();
    w.env.KONTOR_NOW = '2026-11-21T10:00:00Z';
    await setUp(w);
  });
  after(async () => {
    for (const p of started) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await w?.cleanup();
  });

  test('while the holder lives its job stays with it; killed, a worker started before runs it within seconds', async () => {
    const holder = watch(process.execPath, [BIN, 'jobs', 'run', '--as-of', '2026-12-01'], { cwd: w.dir, env: { ...w.env, KONTOR_PAUSE_AT: PAUSE } });
    started.push(holder);
    await holder.waitFor(/paused at invoice-render\.before-store/, 120_000);
    const held = await renderJob(w);
    assert.equal(held.status, 'running');

    // A worker on the same database, looking for jobs of ended processes at start and every 5 s.
    const worker = watch(process.execPath, [BIN, 'worker'], { cwd: w.dir, env: { ...w.env, KONTOR_NOW: '2026-12-01T12:00:00Z' } });
    started.push(worker);
    await worker.waitFor(/Kontor worker runs\./, 60_000);
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    const stillHeld = await renderJob(w);
    assert.equal(stillHeld.status, 'running', 'a live process keeps its job');
    assert.equal(stillHeld.locked_by, held.locked_by);
    assert.equal(stillHeld.attempts, 1);

    holder.child.kill('SIGKILL');
    await once(holder.child, 'exit');
    const killedAt = Date.now();
    const done = await poll(
      'the worker to run the job',
      async () => {
        const job = await renderJob(w);
        return job.status === 'done' && job;
      },
      30_000,
    );
    assert.ok(Date.now() - killedAt < 20_000, `done ${Date.now() - killedAt} ms after the kill`);
    assert.equal(done.attempts, 2);
    assert.equal(done.pdfs, 1);
    assert.match(worker.output(), /took back 1 job\(s\) of a process that has ended/);
    worker.child.kill('SIGTERM');
    await once(worker.child, 'exit');
  });
});
