import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ConfigError, eventRetentionDays, loadConfig } from '../../src/config.ts';
import type { DatabaseHandle } from '../../src/db/connection.ts';
import { runDueWork } from '../../src/jobs/index.ts';
import {
  addWebhookEndpoint,
  pruneWebhookHistory,
  removeWebhookEndpoint,
  type WebhookDeliveryOptions,
  webhookDelivery,
} from '../../src/modules/webhooks/index.ts';
import { fixedClock } from '../../src/shared/clock.ts';
import { sealer } from '../helpers/company.ts';
import { testDatabase } from '../helpers/database.ts';
import { seedCompany } from '../jobs/fixtures.ts';
import { type Receiver, record, startReceiver } from './helpers.ts';

// Retention (daily task webhooks.prune): an event goes with its deliveries and attempts
// once it was dispatched and every delivery of it is final and finished more than N days
// ago (real time, like every webhook time); nothing pending, undispatched or recent.
// Old history is made by delivering with the transport clock set back (`now`).

const DAY = 24 * 60 * 60 * 1000;

describe('pruning webhook history', () => {
  let handle: DatabaseHandle;
  let ok: Receiver;
  let failing: Receiver;
  before(async () => {
    handle = await testDatabase();
    ok = await startReceiver();
    failing = await startReceiver((_request, response) => {
      response.writeHead(500).end();
    });
  });
  after(async () => {
    await ok.close();
    await failing.close();
    await handle.close();
  });

  const clock = fixedClock('2026-11-20T10:00:00Z');
  const drainAt = (companyId: string, at: Date, options: WebhookDeliveryOptions = {}) =>
    webhookDelivery({ db: handle.db, sealer }, { log: () => {}, now: () => at, ...options }).drain({ companyId });
  const add = (companyId: string, url: string, events: string[]) => addWebhookEndpoint(handle.db, clock, sealer, { companyId, url, events });
  const eventIds = async (companyId: string) =>
    (await handle.db.selectFrom('events').select('id').where('company_id', '=', companyId).orderBy('seq').execute()).map((e) => e.id);
  const rowsOf = async (companyId: string) => {
    const count = async (table: 'webhook_deliveries' | 'webhook_attempts') =>
      Number(
        (
          await handle.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('company_id', '=', companyId)
            .executeTakeFirstOrThrow()
        ).n,
      );
    return { events: (await eventIds(companyId)).length, deliveries: await count('webhook_deliveries'), attempts: await count('webhook_attempts') };
  };

  test('old final rows go, the last finish counts, pending, recent, cancelled-lately and undispatched ones stay; a second run prunes nothing', async () => {
    const companyId = await seedCompany(handle.db);
    const now = new Date();
    const old = new Date(now.getTime() - 100 * DAY);
    await add(companyId, ok.url(), ['invoice.issued', 'invoice.paid']);
    await add(companyId, failing.url(), ['invoice.paid']);
    const removed = await add(companyId, failing.url('/removed'), ['invoice.sent']);

    const delivered = await record(handle.db, companyId, 'invoice.issued', { n: 1 }); // ok: delivered 100 days ago
    const failedLater = await record(handle.db, companyId, 'invoice.paid', { n: 2 }); // ok delivered, failing: fails for good 97 days ago
    const noEndpoint = await record(handle.db, companyId, 'invoice.cancelled', { n: 3 }); // nobody subscribed: dispatched 100 days ago
    const cancelled = await record(handle.db, companyId, 'invoice.sent', { n: 4 }); // retried, then its endpoint is removed today
    assert.deepEqual(await drainAt(companyId, old), { delivered: 2, retried: 2, failed: 0 });
    await removeWebhookEndpoint(handle.db, clock, removed.id);
    assert.deepEqual(await drainAt(companyId, new Date(old.getTime() + 3 * DAY)), { delivered: 0, retried: 0, failed: 1 });

    const recent = await record(handle.db, companyId, 'invoice.issued', { n: 5 });
    assert.deepEqual(await drainAt(companyId, now), { delivered: 1, retried: 0, failed: 0 });
    const stillPending = await record(handle.db, companyId, 'invoice.paid', { n: 6 }); // ok delivered long ago, failing waits for its retry
    assert.deepEqual(await drainAt(companyId, new Date(old.getTime() + 3 * DAY + 60_000)), { delivered: 1, retried: 1, failed: 0 });
    const undispatched = await record(handle.db, companyId, 'invoice.issued', { n: 7 });

    // The failing endpoint's delivery of `failedLater` finished 97 days ago: with 98 days
    // of retention its event stays, with 90 it goes.
    assert.deepEqual(await pruneWebhookHistory(handle.db, { companyId, now, retentionDays: 98 }), { events: 2, deliveries: 1, attempts: 1, capped: 0 });
    assert.deepEqual(await eventIds(companyId), [failedLater, cancelled, recent, stillPending, undispatched]);
    assert.ok(!(await eventIds(companyId)).includes(delivered) && !(await eventIds(companyId)).includes(noEndpoint));

    assert.deepEqual(await pruneWebhookHistory(handle.db, { companyId, now, retentionDays: 90 }), { events: 1, deliveries: 2, attempts: 3, capped: 0 });
    assert.deepEqual(await eventIds(companyId), [cancelled, recent, stillPending, undispatched], 'the rest is pending, recent or undispatched');
    const statuses = await handle.db
      .selectFrom('webhook_deliveries')
      .select(['event_id', 'status'])
      .where('company_id', '=', companyId)
      .orderBy('event_seq')
      .orderBy('status')
      .execute();
    assert.deepEqual(
      statuses.map((d) => [d.event_id, d.status]),
      [
        [cancelled, 'cancelled'],
        [recent, 'delivered'],
        [stillPending, 'delivered'],
        [stillPending, 'pending'],
      ],
    );

    assert.deepEqual(
      await pruneWebhookHistory(handle.db, { companyId, now, retentionDays: 90 }),
      { events: 0, deliveries: 0, attempts: 0, capped: 0 },
      'nothing more',
    );
    // Even a retention of one day keeps what is pending, undispatched or finished today.
    assert.deepEqual(await pruneWebhookHistory(handle.db, { companyId, now, retentionDays: 1 }), { events: 0, deliveries: 0, attempts: 0, capped: 0 });
    // 91 days on, the cancelled one (finished when its endpoint was removed, today) and the recent one go.
    assert.deepEqual(await pruneWebhookHistory(handle.db, { companyId, now: new Date(now.getTime() + 91 * DAY), retentionDays: 90 }), {
      events: 2,
      deliveries: 2,
      attempts: 2,
      capped: 0,
    });
    assert.deepEqual(await eventIds(companyId), [stillPending, undispatched]);
  });

  test('a run stops at its limit and says so; the next goes on', async () => {
    const companyId = await seedCompany(handle.db);
    const old = new Date(Date.now() - 100 * DAY);
    await add(companyId, ok.url(), ['invoice.issued']);
    for (let i = 0; i < 3; i++) await record(handle.db, companyId, 'invoice.issued', { i });
    await drainAt(companyId, old);
    const prune = () => pruneWebhookHistory(handle.db, { companyId, now: new Date(), retentionDays: 90, limit: 2 });
    assert.deepEqual(await prune(), { events: 2, deliveries: 2, attempts: 2, capped: 1 });
    assert.deepEqual(await prune(), { events: 1, deliveries: 1, attempts: 1, capped: 0 });
    assert.deepEqual(await rowsOf(companyId), { events: 0, deliveries: 0, attempts: 0 });
  });

  test('the daily task webhooks.prune runs once a day per company, in real time, and jobs run reports what went', async () => {
    const companyId = await seedCompany(handle.db);
    await add(companyId, ok.url(), ['invoice.issued']);
    await record(handle.db, companyId, 'invoice.issued', { n: 'old' });
    await drainAt(companyId, new Date(Date.now() - 91 * DAY));
    await record(handle.db, companyId, 'invoice.issued', { n: 'new' });
    await drainAt(companyId, new Date(Date.now() - 89 * DAY));

    const summary = await runDueWork({ db: handle.db, clock }, { asOf: '2026-11-20', companyId });
    assert.deepEqual(summary.tasks['webhooks.prune'], {
      companies: 1,
      ran: 1,
      skipped: 0,
      failed: 0,
      totals: { events: 1, deliveries: 1, attempts: 1, capped: 0 },
    });
    assert.deepEqual(await rowsOf(companyId), { events: 1, deliveries: 1, attempts: 1 }, 'the one delivered 89 days ago stays (default 90 days)');
    const stored = await handle.db
      .selectFrom('scheduler_runs')
      .select('summary')
      .where('company_id', '=', companyId)
      .where('task', '=', 'webhooks.prune')
      .executeTakeFirstOrThrow();
    assert.deepEqual(stored.summary, { events: 1, deliveries: 1, attempts: 1, capped: 0 });

    const again = await runDueWork({ db: handle.db, clock }, { asOf: '2026-11-20', companyId });
    assert.deepEqual(again.tasks['webhooks.prune'], {
      companies: 1,
      ran: 0,
      skipped: 1,
      failed: 0,
      totals: { events: 0, deliveries: 0, attempts: 0, capped: 0 },
    });
    // A run "as of" a date years ahead is still measured in real time: nothing more goes.
    const later = await runDueWork({ db: handle.db, clock: fixedClock('2031-01-01T12:00:00Z') }, { asOf: '2031-01-01', companyId });
    assert.deepEqual(later.tasks['webhooks.prune']!.totals, { events: 0, deliveries: 0, attempts: 0, capped: 0 });
    assert.deepEqual(await rowsOf(companyId), { events: 1, deliveries: 1, attempts: 1 });
  });

  test('KONTOR_EVENT_RETENTION_DAYS: default 90, a whole number of days from 1, refused otherwise', () => {
    assert.equal(eventRetentionDays({}), 90);
    assert.equal(eventRetentionDays({ KONTOR_EVENT_RETENTION_DAYS: '' }), 90);
    assert.equal(eventRetentionDays({ KONTOR_EVENT_RETENTION_DAYS: '1' }), 1);
    assert.equal(eventRetentionDays({ KONTOR_EVENT_RETENTION_DAYS: '365' }), 365);
    assert.equal(loadConfig({ KONTOR_EVENT_RETENTION_DAYS: '30' }).eventRetentionDays, 30);
    assert.equal(loadConfig({}).eventRetentionDays, 90);
    for (const bad of ['0', '-5', '1.5', '30d', 'ninety', ' 30', '1e3', '36501']) {
      assert.throws(
        () => loadConfig({ KONTOR_EVENT_RETENTION_DAYS: bad }),
        (error: unknown) =>
          error instanceof ConfigError && error.message === `KONTOR_EVENT_RETENTION_DAYS must be a whole number of days from 1 to 36500, got ${bad}`,
        bad,
      );
    }
  });
});
