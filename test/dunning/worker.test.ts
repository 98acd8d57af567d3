import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startWorker } from '../../src/jobs/index.ts';
import { type TestApp, testApp } from '../helpers/app.ts';
import { waitFor } from '../jobs/fixtures.ts';
import { eventsOf, invoiceOf, issueInvoice, outbox, putCustomerOf, type Scenario, scenario } from './helpers.ts';

// Inside `kontor serve` (and `kontor worker`) the scheduler runs the same daily tasks for
// each company's today by the clock, and the worker mails the notices. Own database: the
// worker's scheduler runs for every company in it.

describe('overdue marking and dunning inside the worker of kontor serve', () => {
  let t: TestApp;
  let s: Scenario;
  before(async () => {
    t = await testApp();
    s = await scenario(t, 'worker');
  });
  after(async () => {
    s.mailer.close();
    await t.close();
  });

  test('the scheduler tick marks overdue and sends the reminder on the day it is due, once', async () => {
    await putCustomerOf(t, s, 'kunde-1');
    const invoice = await issueInvoice(t, s, 'inv-worker', 'kunde-1', '2026-11-21');
    t.clock.set('2026-12-12T09:00:00Z');
    const worker = startWorker({ db: t.handle.db, clock: t.clock, mailer: s.mailer }, { schedulerIntervalMs: 20, pollMs: 10, log: () => {} });
    try {
      await waitFor(async () => (await invoiceOf(t, s, invoice.id)).dunning_level === 0, 20_000);
      // Several more ticks on the same day change nothing.
      await new Promise((resolve) => setTimeout(resolve, 200));
    } finally {
      await worker.stop();
    }
    const view = await invoiceOf(t, s, invoice.id);
    assert.equal(view.overdue, true);
    assert.equal((await outbox(t, s)).length, 1);
    assert.equal((await eventsOf(t, s, 'invoice.overdue')).length, 1);
    assert.equal((await eventsOf(t, s, 'invoice.dunning_sent')).length, 1);
  });
});
