import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runCommand } from '../../src/cli/commands.ts';
import { bufferIo } from '../../src/cli/io.ts';
import { runDueWork } from '../../src/jobs/index.ts';
import { BASE_RATES, useBaseRates } from '../../src/modules/dunning/base-rates.ts';
import type { NoticeDocument } from '../../src/modules/dunning/notice-document.ts';
import { sealer, type TestApp, testApp } from '../helpers/app.ts';
import { BUSINESS_CUSTOMER } from '../invoicing/helpers.ts';
import { issueInvoice, noticesOf, putCustomerOf, runDay, type Scenario, scenario } from './helpers.ts';

// A notice whose default interest reaches a half-year the Basiszinssatz table has no rate
// for (the built-in table ends with 2026-01-01): it is made with the last rate carried
// forward, and the run warns in its log, in the `invoices.dunning` summary and in the
// output of `kontor jobs run`. With the operator's entry for 2026-07-01 it does not warn
// and charges that rate. The clock is fixed; "3.00" is a made-up test rate.
//
// Timeline (default policy, business customer): issued 2026-11-21, due 2026-12-05,
// reminder 2026-12-12 (default begins), 1. Mahnung 2026-12-26 with interest for the 14 days
// 2026-12-13 … 2026-12-26 on 1,190.00 €.

describe('a stale Basiszinssatz (no rate for the notice’s half-year)', () => {
  let t: TestApp;
  const scenarios: Scenario[] = [];
  const reminded = async (label: string) => {
    const s = await scenario(t, label);
    scenarios.push(s);
    await putCustomerOf(t, s, 'kunde-1');
    const invoice = await issueInvoice(t, s, `inv-${label}`, 'kunde-1', '2026-11-21');
    await runDay(t, s, '2026-12-06');
    const reminder = await runDay(t, s, '2026-12-12');
    assert.deepEqual(reminder.tasks['invoices.dunning'], { companies: 1, ran: 1, skipped: 0, failed: 0 });
    return { s, invoice };
  };
  const dunningSummary = async (s: Scenario, date: string) => {
    const row = await t.handle.db
      .selectFrom('scheduler_runs')
      .select('summary')
      .where('company_id', '=', s.company.companyId)
      .where('task', '=', 'invoices.dunning')
      .where('run_date', '=', date)
      .executeTakeFirstOrThrow();
    return (typeof row.summary === 'string' ? JSON.parse(row.summary) : row.summary) as Record<string, unknown>;
  };
  const interestPeriods = async (s: Scenario, invoiceId: string, level: number) => {
    const row = await t.handle.db
      .selectFrom('dunning_notices')
      .select('document')
      .where('company_id', '=', s.company.companyId)
      .where('invoice_id', '=', invoiceId)
      .where('level', '=', level as 0)
      .executeTakeFirstOrThrow();
    const document = (typeof row.document === 'string' ? JSON.parse(row.document) : row.document) as NoticeDocument;
    return document.interest?.periods.map((p) => [p.from, p.to, p.baseRate, p.rate, p.amount]);
  };

  before(async () => {
    t = await testApp();
  });
  after(async () => {
    useBaseRates({ table: BASE_RATES, file: null });
    for (const s of scenarios) s.mailer.close();
    await t.close();
  });

  test('the payment reminder charges no interest and so does not warn', async () => {
    const { s } = await reminded('reminder-only');
    assert.equal((await dunningSummary(s, '2026-12-12')).stale_base_rate, undefined);
  });

  test('a 1. Mahnung in 2026-H2 is made with 1.27 % carried forward and warns in jobs run (text and JSON), the log and the summary', async () => {
    const { s, invoice } = await reminded('stale');
    const io = bufferIo();
    const ctx = { db: t.handle.db, clock: t.clock, sealer, cwd: process.cwd(), dataDir: t.dataDir, mailer: s.mailer };
    const code = await runCommand(['jobs', 'run', '--as-of', '2026-12-26', '--company', s.company.companyId, '--json'], io, ctx);
    assert.equal(code, 0, io.stderr);

    // The notice is made and sent all the same: interest at 1.27 + 9 = 10.27 %,
    // 119000 × 10.27 % × 14 / 365 = 468.76 → 4.69 €.
    const notices = await noticesOf(t, s, invoice.id);
    assert.deepEqual(
      notices.map((n) => [n.level, n.status, n.interest_cents]),
      [
        [0, 'sent', 0],
        [1, 'sent', 469],
      ],
    );
    assert.deepEqual(await interestPeriods(s, invoice.id, 1), [['2026-12-13', '2026-12-26', '1.27', '10.27', '4.69']]);

    // The summary of the day's invoices.dunning run.
    assert.deepEqual((await dunningSummary(s, '2026-12-26')).stale_base_rate, {
      missing_half_years: ['2026-07-01'],
      carried_forward: { from: '2026-01-01', rate: '1.27' },
      notices: 1,
    });

    // jobs run --json: the summary's warnings; stderr: the same line for a person.
    const output = JSON.parse(io.stdout) as { warnings: string[] };
    assert.equal(output.warnings.length, 1, output.warnings.join('\n'));
    const [warning] = output.warnings;
    assert.match(
      warning!,
      new RegExp(
        `^daily task invoices\\.dunning for company ${s.company.companyId} on 2026-12-26: warning: the Basiszinssatz table has no rate for 2026-07-01: ` +
          '1 notice\\(s\\) charge default interest with the rate of 2026-01-01 \\(1\\.27 %\\) carried forward\\. ' +
          'Add the rate the Bundesbank published, e\\.g\\. \\{"from":"2026-07-01","rate":"n\\.nn"\\}, to base-rates\\.json in the data folder',
      ),
    );
    assert.ok(io.stderr.includes(`kontor: ${warning}`), io.stderr);
    // No personal data: neither the customer's name, address, e-mail nor the invoice's number.
    for (const personal of [BUSINESS_CUSTOMER.name, BUSINESS_CUSTOMER.email, BUSINESS_CUSTOMER.street, BUSINESS_CUSTOMER.contact_name, invoice.number]) {
      assert.ok(!warning!.includes(personal), `the warning names ${personal}`);
    }
  });

  test('the worker’s log gets the warning line (the text JobLog of serve and worker)', async () => {
    const { s } = await reminded('stale-log');
    const log: string[] = [];
    t.clock.set('2026-12-26T12:00:00Z');
    await runDueWork({ db: t.handle.db, clock: t.clock, mailer: s.mailer }, { asOf: '2026-12-26', companyId: s.company.companyId, log: (m) => log.push(m) });
    assert.equal(log.filter((line) => line.includes('warning: the Basiszinssatz table has no rate for 2026-07-01')).length, 1, log.join('\n'));
  });

  test('with the operator’s entry for 2026-07-01 the notice uses that rate and nothing warns', async () => {
    const { s, invoice } = await reminded('fresh');
    useBaseRates({ table: [...BASE_RATES, { from: '2026-07-01', rate: '3.00' }], file: '/srv/kontor/base-rates.json' });
    const log: string[] = [];
    t.clock.set('2026-12-26T12:00:00Z');
    await runDueWork({ db: t.handle.db, clock: t.clock, mailer: s.mailer }, { asOf: '2026-12-26', companyId: s.company.companyId, log: (m) => log.push(m) });

    assert.deepEqual(log, []);
    assert.deepEqual(await dunningSummary(s, '2026-12-26'), { created: 1, enabled: true });
    // 3.00 + 9 = 12 %: 119000 × 12 % × 14 / 365 = 547.73 → 5.48 €.
    const notices = await noticesOf(t, s, invoice.id);
    assert.deepEqual(
      notices.map((n) => [n.level, n.interest_cents]),
      [
        [0, 0],
        [1, 548],
      ],
    );
    assert.deepEqual(await interestPeriods(s, invoice.id, 1), [['2026-12-13', '2026-12-26', '3.00', '12.00', '5.48']]);
  });

  test('the warning names the configured file when there is one', async () => {
    const { s } = await reminded('stale-file');
    useBaseRates({ table: BASE_RATES, file: '/srv/kontor/base-rates.json' });
    const log: string[] = [];
    t.clock.set('2026-12-26T12:00:00Z');
    await runDueWork({ db: t.handle.db, clock: t.clock, mailer: s.mailer }, { asOf: '2026-12-26', companyId: s.company.companyId, log: (m) => log.push(m) });
    assert.match(log.join('\n'), /to \/srv\/kontor\/base-rates\.json and restart Kontor\./);
  });
});
