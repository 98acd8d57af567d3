import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { AdminError } from '../../src/modules/access/admin-error.ts';
import {
  addWebhookEndpoint,
  claimDeliveries,
  dispatchEvents,
  listWebhookDeliveries,
  listWebhookEndpoints,
  recordAttempts,
  removeWebhookEndpoint,
  type WebhookDeliveryOptions,
  webhookDelivery,
} from '../../src/modules/webhooks/index.ts';
import { type TestApp, testApp } from '../helpers/app.ts';
import { sealer } from '../helpers/company.ts';
import { invoiceBody, postInvoice, putCustomer } from '../invoicing/helpers.ts';
import { ok, type Receiver, record, startReceiver, waitFor } from './helpers.ts';

describe('webhook delivery', () => {
  let t: TestApp;
  const receivers: Receiver[] = [];
  before(async () => {
    t = await testApp();
  });
  after(async () => {
    for (const receiver of receivers) await receiver.close();
    await t.close();
  });

  async function receiver(answer = ok) {
    const r = await startReceiver(answer);
    receivers.push(r);
    return r;
  }
  /** A company of its own per test, so drains and counts stay within the test. */
  async function company(label: string) {
    return (await t.newCompany(label)).companyId;
  }
  const add = (companyId: string, url: string, events?: string[]) =>
    addWebhookEndpoint(t.handle.db, t.clock, sealer, { companyId, url, ...(events ? { events } : {}) });
  const delivery = (options: WebhookDeliveryOptions = {}) => webhookDelivery({ db: t.handle.db, sealer }, { log: () => {}, ...options });
  const endpointRows = () => t.handle.db.selectFrom('webhook_endpoints').selectAll().execute();

  test('delivers issued and cancelled invoices signed per Standard Webhooks, with the envelope of design §5 and data equal to GET /v1/invoices/{id}', async () => {
    const hook = await receiver();
    const { id: endpointId, secret } = await add(t.company.companyId, hook.url());
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/, 'whsec_ and base64 of 32 random bytes');
    await putCustomer(t, 'kunde-1');
    const issued = await postInvoice(t, invoiceBody('wh-1', { issue: true }));
    assert.equal(issued.statusCode, 201, issued.body);
    const invoiceId = issued.json().id as string;
    const atIssue = (await t.request('GET', `/v1/invoices/${invoiceId}`)).json();

    const tally = await delivery().drain({ companyId: t.company.companyId });
    assert.deepEqual(tally, { delivered: 1, retried: 0, failed: 0 });
    assert.equal(hook.received.length, 1);
    const [request] = hook.received;
    const envelope = new Webhook(secret).verify(request!.body, request!.headers) as Record<string, unknown>;
    const event = await t.handle.db
      .selectFrom('events')
      .select(['id', 'created_at'])
      .where('subject_id', '=', invoiceId)
      .where('type', '=', 'invoice.issued')
      .executeTakeFirstOrThrow();
    assert.deepEqual(Object.keys(envelope), ['id', 'type', 'created_at', 'api_version', 'data']);
    assert.equal(envelope.id, event.id);
    assert.match(String(envelope.id), /^evt_/);
    assert.equal(envelope.type, 'invoice.issued');
    assert.equal(envelope.created_at, t.clock.now().toISOString(), 'when it happened, ISO UTC in business time');
    assert.equal(envelope.api_version, '2026-11-01');
    assert.deepEqual(envelope.data, atIssue, 'data is the invoice as GET returns it at event time');
    assert.equal(request!.headers['webhook-id'], event.id);
    assert.ok(Math.abs(Number(request!.headers['webhook-timestamp']) - Date.now() / 1000) < 300, 'webhook-timestamp is real time');
    assert.match(request!.headers['webhook-signature']!, /^v1,[A-Za-z0-9+/]+=*$/);
    assert.equal(request!.headers['content-type'], 'application/json');
    assert.throws(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(request!.body, request!.headers), /signature/i);
    assert.throws(() => new Webhook(secret).verify(request!.body.replace('invoice.issued', 'invoice.paid'), request!.headers), /signature/i);

    const cancel = await t.request('POST', `/v1/invoices/${invoiceId}/cancel`);
    assert.equal(cancel.statusCode, 201, cancel.body);
    const atCancel = (await t.request('GET', `/v1/invoices/${invoiceId}`)).json();
    assert.deepEqual(await delivery().drain({ companyId: t.company.companyId }), { delivered: 1, retried: 0, failed: 0 });
    const cancelled = new Webhook(secret).verify(hook.received[1]!.body, hook.received[1]!.headers) as Record<string, unknown>;
    assert.equal(cancelled.type, 'invoice.cancelled');
    assert.deepEqual(cancelled.data, atCancel);
    assert.equal((cancelled.data as { external_ref: string }).external_ref, 'wh-1', 'data.external_ref matches the caller’s record');

    const [listed] = await listWebhookDeliveries(t.handle.db, { endpointId, eventId: event.id });
    assert.equal(listed!.status, 'delivered');
    assert.equal(listed!.attempts.length, 1);
    assert.equal(listed!.attempts[0]!.response_status, 204);
    assert.equal(listed!.attempts[0]!.error, null);
    assert.ok(listed!.attempts[0]!.duration_ms! >= 0);
    assert.deepEqual(await delivery().drain({ companyId: t.company.companyId }), { delivered: 0, retried: 0, failed: 0 }, 'each event once');
    assert.equal(hook.received.length, 2);
  });

  test('an endpoint gets only the kinds it subscribed to, one without kinds every kind, and no other company’s events', async () => {
    const companyId = await company('filter');
    const other = await company('filter-other');
    const paidOnly = await receiver();
    const all = await receiver();
    await add(companyId, paidOnly.url(), ['invoice.paid']);
    await add(companyId, all.url());
    await record(t.handle.db, companyId, 'invoice.issued', { n: 1 });
    await record(t.handle.db, companyId, 'invoice.paid', { n: 2 });
    await record(t.handle.db, other, 'invoice.paid', { n: 3 });
    await delivery().drain({ companyId });
    await delivery().drain({ companyId: other });
    const types = (r: Receiver) => r.received.map((q) => (JSON.parse(q.body) as { type: string }).type);
    assert.deepEqual(types(paidOnly), ['invoice.paid']);
    assert.deepEqual(types(all), ['invoice.issued', 'invoice.paid']);
  });

  test('deliveries of one endpoint go out in the order the events were recorded', async () => {
    const companyId = await company('order');
    const hook = await receiver();
    await add(companyId, hook.url());
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(await record(t.handle.db, companyId, 'invoice.sent', { i }));
    await delivery({ perEndpoint: 1 }).drain({ companyId });
    assert.deepEqual(
      hook.received.map((q) => q.headers['webhook-id']),
      ids,
    );
  });

  test('a receiver answering 500 and then 200 is retried after the backoff and delivered; both attempts are recorded', async () => {
    const companyId = await company('retry');
    let answers = 0;
    const hook = await receiver((_q, response) => {
      answers += 1;
      response.writeHead(answers === 1 ? 500 : 200).end('fine');
    });
    const { id: endpointId } = await add(companyId, hook.url());
    const eventId = await record(t.handle.db, companyId, 'invoice.paid', { paid: true });
    let now = new Date();
    const start = now;
    const deliver = () => delivery({ now: () => now }).drain({ companyId });

    assert.deepEqual(await deliver(), { delivered: 0, retried: 1, failed: 0 });
    const [waiting] = await listWebhookDeliveries(t.handle.db, { endpointId });
    assert.equal(waiting!.status, 'pending');
    const wait = new Date(waiting!.next_attempt_at!).getTime() - start.getTime();
    assert.ok(wait >= 4_000 && wait <= 6_000, `first retry after 5 s ± 20 %, was ${wait} ms`);
    assert.deepEqual(await deliver(), { delivered: 0, retried: 0, failed: 0 }, 'not due before the backoff');

    now = new Date(start.getTime() + 10_000);
    assert.deepEqual(await deliver(), { delivered: 1, retried: 0, failed: 0 });
    assert.deepEqual(
      hook.received.map((q) => q.headers['webhook-id']),
      [eventId, eventId],
      'the retry repeats the envelope id',
    );
    assert.equal(hook.received[0]!.body, hook.received[1]!.body, 'and the body');
    const [done] = await listWebhookDeliveries(t.handle.db, { endpointId });
    assert.equal(done!.status, 'delivered');
    assert.equal(done!.next_attempt_at, null);
    assert.deepEqual(
      done!.attempts.map((a) => [a.attempt, a.started_at, a.response_status, a.error]),
      [
        [1, start.toISOString(), 500, 'HTTP 500'],
        [2, now.toISOString(), 200, null],
      ],
    );
  });

  test('a hanging receiver and a redirecting one do not hold up another endpoint; a redirect is not followed', async () => {
    const companyId = await company('isolation');
    const hanging = await receiver(() => {}); // never answers
    const healthy = await receiver();
    const redirecting = await receiver((_q, response) => {
      response.writeHead(302, { location: healthy.url('/redirected') }).end();
    });
    const { id: hangingId } = await add(companyId, hanging.url());
    const { id: redirectId } = await add(companyId, redirecting.url());
    await add(companyId, healthy.url());
    for (let i = 0; i < 12; i++) await record(t.handle.db, companyId, 'invoice.overdue', { i });

    const worker = delivery({ perEndpoint: 4, timeoutMs: 60_000, pollMs: 20 }).start();
    try {
      await waitFor(() => healthy.received.length === 12, 20_000, 'the healthy endpoint got all 12');
      await waitFor(() => redirecting.received.length >= 12, 20_000, 'the redirecting endpoint was tried for all 12');
      await waitFor(() => hanging.received.length >= 4, 20_000, 'the hanging receiver got its 4 requests');
      assert.equal(hanging.open, 4, 'the hanging receiver holds its 4 slots, and only those');
      assert.equal(hanging.received.length, 4);
      assert.equal(healthy.received.filter((q) => q.path === '/redirected').length, 0, 'the redirect was not followed');
      const hangingAttempts = await t.handle.db.selectFrom('webhook_attempts').select('attempt').where('endpoint_id', '=', hangingId).execute();
      assert.equal(hangingAttempts.length, 0, 'the hanging attempts are still on the wire');
      await waitFor(async () => (await listWebhookDeliveries(t.handle.db, { endpointId: redirectId })).every((d) => d.attempts.length === 1));
      const [redirected] = await listWebhookDeliveries(t.handle.db, { endpointId: redirectId, limit: 1 });
      assert.equal(redirected!.status, 'pending', 'a redirect is a failed attempt, retried later');
      assert.equal(redirected!.attempts[0]!.response_status, 302);
      assert.match(redirected!.attempts[0]!.error!, /redirect not followed/);
      // The receiver goes away: the held requests fail and are recorded.
      await hanging.close();
    } finally {
      await worker.stop();
    }
    const held = await listWebhookDeliveries(t.handle.db, { endpointId: hangingId });
    const attempted = held.filter((d) => d.attempts.length > 0);
    assert.ok(attempted.length >= 4);
    for (const d of attempted) {
      assert.equal(d.status, 'pending');
      assert.equal(d.attempts[0]!.response_status, null);
      assert.match(d.attempts[0]!.error!, /connection failed|request failed/);
    }
    await removeWebhookEndpoint(t.handle.db, t.clock, hangingId);
    await removeWebhookEndpoint(t.handle.db, t.clock, redirectId);
  });

  test('an attempt that gets no answer within the timeout is recorded as a timeout and retried', async () => {
    const companyId = await company('timeout');
    const hook = await receiver(() => {});
    const { id: endpointId } = await add(companyId, hook.url());
    await record(t.handle.db, companyId, 'invoice.sent', {});
    assert.deepEqual(await delivery({ timeoutMs: 300 }).drain({ companyId }), { delivered: 0, retried: 1, failed: 0 });
    const [d] = await listWebhookDeliveries(t.handle.db, { endpointId });
    assert.equal(d!.status, 'pending');
    assert.equal(d!.attempts[0]!.error, 'timeout: no answer within 300 ms');
    assert.ok(d!.attempts[0]!.duration_ms! >= 250);
    await removeWebhookEndpoint(t.handle.db, t.clock, endpointId);
  });

  test('after three days of failures the delivery fails and the endpoint is marked failing; a later success clears it', async () => {
    const companyId = await company('window');
    let status = 500;
    const hook = await receiver((_q, response) => {
      response.writeHead(status).end();
    });
    const { id: endpointId } = await add(companyId, hook.url());
    await record(t.handle.db, companyId, 'invoice.dunning_sent', { level: 0 });
    const start = new Date();
    let now = start;
    const deliver = () => delivery({ now: () => now }).drain({ companyId });
    const day = 24 * 60 * 60 * 1000;

    assert.deepEqual(await deliver(), { delivered: 0, retried: 1, failed: 0 });
    now = new Date(start.getTime() + 3 * day - 5_000);
    assert.deepEqual(await deliver(), { delivered: 0, retried: 1, failed: 0 }, 'still inside the window');
    const [inside] = await listWebhookDeliveries(t.handle.db, { endpointId });
    assert.equal(
      inside!.next_attempt_at,
      new Date(start.getTime() + 3 * day).toISOString(),
      'the last retry is placed at the end of the window (the backoff of 10 s ± 20 % would pass it)',
    );
    assert.equal((await listWebhookEndpoints(t.handle.db, companyId))[0]!.status, 'active');

    now = new Date(start.getTime() + 3 * day);
    assert.deepEqual(await deliver(), { delivered: 0, retried: 0, failed: 1 });
    const [failed] = await listWebhookDeliveries(t.handle.db, { endpointId });
    assert.equal(failed!.status, 'failed');
    assert.equal(failed!.attempts.length, 3);
    assert.equal(failed!.next_attempt_at, null);
    const [endpoint] = await listWebhookEndpoints(t.handle.db, companyId);
    assert.equal(endpoint!.status, 'failing');
    assert.equal(endpoint!.failing_since, now.toISOString());
    assert.deepEqual(await deliver(), { delivered: 0, retried: 0, failed: 0 }, 'a failed delivery is not tried again');

    // A failing endpoint still gets new events; the first success makes it active again.
    status = 200;
    await record(t.handle.db, companyId, 'invoice.paid', {});
    assert.deepEqual(await deliver(), { delivered: 1, retried: 0, failed: 0 });
    const [healed] = await listWebhookEndpoints(t.handle.db, companyId);
    assert.equal(healed!.status, 'active');
    assert.equal(healed!.failing_since, null);
    assert.equal(hook.received.length, 4);
  });

  test('an event committed while no worker runs is delivered once one starts; a worker that died mid-attempt leaves it to the next after its lease', async () => {
    const companyId = await company('crash');
    const hook = await receiver();
    const { id: endpointId } = await add(companyId, hook.url());
    const first = await record(t.handle.db, companyId, 'invoice.issued', { n: 1 });
    // A worker claims the delivery and dies before sending: its lease (300 ms) runs out.
    const now = new Date();
    await dispatchEvents(t.handle.db, { now, limit: 100, companyId });
    const claimed = await claimDeliveries(t.handle.db, { workerId: 'dead-worker', now, limit: 10, leaseMs: 300, perEndpoint: 16, companyId });
    assert.equal(claimed.length, 1);
    const second = await record(t.handle.db, companyId, 'invoice.sent', { n: 2 });
    assert.equal(hook.received.length, 0);

    const worker = delivery({ leaseMs: 400, pollMs: 20 }).start();
    try {
      await waitFor(() => hook.received.length >= 2, 20_000, 'both events delivered after the restart');
    } finally {
      await worker.stop();
    }
    assert.deepEqual(hook.received.map((q) => q.headers['webhook-id']).sort(), [first, second].sort());
    const [d] = await listWebhookDeliveries(t.handle.db, { endpointId, eventId: first });
    assert.equal(d!.status, 'delivered');
    assert.deepEqual(
      d!.attempts.map((a) => [a.attempt, a.response_status, a.error]),
      [
        [1, null, 'no result: the worker stopped or lost its lease during the attempt'],
        [2, 204, null],
      ],
    );
    const events = await t.handle.db.selectFrom('events').select('dispatched_at').where('company_id', '=', companyId).execute();
    assert.ok(events.every((e) => e.dispatched_at !== null));
  });

  test('a stopping worker gives back what it claimed but did not send, and finishes what is on the wire', async () => {
    const companyId = await company('stop');
    const hook = await receiver(() => {}); // never answers
    const { id: endpointId } = await add(companyId, hook.url());
    for (let i = 0; i < 5; i++) await record(t.handle.db, companyId, 'invoice.issued', { i });
    // One slot in the worker, room for four at the endpoint: four claimed, one sent.
    const worker = delivery({ perEndpoint: 4, concurrency: 1, timeoutMs: 2_000, pollMs: 20 }).start();
    try {
      await waitFor(() => hook.open === 1, 20_000, 'one attempt on the wire');
      const held = await t.handle.db.selectFrom('webhook_deliveries').select('status').where('endpoint_id', '=', endpointId).execute();
      assert.deepEqual(
        held.map((d) => d.status).sort(),
        ['delivering', 'delivering', 'delivering', 'delivering', 'pending'],
        'four claimed (the endpoint’s room), the fifth waits in the table',
      );
    } finally {
      await worker.stop();
    }
    const after = await listWebhookDeliveries(t.handle.db, { endpointId });
    assert.deepEqual(after.map((d) => d.status).sort(), Array(5).fill('pending'));
    assert.deepEqual(after.map((d) => d.attempts.length).sort(), [0, 0, 0, 0, 1], 'the one sent is recorded (a timeout), the four never sent count no attempt');
    const rows = await t.handle.db.selectFrom('webhook_deliveries').select(['attempts', 'locked_by']).where('endpoint_id', '=', endpointId).execute();
    assert.deepEqual(rows.map((r) => r.attempts).sort(), [0, 0, 0, 0, 1]);
    assert.ok(rows.every((r) => r.locked_by === null));
    await removeWebhookEndpoint(t.handle.db, t.clock, endpointId);
  });

  test('a worker that lost its lease cannot overwrite the new owner’s result', async () => {
    const companyId = await company('fence');
    const hook = await receiver();
    const { id: endpointId } = await add(companyId, hook.url());
    await record(t.handle.db, companyId, 'invoice.issued', {});
    const now = new Date();
    await dispatchEvents(t.handle.db, { now, limit: 100, companyId });
    const [stale] = await claimDeliveries(t.handle.db, { workerId: 'slow', now, limit: 1, leaseMs: 1, perEndpoint: 16, companyId });
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(await delivery().drain({ companyId }), { delivered: 1, retried: 0, failed: 0 }, 'the next worker takes it over');
    const updated = await recordAttempts(t.handle.db, 'slow', now, [
      {
        company_id: companyId,
        id: stale!.id,
        attempt: stale!.attempts,
        endpoint_id: endpointId,
        event_id: stale!.event_id,
        status: 'failed',
        nextAttemptAt: null,
        startedAt: now,
        durationMs: 10_000,
        responseStatus: 500,
        error: 'HTTP 500',
      },
    ]);
    assert.deepEqual(updated, [], 'fenced out');
    const [d] = await listWebhookDeliveries(t.handle.db, { endpointId });
    assert.equal(d!.status, 'delivered');
    assert.equal((await listWebhookEndpoints(t.handle.db, companyId))[0]!.status, 'active');
  });

  test('removing an endpoint cancels its waiting deliveries and fans nothing more out to it', async () => {
    const companyId = await company('remove');
    const hook = await receiver((_q, response) => {
      response.writeHead(503).end();
    });
    const { id } = await add(companyId, hook.url());
    await record(t.handle.db, companyId, 'invoice.issued', {});
    assert.deepEqual(await delivery().drain({ companyId }), { delivered: 0, retried: 1, failed: 0 });
    const removed = await removeWebhookEndpoint(t.handle.db, t.clock, id);
    assert.equal(removed.cancelled_deliveries, 1);
    await record(t.handle.db, companyId, 'invoice.paid', {});
    assert.deepEqual(await delivery({ now: () => new Date(Date.now() + 60_000) }).drain({ companyId }), { delivered: 0, retried: 0, failed: 0 });
    const deliveries = await listWebhookDeliveries(t.handle.db, { endpointId: id });
    assert.deepEqual(
      deliveries.map((d) => d.status),
      ['cancelled'],
    );
    assert.deepEqual(await listWebhookEndpoints(t.handle.db, companyId), []);
    await assert.rejects(removeWebhookEndpoint(t.handle.db, t.clock, id), /already removed/);
  });

  test('refuses a URL that is not http(s), garbage, credentials in the URL, unknown event kinds and unknown companies, writing nothing', async () => {
    const companyId = await company('refusals');
    const before = (await endpointRows()).length;
    const refusals: [string, string | undefined, string, RegExp][] = [
      [companyId, undefined, 'ftp://files.example/hook', /must use http or https, not ftp/],
      [companyId, undefined, 'javascript:alert(1)', /must use http or https/],
      [companyId, undefined, 'not a url', /not a URL/],
      [companyId, undefined, 'https://user:pass@hooks.example/in', /user name or password/],
      [companyId, 'invoice.paid,invoice.exploded', 'https://hooks.example/in', /unknown event kind invoice\.exploded/],
      ['com_missing', undefined, 'https://hooks.example/in', /no company com_missing/],
    ];
    for (const [id, events, url, message] of refusals) {
      await assert.rejects(
        addWebhookEndpoint(t.handle.db, t.clock, sealer, { companyId: id, url, ...(events ? { events: events.split(',') } : {}) }),
        (error: unknown) => error instanceof AdminError && message.test(error.message),
        url,
      );
    }
    assert.equal((await endpointRows()).length, before, 'nothing written');
    await assert.rejects(removeWebhookEndpoint(t.handle.db, t.clock, 'whe_missing'), /no webhook endpoint whe_missing/);
    await assert.rejects(listWebhookDeliveries(t.handle.db, { limit: 0 }), /--limit/);
  });
});
