import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type TestApp, testApp } from '../helpers/app.ts';
import { putCustomer } from '../invoicing/helpers.ts';
import { readWords } from '../invoicing/render/pdf-layout.ts';
import { contractInvoices, getContract, putContract, putProducts, runBilling } from './helpers.ts';

// What the billing run does with an invoice (issue 13, point 3): issue, leave a draft, or
// issue and mail (invoice_mode); a zero amount skips the cycle; an invoice that cannot be
// issued fails the cycle with the German reason and is tried again by the next run.

describe('invoice modes and cycle states', () => {
  let t: TestApp;
  const contract = (overrides: Record<string, unknown> = {}) => ({
    customer: { source: 'crm', external_ref: 'kunde-1' },
    name: 'Vertrag',
    status: 'active',
    billing_interval: 'month',
    start_date: '2027-01-01',
    items: [{ ref: 'hosting', product_number: 'HOST-S' }],
    ...overrides,
  });
  const cycle = async (ref: string) => (await getContract(t, ref)).cycles[0];

  before(async () => {
    t = await testApp();
    await putCustomer(t, 'kunde-1', { email: 'buchhaltung@kunde.example' });
    await putProducts(t);
    await putContract(t, 'draft-1', contract({ invoice_mode: 'draft' }), [201]);
    await putContract(t, 'send-1', contract({ invoice_mode: 'issue_send' }), [201]);
    await putContract(t, 'usage-1', contract({ items: [{ ref: 'api', product_ref: 'api-calls' }] }), [201]);
    // A customer without an e-mail address: no invoice can be issued to it (the VAT rate of an
    // item, the other way to fail, cannot be corrected on a running contract since issue 24).
    await putCustomer(t, 'ohne-mail', { name: 'Erika Mustermann', customer_type: 'private', vat_id: null, email: null });
    await putContract(
      t,
      'fail-1',
      contract({ customer: { source: 'crm', external_ref: 'ohne-mail' }, items: [{ ref: 'free', description: 'Beratung', unit_price_net: '100.00' }] }),
      [201],
    );
    await putContract(
      t,
      'quarter-1',
      contract({ billing_interval: 'quarter', start_date: '2027-01-31', items: [{ ref: 'q', description: 'Wartung', unit_price_net: '300.00' }] }),
      [201],
    );
    await runBilling(t, '2027-01-31');
  });
  after(() => t.close());

  test('draft mode leaves a draft without a number; the cycle is billed with it', async () => {
    const [invoice] = await contractInvoices(t, 'draft-1');
    assert.equal(invoice!.status, 'draft');
    assert.equal(invoice!.number, null);
    const row = await cycle('draft-1');
    assert.deepEqual([row.status, row.invoice_id, row.invoice_status, row.total_net], ['billed', invoice!.id, 'draft', '29.00']);
  });

  test('issue_send mails the invoice with its PDF once; each line names its period on the PDF', async () => {
    const [invoice] = await contractInvoices(t, 'send-1');
    const view = (await t.request('GET', `/v1/invoices/${invoice!.id}`)).json();
    assert.equal(view.status, 'sent');
    const outbox = path.join(t.dataDir, 'outbox', t.company.companyId);
    assert.equal(readdirSync(outbox).filter((file) => file.includes(invoice!.number!)).length, 1);
    const pdf = (await t.request('GET', `/v1/invoices/${invoice!.id}/pdf`)).rawPayload;
    const [page] = readWords(pdf);
    const words = page!.words.map((w) => w.text);
    const at = words.indexOf('Leistungszeitraum', words.indexOf('Hosting'));
    assert.ok(at > 0, 'the line names its period');
    assert.equal(words[at + 1], '01.01.–31.01.2027');
    // Under the line's text, in the description column.
    const hosting = page!.words.find((w) => w.text === 'Hosting')!;
    const label = page!.words.filter((w) => w.text === 'Leistungszeitraum').at(-1)!;
    assert.ok(label.yMin > hosting.yMax - 0.5 && Math.abs(label.xMin - hosting.xMin) < 1);
  });

  test('a cycle without anything to bill is skipped, without an invoice', async () => {
    assert.equal((await contractInvoices(t, 'usage-1')).length, 0);
    const row = await cycle('usage-1');
    assert.deepEqual([row.status, row.invoice_id], ['skipped', null]);
    assert.equal((await getContract(t, 'usage-1')).next_billing_date, '2027-02-01');
  });

  test('an invoice that cannot be issued fails the cycle with the reason; the next run tries again and bills once fixed', async () => {
    assert.equal((await contractInvoices(t, 'fail-1')).length, 0);
    const row = await cycle('fail-1');
    assert.deepEqual([row.status, row.invoice_id], ['failed', null]);
    const stored = await t.handle.db.selectFrom('contract_cycles').select(['reason', 'attempts']).where('status', '=', 'failed').executeTakeFirstOrThrow();
    assert.match(stored.reason!, /Kunde Erika Mustermann: die E-Mail-Adresse fehlt/);
    assert.equal(stored.attempts, 1);
    assert.equal((await getContract(t, 'fail-1')).next_billing_date, '2027-01-01');

    const { warnings } = await runBilling(t, '2027-02-01');
    assert.ok(
      warnings.some((w) => w.includes('2027-01-01') && w.includes('die E-Mail-Adresse fehlt')),
      warnings.join('\n'),
    );
    // The log names the customer by number, never by name (personal data; issue 24).
    assert.ok(!warnings.some((w) => w.includes('Erika Mustermann')), warnings.join('\n'));
    const again = await t.handle.db.selectFrom('contract_cycles').select(['attempts']).where('status', '=', 'failed').executeTakeFirstOrThrow();
    assert.equal(again.attempts, 2);

    await putCustomer(t, 'ohne-mail', { name: 'Erika Mustermann', customer_type: 'private', vat_id: null, email: 'erika@example.com' });
    await runBilling(t, '2027-02-02');
    // Both billing dates come due now: January's (retried) and February's, in order.
    const [january, february] = await contractInvoices(t, 'fail-1');
    assert.deepEqual([january!.status, january!.issue_date, january!.service_period.start], ['issued', '2027-02-02', '2027-01-01']);
    assert.equal(february!.service_period.start, '2027-02-01');
    const cycles = (await getContract(t, 'fail-1')).cycles;
    assert.deepEqual(
      cycles.map((c: { start: string; status: string; invoice_id: string }) => [c.start, c.status, c.invoice_id]),
      [
        ['2027-02-01', 'billed', february!.id],
        ['2027-01-01', 'billed', january!.id],
      ],
    );
  });

  test('a quarter runs from its anchor, month ends clamped', async () => {
    const view = await getContract(t, 'quarter-1');
    assert.deepEqual([view.cycles[0].start, view.cycles[0].end], ['2027-01-31', '2027-04-29']);
    assert.equal(view.next_billing_date, '2027-04-30');
  });
});
