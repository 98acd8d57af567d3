import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestApp, testApp } from '../helpers/app.ts';
import { putCustomer } from '../invoicing/helpers.ts';
import { contractInvoices, getContract, putContract, runBilling } from './helpers.ts';

// Issue 24, point 5.1 (billing run): one contract's failure never stops another's billing.
// The contracts of a group are billed by one job (contracts.bill); whatever goes wrong
// while one of them is billed — an invoice that cannot be issued, or any error thrown — that
// contract gets a `failed` cycle with a reason a person can read, the others are billed,
// and the next run tries the failed one again. Logs carry neither the customer's name nor
// the error's internals.

const PRIVATE_NAME = 'Erika Mustermann';
const contract = (customerRef: string, i: number) => ({
  customer: { source: 'crm', external_ref: customerRef },
  name: `Abo ${i}`,
  status: 'active',
  billing_interval: 'month',
  start_date: '2027-01-01',
  items: [{ ref: 'hosting', description: 'Hosting', unit_price_net: '29.00', quantity: String(i) }],
});

describe('billing run: failures stay with their contract', () => {
  let t: TestApp;
  /** The billing jobs that did not end done (failed, or waiting for a retry). */
  const unfinishedBillingJobs = async () =>
    t.handle.db.selectFrom('jobs').select(['id', 'status', 'last_error']).where('name', '=', 'contracts.bill').where('status', '!=', 'done').execute();

  before(async () => {
    t = await testApp();
    await putCustomer(t, 'kunde-1');
    // The upsert allows a customer without country_code.
    await putCustomer(t, 'ohne-land', { name: PRIVATE_NAME, customer_type: 'private', vat_id: null, country_code: undefined });
  });
  after(() => t.close());

  test('a customer without country in the middle of a group: that contract fails with its reason, the others are billed', async () => {
    for (let i = 1; i <= 5; i++) await putContract(t, `land-${i}`, contract(i === 3 ? 'ohne-land' : 'kunde-1', i), [201]);
    const { warnings } = await runBilling(t, '2027-01-01');
    assert.deepEqual(await unfinishedBillingJobs(), [], warnings.join('\n'));
    for (const i of [1, 2, 4, 5]) {
      const [invoice] = await contractInvoices(t, `land-${i}`);
      // i × 29.00
      assert.equal(invoice?.total_net, (29 * i).toFixed(2), `land-${i}`);
      assert.equal((await getContract(t, `land-${i}`)).cycles[0].status, 'billed');
    }
    assert.equal((await contractInvoices(t, 'land-3')).length, 0);
    const failed = await getContract(t, 'land-3');
    assert.deepEqual([failed.cycles[0].start, failed.cycles[0].status, failed.cycles[0].invoice_id], ['2027-01-01', 'failed', null]);
    assert.equal(failed.next_billing_date, '2027-01-01', 'the next run tries again');
    const row = await t.handle.db.selectFrom('contract_cycles').select(['reason']).where('contract_id', '=', failed.id).executeTakeFirstOrThrow();
    // A German sentence a person understands; no error class, code location or stack.
    assert.match(row.reason!, /\b(Land|Fehler)\b/);
    assert.doesNotMatch(row.reason!, /invalid_argument|RangeError|TypeError|at .*\.ts:\d+/);
    assert.ok(
      warnings.some((w) => w.includes(failed.id) && w.includes('2027-01-01')),
      warnings.join('\n'),
    );
    for (const warning of warnings) assert.ok(!warning.includes(PRIVATE_NAME), `no personal data in the log: ${warning}`);
  });

  test('any error thrown while billing one contract fails that contract only; fixed, the next run bills it', async () => {
    for (let i = 1; i <= 5; i++) await putContract(t, `defekt-${i}`, { ...contract('kunde-1', i), start_date: '2027-02-01' }, [201]);
    // Terms no upsert would accept, as a damaged row or an older version's data would leave them:
    // a package price without a package size throws while the run prices the item.
    const broken = (await getContract(t, 'defekt-3')).id;
    await t.handle.db.updateTable('contract_items').set({ pricing_model: 'package', included_quantity: null }).where('contract_id', '=', broken).execute();

    const { warnings } = await runBilling(t, '2027-02-01');
    assert.deepEqual(await unfinishedBillingJobs(), [], warnings.join('\n'));
    for (const i of [1, 2, 4, 5]) assert.equal((await contractInvoices(t, `defekt-${i}`)).length, 1, `defekt-${i}`);
    const view = await getContract(t, 'defekt-3');
    assert.deepEqual([view.cycles[0].start, view.cycles[0].status, view.next_billing_date], ['2027-02-01', 'failed', '2027-02-01']);
    const first = await t.handle.db.selectFrom('contract_cycles').select(['reason', 'attempts']).where('contract_id', '=', broken).executeTakeFirstOrThrow();
    assert.match(first.reason!, /unerwarteten Fehler/);
    assert.match(first.reason!, /nächste Lauf/);
    assert.doesNotMatch(first.reason!, /package_size|priceForQuantity|at .*\.ts:\d+/);
    assert.equal(first.attempts, 1);
    // The log line says which contract and billing date failed, and the error's kind (no data, no stack).
    const line = warnings.find((w) => w.includes(broken));
    assert.ok(line, warnings.join('\n'));
    assert.match(line, /2027-02-01/);
    assert.doesNotMatch(line, /\n\s+at /);

    // The next day's run tries again (attempts counted) and still fails alone.
    await runBilling(t, '2027-02-02');
    const second = await t.handle.db.selectFrom('contract_cycles').select(['status', 'attempts']).where('contract_id', '=', broken).executeTakeFirstOrThrow();
    assert.deepEqual([second.status, second.attempts], ['failed', 2]);

    await t.handle.db.updateTable('contract_items').set({ pricing_model: 'flat' }).where('contract_id', '=', broken).execute();
    await runBilling(t, '2027-02-03');
    const [invoice] = await contractInvoices(t, 'defekt-3');
    // 3 × 29.00
    assert.equal(invoice?.total_net, '87.00');
    assert.equal((await getContract(t, 'defekt-3')).cycles[0].status, 'billed');
  });
});
