import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { inTransaction } from '../../src/db/transaction.ts';
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
// built from the row as written: it always equals GET.

describe('delivering a statement', () => {
  let t: TestApp;
  let company: CompanyRow;
  const period = { start: '2026-10-01', end: '2026-10-31' };

  before(async () => {
    t = await testApp({ now: '2026-11-01T12:00:00Z' });
    company = await selfBillingPartnersWithOctoberRevenue(t, ['one', 'two']);
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

  test('one read, the files stored, the mail started, then sent and its event in one statement; the event equals GET', async () => {
    const id = await issued('one');
    const { db, statements } = recording(t.handle.db);
    const mailer = createMailer({ dataDir: t.dataDir, sealer });
    const outcome = await mailStatement({ db, clock: t.clock, mailer, renderStatement: t.invoicing.renderStatement }, t.company.companyId, id);
    assert.equal(outcome, 'sent');
    assert.deepEqual(statements, [
      'select commission_statements',
      'insert commission_statement_files',
      'update commission_statements',
      'with update commission_statements + insert events',
    ]);
    const view = await get(id);
    assert.equal(view.status, 'sent');
    assert.equal(view.sent_to, 'one@partner.example');
    assert.deepEqual(
      (await sentEvents(id)).map((e) => e.data),
      [view],
    );
    // Delivered again (a job run twice): nothing is mailed or recorded twice.
    assert.equal(
      await mailStatement({ db: t.handle.db, clock: t.clock, mailer, renderStatement: t.invoicing.renderStatement }, t.company.companyId, id),
      'unchanged',
    );
    assert.equal((await sentEvents(id)).length, 1);
  });

  test('a statement changed while its mail was out: the event is built from the row as written, still equal to GET, and written once', async () => {
    const id = await issued('two');
    const inner = createMailer({ dataDir: t.dataDir, sealer });
    // A column the event shows changes while the mail is out (written here directly; the
    // status stays issued, so the statement is still marked sent).
    const mailer: Mailer = {
      ...inner,
      send: async (to, mail) => {
        await t.handle.db
          .updateTable('commission_statements')
          .set({ objected_at: new Date('2026-11-01T12:00:01Z') })
          .where('id', '=', id)
          .execute();
        return inner.send(to, mail);
      },
    };
    const { db, statements } = recording(t.handle.db);
    assert.equal(await mailStatement({ db, clock: t.clock, mailer, renderStatement: t.invoicing.renderStatement }, t.company.companyId, id), 'sent');
    assert.deepEqual(statements.slice(-3), ['with update commission_statements + insert events', 'update commission_statements', 'insert events']);
    const view = await get(id);
    assert.equal(view.objected_at, '2026-11-01T12:00:01.000Z');
    assert.deepEqual(
      (await sentEvents(id)).map((e) => e.data),
      [view],
    );
  });
});
