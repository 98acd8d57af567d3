import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestApp, testApp } from '../helpers/app.ts';
import { putCustomer } from '../invoicing/helpers.ts';
import { ciiSchemaErrors } from '../invoicing/render/cii-schema.ts';
import { popplerMissing, readWords } from '../invoicing/render/pdf-layout.ts';
import { signedIn, type WebClient } from '../web/client.ts';
import { contractInvoices, getContract, invoiceLines, putContract, runBilling } from './helpers.ts';

// Issue 24, point 2: an invoice's total may not go below zero. A credit (a quantity
// decrease, a pause, an item ended early) larger than what the next invoice charges at its
// VAT rate is put on that invoice only up to that rate's charges; the rest is carried to
// the next invoice as contract credit, shown on the contract's page in the app and in the
// lines of the invoices that use it. September 2026 has 30 days.

const text = (body: string) =>
  body
    .replace(/<[^>]+>/g, ' ')
    .replace(/&nbsp;|\u00a0/g, ' ')
    .replace(/\s+/g, ' ');
const section = (body: string, id: string) => text(new RegExp(`<h2 id="${id}">[\\s\\S]*?</section>`).exec(body)?.[0] ?? '');

const customer = { source: 'crm', external_ref: 'kunde-1' };
const licences = (quantity: string) => ({ ref: 'lizenzen', description: 'Lizenzen', unit_price_net: '20.00', quantity });
const journal = { ref: 'zeitschrift', description: 'Fachzeitschrift', unit_price_net: '100.00', vat_rate: 7 };
const advice = { ref: 'beratung', description: 'Beratung', unit_price_net: '100.00' };
const contract = (items: unknown[]) => ({ customer, name: 'Team', status: 'active', billing_interval: 'month', start_date: '2026-09-01', items });

describe('contract credit carried to the next invoice', () => {
  let t: TestApp;
  let web: WebClient;
  let contractId: string;
  const lineRows = async (invoiceId: string) =>
    (await invoiceLines(t, invoiceId)).map((l) => [
      l.description,
      l.quantity,
      l.unit_price_net,
      l.net_cents,
      l.vat_rate,
      l.service_period_start,
      l.service_period_end,
    ]);

  before(async () => {
    t = await testApp({ now: '2026-08-20T10:00:00Z' });
    await putCustomer(t, 'kunde-1');
    contractId = (await putContract(t, 'gutschrift', contract([licences('5'), journal]), [201])).id;
    await runBilling(t, '2026-09-01');
    t.clock.set('2026-09-02T08:00:00Z');
    await putContract(t, 'gutschrift', contract([licences('1'), journal]));
    await runBilling(t, '2026-10-01');
    web = await signedIn(t);
  });
  after(() => t.close());

  test('a credit beyond the charges at its VAT rate goes on the invoice only up to them; the rest is carried', async () => {
    const [, october] = await contractInvoices(t, 'gutschrift');
    assert.deepEqual(await lineRows(october!.id), [
      // 4 × 20.00 × 29/30 = 77.3333… → 77.33; the 19 % charges of October are 20.00: 20.00 credited here, 57.33 carried
      [
        'Anpassung 5 → 1 Lizenzen, 02.09.–30.09.2026 (anteilig 29 von 30 Tagen; 4 × 20,00\u00a0€ je Monat); Gutschrift 77,33\u00a0€, davon hier verrechnet 20,00\u00a0€, 57,33\u00a0€ mit der nächsten Rechnung',
        '-1',
        '20.00',
        -2000,
        19,
        '2026-09-02',
        '2026-09-30',
      ],
      ['Lizenzen', '1', '20.00', 2000, 19, '2026-10-01', '2026-10-31'],
      ['Fachzeitschrift', '1', '100.00', 10000, 7, '2026-10-01', '2026-10-31'],
    ]);
    const view = (await t.request('GET', `/v1/invoices/${october!.id}`)).json();
    // 19 %: 20.00 − 20.00 = 0.00, no tax; 7 %: 100.00, tax 7.00 (a 19 % credit never reduces a 7 % charge)
    assert.deepEqual([view.total_net, view.total_tax, view.total_gross], ['100.00', '7.00', '107.00']);
    assert.equal((await getContract(t, 'gutschrift')).cycles[0].total_net, '100.00');
  });

  test('the PDF shows the credit line with its period; the e-invoice is schema-valid with a negative quantity', async (c) => {
    const [, october] = await contractInvoices(t, 'gutschrift');
    const xml = (await t.request('GET', `/v1/invoices/${october!.id}/xml`)).body;
    assert.deepEqual(await ciiSchemaErrors(xml), []);
    assert.match(xml, /<ram:BilledQuantity unitCode="[A-Z0-9]+">-1<\/ram:BilledQuantity>/);
    const skip = popplerMissing();
    if (skip) return c.skip(skip);
    const pdf = (await t.request('GET', `/v1/invoices/${october!.id}/pdf`)).rawPayload;
    const words = readWords(pdf)
      .flatMap((page) => page.words)
      .map((w) => w.text)
      .join(' ');
    assert.match(words, /Anpassung 5 → 1 Lizenzen, 02\.09\.–30\.09\.2026/);
    assert.match(words, /-20,00/);
    assert.match(words, /Leistungszeitraum 02\.09\.–30\.09\.2026/);
  });

  test("the contract's page shows the credit carried, per VAT rate, with where it came from", async () => {
    const page = await web.get(`/app/contracts/${contractId}`);
    assert.equal(page.status, 200);
    const credit = section(page.body, 'credit-heading');
    assert.match(credit, /Guthaben/);
    assert.match(credit, /Anpassung 5 → 1 Lizenzen, 02\.09\.–30\.09\.2026/);
    assert.match(credit, /19 % 77,33 € 57,33 €/);
    assert.match(credit, /Offenes Guthaben: 57,33 € \(19 %\)/);
    // The item shows its quantity with the day it changed and the one before.
    assert.match(section(page.body, 'items-heading'), /Lizenzen im Voraus Pauschale 1 seit 02\.09\.2026, vorher 5 20,00 € 19 %/);
  });

  test('the next invoice uses the rest; the page then shows no open credit', async () => {
    t.clock.set('2026-11-01T06:00:00Z');
    await putContract(t, 'gutschrift', contract([licences('1'), journal, advice]));
    await runBilling(t, '2026-11-01');
    const november = (await contractInvoices(t, 'gutschrift')).at(-1)!;
    assert.deepEqual(await lineRows(november.id), [
      [
        'Anpassung 5 → 1 Lizenzen, 02.09.–30.09.2026 (anteilig 29 von 30 Tagen; 4 × 20,00\u00a0€ je Monat); Rest der Gutschrift über 77,33\u00a0€',
        '-1',
        '57.33',
        -5733,
        19,
        '2026-09-02',
        '2026-09-30',
      ],
      ['Lizenzen', '1', '20.00', 2000, 19, '2026-11-01', '2026-11-30'],
      ['Fachzeitschrift', '1', '100.00', 10000, 7, '2026-11-01', '2026-11-30'],
      ['Beratung', '1', '100.00', 10000, 19, '2026-11-01', '2026-11-30'],
    ]);
    const view = (await t.request('GET', `/v1/invoices/${november.id}`)).json();
    // 19 %: 20.00 + 100.00 − 57.33 = 62.67, tax 11.9073 → 11.91; 7 %: 100.00, tax 7.00
    assert.deepEqual([view.total_net, view.total_tax, view.total_gross], ['162.67', '18.91', '181.58']);
    // A month later: a new session.
    web = await signedIn(t);
    const page = await web.get(`/app/contracts/${contractId}`);
    assert.equal(page.status, 200);
    const credit = section(page.body, 'credit-heading');
    assert.match(credit, /Kein offenes Guthaben/);
    // The history stays: granted, used on two invoices.
    assert.match(credit, /19 % 77,33 € 0,00 €/);
  });
});
