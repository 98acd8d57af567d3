import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { claimJobs, runJob } from '../../src/jobs/index.ts';
import { billContract } from '../../src/modules/contracts/bill-contract.ts';
import { type TestApp, testApp } from '../helpers/app.ts';
import { recording } from '../helpers/recording.ts';
import { putCustomer } from '../invoicing/helpers.ts';
import { contractInvoices, getContract, putContract } from './helpers.ts';

// Issue 26, point 2: every billing transaction of a company waits on the invoice number's
// row from its draw to its commit, so a billed invoice runs one statement after the draw:
// the change feed's position, the invoice with its lines, its event, its booking and the
// contract's cycle, all in the invoice's data-modifying WITH. Its job invoices.render then
// reads once and stores the files with the job's end in one statement.

describe('a billed invoice after its number is drawn', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp({ now: '2026-12-01T12:00:00Z' });
    await putCustomer(t, 'kunde-1');
    await putContract(t, 'draw-1', {
      customer: { source: 'crm', external_ref: 'kunde-1' },
      name: 'Hosting',
      status: 'active',
      billing_interval: 'month',
      start_date: '2026-12-01',
      items: [{ ref: 'hosting', description: 'Hosting', unit_price_net: '49.00', quantity: '1' }],
    });
  });
  after(() => t.close());

  test('runs one statement: change feed, invoice and lines, event, booking, cycle', async () => {
    const contract = await getContract(t, 'draw-1');
    const { db, statements } = recording(t.handle.db);
    const outcomes = await billContract({ db, clock: t.clock, bookingWrites: t.invoicing.bookingWrites }, t.company.companyId, contract.id, '2026-12-01');
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['billed'],
    );
    // (The company's first invoice: its range row is made between a first try and the draw.)
    const draw = statements.lastIndexOf('update number_ranges');
    assert.ok(draw > 0, `no number drawn: ${statements.join(', ')}`);
    assert.deepEqual(statements.slice(draw + 1), [
      'with insert number_ranges + insert invoices + insert invoice_lines + insert events + insert journal_entries + insert journal_lines + insert contract_cycles',
    ]);
    // What that statement wrote: the invoice as the API shows it, booked, its cycle billed.
    const [invoice] = await contractInvoices(t, 'draw-1');
    assert.equal(invoice?.status, 'issued');
    assert.equal(invoice?.total_net, '49.00');
    const entry = await t.handle.db
      .selectFrom('journal_entries')
      .select(['document_number', 'id'])
      .where('document_id', '=', invoice!.id)
      .executeTakeFirstOrThrow();
    assert.equal(entry.document_number, invoice!.number);
    const lines = await t.handle.db.selectFrom('journal_lines').select(['side', 'amount_cents']).where('entry_id', '=', entry.id).orderBy('position').execute();
    assert.deepEqual(
      lines.map((l) => [l.side, Number(l.amount_cents)]),
      [
        ['S', 5831],
        ['H', 4900],
        ['H', 931],
      ],
    );
    const cycles = (await getContract(t, 'draw-1')).cycles as { status: string; invoice_id: string }[];
    assert.deepEqual(
      cycles.map((c) => [c.status, c.invoice_id]),
      [['billed', invoice!.id]],
    );
  });

  test('its render job: one read, then the files and the job’s end in one statement; run again, it renders nothing', async () => {
    const [invoice] = await contractInvoices(t, 'draw-1');
    const claim = async () =>
      (await claimJobs(t.handle.db, { workerId: 'test', now: t.clock.now(), limit: 10, leaseMs: 60_000, companyId: t.company.companyId })).find(
        (j) => j.name === 'invoices.render' && (j.payload as { invoice_id: string }).invoice_id === invoice!.id,
      );
    const job = await claim();
    assert.ok(job, 'the invoice’s render job');
    assert.deepEqual(job.payload, { invoice_id: invoice!.id, send: false });
    const { db, statements } = recording(t.handle.db);
    assert.equal(await runJob({ db, clock: t.clock, services: { invoicing: t.invoicing } }, job), 'done');
    assert.deepEqual(statements, ['select invoices', 'with insert invoice_files + update jobs']);
    const files = await t.handle.db.selectFrom('invoice_files').select(['kind', 'content']).where('invoice_id', '=', invoice!.id).orderBy('kind').execute();
    assert.deepEqual(
      files.map((f) => f.kind),
      ['pdf', 'xml'],
    );
    assert.equal(Buffer.from(files[0]!.content).subarray(0, 5).toString(), '%PDF-');
    assert.match(Buffer.from(files[1]!.content).toString(), new RegExp(`<ram:ID>${invoice!.number}</ram:ID>`));
    const row = await t.handle.db.selectFrom('jobs').select(['status', 'finished_at']).where('id', '=', job.id).executeTakeFirstOrThrow();
    assert.equal(row.status, 'done');
    assert.equal(row.finished_at?.toISOString(), t.clock.now().toISOString());

    // The same job once more (a worker that died before its end was committed elsewhere): the files are there, nothing is rendered or stored.
    await t.handle.db.updateTable('jobs').set({ status: 'pending', finished_at: null }).where('id', '=', job.id).execute();
    const again = await claim();
    assert.ok(again);
    const second = recording(t.handle.db);
    assert.equal(await runJob({ db: second.db, clock: t.clock, services: { invoicing: t.invoicing } }, again), 'done');
    assert.deepEqual(second.statements, ['select invoices', 'update jobs']);
  });
});
