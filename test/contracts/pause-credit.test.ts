import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { countRows, type TestApp, testApp } from '../helpers/app.ts';
import { putCustomer } from '../invoicing/helpers.ts';
import { ciiSchemaErrors } from '../invoicing/render/cii-schema.ts';
import { signedIn } from '../web/client.ts';
import { contractInvoices, getContract, invoiceLines, putContract, reportUsage, runBilling } from './helpers.ts';

const text = (body: string) =>
  body
    .replace(/<[^>]+>/g, ' ')
    .replace(/&nbsp;|\u00a0/g, ' ')
    .replace(/\s+/g, ' ');

// Issue 24, point 2, pauses: days billed in advance that fall into a pause are credited on
// the next invoice (today 33.25 were never credited), with the quantity they were billed
// at; usage dated on a paused day is refused, also after the resume. Europe/Berlin;
// September 2026 has 30 days, October 31.

const customer = { source: 'crm', external_ref: 'kunde-1' };
const hosting = { ref: 'hosting', description: 'Hosting', unit_price_net: '47.50' };
const api = { ref: 'api', description: 'API-Aufrufe', unit: 'Aufrufe', pricing_model: 'per_unit', unit_price_net: '0.01' };
const licences = (quantity: string) => ({ ref: 'lizenzen', description: 'Lizenzen', unit_price_net: '65.20', quantity });
const contract = (items: unknown[], status = 'active') => ({ customer, name: 'Abo', status, billing_interval: 'month', start_date: '2026-09-01', items });

describe('a pause credits the days billed in advance', () => {
  let t: TestApp;
  const lineRows = async (invoiceId: string) =>
    (await invoiceLines(t, invoiceId)).map((l) => [l.description, l.quantity, l.unit_price_net, l.net_cents, l.service_period_start, l.service_period_end]);
  const putAt = async (instant: string, ref: string, body: Record<string, unknown>) => {
    t.clock.set(instant);
    return putContract(t, ref, body);
  };

  before(async () => {
    t = await testApp({ now: '2026-08-20T10:00:00Z' });
    await putCustomer(t, 'kunde-1');
    await putContract(t, 'pause-1', contract([hosting, api]), [201]);
    await putContract(t, 'pause-2', contract([licences('1')]), [201]);
    await runBilling(t, '2026-09-01');
    await putAt('2026-09-10T08:00:00Z', 'pause-1', contract([hosting, api], 'paused'));
    await putAt('2026-09-15T08:00:00Z', 'pause-2', contract([licences('3')]));
    await putAt('2026-09-20T08:00:00Z', 'pause-2', contract([licences('3')], 'paused'));
    await runBilling(t, '2026-10-01');
  });
  after(() => t.close());

  test('a billing date inside the pause: the paused days billed already become a credit; nothing to charge, so no invoice', async () => {
    assert.equal((await contractInvoices(t, 'pause-1')).length, 1);
    const view = await getContract(t, 'pause-1');
    assert.deepEqual([view.cycles[0].start, view.cycles[0].status, view.cycles[0].invoice_id], ['2026-10-01', 'paused', null]);
    const credit = await t.handle.db
      .selectFrom('contract_credits')
      .select(['description', 'vat_rate', 'amount_cents'])
      .where('contract_id', '=', view.id)
      .execute();
    // 47.50 × 21/30 = 33.25 (10 to 30 September)
    assert.deepEqual(credit, [
      {
        description: 'Gutschrift für die Pause: Hosting, 10.09.–30.09.2026 (anteilig 21 von 30 Tagen; 1 × 47,50\u00a0€ je Monat)',
        vat_rate: 19,
        amount_cents: 3325,
      },
    ]);
  });

  test('usage on a paused day is refused after the resume too, naming the records and the pause', async () => {
    await putAt('2026-10-15T08:00:00Z', 'pause-1', contract([hosting, api]));
    const before = await countRows(t.handle, 'usage_records');
    const refused = await reportUsage(t, 'pause-1', [
      { external_ref: 'u-1', item_ref: 'api', quantity: '100', occurred_at: '2026-10-20T10:00:00+02:00' },
      { external_ref: 'u-2', item_ref: 'api', quantity: '100', occurred_at: '2026-10-05T10:00:00+02:00' },
      // 23:30 UTC on 14 October is 01:30 on the 15th in Berlin: after the pause.
      { external_ref: 'u-3', item_ref: 'api', quantity: '100', occurred_at: '2026-10-14T23:30:00Z' },
      // 21:30 UTC on 14 October is 23:30 on the 14th in Berlin: inside it.
      { external_ref: 'u-4', item_ref: 'api', quantity: '100', occurred_at: '2026-10-14T21:30:00Z' },
    ]);
    assert.equal(refused.statusCode, 422, refused.body);
    assert.deepEqual(refused.json().detail.code, 'contract.usage_in_pause');
    assert.deepEqual(refused.json().detail.refs, ['u-2', 'u-4']);
    assert.deepEqual(refused.json().detail.pauses, [{ from: '2026-09-10', until: '2026-10-14' }]);
    assert.match(refused.json().detail.message, /pausiert \(10\.09\.2026 bis 14\.10\.2026\)/);
    assert.equal(await countRows(t.handle, 'usage_records'), before, 'all or nothing');
    const accepted = await reportUsage(t, 'pause-1', [
      { external_ref: 'u-1', item_ref: 'api', quantity: '300', occurred_at: '2026-10-20T10:00:00+02:00' },
      { external_ref: 'u-3', item_ref: 'api', quantity: '200', occurred_at: '2026-10-14T23:30:00Z' },
    ]);
    assert.equal(accepted.statusCode, 201, accepted.body);
  });

  test('the next invoice carries the credit and bills the days since the resume (33.25 credited)', async () => {
    await runBilling(t, '2026-11-01');
    const [, invoice] = await contractInvoices(t, 'pause-1');
    assert.deepEqual(await lineRows(invoice!.id), [
      [
        'Gutschrift für die Pause: Hosting, 10.09.–30.09.2026 (anteilig 21 von 30 Tagen; 1 × 47,50\u00a0€ je Monat)',
        '-1',
        '33.25',
        -3325,
        '2026-09-10',
        '2026-09-30',
      ],
      // 500 calls × 0.01
      ['API-Aufrufe', '500', '0.01', 500, '2026-10-01', '2026-10-31'],
      // 47.50 × 17/31 = 26.0483… → 26.05
      ['Hosting (anteilig 17 von 31 Tagen; 1 × 47,50\u00a0€ je Monat)', '1', '26.05', 2605, '2026-10-15', '2026-10-31'],
      ['Hosting', '1', '47.50', 4750, '2026-11-01', '2026-11-30'],
    ]);
    // 5.00 + 26.05 + 47.50 − 33.25
    assert.equal(invoice!.total_net, '45.30');
  });

  test('a change and a pause in one billed month: the change is charged, the pause credited at the quantity billed', async () => {
    const [, october] = await contractInvoices(t, 'pause-2');
    // Billed in September at 1. From 15 September 3 (5 days until the pause: 2 × 65.20 × 5/30 = 21.7333 → 21.73);
    // paused from 20 September: 11 days billed at 1 are credited (65.20 × 11/30 = 23.9066 → 23.91). The invoice
    // charges 21.73, so 21.73 of the credit go on it and 2.18 are carried.
    assert.deepEqual(await lineRows(october!.id), [
      ['Anpassung 1 → 3 Lizenzen, 15.09.–19.09.2026 (anteilig 5 von 30 Tagen; 2 × 65,20\u00a0€ je Monat)', '1', '21.73', 2173, '2026-09-15', '2026-09-19'],
      [
        'Gutschrift für die Pause: Lizenzen, 20.09.–30.09.2026 (anteilig 11 von 30 Tagen; 1 × 65,20\u00a0€ je Monat); Gutschrift 23,91\u00a0€, davon hier verrechnet 21,73\u00a0€, 2,18\u00a0€ mit der nächsten Rechnung',
        '-1',
        '21.73',
        -2173,
        '2026-09-20',
        '2026-09-30',
      ],
    ]);
    assert.equal(october!.total_net, '0.00');
    // Issued at 0.00 (it documents the set-off), with its e-invoice valid against the CII schema.
    const issued = (await t.request('GET', `/v1/invoices/${october!.id}`)).json();
    assert.deepEqual([issued.status, issued.total_gross], ['issued', '0.00']);
    assert.deepEqual(await ciiSchemaErrors((await t.request('GET', `/v1/invoices/${october!.id}/xml`)).body), []);
    const view = await getContract(t, 'pause-2');
    const cycle = view.cycles.find((c: { start: string }) => c.start === '2026-10-01');
    assert.deepEqual([cycle.status, cycle.invoice_id, cycle.total_net], ['billed', october!.id, '0.00']);
    // Still paused on 1 November: nothing to charge, the 2.18 stay carried.
    assert.deepEqual([view.cycles[0].start, view.cycles[0].status], ['2026-11-01', 'paused']);
    const open = await t.handle.db.selectFrom('contract_credits').select(['amount_cents']).where('contract_id', '=', view.id).execute();
    // The whole credit (23.91) is kept; 21.73 of it went on the October invoice.
    assert.deepEqual(open, [{ amount_cents: 2391 }]);
  });

  test('a credit no invoice can carry any more when the contract ends is named by the run and on the contract page', async () => {
    // Cancelled while paused: it stays paused until it ends; the final billing has nothing to charge.
    await putAt('2026-11-05T08:00:00Z', 'pause-2', { ...contract([licences('3')], 'cancelled'), end_date: '2026-11-30' });
    const { warnings } = await runBilling(t, '2026-12-01');
    const view = await getContract(t, 'pause-2');
    assert.equal(view.status, 'ended');
    assert.ok(
      warnings.some((w) => w.includes(view.id) && w.includes('ended with 2.18 EUR of credit')),
      warnings.join('\n'),
    );
    const web = await signedIn(t);
    const page = await web.get(`/app/contracts/${view.id}`);
    assert.equal(page.status, 200);
    assert.match(text(page.body), /Offenes Guthaben: 2,18 € \(19 %\)/);
  });
});
