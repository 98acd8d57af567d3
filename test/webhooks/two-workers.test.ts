import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { type DatabaseHandle, openDatabase } from '../../src/db/connection.ts';
import { inTransaction } from '../../src/db/transaction.ts';
import { recordEvent } from '../../src/jobs/index.ts';
import { COMPANY_FILE } from '../helpers/app.ts';
import { type CliWorkspace, cliWorkspace } from '../helpers/cli.ts';
import { usePostgres } from '../helpers/database.ts';
import { type Receiver, sleep, startReceiver, waitFor } from './helpers.ts';

const BIN = path.resolve(import.meta.dirname, '../../bin/kontor.js');

// Two real `kontor worker` processes on one PostgreSQL database deliver to one receiver.
// The receiver answers after a short random pause, so attempts of both workers overlap;
// it counts arrivals per webhook-id and the requests of one id open at the same time.
// A second receiver answers slowly and counts its open requests: the per-endpoint limit
// (16) holds for both processes together.

describe('two worker processes on PostgreSQL', { skip: !usePostgres && 'PostgreSQL only (KONTOR_TEST_DB=postgres)' }, () => {
  let w: CliWorkspace;
  let handle: DatabaseHandle;
  let hook: Receiver;
  const workers: ChildProcess[] = [];
  const arrivals = new Map<string, number>();
  const openById = new Map<string, number>();
  let overlapping = 0;
  let slowOpen = 0;
  let slowMaxOpen = 0;
  let slow: Receiver;

  async function startWorkers(n: number) {
    for (let i = 0; i < n; i++) {
      const child = spawn(process.execPath, ['--liftoff-only', BIN, 'worker'], { cwd: w.dir, env: w.env, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout!.on('data', (d) => (output += d));
      child.stderr!.on('data', (d) => (output += d));
      workers.push(child);
      await waitFor(() => output.includes('Kontor worker runs.'), 30_000, `worker ${i + 1} start`);
    }
  }
  async function stopWorkers() {
    const stopping = workers.splice(0);
    for (const child of stopping) child.kill('SIGTERM');
    for (const child of stopping) if (child.exitCode === null) await once(child, 'exit');
    return stopping.map((c) => c.exitCode);
  }

  before(async () => {
    w = await cliWorkspace();
    hook = await startReceiver((request, response) => {
      const id = request.headers['webhook-id']!;
      arrivals.set(id, (arrivals.get(id) ?? 0) + 1);
      const open = (openById.get(id) ?? 0) + 1;
      openById.set(id, open);
      if (open > 1) overlapping += 1;
      setTimeout(() => {
        openById.set(id, (openById.get(id) ?? 1) - 1);
        response.writeHead(200).end();
      }, Math.random() * 15);
    });
    slow = await startReceiver((_request, response) => {
      slowOpen += 1;
      slowMaxOpen = Math.max(slowMaxOpen, slowOpen);
      setTimeout(
        () => {
          slowOpen -= 1;
          response.writeHead(204).end();
        },
        100 + Math.random() * 100,
      );
    });
  });
  after(async () => {
    for (const child of workers) if (child.exitCode === null) child.kill('SIGKILL');
    await handle?.close();
    await hook.close();
    await slow.close();
    await w.cleanup();
  });

  test('deliver every event exactly once, never one attempt twice at the same time', async (t) => {
    const file = w.writeFile('company.json', COMPANY_FILE);
    const boot = await w.run(['admin', 'bootstrap', '--org', 'Two GmbH', '--company-file', file, '--admin-email', 'two@example.com', '--json']);
    assert.equal(boot.code, 0, boot.stderr);
    const companyId = JSON.parse(boot.stdout).company_id as string;
    const added = await w.run(['admin', 'webhook', 'add', '--company', companyId, '--url', hook.url(), '--json']);
    assert.equal(added.code, 0, added.stderr);
    const { secret } = JSON.parse(added.stdout);

    await startWorkers(2);

    handle = await openDatabase({ kind: 'postgres', url: w.env.DATABASE_URL! });
    const ids: string[] = [];
    for (let batch = 0; batch < 12; batch++) {
      await inTransaction(handle.db, async (trx) => {
        for (let i = 0; i < 50; i++) ids.push(await recordEvent(trx, { companyId, type: 'invoice.paid', data: { batch, i } }));
      });
      await sleep(20);
    }
    await waitFor(() => ids.every((id) => arrivals.has(id)), 60_000, 'all 600 events delivered');
    await sleep(1_000); // time for a double delivery to show up

    assert.equal(arrivals.size, ids.length);
    assert.deepEqual(
      [...arrivals].filter(([, n]) => n !== 1),
      [],
      'every event arrived exactly once',
    );
    assert.equal(overlapping, 0, 'no attempt was on the wire twice at the same time');
    const sample = hook.received[0]!;
    assert.ok(new Webhook(secret).verify(sample.body, sample.headers));

    const attempts = await handle.db.selectFrom('webhook_attempts').select(['worker_id', 'response_status']).where('company_id', '=', companyId).execute();
    assert.equal(attempts.length, ids.length, 'one attempt recorded per event');
    assert.ok(attempts.every((a) => a.response_status === 200));
    const delivered = await handle.db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('company_id', '=', companyId)
      .where('status', '=', 'delivered')
      .executeTakeFirstOrThrow();
    assert.equal(Number(delivered.n), ids.length);
    const byWorker = new Map<string, number>();
    for (const a of attempts) byWorker.set(a.worker_id ?? '?', (byWorker.get(a.worker_id ?? '?') ?? 0) + 1);
    t.diagnostic(`attempts per worker: ${JSON.stringify(Object.fromEntries(byWorker))}`);

    assert.deepEqual(await stopWorkers(), [0, 0], 'workers stop cleanly');
  });

  test('a slow receiver never has more than 16 requests open from both workers together', async (t) => {
    const file = w.writeFile('company-slow.json', COMPANY_FILE);
    const boot = await w.run(['admin', 'bootstrap', '--org', 'Slow GmbH', '--company-file', file, '--admin-email', 'slow@example.com', '--json']);
    assert.equal(boot.code, 0, boot.stderr);
    const companyId = JSON.parse(boot.stdout).company_id as string;
    const added = await w.run(['admin', 'webhook', 'add', '--company', companyId, '--url', slow.url(), '--json']);
    assert.equal(added.code, 0, added.stderr);

    // Both workers poll before the backlog commits. Whichever claims first fills the
    // endpoint's room and keeps it (each write of results claims the next ones); the other
    // finds no room. Halfway, the one sending is stopped: it finishes what is on the wire
    // (answers come after 100–200 ms) while the other claims the room its results free:
    // both may send at once, and together keep to the limit.
    await startWorkers(2);
    handle ??= await openDatabase({ kind: 'postgres', url: w.env.DATABASE_URL! });
    const db = handle.db;
    await inTransaction(db, async (trx) => {
      for (let i = 0; i < 160; i++) await recordEvent(trx, { companyId, type: 'invoice.paid', data: { i } });
    });
    const attemptsByWorker = async () => {
      const rows = await db.selectFrom('webhook_attempts').select(['worker_id']).where('company_id', '=', companyId).execute();
      const byWorker = new Map<string, number>();
      for (const a of rows) byWorker.set(a.worker_id ?? '?', (byWorker.get(a.worker_id ?? '?') ?? 0) + 1);
      return byWorker;
    };
    await waitFor(() => slow.received.length >= 72, 60_000, 'the first 72 delivered');
    const [sending] = [...(await attemptsByWorker()).keys()];
    const index = workers.findIndex((child) => sending?.includes(`:${child.pid}:`));
    assert.ok(index >= 0, `the worker sending is one of ours (${sending})`);
    const [stopped] = workers.splice(index, 1);
    stopped!.kill('SIGTERM');
    await waitFor(() => slow.received.length >= 160, 60_000, 'all 160 events delivered');
    if (stopped!.exitCode === null) await once(stopped!, 'exit');
    assert.equal(stopped!.exitCode, 0, 'the stopped worker finished cleanly');
    await waitFor(async () => [...(await attemptsByWorker()).values()].reduce((a, b) => a + b, 0) >= 160, 20_000, 'every attempt recorded');

    assert.ok(slowMaxOpen <= 16, `at most 16 requests open at once, saw ${slowMaxOpen}`);
    assert.equal(slowMaxOpen, 16, 'the limit is used');
    assert.equal(new Set(slow.received.map((r) => r.headers['webhook-id'])).size, 160, 'each event once');
    const byWorker = await attemptsByWorker();
    assert.equal(byWorker.size, 2, 'both workers sent');
    t.diagnostic(`most open at once: ${slowMaxOpen}; attempts per worker: ${JSON.stringify(Object.fromEntries(byWorker))}`);
    assert.deepEqual(await stopWorkers(), [0], 'the other worker stops cleanly');
  });
});
