import assert from 'node:assert/strict';
import type { TestApp } from '../helpers/app.ts';

// Shared steps of the revenue-share tests: partners, agreements, attributions, revenue
// events, and the ledger as the API and the tables show it. Everything lives in source 'crm'.

export async function putPartner(t: TestApp, ref: string, body: Record<string, unknown> = {}): Promise<string> {
  const res = await t.request('PUT', `/v1/commission-partners/by-ref/crm/${ref}`, { body: { name: `Partner ${ref}`, ...body } });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().id;
}

export async function putAgreement(t: TestApp, ref: string, body: Record<string, unknown>): Promise<string> {
  const res = await t.request('PUT', `/v1/commission-agreements/by-ref/crm/${ref}`, { body });
  assert.ok(res.statusCode === 201 || res.statusCode === 200, res.body);
  return res.json().id;
}

export async function putAttribution(t: TestApp, ref: string, body: Record<string, unknown>) {
  const res = await t.request('PUT', `/v1/commission-attributions/by-ref/crm/${ref}`, { body });
  assert.ok(res.statusCode === 201 || res.statusCode === 200, res.body);
  return res.json();
}

export async function putProduct(t: TestApp, ref: string, productNumber: string) {
  const res = await t.request('PUT', `/v1/products/by-ref/crm/${ref}`, {
    body: { product_number: productNumber, name: `Produkt ${productNumber}`, unit_price_net: '10.00', vat_rate: 19, billing_interval: 'one_off' },
  });
  assert.ok(res.statusCode === 201 || res.statusCode === 200, res.body);
  return res.json().id as string;
}

export function postEvent(t: TestApp, body: Record<string, unknown>, key?: string) {
  return t.request('POST', '/v1/revenue-events', { body: { source: 'crm', currency: 'EUR', ...body }, ...(key ? { key } : {}) });
}

export async function partnerBalance(t: TestApp, ref: string) {
  const res = await t.request('GET', `/v1/commission-partners/by-ref/crm/${ref}`);
  assert.equal(res.statusCode, 200, res.body);
  return res.json().balance as { open: number; statemented: number; paid: number };
}

/** Every entry of a partner through the API, following the cursor. */
export async function listEntries(t: TestApp, query: Record<string, string> = {}) {
  const all: Record<string, unknown>[] = [];
  let cursor: string | null = null;
  do {
    const params = new URLSearchParams({ ...query, limit: '200', ...(cursor ? { cursor } : {}) });
    const res = await t.request('GET', `/v1/commission-entries?${params}`);
    assert.equal(res.statusCode, 200, res.body);
    const page = res.json();
    all.push(...page.data);
    cursor = page.next_cursor;
  } while (cursor);
  return all;
}

/** The partner's balance columns against the sums of its entries by status, straight from the tables. */
export async function balanceAgainstEntries(t: TestApp, partnerId: string) {
  const partner = await t.handle.db
    .selectFrom('commission_partners')
    .select(['balance_open_cents', 'balance_statemented_cents', 'balance_paid_cents'])
    .where('id', '=', partnerId)
    .executeTakeFirstOrThrow();
  const sums = await t.handle.db
    .selectFrom('commission_entries')
    .select(['status', (eb) => eb.fn.sum<string>('amount_cents').as('total')])
    .where('partner_id', '=', partnerId)
    .groupBy('status')
    .execute();
  const sum = (status: string) => Number(sums.find((s) => s.status === status)?.total ?? 0);
  return {
    kept: { open: Number(partner.balance_open_cents), statemented: Number(partner.balance_statemented_cents), paid: Number(partner.balance_paid_cents) },
    summed: { open: sum('open'), statemented: sum('statemented'), paid: sum('paid') },
  };
}
