import { countRows, type TestApp } from '../helpers/app.ts';

// Building blocks for invoice tests: a customer that passes every issuing check, and
// invoice bodies.

export const BUSINESS_CUSTOMER = {
  name: 'Beispiel AG',
  email: 'buchhaltung@beispiel.example',
  street: 'Ringstraße',
  house_number: '5',
  zip: '80331',
  city: 'München',
  country_code: 'DE',
  vat_id: 'DE136695976',
  customer_type: 'business',
  contact_name: 'Max Muster',
};

/** A business customer in Austria with a VAT ID: reverse charge, unless a person confirms a place of supply in Germany. */
export const AT_BUSINESS_CUSTOMER = {
  name: 'Wiener Handels GmbH',
  country_code: 'AT',
  vat_id: 'ATU58219378',
  zip: '1010',
  city: 'Wien',
  street: 'Graben',
  house_number: '1',
};

export async function putCustomer(t: TestApp, ref: string, overrides: Record<string, unknown> = {}, key?: string) {
  const res = await t.request('PUT', `/v1/customers/by-ref/crm/${ref}`, { body: { ...BUSINESS_CUSTOMER, ...overrides }, ...(key ? { key } : {}) });
  if (res.statusCode >= 300) throw new Error(`customer ${ref}: ${res.body}`);
  return res.json();
}

export function tenLines() {
  return Array.from({ length: 10 }, (_, i) => ({
    description: `Leistung ${i + 1}`,
    quantity: i % 2 === 0 ? '1' : '2.5',
    unit: i % 2 === 0 ? 'Monat' : 'Stunde',
    unit_price_net: (10 + i * 7.25).toFixed(2),
    vat_rate: i === 9 ? 7 : 19,
  }));
}

export function invoiceBody(externalRef: string, overrides: Record<string, unknown> = {}) {
  return {
    customer: { source: 'crm', external_ref: 'kunde-1' },
    external_ref: externalRef,
    lines: [
      { description: 'Pro-Tarif November', quantity: '1', unit: 'Monat', unit_price_net: '49.00', vat_rate: 19 },
      { description: 'Fachbuch', quantity: 2, unit: 'Stück', unit_price_net: '12.50', vat_rate: 7 },
    ],
    service_period: { start: '2026-11-01', end: '2026-11-30' },
    ...overrides,
  };
}

let keyCounter = 0;
export const newKey = () => `key-${process.pid}-${++keyCounter}`;

export function postInvoice(t: TestApp, body: unknown, key: string | null = newKey(), apiKey?: string) {
  return t.request('POST', '/v1/invoices', { body, headers: key === null ? {} : { 'idempotency-key': key }, ...(apiKey ? { key: apiKey } : {}) });
}

export async function counts(t: TestApp) {
  const db = t.handle.db;
  const n = (table: 'invoices' | 'invoice_lines' | 'invoice_files' | 'idempotency_keys' | 'events') => countRows(t.handle, table);
  const ranges = await db.selectFrom('number_ranges').select(['range_key', 'next_value']).where('range_key', 'like', 'invoice:%').execute();
  return {
    invoices: await n('invoices'),
    lines: await n('invoice_lines'),
    files: await n('invoice_files'),
    keys: await n('idempotency_keys'),
    events: await n('events'),
    numbers: ranges.map((r) => `${r.range_key}=${r.next_value}`).join(','),
  };
}
