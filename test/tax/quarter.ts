import assert from 'node:assert/strict';
import { runDueWork } from '../../src/jobs/index.ts';
import { postEvent, putAgreement, putAttribution, putPartner, SELF_BILLING_PARTNER } from '../commissions/helpers.ts';
import type { TestApp } from '../helpers/app.ts';
import { AT_BUSINESS_CUSTOMER, postInvoice, putCustomer } from '../invoicing/helpers.ts';
import { recordRequestedInvoice } from '../statements/partner-invoices.ts';

// A quarter of realistic activity for the tax office's view (issue 28): domestic 19 % and
// 7 %, a tax-free line, EU reverse charge, a third country, a storno of a September invoice
// booked in October, Gutschriften to a domestic, an EU, a third-country and a
// small-business partner, and a partner's own invoice; one January invoice outside the
// quarter. Built on a test app whose clock starts at 2026-09-20 (testApp({ now })).

export const LINE = (description: string, net: string, vatRate: number, extra: Record<string, unknown> = {}) => ({
  description,
  quantity: '1',
  unit: 'Stück',
  unit_price_net: net,
  vat_rate: vatRate,
  ...extra,
});

export const QUARTER_START = '2026-09-20T09:00:00Z';

/** Issues an invoice to a customer of source crm, dated and performed on the clock's day. */
export async function issueToday(t: TestApp, ref: string, customer: string, lines: unknown[]) {
  const day = t.clock.today('Europe/Berlin');
  const res = await postInvoice(t, {
    customer: { source: 'crm', external_ref: customer },
    external_ref: ref,
    issue: true,
    lines,
    service_period: { start: day, end: day },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json() as { id: string; number: string };
}

export async function buildQuarter(t: TestApp): Promise<void> {
  const invoice = (ref: string, customer: string, lines: unknown[]) => issueToday(t, ref, customer, lines);
  await putCustomer(t, 'dom');
  await putCustomer(t, 'eu', AT_BUSINESS_CUSTOMER);
  await putCustomer(t, 'ch', {
    name: 'Zürcher Bank AG',
    country_code: 'CH',
    vat_id: null,
    zip: '8001',
    city: 'Zürich',
    street: 'Bahnhofstrasse',
    house_number: '1',
  });
  // September: an invoice that October cancels.
  const september = await invoice('sep-1', 'dom', [LINE('Beratung September', '250.00', 19)]);
  t.clock.set('2026-10-05T09:00:00Z');
  await invoice('oct-1', 'dom', [LINE('Lizenz', '1000.55', 19), LINE('Fachbuch', '200.00', 7)]);
  await invoice('oct-2', 'dom', [
    LINE('Heilbehandlung', '300.00', 0, { tax_exemption_reason: 'Steuerfrei nach § 4 Nr. 14 UStG' }),
    LINE('Material', '100.00', 19),
  ]);
  await invoice('oct-3', 'eu', [LINE('Softwareentwicklung', '500.00', 0)]);
  await invoice('oct-4', 'ch', [LINE('Beratung Schweiz', '400.00', 0)]);
  t.clock.set('2026-10-10T09:00:00Z');
  const cancelled = await t.request('POST', `/v1/invoices/${september.id}/cancel`);
  assert.equal(cancelled.statusCode, 201, cancelled.body);

  // Partners, each on a customer of its own at 10 %.
  const partners = {
    dom: { ...SELF_BILLING_PARTNER, name: 'Vertrieb Inland GmbH' },
    eu: {
      ...SELF_BILLING_PARTNER,
      name: 'Agence Paris SARL',
      tax_status: 'eu_reverse_charge',
      vat_id: 'FR40303265045',
      country_code: 'FR',
      zip: '75004',
      city: 'Paris',
    },
    world: {
      ...SELF_BILLING_PARTNER,
      name: 'Zurich Leads AG',
      tax_status: 'third_country',
      vat_id: null,
      tax_number: 'CHE-116.281.710',
      country_code: 'CH',
      zip: '8001',
      city: 'Zürich',
    },
    small: {
      ...SELF_BILLING_PARTNER,
      name: 'Grafik Klein',
      tax_status: 'domestic_small_business',
      vat_id: null,
      tax_number: '2181508150',
      country_code: 'DE',
      zip: '04109',
      city: 'Leipzig',
    },
    asks: { ...SELF_BILLING_PARTNER, name: 'Rechnung Selbst GmbH', billing_mode: 'partner_invoice', vat_id: 'DE811569869' },
  } as const;
  const revenue = { dom: '1000.00', eu: '500.00', world: '300.00', small: '200.00', asks: '800.00' } as const;
  for (const [ref, body] of Object.entries(partners)) {
    await putPartner(t, `p-${ref}`, body);
    await putAgreement(t, `p-${ref}-ag`, { partner_ref: `p-${ref}`, start_date: '2026-01-01', tiers: [{ from_month: 1, to_month: null, percent: 10 }] });
    await putCustomer(t, `c-${ref}`, { name: `Kunde ${ref}` });
    await putAttribution(t, `p-${ref}-att`, {
      agreement_ref: `p-${ref}-ag`,
      customer: { source: 'crm', external_ref: `c-${ref}` },
      start_date: '2026-01-01',
    });
    await postEvent(t, {
      external_ref: `e-${ref}`,
      occurred_at: '2026-10-12T10:00:00Z',
      net_amount: revenue[ref as keyof typeof revenue],
      customer: { source: 'crm', external_ref: `c-${ref}` },
    });
  }
  t.clock.set('2026-11-01T12:00:00Z');
  await runDueWork(
    { db: t.handle.db, clock: t.clock, services: { invoicing: t.invoicing } },
    { asOf: '2026-11-01', companyId: t.company.companyId, log: () => {} },
  );
  t.clock.set('2026-11-10T09:00:00Z');
  const request = await t.handle.db
    .selectFrom('commission_statements as s')
    .innerJoin('commission_partners as p', (join) => join.onRef('p.company_id', '=', 's.company_id').onRef('p.id', '=', 's.partner_id'))
    .select(['s.id', 's.kind'])
    .where('p.external_ref', '=', 'p-asks')
    .executeTakeFirstOrThrow();
  assert.equal(request.kind, 'partner_invoice');
  await recordRequestedInvoice(t, request.id);
  // January: outside the quarter.
  t.clock.set('2027-01-04T09:00:00Z');
  await invoice('jan-1', 'dom', [LINE('Lizenz Januar', '999.00', 19)]);
}
