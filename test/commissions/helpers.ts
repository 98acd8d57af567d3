import assert from 'node:assert/strict';
import { runDueWork } from '../../src/jobs/index.ts';
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

/** A German business partner paid by Gutschrift (self-billing agreed), with a full address. */
export const SELF_BILLING_PARTNER = {
  tax_status: 'domestic_regular',
  billing_mode: 'self_billing',
  self_billing_agreed_on: '2026-01-01',
  vat_id: 'DE136695976',
  street: 'Weg',
  house_number: '1',
  zip: '10115',
  city: 'Berlin',
  country_code: 'DE',
};

/**
 * A self-billing partner `ref` earning 10 % of every customer's revenue, `netAmount` of
 * revenue paid on 2026-10-10, and the statement run of 2026-11-01: the partner has one
 * Gutschrift for October (issued, or a draft when the company reviews statements). The
 * clock ends at `endAt`. Returns the partner's id.
 */
export async function partnerWithOctoberGutschrift(
  t: TestApp,
  ref: string,
  options: { name?: string; netAmount: string; endAt?: string; partner?: Record<string, unknown> },
): Promise<string> {
  const partnerId = await putPartner(t, ref, { ...SELF_BILLING_PARTNER, ...(options.name ? { name: options.name } : {}), ...options.partner });
  await putAgreement(t, `${ref}-ag`, {
    partner_ref: ref,
    start_date: '2026-01-01',
    applies_to: 'all_customers',
    tiers: [{ from_month: 1, to_month: null, percent: 10 }],
  });
  await postEvent(t, { external_ref: `${ref}-e-1`, occurred_at: '2026-10-10T10:00:00Z', net_amount: options.netAmount });
  t.clock.set('2026-11-01T12:00:00Z');
  await runDueWork(
    { db: t.handle.db, clock: t.clock, services: { invoicing: t.invoicing } },
    { asOf: '2026-11-01', companyId: t.company.companyId, log: () => {} },
  );
  t.clock.set(options.endAt ?? '2026-11-21T10:00:00Z');
  return partnerId;
}
