import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { inTransaction } from '../../src/db/transaction.ts';
import { claimJobs, type JobRow, runJob } from '../../src/jobs/index.ts';
import type { CompanyRow } from '../../src/modules/invoicing/build-document.ts';
import { createMailer, type Mailer } from '../../src/modules/mail/index.ts';
import { mailStatement } from '../../src/modules/statements/deliver-statement.ts';
import { makeStatement } from '../../src/modules/statements/make-statement.ts';
import { sealer, type TestApp, testApp } from '../helpers/app.ts';
import { recording } from '../helpers/recording.ts';
import { partnerIdOf, selfBillingPartnersWithOctoberRevenue } from './self-billing-setup.ts';

// Delivering an issued statement (job statements.deliver): one read, the files rendered and
// stored, mail_started_at, the mail, then the row marked sent and its event in one
// statement, the event built from the row as read (issue 26). When a person changed the
// statement between the read and "sent", that attempt is rolled back and the event is
// built from the row as written: it always equals GET. The delivery job is marked done in
// the transaction that marks the statement sent.

describe('delivering a statement', () => {
  let t: TestApp;
  let company: CompanyRow;
  const period = { start: '2026-10-01', end: '2026-10-31' };

  before(async () => {
    t = await testApp({ now: '2026-11-01T12:00:00Z' });
    company = await selfBillingPartnersWithOctoberRevenue(t, ['one', 'two', 'three', 'four']);
  });
  after(() => t.close());

  const issued = async (ref: string) => {
    const partnerId = await partnerIdOf(t, ref);
    const made = await inTransaction(t.handle.db, (trx) => makeStatement(trx, { company, partnerId, period, issueDate: '2026-11-01', now: t.clock.now() }));
    assert.ok(made.outcome === 'made' && made.statement.status === 'issued');
    return made.statement.id;
  };
  const sentEvents = (id: string) =>
    t.handle.db.selectFrom('events').select('data').where('type', '=', 'commission_statement.sent').where('subject_id', '=', id).execute();
  const get = async (id: string) => (await t.request('GET', `/v1/commission-statements/${id}`)).json();
  /**
   * The outbox mailer, but a column the event shows changes while the mail is out (written
   * here directly; the status stays issued, so the statement is still marked sent).
   */
  const objectingWhileSending = (id: string, objectedAt: string): Mailer => {
    const inner = createMailer({ dataDir: t.dataDir, sealer });
    return {
      ...inner,
      send: async (to, mail) => {
        await t.handle.db
          .updateTable('commission_statements')
          .set({ objected_at: new Date(objectedAt) })
          .where('id', '=', id)
          .execute();
        return inner.send(to, mail);
      },
    };
  };
  /** Claims the due jobs: the statement's delivery job, and the others (run afterwards by runOthers). */
  const claimDelivery = async (id: string) => {
    const claimed = await claimJobs(t.handle.db, { workerId: 'test', now: t.clock.now(), limit: 100, leaseMs: 60_000, companyId: t.company.companyId });
    const job = claimed.find((j) => (j.payload as { statement_id?: string }).statement_id === id);
    assert.ok(job, 'the statement’s delivery job');
    return { job, others: claimed.filter((j) => j.id !== job.id) };
  };
  /** The other claimed jobs (statements mailed already) end as before: nothing more to do. */
  const runOthers = async (others: JobRow[]) => {
    const mailer = createMailer({ dataDir: t.dataDir, sealer });
    for (const other of others) assert.equal(await runJob({ db: t.handle.db, clock: t.clock, mailer, services: { invoicing: t.invoicing } }, other), 'done');
  };

  test('one read, the files stored with the mail started in one statement, then sent and its event in one statement; the event equals GET', async () => {
    const id = await issued('one');
    const { db, statements } = recording(t.handle.db);
    const mailer = createMailer({ dataDir: t.dataDir, sealer });
    const outcome = await mailStatement({ db, clock: t.clock, mailer, renderStatement: t.invoicing.renderStatement }, t.company.companyId, id);
    assert.deepEqual(outcome, { outcome: 'sent' });
    assert.deepEqual(statements, [
      'select commission_statements',
      'with update commission_statements + insert commission_statement_files',
      'with update commission_statements + insert events',
    ]);
    const stored = await t.handle.db.selectFrom('commission_statements').select('mail_started_at').where('id', '=', id).executeTakeFirstOrThrow();
    assert.equal(stored.mail_started_at?.toISOString(), t.clock.now().toISOString(), 'the mail was started with the files');
    const view = await get(id);
    assert.equal(view.status, 'sent');
    assert.equal(view.sent_to, 'one@partner.example');
    assert.deepEqual(
      (await sentEvents(id)).map((e) => e.data),
      [view],
    );
    // Delivered again (a job run twice): nothing is mailed or recorded twice.
    assert.deepEqual(await mailStatement({ db: t.handle.db, clock: t.clock, mailer, renderStatement: t.invoicing.renderStatement }, t.company.companyId, id), {
      outcome: 'unchanged',
    });
    assert.equal((await sentEvents(id)).length, 1);
  });

  test('a statement changed while its mail was out: the event is built from the row as written, still equal to GET, and written once', async () => {
    const id = await issued('two');
    const mailer = objectingWhileSending(id, '2026-11-01T12:00:01Z');
    const { db, statements } = recording(t.handle.db);
    assert.deepEqual(await mailStatement({ db, clock: t.clock, mailer, renderStatement: t.invoicing.renderStatement }, t.company.companyId, id), {
      outcome: 'sent',
    });
    assert.deepEqual(statements.slice(-3), ['with update commission_statements + insert events', 'update commission_statements', 'insert events']);
    const view = await get(id);
    assert.equal(view.objected_at, '2026-11-01T12:00:01.000Z');
    assert.deepEqual(
      (await sentEvents(id)).map((e) => e.data),
      [view],
    );
  });

  test('the delivery job ends in the statement that marks the statement sent: no write of the runner after it', async () => {
    const id = await issued('three');
    const mailer = createMailer({ dataDir: t.dataDir, sealer });
    const { job, others } = await claimDelivery(id);
    const { db, statements } = recording(t.handle.db);
    assert.equal(await runJob({ db, clock: t.clock, mailer, services: { invoicing: t.invoicing } }, job), 'done');
    assert.deepEqual(statements, [
      'select commission_statements',
      'with update commission_statements + insert commission_statement_files',
      'with update commission_statements + insert events + update jobs',
    ]);
    const row = await t.handle.db.selectFrom('jobs').select(['status', 'finished_at']).where('id', '=', job.id).executeTakeFirstOrThrow();
    assert.equal(row.status, 'done');
    assert.equal(row.finished_at?.toISOString(), t.clock.now().toISOString());
    assert.equal((await get(id)).status, 'sent');
    await runOthers(others);
  });

  test('a statement changed while the job’s mail was out: the job ends in the transaction that writes the event from the row as written', async () => {
    const id = await issued('four');
    const mailer = objectingWhileSending(id, '2026-11-01T12:00:02Z');
    const { job, others } = await claimDelivery(id);
    const { db, statements } = recording(t.handle.db);
    assert.equal(await runJob({ db, clock: t.clock, mailer, services: { invoicing: t.invoicing } }, job), 'done');
    assert.deepEqual(statements.slice(-4), [
      'with update commission_statements + insert events + update jobs',
      'update commission_statements',
      'insert events',
      'update jobs',
    ]);
    const view = await get(id);
    assert.equal(view.objected_at, '2026-11-01T12:00:02.000Z');
    assert.deepEqual(
      (await sentEvents(id)).map((e) => e.data),
      [view],
    );
    assert.equal((await t.handle.db.selectFrom('jobs').select('status').where('id', '=', job.id).executeTakeFirstOrThrow()).status, 'done');
    await runOthers(others);
  });
});
