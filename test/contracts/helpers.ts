import assert from 'node:assert/strict';
import { runDueWork } from '../../src/jobs/index.ts';
import '../../src/modules/contracts/index.ts';
import type { TestApp } from '../helpers/app.ts';

// Shared steps of the contract tests: products, contracts and the billing run as of a day.

export const HOSTING = { product_number: 'HOST-S', name: 'Hosting S', unit: 'Monat', unit_price_net: '29.00', vat_rate: 19, billing_interval: 'month' };
export const API_CALLS = {
  product_number: 'API-CALLS',
  name: 'API-Aufrufe',
  unit: 'Aufrufe',
  unit_price_net: '0',
  billing_interval: 'month',
  pricing_model: 'graduated',
  tiers: [
    { from: '0', to: '1000', unit_price: '0' },
    { from: '1000', to: '10000', unit_price: '0.01' },
    { from: '10000', to: null, unit_price: '0.005' },
  ],
};

export async function putProducts(t: TestApp) {
  for (const [ref, product] of [
    ['host-s', HOSTING],
    ['api-calls', API_CALLS],
  ] as const) {
    const res = await t.request('PUT', `/v1/products/by-ref/crm/${ref}`, { body: product });
    assert.ok(res.statusCode === 201 || res.statusCode === 200, res.body);
  }
}

export async function putContract(t: TestApp, ref: string, body: Record<string, unknown>, expected = [200, 201]) {
  const res = await t.request('PUT', `/v1/contracts/by-ref/crm/${ref}`, { body });
  assert.ok(expected.includes(res.statusCode), `${res.statusCode} ${res.body}`);
  return res.json();
}

export async function getContract(t: TestApp, ref: string) {
  const res = await t.request('GET', `/v1/contracts/by-ref/crm/${ref}`);
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

export async function reportUsage(t: TestApp, ref: string, records: { external_ref: string; item_ref: string; quantity: string; occurred_at: string }[]) {
  return t.request('POST', `/v1/contracts/by-ref/crm/${ref}/usage`, { body: { records } });
}

/** `kontor jobs run --as-of day` in-process: the clock at noon UTC of that day. */
export async function runBilling(t: TestApp, day: string) {
  t.clock.set(`${day}T12:00:00Z`);
  const warnings: string[] = [];
  const summary = await runDueWork(
    { db: t.handle.db, clock: t.clock, services: { invoicing: t.invoicing } },
    { asOf: day, companyId: t.company.companyId, log: (message) => warnings.push(message) },
  );
  return { summary, warnings };
}

/** The invoices of a contract through the API (GET /invoices?contract_source=&contract_ref=), in change order. */
export async function contractInvoices(t: TestApp, ref: string) {
  const res = await t.request('GET', `/v1/invoices?contract_source=crm&contract_ref=${ref}&limit=200`);
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data as {
    id: string;
    number: string | null;
    status: string;
    contract_external_ref: string | null;
    service_period: { start: string; end: string };
    total_net: string;
    issue_date: string | null;
  }[];
}

/** An invoice's lines as stored, with their service periods. */
export async function invoiceLines(t: TestApp, invoiceId: string) {
  return t.handle.db
    .selectFrom('invoice_lines')
    .select(['description', 'quantity', 'unit_price_net', 'net_cents', 'vat_rate', 'service_period_start', 'service_period_end'])
    .where('invoice_id', '=', invoiceId)
    .orderBy('position')
    .execute();
}
