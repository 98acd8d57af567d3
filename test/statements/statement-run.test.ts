import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runDueWork } from '../../src/jobs/index.ts';
import { createMailer } from '../../src/modules/mail/index.ts';
import { cancelStatement, issueDraftStatement, markStatementPaid, objectToStatement, StatementError } from '../../src/modules/statements/index.ts';
import { balanceAgainstEntries, partnerBalance, postEvent, putPartner } from '../commissions/helpers.ts';
import { countRows, sealer, type TestApp, testApp } from '../helpers/app.ts';
import { putCustomer } from '../invoicing/helpers.ts';
import { putTenPercentOfAll } from './self-billing-setup.ts';

// The statement run (issue 14, point 6): after a cadence period ends, one statement per
// partner with enough open; its kind and VAT from the partner; GS-/AB- numbers; booked;
// PDF (and e-invoice for a Gutschrift) stored; mailed when the partner has an e-mail; the
// person-side steps (issue a draft, cancel, objection, mark paid) with their events.

const ADDRESS = { street: 'Hafenstraße', house_number: '3', zip: '20457', city: 'Hamburg', country_code: 'DE' };

describe('the statement run', () => {
  let t: TestApp;
  const ids = new Map<string, string>();
  const run = async (day: string) => {
    t.clock.set(`${day}T12:00:00Z`);
    const mailer = createMailer({ dataDir: t.dataDir, sealer });
    return runDueWork(
      { db: t.handle.db, clock: t.clock, mailer, services: { invoicing: t.invoicing } },
      { asOf: day, companyId: t.company.companyId, log: () => {} },
    );
  };
  const statements = () => t.handle.db.selectFrom('commission_statements').selectAll().where('company_id', '=', t.company.companyId).orderBy('seq').execute();
  const outbox = () => {
    const dir = path.join(t.dataDir, 'outbox', t.company.companyId);
    try {
      return readdirSync(dir).map((name) => readFileSync(path.join(dir, name), 'utf8'));
    } catch {
      return [];
    }
  };

  before(async () => {
    t = await testApp();
    await putCustomer(t, 'kunde-1');
    const partners: [string, Record<string, unknown>][] = [
      [
        'gs',
        {
          name: 'Vertrieb Nord GmbH',
          email: 'abrechnung@nord.example',
          tax_status: 'domestic_regular',
          billing_mode: 'self_billing',
          self_billing_agreed_on: '2026-01-15',
          vat_id: 'DE136695976',
          ...ADDRESS,
        },
      ],
      ['private', { name: 'Erika Empfehlung', tax_status: 'private_person', billing_mode: 'settlement', ...ADDRESS }],
      [
        'small',
        {
          name: 'Kleinunternehmer Klein',
          email: 'klein@klein.example',
          tax_status: 'domestic_small_business',
          billing_mode: 'self_billing',
          self_billing_agreed_on: '2026-02-01',
          tax_number: '2181508150',
          ...ADDRESS,
        },
      ],
      ['minimum', { name: 'Mindestbetrag AG', tax_status: 'domestic_regular', billing_mode: 'partner_invoice', min_payout_cents: 100000, ...ADDRESS }],
    ];
    for (const [ref, body] of partners) {
      ids.set(ref, await putPartner(t, ref, body));
      await putTenPercentOfAll(t, ref, { name: `Vereinbarung ${ref}` });
    }
    // October revenue: 1,000.00 and 234.56 → 10 % = 123.46 per partner (100.00 + 23.46 (23.456)).
    for (const [ref, amount] of [
      ['oct-1', '1000.00'],
      ['oct-2', '234.56'],
    ]) {
      const res = await postEvent(t, {
        external_ref: ref,
        occurred_at: '2026-10-15T10:00:00Z',
        net_amount: amount,
        customer: { source: 'crm', external_ref: 'kunde-1' },
      });
      assert.equal(res.statusCode, 201, res.body);
    }
    // November revenue stays open after the October statement.
    await postEvent(t, { external_ref: 'nov-1', occurred_at: '2026-11-02T10:00:00Z', net_amount: '50.00' });
  });
  after(() => t.close());

  test('after the month ends: one statement per partner with enough open, kind and VAT from the partner', async () => {
    await run('2026-10-31');
    assert.equal((await statements()).length, 0, 'the month has not ended yet');
    await run('2026-11-01');
    const made = await statements();
    assert.equal(made.length, 3, 'the partner below its minimum payout gets none');
    const of = (ref: string) => made.find((s) => s.partner_id === ids.get(ref)) as (typeof made)[number];
    const gs = of('gs');
    assert.deepEqual(
      [
        gs.kind,
        gs.status,
        gs.number,
        gs.issue_date,
        gs.period_start,
        gs.period_end,
        Number(gs.net_cents),
        Number(gs.vat_cents),
        Number(gs.gross_cents),
        gs.tax_note,
        gs.e_invoice_format,
      ],
      ['self_billing', 'sent', 'GS-2026-00001', '2026-11-01', '2026-10-01', '2026-10-31', 12346, 2346, 14692, 'regular', 'zugferd'],
    );
    const settlement = of('private');
    assert.deepEqual(
      [settlement.kind, settlement.status, settlement.number, Number(settlement.vat_cents), settlement.tax_note],
      ['settlement', 'issued', 'AB-2026-00001', 0, 'private_person'],
    );
    const small = of('small');
    assert.deepEqual([small.kind, small.number, Number(small.vat_cents), small.tax_note], ['self_billing', 'GS-2026-00002', 0, 'small_business']);
    // Entries statemented, balances moved; November's stays open.
    assert.deepEqual(await partnerBalance(t, 'gs'), { open: 500, statemented: 12346, paid: 0 });
    assert.deepEqual(await partnerBalance(t, 'minimum'), { open: 12346 + 500, statemented: 0, paid: 0 });
    for (const id of ids.values()) {
      const check = await balanceAgainstEntries(t, id);
      assert.deepEqual(check.kept, check.summed);
    }
    // The same day again makes nothing new.
    await run('2026-11-01');
    await run('2026-11-02');
    assert.equal((await statements()).length, 3);
  });

  test('the API shows issued statements and their PDF; the Gutschrift carries every § 14 content and an e-invoice', async () => {
    const gs = (await statements()).find((s) => s.number === 'GS-2026-00001') as { id: string };
    const res = await t.request('GET', `/v1/commission-statements/${gs.id}`);
    assert.equal(res.statusCode, 200, res.body);
    const view = res.json();
    assert.equal(view.partner_name, 'Vertrieb Nord GmbH');
    assert.equal(view.has_pdf, true);
    assert.equal(view.has_xml, true);
    assert.equal(view.sent_to, 'abrechnung@nord.example');
    assert.equal(view.lines.length, 1);
    assert.equal(view.lines[0].entry_count, 2);
    const pdf = await t.request('GET', `/v1/commission-statements/${gs.id}/pdf`);
    assert.equal(pdf.statusCode, 200);
    assert.equal(pdf.headers['content-type'], 'application/pdf');
    const file = path.join(tmpdir(), `statement-${process.pid}.pdf`);
    writeFileSync(file, pdf.rawPayload);
    const text = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
    for (const expected of ['Gutschrift', 'GS-2026-00001', 'Vertrieb Nord GmbH', 'DE136695976', '146,92', '23,46', '123,46'])
      assert.ok(text.includes(expected), `PDF lacks ${expected}`);
    const list = await t.request('GET', '/v1/commission-statements?partner_source=crm&partner_ref=gs');
    assert.deepEqual(
      list.json().data.map((s: { number: string }) => s.number),
      ['GS-2026-00001'],
    );
    const missing = await t.request('GET', '/v1/commission-statements/cst_00000000000000000000000000');
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.json().detail.code, 'commission.statement_not_found');
    const mails = outbox();
    assert.equal(mails.length, 2, 'mailed to the two partners with an e-mail address');
    assert.ok(mails.some((mail) => mail.includes('Subject: Gutschrift GS-2026-00001')));
    const events = await t.handle.db.selectFrom('events').select('type').where('type', 'like', 'commission_statement.%').execute();
    assert.equal(events.filter((e) => e.type === 'commission_statement.issued').length, 3);
    assert.equal(events.filter((e) => e.type === 'commission_statement.sent').length, 2);
    // The event carries the statement as GET answers it once sent: partner name, files, address.
    const sentEvent = await t.handle.db
      .selectFrom('events')
      .select('data')
      .where('type', '=', 'commission_statement.sent')
      .where('subject_id', '=', gs.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(sentEvent.data, view);
  });

  test('cancel: a cancelling statement with its own number, entries open again; mark-paid and objection', async () => {
    const made = await statements();
    const settlement = made.find((s) => s.number === 'AB-2026-00001') as { id: string };
    const cancelled = await cancelStatement({ db: t.handle.db, clock: t.clock }, settlement.id);
    assert.equal(cancelled.statement.status, 'cancelled');
    assert.equal(cancelled.cancellation?.number, 'AB-2026-00002');
    assert.equal(cancelled.cancellation?.gross_cents, -12346);
    assert.deepEqual(await partnerBalance(t, 'private'), { open: 12346 + 500, statemented: 0, paid: 0 });
    await assert.rejects(cancelStatement({ db: t.handle.db, clock: t.clock }, cancelled.cancellation?.id as string), StatementError);

    const small = made.find((s) => s.number === 'GS-2026-00002') as { id: string };
    const paid = await markStatementPaid({ db: t.handle.db, clock: t.clock }, small.id);
    assert.ok(paid.statement.paid_at);
    assert.deepEqual(await partnerBalance(t, 'small'), { open: 500, statemented: 0, paid: 12346 });
    await assert.rejects(cancelStatement({ db: t.handle.db, clock: t.clock }, small.id), /paid/);

    const gs = made.find((s) => s.number === 'GS-2026-00001') as { id: string };
    const objected = await objectToStatement({ db: t.handle.db, clock: t.clock }, gs.id);
    assert.equal(objected.statement.status, 'objected');
    assert.deepEqual(await partnerBalance(t, 'gs'), { open: 12346 + 500, statemented: 0, paid: 0 });
    const partner = await t.request('GET', '/v1/commission-partners/by-ref/crm/gs');
    assert.ok(partner.json().self_billing_objected_at);
    // From now on the partner is asked to invoice: the November run makes a partner_invoice statement.
    await run('2026-12-01');
    const december = (await statements()).filter((s) => s.partner_id === ids.get('gs') && s.period_end === '2026-11-30');
    assert.deepEqual(
      december.map((s) => [s.kind, s.number, Number(s.net_cents)]),
      [['partner_invoice', 'AB-2026-00003', 12346 + 500]],
    );
    for (const id of ids.values()) {
      const check = await balanceAgainstEntries(t, id);
      assert.deepEqual(check.kept, check.summed);
    }
    const events = await t.handle.db
      .selectFrom('events')
      .select('type')
      .where('type', 'in', ['commission_statement.cancelled', 'commission_statement.objected', 'commission_statement.paid'])
      .execute();
    assert.deepEqual(events.map((e) => e.type).sort(), ['commission_statement.cancelled', 'commission_statement.objected', 'commission_statement.paid']);
  });

  test('with statements_need_review the run makes drafts that a person issues', async () => {
    await t.handle.db.updateTable('companies').set({ statements_need_review: true }).where('id', '=', t.company.companyId).execute();
    await postEvent(t, { external_ref: 'dec-1', occurred_at: '2026-12-05T10:00:00Z', net_amount: '100.00' });
    await run('2027-01-01');
    const drafts = (await statements()).filter((s) => s.status === 'draft');
    assert.ok(drafts.some((d) => d.kind === 'partner_invoice') && drafts.some((d) => d.kind !== 'partner_invoice'), JSON.stringify(drafts.map((d) => d.kind)));
    const hidden = await t.request('GET', `/v1/commission-statements/${drafts[0]?.id}`);
    assert.equal(hidden.statusCode, 404);
    for (const draft of drafts) {
      const before = await countRows(t.handle, 'journal_entries');
      const issued = await issueDraftStatement({ db: t.handle.db, clock: t.clock }, draft.id);
      assert.equal(issued.statement.status, 'issued');
      assert.match(issued.statement.number as string, /^(GS|AB)-2027-0000[12]$/);
      // A request to invoice is no accounting document: the partner's invoice is booked when it comes.
      assert.equal(await countRows(t.handle, 'journal_entries'), before + (draft.kind === 'partner_invoice' ? 0 : 1), draft.kind);
    }
  });
});
