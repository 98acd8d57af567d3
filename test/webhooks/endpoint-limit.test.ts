import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { DatabaseHandle } from '../../src/db/connection.ts';
import { inTransaction } from '../../src/db/transaction.ts';
import { recordEvents } from '../../src/jobs/index.ts';
import {
  type AttemptOutcome,
  addWebhookEndpoint,
  type ClaimedDelivery,
  claimDeliveries,
  dispatchEvents,
  recordAttemptsAndRefill,
  webhookDelivery,
} from '../../src/modules/webhooks/index.ts';
import { fixedClock } from '../../src/shared/clock.ts';
import { sealer } from '../helpers/company.ts';
import { testDatabase, usePostgres } from '../helpers/database.ts';
import { seedCompany } from '../jobs/fixtures.ts';
import { type Receiver, sleep, startReceiver, waitFor } from './helpers.ts';

// The per-endpoint limit holds for all workers together: it is the count of the endpoint's
// deliveries held under a live lease, checked by every claim. On PostgreSQL the claimers
// and writers below really run at once (a pool of connections); on PGlite they take turns.

describe('the per-endpoint limit across workers', () => {
  let handle: DatabaseHandle;
  const receivers: Receiver[] = [];
  before(async () => {
    handle = await testDatabase();
  });
  after(async () => {
    for (const receiver of receivers) await receiver.close();
    await handle.close();
  });

  async function endpointWithBacklog(events: number, url = 'http://127.0.0.1:9/hook') {
    const companyId = await seedCompany(handle.db);
    const { id: endpointId } = await addWebhookEndpoint(handle.db, fixedClock(new Date()), sealer, { companyId, url });
    await inTransaction(handle.db, (trx) =>
      recordEvents(
        trx,
        companyId,
        Array.from({ length: events }, (_, i) => ({ type: 'invoice.paid', subjectId: null, data: { i } })),
        new Date(),
      ),
    );
    await dispatchEvents(handle.db, { now: new Date(), limit: events, companyId });
    return { companyId, endpointId };
  }
  const inFlight = async (endpointId: string) =>
    Number(
      (
        await handle.db
          .selectFrom('webhook_deliveries')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('endpoint_id', '=', endpointId)
          .where('status', '=', 'delivering')
          .executeTakeFirstOrThrow()
      ).n,
    );
  const delivered = (claims: readonly ClaimedDelivery[], now: Date): AttemptOutcome[] =>
    claims.map((c) => ({
      company_id: c.company_id,
      id: c.id,
      attempt: c.attempts,
      endpoint_id: c.endpoint_id,
      event_id: c.event_id,
      status: 'delivered',
      nextAttemptAt: null,
      startedAt: now,
      durationMs: 1,
      responseStatus: 204,
      error: null,
    }));

  test('claimers racing for one endpoint together claim no more than its room', async () => {
    const { companyId, endpointId } = await endpointWithBacklog(200);
    const now = new Date();
    const claim = (worker: string, limit: number) => claimDeliveries(handle.db, { workerId: worker, now, limit, leaseMs: 60_000, perEndpoint: 16, companyId });

    const first = await Promise.all(Array.from({ length: 8 }, (_, i) => claim(`racer-${i}`, 10)));
    // Together never more than the room; under load a racer may find the endpoint's row
    // locked by another and take nothing this time (seen on PostgreSQL), so fewer is fine.
    const claimed = first.flat().length;
    assert.ok(claimed > 0 && claimed <= 16, `eight claimers of up to 10 each: ${claimed} in all`);
    if (claimed < 16) first.push(await claim(`racer-${first.length}`, 16 - claimed));
    assert.equal(await inFlight(endpointId), 16);
    assert.deepEqual(await claim('late', 10), [], 'a full endpoint gives nothing more');

    // Rounds of: the holders write their results (each refilling the room it frees)
    // while new claimers try to grow into the endpoint. The count never passes 16.
    let held = first;
    for (let round = 0; round < 12; round++) {
      const at = new Date();
      const writes = held.map((claims, i) =>
        recordAttemptsAndRefill(handle.db, `racer-${i}`, at, delivered(claims, at), { now: at, leaseMs: 60_000, limit: 16 }),
      );
      const claims = Array.from({ length: 4 }, (_, i) => claim(`grower-${round}-${i}`, 16));
      const [written, grown] = await Promise.all([Promise.all(writes), Promise.all(claims)]);
      const count = await inFlight(endpointId);
      assert.ok(count <= 16, `round ${round}: ${count} in flight`);
      const refilled = written.map((w) => w.claimed);
      assert.equal(refilled.flat().length + grown.flat().length, count, `round ${round}: what is in flight is what was claimed`);
      // The growers' claims go back unsent (as a stopping worker's would) to keep the
      // rounds going with the same holders.
      for (const [i, mine] of grown.entries()) {
        if (mine.length === 0) continue;
        await recordAttemptsAndRefill(handle.db, `grower-${round}-${i}`, at, delivered(mine, at), null);
      }
      held = refilled;
    }
    const totals = await handle.db.selectFrom('webhook_deliveries').select(['status']).where('endpoint_id', '=', endpointId).execute();
    assert.ok(totals.filter((d) => d.status === 'delivered').length > 16 * 6, 'the rounds did deliver');
  });

  test('a lease that ran out no longer counts: its room goes to the next claimer', async () => {
    const { companyId, endpointId } = await endpointWithBacklog(20);
    const now = new Date();
    const dead = await claimDeliveries(handle.db, { workerId: 'dead', now, limit: 20, leaseMs: 200, perEndpoint: 4, companyId });
    assert.equal(dead.length, 4);
    assert.deepEqual(await claimDeliveries(handle.db, { workerId: 'next', now, limit: 20, leaseMs: 60_000, perEndpoint: 4, companyId }), []);
    await sleep(300);
    const next = await claimDeliveries(handle.db, { workerId: 'next', now, limit: 20, leaseMs: 60_000, perEndpoint: 4, companyId });
    assert.equal(next.length, 4, 'the dead worker’s four leases ran out');
    assert.equal(await inFlight(endpointId), 8, 'the dead ones wait in `delivering` for their release');
    // The stalled worker comes back and writes its results: they are recorded, but the
    // room they held is taken already, so they refill nothing.
    const at = new Date();
    const written = await recordAttemptsAndRefill(handle.db, 'dead', at, delivered(dead, at), { now: at, leaseMs: 60_000, limit: 16 });
    assert.equal(written.recorded.length, 4);
    assert.deepEqual(written.claimed, []);
    assert.equal(await inFlight(endpointId), 4);
  });

  test('two pumps (two workers) against one slow receiver never have more than the limit open', async () => {
    let open = 0;
    let maxOpen = 0;
    const hook = await startReceiver((_request, response) => {
      open += 1;
      maxOpen = Math.max(maxOpen, open);
      setTimeout(
        () => {
          open -= 1;
          response.writeHead(204).end();
        },
        40 + Math.random() * 40,
      );
    });
    receivers.push(hook);
    const { endpointId } = await endpointWithBacklog(60, hook.url());
    const pump = (workerId: string) => webhookDelivery({ db: handle.db, sealer }, { workerId, perEndpoint: 4, pollMs: 10, log: () => {} });
    const workers = [pump('pump-a').start(), pump('pump-b').start()];
    let maxRows = 0;
    try {
      await waitFor(
        async () => {
          maxRows = Math.max(maxRows, await inFlight(endpointId));
          return hook.received.length >= 60;
        },
        60_000,
        'all 60 delivered',
      );
    } finally {
      for (const worker of workers) await worker.stop();
    }
    assert.ok(maxOpen <= 4, `at most 4 requests open at the receiver, saw ${maxOpen}`);
    assert.equal(maxOpen, 4, 'the limit is used');
    assert.ok(maxRows <= 4, `at most 4 deliveries in flight in the table, saw ${maxRows}`);
    assert.equal(new Set(hook.received.map((r) => r.headers['webhook-id'])).size, 60, 'each event once');
    assert.equal(workers[0]!.tally.delivered + workers[1]!.tally.delivered, 60);
  });

  test('a drain (jobs run) beside a running worker keeps to the same limit', async () => {
    let open = 0;
    let maxOpen = 0;
    const hook = await startReceiver((_request, response) => {
      open += 1;
      maxOpen = Math.max(maxOpen, open);
      setTimeout(() => {
        open -= 1;
        response.writeHead(204).end();
      }, 30);
    });
    receivers.push(hook);
    const { companyId } = await endpointWithBacklog(40, hook.url());
    const options = { perEndpoint: 3, pollMs: 10, log: () => {} };
    const worker = webhookDelivery({ db: handle.db, sealer }, { ...options, workerId: 'running' }).start();
    try {
      const tally = await webhookDelivery({ db: handle.db, sealer }, { ...options, workerId: 'jobs-run' }).drain({ companyId });
      await waitFor(() => hook.received.length >= 40, 30_000, 'all 40 delivered');
      assert.ok(tally.delivered <= 40);
    } finally {
      await worker.stop();
    }
    assert.ok(maxOpen <= 3, `at most 3 open, saw ${maxOpen}`);
    assert.equal(new Set(hook.received.map((r) => r.headers['webhook-id'])).size, 40);
  });

  test('PostgreSQL: claims of two endpoints do not wait for each other', { skip: !usePostgres && 'needs two connections at once' }, async () => {
    const a = await endpointWithBacklog(5);
    const b = await endpointWithBacklog(5);
    // A claimer holds endpoint A's lock in an open transaction; a claim for B (and one
    // for A, which skips it) goes through at once.
    await handle.db.transaction().execute(async (trx) => {
      await trx.selectFrom('webhook_endpoints').select('id').where('id', '=', a.endpointId).forNoKeyUpdate().execute();
      const started = performance.now();
      const forB = await claimDeliveries(handle.db, { workerId: 'b', now: new Date(), limit: 10, leaseMs: 60_000, perEndpoint: 16, companyId: b.companyId });
      const forA = await claimDeliveries(handle.db, { workerId: 'a', now: new Date(), limit: 10, leaseMs: 60_000, perEndpoint: 16, companyId: a.companyId });
      assert.equal(forB.length, 5);
      assert.equal(forA.length, 0, 'A is being claimed for by another: skipped, not waited for');
      assert.ok(performance.now() - started < 2_000);
    });
  });
});
