import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runDueWork } from '../../src/jobs/index.ts';
import type { Actor } from '../../src/modules/audit/audit-log.ts';
import '../../src/modules/dunning/index.ts';
import { cancelInvoice, createAppDraft, type InvoicingDeps, sendInvoice } from '../../src/modules/invoicing/index.ts';
import { issueDraft } from '../../src/modules/invoicing/issue-draft.ts';
import { createMailer } from '../../src/modules/mail/index.ts';
import { sealer, type TestApp, testApp } from '../helpers/app.ts';
import { camt, importFile, issueInvoice } from '../payments/helpers.ts';
import { invoiceBody, postInvoice, putCustomer } from './helpers.ts';

// Interface §1: invoices written in the app are not visible to the API. Every /v1 route that
// reads or acts on invoices answers for an app invoice exactly as for an unknown one; the
// change feed and lists leave it out; no webhook event of one is ever written (migration
// 0026 drops it at the outbox, whichever module writes it). They stay real invoices: one
// gapless number range with the API's, paid on the bank import, overdue and dunned.

const UNKNOWN = 'inv_00000000000000000000000000';

describe('invoices written in the app are invisible to the API', () => {
  let t: TestApp;
  let deps: InvoicingDeps;
  let actor: Actor & { email: string };
  const app: Record<string, { id: string; number?: string }> = {};

  const draft = async (overrides: Record<string, unknown> = {}) =>
    createAppDraft(
      deps,
      t.company.companyId,
      {
        customer: { source: 'crm', external_ref: 'kunde-1' },
        lines: [{ description: 'Beratung vor Ort', quantity: '2', unit: 'Stunde', unit_price_net: '100.00', vat_rate: 19 }],
        service_period: { start: '2026-11-01', end: '2026-11-20' },
        ...overrides,
      },
      actor,
    );
  const issued = async (overrides: Record<string, unknown> = {}) => {
    const { id } = await draft(overrides);
    const view = await issueDraft(deps, t.company.companyId, id, { confirmDomesticSupply: false, actor });
    return { id, number: view.number as string };
  };
  const eventsOf = async (ids: string[]) =>
    (await t.handle.db.selectFrom('events').select(['type', 'subject_id']).where('subject_id', 'in', ids).orderBy('seq').execute()).map(
      (e) => `${e.subject_id === ids[0] ? 'first' : e.subject_id}:${e.type}`,
    );
  const notFoundBody = async (method: string, suffix = '') => (await t.request(method, `/v1/invoices/${UNKNOWN}${suffix}`)).body;

  before(async () => {
    t = await testApp();
    await putCustomer(t, 'kunde-1');
    deps = { ...t.invoicing, db: t.handle.db, clock: t.clock };
    actor = { userId: t.company.userId, organizationId: t.company.organizationId, companyId: t.company.companyId, email: t.company.adminEmail };
    // The number range: an API invoice first, then an app invoice, then the API again.
    const first = await issueInvoice(t, 'api-1', { payment_terms_days: 3 });
    assert.equal(first.number, 'RE-2026-00001');
    app.issued = await issued({ note: 'Ihre Bestellung 4711' });
    app.draft = { id: (await draft({ external_ref: 'hand-1' })).id };
    app.mailed = await issued();
    app.paid = await issued();
    app.cancelled = await issued();
    const cancelled = await cancelInvoice(deps, t.company.companyId, app.cancelled.id, actor);
    app.storno = { id: cancelled.storno.id, number: cancelled.storno.number as string };
    app.late = await issued({ payment_terms_days: 3 });
  });
  after(() => t.close());

  test('app invoices take their numbers from the one gapless range the API uses', async () => {
    assert.equal(app.issued?.number, 'RE-2026-00002');
    assert.deepEqual(
      [app.mailed?.number, app.paid?.number, app.cancelled?.number, app.storno?.number, app.late?.number],
      ['RE-2026-00003', 'RE-2026-00004', 'RE-2026-00005', 'RE-2026-00006', 'RE-2026-00007'],
    );
    const next = await issueInvoice(t, 'api-2');
    assert.equal(next.number, 'RE-2026-00008');
    const origins = await t.handle.db.selectFrom('invoices').select(['id', 'origin']).where('company_id', '=', t.company.companyId).execute();
    for (const ref of Object.values(app)) assert.equal(origins.find((o) => o.id === ref.id)?.origin, 'app', 'the storno of an app invoice is one too');
  });

  test('GET by id, PDF, XML, send and cancel answer as for an unknown invoice; nothing is mailed or cancelled', async () => {
    const ids = [app.issued?.id, app.draft?.id, app.storno?.id] as string[];
    for (const id of ids) {
      for (const [method, suffix] of [
        ['GET', ''],
        ['GET', '/pdf'],
        ['GET', '/xml'],
        ['POST', '/send'],
        ['POST', '/cancel'],
      ] as const) {
        const res = await t.request(method, `/v1/invoices/${id}${suffix}`);
        assert.equal(res.statusCode, 404, `${method} ${suffix} of ${id}`);
        assert.equal(res.body, await notFoundBody(method, suffix), `${method} ${suffix}: the same answer as an unknown id`);
      }
    }
    const row = await t.handle.db
      .selectFrom('invoices')
      .select(['status', 'sent_at'])
      .where('id', '=', app.issued?.id as string)
      .executeTakeFirstOrThrow();
    assert.deepEqual(row, { status: 'issued', sent_at: null });
    assert.equal(
      await t.handle.db
        .selectFrom('invoice_mail_attempts')
        .select('id')
        .where('invoice_id', '=', app.issued?.id as string)
        .executeTakeFirst(),
      undefined,
    );
  });

  test('the list and the change feed leave them out, with every filter and page', async () => {
    const seen = new Set<string>();
    for (const query of [
      '',
      '?status=draft',
      '?status=issued',
      '?status=cancelled',
      '?type=storno',
      '?changed_since=2026-01-01T00:00:00Z',
      '?customer_source=crm&customer_ref=kunde-1',
    ]) {
      let url = `/v1/invoices${query}${query ? '&' : '?'}limit=2`;
      for (let page = 0; page < 20 && url; page++) {
        const res = await t.request('GET', url);
        assert.equal(res.statusCode, 200, res.body);
        const body = res.json() as { data: { id: string }[]; next_cursor: string | null };
        for (const invoice of body.data) seen.add(invoice.id);
        url = body.next_cursor ? `/v1/invoices${query}${query ? '&' : '?'}limit=2&cursor=${body.next_cursor}` : '';
      }
    }
    assert.ok(seen.size >= 2, 'the API invoices are listed');
    for (const ref of Object.values(app)) assert.ok(!seen.has(ref.id), `${ref.id} is not listed`);
  });

  test('a reference of an app draft is no reference of the API: by-ref finds nothing, POST /invoices takes it', async () => {
    const byRef = await t.request('GET', '/v1/invoices/by-ref/crm/hand-1');
    assert.equal(byRef.statusCode, 404);
    assert.equal(byRef.json().detail.code, 'invoice_not_found');
    const created = await postInvoice(t, invoiceBody('hand-1'));
    assert.equal(created.statusCode, 201, 'no 409 invoice_external_ref_exists naming the app draft');
    assert.notEqual(created.json().id, app.draft?.id);
    assert.equal(
      await t.handle.db
        .selectFrom('idempotency_keys')
        .select('key')
        .where(
          'invoice_id',
          'in',
          Object.values(app).map((a) => a.id),
        )
        .executeTakeFirst(),
      undefined,
    );
  });

  test('no webhook event for an app invoice — issued, sent, paid, overdue, dunned, cancelled — while API invoices keep theirs', async () => {
    await sendInvoice(deps, t.company.companyId, app.mailed?.id as string, { actor });
    const mailed = await t.handle.db
      .selectFrom('invoices')
      .select(['status', 'sent_at'])
      .where('id', '=', app.mailed?.id as string)
      .executeTakeFirstOrThrow();
    assert.equal(mailed.status, 'sent');
    assert.ok(readdirSync(path.join(t.dataDir, 'outbox', t.company.companyId)).some((name) => name.includes(app.mailed?.number as string)));
    // The bank import pays an app invoice like any other.
    const gross = '238.00';
    const imported = await importFile(t, camt([{ amount: gross, text: `Rechnung ${app.paid?.number}` }], { id: 'HIDDEN' }));
    assert.equal(imported.totals.matched, 1);
    const paid = await t.handle.db
      .selectFrom('invoices')
      .select(['status', 'amount_paid_cents'])
      .where('id', '=', app.paid?.id as string)
      .executeTakeFirstOrThrow();
    assert.deepEqual(paid, { status: 'paid', amount_paid_cents: 23800 });
    // Overdue the day after its due date (3 days' terms), the payment reminder 7 days later.
    const mailer = createMailer({ dataDir: t.dataDir, sealer });
    for (const day of ['2026-11-25', '2026-12-01']) {
      t.clock.set(`${day}T12:00:00Z`);
      await runDueWork({ db: t.handle.db, clock: t.clock, mailer, services: { invoicing: t.invoicing } }, { asOf: day, companyId: t.company.companyId });
    }
    mailer.close();
    const late = await t.handle.db
      .selectFrom('invoices')
      .select(['overdue', 'dunning_level'])
      .where('id', '=', app.late?.id as string)
      .executeTakeFirstOrThrow();
    assert.deepEqual(late, { overdue: true, dunning_level: 0 });
    const notices = await t.handle.db
      .selectFrom('dunning_notices')
      .select(['level', 'status'])
      .where('invoice_id', '=', app.late?.id as string)
      .execute();
    assert.deepEqual(notices, [{ level: 0, status: 'sent' }]);

    const appIds = Object.values(app).map((a) => a.id);
    assert.deepEqual(await eventsOf(appIds), [], 'not one event of an app invoice');
    // An API invoice through the same steps has every event.
    const api = await t.handle.db.selectFrom('invoices').select('id').where('external_ref', '=', 'api-1').executeTakeFirstOrThrow();
    const apiEvents = await eventsOf([api.id]);
    assert.ok(apiEvents.includes('first:invoice.issued') && apiEvents.includes('first:invoice.overdue'), apiEvents.join(', '));
  });
});
