import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { CommandContext } from '../../src/cli/command-kit.ts';
import { runCommand } from '../../src/cli/commands.ts';
import { bufferIo } from '../../src/cli/io.ts';
import { contractInvoices, putContract, putProducts, reportUsage, runBilling } from '../contracts/helpers.ts';
import { sealer, type TestApp, testApp } from '../helpers/app.ts';
import { putCustomer } from '../invoicing/helpers.ts';
import { camt, importFile, issueInvoice } from '../payments/helpers.ts';

// The app's customer and contract pages on the command line (design §2, issue 15):
// `kontor admin customer show` and `kontor admin contract show`, as text and --json; an id
// of another company is refused like the app's 404.

describe('kontor admin customer show / contract show', () => {
  let t: TestApp;
  let ctx: CommandContext;
  let customerId: string;
  let contractId: string;
  const numbers: Record<string, string> = {};
  const kontor = async (...args: string[]) => {
    const io = bufferIo();
    const code = await runCommand(args, io, ctx);
    return { code, stdout: io.stdout, stderr: io.stderr };
  };

  before(async () => {
    t = await testApp({ now: '2026-10-20T09:00:00Z' });
    ctx = { db: t.handle.db, clock: t.clock, sealer, cwd: t.dataDir, dataDir: t.dataDir, invoicing: t.invoicing };
    customerId = (await putCustomer(t, 'kunde-1')).id;
    for (const ref of ['a-1', 'a-2']) numbers[ref] = (await issueInvoice(t, ref, { payment_terms_days: 14 })).number;
    t.clock.set('2026-11-21T09:00:00Z');
    await importFile(
      t,
      camt([
        { amount: '50.00', text: `Teilzahlung ${numbers['a-1']}`, name: 'Beispiel AG', date: '2026-11-20' },
        { amount: '100.00', text: `Rechnung ${numbers['a-2']}`, name: 'Beispiel AG', date: '2026-11-20' },
      ]),
    );
    await putProducts(t);
    contractId = (
      await putContract(
        t,
        'saas-1',
        {
          customer: { source: 'crm', external_ref: 'kunde-1' },
          name: 'SaaS Business',
          status: 'active',
          billing_interval: 'month',
          start_date: '2026-12-01',
          items: [
            { ref: 'hosting', product_number: 'HOST-S' },
            { ref: 'api', product_ref: 'api-calls' },
          ],
        },
        [201],
      )
    ).id;
    await runBilling(t, '2026-12-01');
    await reportUsage(t, 'saas-1', [{ external_ref: 'u-1', item_ref: 'api', quantity: '2500', occurred_at: '2026-12-10T10:00:00+01:00' }]);
    await runBilling(t, '2027-01-01');
  });
  after(() => t.close());

  test('customer show: master data, open items with days overdue and totals, the credit, the contracts', async () => {
    t.clock.set('2026-11-21T09:00:00Z');
    const json = await kontor('admin', 'customer', 'show', customerId, '--company', t.company.companyId, '--json');
    assert.equal(json.code, 0, json.stderr);
    const view = JSON.parse(json.stdout);
    assert.equal(view.customer.name, 'Beispiel AG');
    assert.equal(view.customer.vat_id, 'DE136695976');
    assert.equal(view.as_of, '2026-11-21');
    // a-1 partly paid and overdue, the contract's two invoices not due yet; a-2 is paid.
    const invoices = await contractInvoices(t, 'saas-1');
    assert.deepEqual(view.totals, { open: '121.93', overdue: '35.06', credit: '14.94' });
    assert.deepEqual(
      view.open_items.map((i: Record<string, unknown>) => [i.number, i.status, i.issue_date, i.due_date, i.total_gross, i.amount_paid, i.open, i.days_overdue]),
      [
        [numbers['a-1'], 'partially_paid', '2026-10-20', '2026-11-03', '85.06', '50.00', '35.06', 18],
        [invoices[0]?.number, 'issued', '2026-12-01', '2026-12-15', '34.51', '0.00', '34.51', 0],
        [invoices[1]?.number, 'issued', '2027-01-01', '2027-01-15', '52.36', '0.00', '52.36', 0],
      ],
    );
    assert.deepEqual(
      view.credits.map((c: Record<string, unknown>) => [c.booking_date, c.amount, c.invoice_number, c.payer_name]),
      [['2026-11-20', '14.94', numbers['a-2'], 'Beispiel AG']],
    );
    assert.deepEqual(
      view.contracts.map((k: Record<string, unknown>) => [k.id, k.number, k.status]),
      [[contractId, 'V-00001', 'active']],
    );
    const plain = await kontor('admin', 'customer', 'show', customerId, '--company', t.company.companyId);
    assert.equal(plain.code, 0, plain.stderr);
    assert.match(plain.stdout, /^customer \d+ Beispiel AG \(business, crm\/kunde-1\)/);
    assert.match(plain.stdout, new RegExp(`${numbers['a-1']} +issued 2026-10-20  due 2026-11-03  gross 85.06  paid 50.00  open 35.06  18 day\\(s\\) overdue`));
    assert.match(plain.stdout, /total open 121.93 EUR, overdue 35.06 EUR\ncredit 14.94 EUR:/);
  });

  test('contract show: terms, two billed cycles, the billings ahead', async () => {
    t.clock.set('2027-01-15T10:00:00Z');
    const invoices = await contractInvoices(t, 'saas-1');
    const json = await kontor('admin', 'contract', 'show', contractId, '--company', t.company.companyId, '--json');
    assert.equal(json.code, 0, json.stderr);
    const view = JSON.parse(json.stdout);
    assert.equal(view.number, 'V-00001');
    assert.equal(view.customer.name, 'Beispiel AG');
    assert.equal(view.next_billing_date, '2027-02-01');
    assert.deepEqual(
      view.items.map((i: Record<string, unknown>) => [i.ref, i.billing_timing, i.pricing_model, i.unit_price_net]),
      [
        ['hosting', 'advance', 'flat', '29.00'],
        ['api', 'arrears', 'graduated', '0'],
      ],
    );
    assert.deepEqual(
      view.cycles.map((y: Record<string, unknown>) => [y.start, y.end, y.status, y.invoice_number, y.total_net, y.invoice_total_gross]),
      [
        ['2027-01-01', '2027-01-31', 'billed', invoices[1]?.number, '44.00', '52.36'],
        ['2026-12-01', '2026-12-31', 'billed', invoices[0]?.number, '29.00', '34.51'],
      ],
    );
    assert.deepEqual(view.upcoming[0], {
      billing_date: '2027-02-01',
      start: '2027-02-01',
      end: '2027-02-28',
      final: false,
      paused: false,
      expected_net: '29.00',
      plus_usage: true,
    });
    assert.equal(view.upcoming.length, 3);
    assert.deepEqual(view.usage, { from: '2027-01-01', to: '2027-01-31', items: [{ item_ref: 'api', quantity: '0', records: 0 }] });
    const plain = await kontor('admin', 'contract', 'show', contractId, '--company', t.company.companyId);
    assert.equal(plain.code, 0, plain.stderr);
    assert.match(plain.stdout, /^contract V-00001 SaaS Business \(active\) for Beispiel AG/);
    assert.match(plain.stdout, new RegExp(`2027-01-01 – 2027-01-31  billed 2027-01-01  billed  ${invoices[1]?.number} \\(issued\\)  net 44.00`));
    assert.match(plain.stdout, /2027-02-01 {2}2027-02-01 – 2027-02-28 {2}expected net 29.00 plus usage/);
  });

  test("another company's id, an unknown id, an unknown company: refused with one sentence; no --company: usage", async () => {
    const other = await t.newCompany('other');
    for (const [kind, id, company, message] of [
      ['customer', customerId, other.companyId, `company ${other.companyId} has no customer ${customerId}`],
      ['contract', contractId, other.companyId, `company ${other.companyId} has no contract ${contractId}`],
      ['customer', 'cus_nope', t.company.companyId, `company ${t.company.companyId} has no customer cus_nope`],
      ['contract', contractId, 'cmp_nope', 'no company cmp_nope'],
    ] as const) {
      const refused = await kontor('admin', kind, 'show', id, '--company', company, '--json');
      assert.equal(refused.code, 1, `${kind} ${id}`);
      assert.equal(refused.stdout, '');
      assert.equal(refused.stderr.trim(), `kontor: ${message}`);
    }
    const usage = await kontor('admin', 'customer', 'show', customerId);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /--company is required/);
  });
});
