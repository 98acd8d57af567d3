import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { addWebhookEndpoint, dispatchEvents, type WebhookDeliveryOptions, webhookDelivery } from '../../src/modules/webhooks/index.ts';
import { countRows, sealer, type TestApp, type TestCompany, testApp } from '../helpers/app.ts';
import { type Receiver, record, startReceiver } from '../webhooks/helpers.ts';
import { signedIn, signedInMember, type WebClient } from './client.ts';

// Issue 15 (webhooks in the app): an admin adds an endpoint (URL checked, chosen event kinds)
// and sees its signing secret once; the endpoint's page lists its deliveries with every
// attempt; a delivery that failed for good is sent again ("Erneut senden") and reaches a real
// local receiver with a valid signature; removal asks first and cancels what waits. Members
// may not, another company's endpoint is not found, audit rows carry no secret.

const SECRET_ON_PAGE = /<code class="secret" id="new-secret">(whsec_[A-Za-z0-9+/=]+)<\/code>/;

describe('webhooks in the app', () => {
  let t: TestApp;
  let admin: WebClient;
  let member: WebClient;
  let other: TestCompany;
  let otherEndpointId: string;
  let receiver: Receiver;
  let answer = 500;
  let endpointId: string;
  let secret: string;
  let failedDeliveryId: number;

  const drain = (options: WebhookDeliveryOptions = {}) =>
    webhookDelivery({ db: t.handle.db, sealer }, { log: () => {}, ...options }).drain({ companyId: t.company.companyId });
  const json = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value) as Record<string, unknown>;

  before(async () => {
    t = await testApp();
    admin = await signedIn(t);
    member = (await signedInMember(t, 'mitglied@example.com')).client;
    other = await t.newCompany('fremd');
    otherEndpointId = (await addWebhookEndpoint(t.handle.db, t.clock, sealer, { companyId: other.companyId, url: 'https://fremd.example/hook' })).id;
    receiver = await startReceiver((_request, response) => {
      response.writeHead(answer).end();
    });
  });
  after(async () => {
    await receiver.close();
    await t.close();
  });

  test('a bad URL is refused in German with the input kept; nothing is written', async () => {
    const before = await countRows(t.handle, 'webhook_endpoints');
    await admin.get('/app/webhooks');
    for (const [url, message] of [
      ['ftp://files.example/in', /Die Adresse muss mit https:\/\/ oder http:\/\/ beginnen/],
      ['hooks.example/in', /Das ist keine vollständige Adresse/],
      ['https://nutzer:geheim@hooks.example/in', /keinen Benutzernamen und kein Passwort/],
      ['', /Bitte geben Sie die Adresse ein/],
    ] as const) {
      const res = await admin.postPairs('/app/webhooks', [
        ['url', url],
        ['event', 'invoice.paid'],
      ]);
      assert.equal(res.statusCode, 422, url);
      assert.match(res.body, message);
      assert.ok(res.body.includes(`value="${url.replace('&', '&amp;')}"`), 'the typed URL is kept');
      assert.match(res.body, /value="invoice\.paid" checked/);
    }
    assert.equal(
      (
        await admin.postPairs('/app/webhooks', [
          ['url', 'https://ok.example/'],
          ['event', 'invoice.everything'],
        ])
      ).statusCode,
      400,
    );
    assert.equal(await countRows(t.handle, 'webhook_endpoints'), before);
  });

  test('adding an endpoint shows its signing secret once; the list and the audit trail never', async () => {
    await admin.get('/app/webhooks');
    const res = await admin.postPairs('/app/webhooks', [
      ['url', receiver.url()],
      ['event', 'invoice.paid'],
      ['event', 'invoice.overdue'],
    ]);
    // Post/Redirect/Get (issue 25): the secret is on the page the answer leads to, once.
    assert.equal(res.statusCode, 303);
    const shown = await admin.get(res.headers.location as string);
    assert.equal(shown.status, 200);
    secret = SECRET_ON_PAGE.exec(shown.body)?.[1] as string;
    assert.ok(secret, 'the secret is on the page after the redirect');
    assert.ok(!String(res.headers.location).includes(secret));
    assert.match(shown.body, /Er wird nur dieses eine Mal angezeigt/);
    const reloaded = await admin.get(res.headers.location as string);
    assert.ok(!reloaded.body.includes(secret));
    assert.match(reloaded.body, /Nur einmal angezeigt: Das Signatur-Geheimnis wurde bereits einmal angezeigt/);
    const row = await t.handle.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('company_id', '=', t.company.companyId)
      .where('url', '=', receiver.url())
      .executeTakeFirstOrThrow();
    endpointId = row.id;
    assert.deepEqual(row.event_types, ['invoice.paid', 'invoice.overdue']);
    assert.ok(!row.secret_sealed.includes(secret), 'stored sealed');

    const list = await admin.get('/app/webhooks');
    assert.ok(!list.body.includes(secret));
    assert.ok(list.body.includes(`href="/app/webhooks/${endpointId}"`));
    assert.match(list.body, /<span class="badge ok">Aktiv<\/span>/);
    assert.ok(!list.body.includes('fremd.example'), 'no other company’s endpoint');

    const audit = await t.handle.db.selectFrom('audit_log').selectAll().where('subject_id', '=', endpointId).execute();
    assert.equal(audit.length, 1);
    assert.equal(audit[0]?.action, 'webhook.endpoint_added');
    assert.deepEqual(json(audit[0]?.after), { url: receiver.url(), events: ['invoice.paid', 'invoice.overdue'] });
    assert.ok(!JSON.stringify(audit).includes(secret));
  });

  test('a delivery that failed for good shows with its attempt; sent again, it reaches the receiver signed', async () => {
    const eventId = await record(t.handle.db, t.company.companyId, 'invoice.paid', { id: 'inv_1', external_ref: 'r-1' });
    await record(t.handle.db, t.company.companyId, 'invoice.issued', { id: 'inv_1' }); // not subscribed
    answer = 500;
    assert.deepEqual(await drain({ retryWindowMs: 0 }), { delivered: 0, retried: 0, failed: 1 });
    assert.equal(receiver.received.length, 1);

    const page = await admin.get(`/app/webhooks/${endpointId}`);
    assert.equal(page.status, 200);
    assert.match(page.body, /<h2 id="deliveries-heading">Zustellungen<\/h2>/);
    assert.ok(page.body.includes(eventId));
    assert.match(page.body, /<code[^>]*>invoice\.paid<\/code>/);
    assert.doesNotMatch(page.body, />invoice\.issued<\/code>/, 'no delivery of a kind not subscribed');
    assert.match(page.body, /<span class="badge error">Aufgegeben<\/span>/);
    assert.match(page.body, /HTTP 500/);
    assert.match(page.body, /<summary>1 Versuch<\/summary>/);
    assert.match(page.body, /<span class="badge error">Gestört<\/span>/);
    const delivery = await t.handle.db.selectFrom('webhook_deliveries').select(['id', 'status']).where('event_id', '=', eventId).executeTakeFirstOrThrow();
    failedDeliveryId = delivery.id;
    const action = `/app/webhooks/${endpointId}/deliveries/${failedDeliveryId}/resend`;
    assert.ok(page.body.includes(`action="${action}"`), 'Erneut senden');

    answer = 204;
    const resent = await admin.post(action);
    assert.equal(resent.status, 303);
    assert.equal(resent.location, `/app/webhooks/${endpointId}?resent=1`);
    const waiting = await t.handle.db
      .selectFrom('webhook_deliveries')
      .select(['status', 'finished_at', 'first_attempt_at'])
      .where('id', '=', failedDeliveryId)
      .executeTakeFirstOrThrow();
    assert.deepEqual(waiting, { status: 'pending', finished_at: null, first_attempt_at: null });
    assert.match((await admin.get(`/app/webhooks/${endpointId}?resent=1`)).body, /wird jetzt erneut gesendet/);

    // The normal delivery picks it up.
    assert.deepEqual(await drain(), { delivered: 1, retried: 0, failed: 0 });
    assert.equal(receiver.received.length, 2);
    const [first, second] = receiver.received;
    assert.equal(second?.headers['webhook-id'], eventId, 'the same envelope id as before');
    assert.equal(second?.body, first?.body);
    const envelope = new Webhook(secret).verify(second?.body as string, second?.headers as Record<string, string>) as { id: string; type: string };
    assert.equal(envelope.type, 'invoice.paid');

    const done = await admin.get(`/app/webhooks/${endpointId}`);
    assert.match(done.body, /<span class="badge ok">Zugestellt<\/span>/);
    assert.match(done.body, /<summary>2 Versuche<\/summary>/);
    assert.match(done.body, /Nr\. 2 · [^<]+ · HTTP 204/);
    assert.match(done.body, /<span class="badge ok">Aktiv<\/span>/, 'the endpoint is healthy again');
    assert.ok(!done.body.includes(`action="${action}"`), 'nothing to send again');

    const audit = await t.handle.db.selectFrom('audit_log').selectAll().where('subject_id', '=', String(failedDeliveryId)).execute();
    assert.equal(audit.length, 1);
    assert.equal(audit[0]?.action, 'webhook.delivery_resent');
    assert.equal(audit[0]?.user_id, t.company.userId);
    assert.equal(json(audit[0]?.before).status, 'failed');
    assert.equal(json(audit[0]?.after).event_id, eventId);
    assert.ok(!JSON.stringify(audit).includes(secret));
    assert.match((await admin.get('/app/audit')).body, /Webhook-Zustellung erneut gesendet/);
  });

  test('a delivered delivery is not sent again: refused in German, nothing changes', async () => {
    await admin.get(`/app/webhooks/${endpointId}`);
    const before = await countRows(t.handle, 'audit_log');
    const res = await admin.post(`/app/webhooks/${endpointId}/deliveries/${failedDeliveryId}/resend`);
    assert.equal(res.status, 422);
    assert.match(res.body, /Diese Zustellung kann nicht erneut gesendet werden/);
    assert.equal(await countRows(t.handle, 'audit_log'), before);
  });

  test('members may not; another company’s endpoint and deliveries are not found', async () => {
    assert.equal((await member.get('/app/webhooks')).status, 403);
    assert.equal((await member.get(`/app/webhooks/${endpointId}`)).status, 403);
    await member.get('/app/dashboard');
    assert.equal((await member.post('/app/webhooks', { url: 'https://mitglied.example/' })).status, 403);
    assert.equal((await member.post(`/app/webhooks/${endpointId}/remove`)).status, 403);
    assert.equal((await member.post(`/app/webhooks/${endpointId}/deliveries/${failedDeliveryId}/resend`)).status, 403);

    assert.equal((await admin.get(`/app/webhooks/${otherEndpointId}`)).status, 404);
    assert.equal((await admin.get('/app/webhooks/whe_%3Cscript%3E')).status, 404);
    // (Each post with the form token of a page: a 404 page has none.)
    const postFromList = async (path: string) => {
      await admin.get('/app/webhooks');
      return admin.post(path);
    };
    assert.equal((await postFromList(`/app/webhooks/${otherEndpointId}/remove`)).status, 404);
    assert.equal((await postFromList(`/app/webhooks/${otherEndpointId}/deliveries/${failedDeliveryId}/resend`)).status, 404);
    assert.equal((await postFromList(`/app/webhooks/${endpointId}/deliveries/abc/resend`)).status, 404);
    const foreign = await t.handle.db.selectFrom('webhook_endpoints').select('status').where('id', '=', otherEndpointId).executeTakeFirstOrThrow();
    assert.equal(foreign.status, 'active');
  });

  test('deliveries are paged by key, filtered by status; removing asks first and cancels what waits', async () => {
    for (let i = 0; i < 51; i++) await record(t.handle.db, t.company.companyId, 'invoice.overdue', { i });
    // Fanned out, not sent: 51 deliveries wait.
    await dispatchEvents(t.handle.db, { now: new Date(), limit: 1000, companyId: t.company.companyId });
    const first = await admin.get(`/app/webhooks/${endpointId}`);
    assert.equal((first.body.match(/<span class="badge">Wartet<\/span>/g) ?? []).length, 50);
    const next = /<a href="(\/app\/webhooks\/[^"]+)" rel="next">Ältere Zustellungen<\/a>/.exec(first.body)?.[1];
    assert.ok(next, 'a link to older deliveries');
    const second = await admin.get(next.replaceAll('&amp;', '&'));
    assert.equal((second.body.match(/<span class="badge">Wartet<\/span>/g) ?? []).length, 1);
    assert.match(second.body, /<span class="badge ok">Zugestellt<\/span>/, 'and the older, delivered one');
    const filtered = await admin.get(`/app/webhooks/${endpointId}?status=delivered`);
    assert.equal((filtered.body.match(/<tr>\n<td><code/g) ?? []).length, 1);
    assert.match(filtered.body, /<option value="delivered" selected>/);

    const list = await admin.get('/app/webhooks');
    assert.ok(list.body.includes(`action="/app/webhooks/${endpointId}/remove" class="inline" data-confirm="Webhook an ${receiver.url()} wirklich entfernen?`));
    const removed = await admin.post(`/app/webhooks/${endpointId}/remove`);
    assert.equal(removed.status, 303);
    assert.equal(removed.location, '/app/webhooks?removed=1');
    assert.match((await admin.get('/app/webhooks?removed=1')).body, /Die Webhook-Adresse wurde entfernt/);
    const statuses = await t.handle.db
      .selectFrom('webhook_deliveries')
      .select(({ fn }) => ['status', fn.countAll<number>().as('n')])
      .where('endpoint_id', '=', endpointId)
      .groupBy('status')
      .orderBy('status')
      .execute();
    assert.deepEqual(
      statuses.map((s) => [s.status, Number(s.n)]),
      [
        ['cancelled', 51],
        ['delivered', 1],
      ],
    );
    const audit = await t.handle.db.selectFrom('audit_log').select(['action', 'after']).where('subject_id', '=', endpointId).orderBy('seq').execute();
    assert.deepEqual(
      audit.map((a) => a.action),
      ['webhook.endpoint_added', 'webhook.endpoint_removed'],
    );
    assert.equal(json(audit[1]?.after).cancelled_deliveries, 51);
    // The removed endpoint's history stays readable, without actions.
    const history = await admin.get(`/app/webhooks/${endpointId}`);
    assert.equal(history.status, 200);
    assert.match(history.body, /<span class="badge">Entfernt<\/span>/);
    assert.ok(!history.body.includes('/resend"') && !history.body.includes('/remove"'));
  });
});
