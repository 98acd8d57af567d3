import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { countRows, type TestApp, testApp } from '../helpers/app.ts';
import { putCustomer } from '../invoicing/helpers.ts';
import { contractInvoices, getContract, invoiceLines, putContract, putProducts, reportUsage, runBilling } from './helpers.ts';

// The billing run (issue 13, point 3): one invoice per billing date with the advance items
// of the cycle beginning and the arrears (usage) of the cycle that ended, each line with
// its own period; the contract moves on; a second run of a day bills nothing.

const MONTHLY = {
  customer: { source: 'crm', external_ref: 'kunde-1' },
  name: 'SaaS Business',
  status: 'active',
  billing_interval: 'month',
  start_date: '2026-12-01',
  items: [
    { ref: 'hosting', product_number: 'HOST-S' },
    { ref: 'support', description: 'Support-Pauschale', unit_price_net: '15.00', quantity: '2' },
    { ref: 'api', product_ref: 'api-calls' },
  ],
};

describe('the billing run of a monthly contract', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp();
    await putCustomer(t, 'kunde-1');
    await putProducts(t);
    await putContract(t, 'saas-1', MONTHLY, [201]);
  });
  after(() => t.close());

  test('the first billing date bills the advance items of the first cycle; the invoice names the contract', async () => {
    const { summary } = await runBilling(t, '2026-12-01');
    assert.equal(summary.tasks['contracts.billing']?.totals?.['contracts'], 1);
    const invoices = await contractInvoices(t, 'saas-1');
    assert.equal(invoices.length, 1);
    const [invoice] = invoices;
    assert.equal(invoice!.status, 'issued');
    assert.equal(invoice!.contract_external_ref, 'saas-1');
    assert.equal(invoice!.issue_date, '2026-12-01');
    assert.deepEqual(invoice!.service_period, { start: '2026-12-01', end: '2026-12-31' });
    assert.equal(invoice!.total_net, '59.00');
    const lines = await invoiceLines(t, invoice!.id);
    assert.deepEqual(
      lines.map((l) => [l.description, l.quantity, l.unit_price_net, l.service_period_start, l.service_period_end]),
      [
        ['Hosting S', '1', '29.00', '2026-12-01', '2026-12-31'],
        ['Support-Pauschale', '2', '15.00', '2026-12-01', '2026-12-31'],
      ],
    );
    const contract = await getContract(t, 'saas-1');
    assert.equal(contract.next_billing_date, '2027-01-01');
    assert.equal(contract.usage_open_from, '2026-12-01');
    assert.deepEqual(contract.cycles, [
      {
        start: '2026-12-01',
        end: '2026-12-31',
        status: 'billed',
        invoice_id: invoice!.id,
        invoice_number: invoice!.number,
        invoice_status: 'issued',
        total_net: '59.00',
      },
    ]);
    // The documents were rendered by the job that committed with the invoice.
    const pdf = await t.request('GET', `/v1/invoices/${invoice!.id}/pdf`);
    assert.equal(pdf.statusCode, 200);
    assert.equal(pdf.rawPayload.subarray(0, 5).toString(), '%PDF-');
    const xml = await t.request('GET', `/v1/invoices/${invoice!.id}/xml`);
    assert.match(xml.body, /<ram:BillingSpecifiedPeriod>\s*<ram:StartDateTime>\s*<udt:DateTimeString format="102">20261201</);
    // The event invoice.issued, written in the invoice's own statement, says what GET says.
    const event = await t.handle.db
      .selectFrom('events')
      .select('data')
      .where('type', '=', 'invoice.issued')
      .where('subject_id', '=', invoice!.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(event.data, (await t.request('GET', `/v1/invoices/${invoice!.id}`)).json());
  });

  test('a second run of the same day bills nothing', async () => {
    const before = await countRows(t.handle, 'invoices');
    const { summary } = await runBilling(t, '2026-12-01');
    assert.equal(summary.tasks['contracts.billing']?.ran, 0);
    assert.equal(await countRows(t.handle, 'invoices'), before);
  });

  test('the next billing date bills December usage by its tiers and January in advance; late usage is refused', async () => {
    const usage = await reportUsage(t, 'saas-1', [
      { external_ref: 'u-1', item_ref: 'api', quantity: '8000', occurred_at: '2026-12-10T10:00:00+01:00' },
      { external_ref: 'u-2', item_ref: 'api', quantity: '4500.5', occurred_at: '2026-12-31T23:30:00+01:00' },
      // The first minutes of January in Berlin belong to the next cycle.
      { external_ref: 'u-3', item_ref: 'api', quantity: '700', occurred_at: '2026-12-31T23:30:00Z' },
    ]);
    assert.equal(usage.statusCode, 201, usage.body);
    await runBilling(t, '2027-01-01');
    const invoices = await contractInvoices(t, 'saas-1');
    assert.equal(invoices.length, 2);
    const january = invoices[1]!;
    assert.deepEqual(january.service_period, { start: '2026-12-01', end: '2027-01-31' });
    const lines = await invoiceLines(t, january.id);
    assert.deepEqual(
      lines.map((l) => [l.description, l.quantity, l.unit_price_net, l.net_cents, l.service_period_start, l.service_period_end]),
      [
        ['API-Aufrufe, Staffel 0 bis unter 1.000 Aufrufe', '1000', '0', 0, '2026-12-01', '2026-12-31'],
        ['API-Aufrufe, Staffel 1.000 bis unter 10.000 Aufrufe', '9000', '0.01', 9000, '2026-12-01', '2026-12-31'],
        ['API-Aufrufe, Staffel ab 10.000 Aufrufe', '2500.5', '0.005', 1250, '2026-12-01', '2026-12-31'],
        ['Hosting S', '1', '29.00', 2900, '2027-01-01', '2027-01-31'],
        ['Support-Pauschale', '2', '15.00', 3000, '2027-01-01', '2027-01-31'],
      ],
    );
    const contract = await getContract(t, 'saas-1');
    assert.equal(contract.next_billing_date, '2027-02-01');
    assert.equal(contract.usage_open_from, '2027-01-01');
    assert.equal(contract.cycles.length, 2);
    const late = await reportUsage(t, 'saas-1', [{ external_ref: 'u-late', item_ref: 'api', quantity: '1', occurred_at: '2026-12-20T10:00:00+01:00' }]);
    assert.equal(late.statusCode, 422);
    assert.equal(late.json().detail.code, 'contract.usage_period_closed');
    // A retry of the billed batch is answered as duplicates.
    const retry = await reportUsage(t, 'saas-1', [{ external_ref: 'u-1', item_ref: 'api', quantity: '8000', occurred_at: '2026-12-10T10:00:00+01:00' }]);
    assert.equal(retry.statusCode, 200, retry.body);
    assert.deepEqual(retry.json(), { recorded: 0, duplicates: 1 });
  });
});

describe('a run after billing dates were missed', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp();
    await putCustomer(t, 'kunde-1');
    await putProducts(t);
    const flat = { ...MONTHLY, items: [MONTHLY.items[1]!], start_date: '2026-09-01' };
    await putContract(t, 'open-ended', flat, [201]);
    await putContract(t, 'ending', { ...flat, end_date: '2026-10-31' }, [201]);
  });
  after(() => t.close());

  test('bills every billing date due, in order, each once; a contract that ended stops at its last', async () => {
    const { warnings } = await runBilling(t, '2026-12-01');
    assert.deepEqual(warnings, []);
    const open = await contractInvoices(t, 'open-ended');
    assert.deepEqual(
      open.map((invoice) => [invoice.issue_date, invoice.service_period.start, invoice.total_net]),
      [
        ['2026-12-01', '2026-09-01', '30.00'],
        ['2026-12-01', '2026-10-01', '30.00'],
        ['2026-12-01', '2026-11-01', '30.00'],
        ['2026-12-01', '2026-12-01', '30.00'],
      ],
    );
    assert.deepEqual(
      open.map((invoice) => invoice.number),
      [...open.map((invoice) => invoice.number)].sort(),
      'numbered in the order of their billing dates',
    );
    assert.equal((await getContract(t, 'open-ended')).next_billing_date, '2027-01-01');
    const ending = await contractInvoices(t, 'ending');
    assert.deepEqual(
      ending.map((invoice) => invoice.service_period.start),
      ['2026-09-01', '2026-10-01'],
    );
    const ended = await getContract(t, 'ending');
    assert.equal(ended.status, 'ended');
    assert.equal(ended.next_billing_date, null);
    // The same day again: nothing more.
    await runBilling(t, '2026-12-01');
    assert.equal((await contractInvoices(t, 'open-ended')).length, 4);
    assert.equal((await contractInvoices(t, 'ending')).length, 2);
  });
});

describe('a billing date in a locked accounting period', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp();
    await putCustomer(t, 'kunde-1');
    await putProducts(t);
    await putContract(t, 'saas-1', { ...MONTHLY, items: [MONTHLY.items[1]!] }, [201]);
    await t.handle.db.insertInto('period_locks').values({ company_id: t.company.companyId, locked_until: '2026-12-31' }).execute();
  });
  after(() => t.close());

  test('fails with the reason and stays due; once the lock ends before the day, the next run bills it and books it', async () => {
    const { warnings } = await runBilling(t, '2026-12-01');
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /billing date 2026-12-01 not billed, the next run tries again: Die Buchungsperiode ist bis 31\.12\.2026 gesperrt/);
    assert.equal((await contractInvoices(t, 'saas-1')).length, 0);
    const failed = await getContract(t, 'saas-1');
    assert.equal(failed.next_billing_date, '2026-12-01');
    assert.equal(failed.cycles[0]?.status, 'failed');

    await t.handle.db.updateTable('period_locks').set({ locked_until: '2026-11-30' }).where('company_id', '=', t.company.companyId).execute();
    const again = await runBilling(t, '2026-12-02');
    assert.deepEqual(again.warnings, []);
    const [invoice, ...more] = await contractInvoices(t, 'saas-1');
    assert.equal(more.length, 0);
    assert.equal(invoice!.issue_date, '2026-12-02');
    const entries = await t.handle.db
      .selectFrom('journal_entries')
      .select(['entry_date', 'document_number'])
      .where('company_id', '=', t.company.companyId)
      .execute();
    assert.deepEqual(entries, [{ entry_date: '2026-12-02', document_number: invoice!.number }]);
    assert.equal((await getContract(t, 'saas-1')).next_billing_date, '2027-01-01');
  });
});
