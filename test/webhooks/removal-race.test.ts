import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Database } from '../../src/db/connection.ts';
import { addWebhookEndpoint, dispatchEvents, removeWebhookEndpoint } from '../../src/modules/webhooks/index.ts';
import { type TestApp, testApp } from '../helpers/app.ts';
import { sealer } from '../helpers/company.ts';
import { usePostgres } from '../helpers/database.ts';
import { record, sleep } from './helpers.ts';

// A fan-out and the removal of its endpoint at the same moment: the removal waits for the
// fan-out and then cancels what it created, so no delivery to a removed endpoint stays
// pending. Needs two connections at once: PostgreSQL only.

describe('removing an endpoint while its events are fanned out', { skip: !usePostgres && 'PostgreSQL only (KONTOR_TEST_DB=postgres)' }, () => {
  let t: TestApp;
  before(async () => {
    t = await testApp();
  });
  after(() => t.close());

  test('leaves no pending delivery to the removed endpoint', async () => {
    const { companyId } = t.company;
    const endpoint = await addWebhookEndpoint(t.handle.db, t.clock, sealer, { companyId, url: 'http://127.0.0.1:9/hook' });
    await record(t.handle.db, companyId, 'invoice.issued', { id: 'inv_race' });

    let removal: Promise<unknown> | undefined;
    let removalDone = false;
    await t.handle.db.transaction().execute(async (trx) => {
      const fanned = await dispatchEvents(trx as unknown as Database, { now: new Date(), limit: 100, companyId });
      assert.equal(fanned.deliveries, 1);
      removal = removeWebhookEndpoint(t.handle.db, t.clock, endpoint.id).then(() => {
        removalDone = true;
      });
      await sleep(300);
      assert.equal(removalDone, false, 'the removal waits for the fan-out under way');
    });
    await removal;
    const rows = await t.handle.db
      .selectFrom('webhook_deliveries')
      .select(['status'])
      .where('company_id', '=', companyId)
      .where('endpoint_id', '=', endpoint.id)
      .execute();
    assert.deepEqual(
      rows.map((r) => r.status),
      ['cancelled'],
    );
  });

  test('a fan-out that meets an endpoint being removed creates nothing for it', async () => {
    const { companyId } = t.company;
    const endpoint = await addWebhookEndpoint(t.handle.db, t.clock, sealer, { companyId, url: 'http://127.0.0.1:9/other' });
    await record(t.handle.db, companyId, 'invoice.sent', { id: 'inv_race_2' });
    let fanOut: Promise<unknown> | undefined;
    // The removal's own steps (lock, mark removed, cancel what waits), held open while a
    // fan-out starts; it commits while the fan-out waits for the endpoint.
    await t.handle.db.transaction().execute(async (trx) => {
      await trx.selectFrom('webhook_endpoints').select('id').where('id', '=', endpoint.id).forUpdate().execute();
      await trx.updateTable('webhook_endpoints').set({ status: 'removed', removed_at: new Date() }).where('id', '=', endpoint.id).execute();
      await trx.updateTable('webhook_deliveries').set({ status: 'cancelled' }).where('endpoint_id', '=', endpoint.id).where('status', '=', 'pending').execute();
      fanOut = dispatchEvents(t.handle.db, { now: new Date(), limit: 100, companyId });
      await sleep(300);
    });
    await fanOut;
    const rows = await t.handle.db.selectFrom('webhook_deliveries').select(['status']).where('endpoint_id', '=', endpoint.id).execute();
    assert.deepEqual(rows, []);
  });
});
