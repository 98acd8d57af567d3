import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { type Booted, type CliWorkspace, cliWorkspace } from '../helpers/cli.ts';
import { usePostgres } from '../helpers/database.ts';
import { BUSINESS_CUSTOMER, invoiceBody } from '../invoicing/helpers.ts';

// Issue 29 §1: GET /metrics in Prometheus' text format, on a port of its own and only when
// KONTOR_METRICS_PORT is set — a real `kontor serve`, real requests, then a scrape: the
// requests counted by route pattern and status and timed, the rendering timed, the
// database's figures (jobs, webhooks, invoices issued, …), and nothing that names a person,
// a company, a customer reference or a key.

const value = (text: string, series: string) => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

describe('the metrics of kontor serve', () => {
  let w: CliWorkspace;
  let boot: Booted;
  before(async () => {
    w = await cliWorkspace();
    boot = await w.bootstrap('metrik');
  });
  after(() => w.cleanup());

  test('counted, timed and read from the database; no personal data; not on the API’s port', async () => {
    const server = await w.spawnServer([], { KONTOR_METRICS_PORT: '0' });
    let match: RegExpExecArray | null = null;
    for (let i = 0; i < 100 && !match; i++) {
      match = /Metrics at (http:\/\/127\.0\.0\.1:\d+)\/metrics/.exec(server.output());
      if (!match) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.ok(match, server.output());
    const api = `http://127.0.0.1:${server.port}`;
    const headers = { authorization: `Bearer ${boot.api_key}`, 'content-type': 'application/json' };
    const customer = { ...BUSINESS_CUSTOMER, name: 'Erika Geheim GmbH', email: 'erika.geheim@example.org' };
    for (const ref of ['kunde-1', 'geheim-ref-77'])
      assert.equal((await fetch(`${api}/v1/customers/by-ref/crm/${ref}`, { method: 'PUT', headers, body: JSON.stringify(customer) })).status, 201);
    const issued = await fetch(`${api}/v1/invoices`, {
      method: 'POST',
      headers: { ...headers, 'idempotency-key': 'metrik-1' },
      body: JSON.stringify(invoiceBody('rechnung-geheim', { issue: true })),
    });
    assert.equal(issued.status, 201, await issued.text());
    for (let i = 0; i < 3; i++) await fetch(`${api}/health`);
    assert.equal((await fetch(`${api}/metrics`)).status, 404, 'the API port does not serve the metrics');

    const scrape = await fetch(`${match[1]}/metrics`);
    assert.equal(scrape.status, 200);
    assert.match(scrape.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    const text = await scrape.text();
    assert.equal(value(text, 'kontor_http_requests_total{method="PUT",route="/v1/customers/by-ref/:source/:external_ref",status="201"}'), 2);
    assert.equal(value(text, 'kontor_http_requests_total{method="POST",route="/v1/invoices",status="201"}'), 1);
    assert.equal(value(text, 'kontor_http_requests_total{method="GET",route="/health",status="200"}'), 3);
    assert.equal(value(text, 'kontor_http_requests_total{method="GET",route="unmatched",status="404"}'), 1);
    assert.equal(value(text, 'kontor_http_request_duration_seconds_count{method="GET",route="/health"}'), 3);
    assert.equal(value(text, 'kontor_invoice_render_seconds_count'), 1);
    assert.ok((value(text, 'kontor_invoice_render_seconds_sum') ?? 0) > 0);
    assert.equal(value(text, 'kontor_records_total{kind="invoices_issued"}'), 1);
    assert.equal(value(text, 'kontor_records_total{kind="bank_statements_imported"}'), 0);
    for (const status of ['pending', 'running', 'failed']) assert.notEqual(value(text, `kontor_jobs{status="${status}"}`), undefined, status);
    assert.notEqual(value(text, 'kontor_jobs_oldest_due_seconds'), undefined);
    assert.equal(value(text, 'kontor_webhook_deliveries{status="failed"}'), 0);
    assert.notEqual(value(text, 'kontor_process_resident_memory_bytes'), undefined);
    if (usePostgres) assert.ok((value(text, 'kontor_db_pool_connections{state="total"}') ?? 0) >= 1);
    for (const secret of ['geheim', 'Geheim', 'erika', boot.company_id, boot.organization_id, boot.api_key.slice(0, 8), 'metrik@example.com'])
      assert.ok(!text.includes(secret), `the metrics hold ${secret}`);
    assert.equal((await fetch(`${match[1]}/anything`)).status, 404);

    server.child.kill('SIGTERM');
    assert.deepEqual(await once(server.child, 'exit'), [0, null]);
  });

  test('without KONTOR_METRICS_PORT there is no metrics port', async () => {
    const server = await w.spawnServer();
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.doesNotMatch(server.output(), /Metrics at/);
    server.child.kill('SIGTERM');
    await once(server.child, 'exit');
  });
});
