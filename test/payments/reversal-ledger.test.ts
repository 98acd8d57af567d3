import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assignBankTransaction } from '../../src/modules/payments/index.ts';
import { balanceAgainstEntries, listEntries, partnerBalance, putAgreement, putAttribution, putPartner } from '../commissions/helpers.ts';
import { type TestApp, testApp } from '../helpers/app.ts';
import { putCustomer } from '../invoicing/helpers.ts';
import { camt, importFile, issueInvoice } from './helpers.ts';

// Issue 24, point 3, end to end with the revenue share: money a bank debit takes back from
// an invoice takes the partner's share of the refunded net back at the percent the payment
// earned; a share still open and taken back in full is voided.
//
// Each invoice: 49.00 at 19 % + 2 × 12.50 at 7 % → net 74.00, gross 85.06. The customer is
// attributed to partner-p under an agreement of 10 %: paid in full it earns 10 % × 74.00 = 7.40.

describe('refunds and the revenue share', () => {
  let t: TestApp;
  let partnerId: string;
  let agreementId: string;
  let file = 0;
  const statement = (entries: Parameters<typeof camt>[0]) => {
    file += 1;
    return camt(entries, { id: `L-${file}`, msgId: `LMSG-${file}` });
  };
  const customer = { source: 'crm', external_ref: 'kunde-p' };
  const entriesOf = async (invoiceId: string) =>
    (await listEntries(t)).filter((e) => e.agreement_id === agreementId && e.source_id === invoiceId) as {
      id: string;
      amount_cents: number;
      basis_cents: number;
      percent: number;
      status: string;
      source_id: string | null;
      revenue_event_id: string;
    }[];

  before(async () => {
    t = await testApp();
    await putCustomer(t, 'kunde-p', { name: 'Provision GmbH' });
    partnerId = await putPartner(t, 'partner-p');
    agreementId = await putAgreement(t, 'agr-p', {
      partner_ref: 'partner-p',
      start_date: '2026-01-01',
      tiers: [{ from_month: 1, to_month: null, percent: 10 }],
    });
    await putAttribution(t, 'att-p', { agreement_ref: 'agr-p', customer, start_date: '2026-11-01' });
  });
  after(() => t.close());

  test('a full refund of a paid invoice voids the partner’s still-open share', async () => {
    const invoice = await issueInvoice(t, 'l-full', { customer });
    await importFile(t, statement([{ amount: '85.06', text: `Rechnung ${invoice.number}`, date: '2026-11-20' }]));
    // 10 % of 74.00 = 7.40, open.
    assert.deepEqual(await partnerBalance(t, 'partner-p'), { open: 740, statemented: 0, paid: 0 });
    await importFile(t, statement([{ amount: '85.06', indicator: 'DBIT', text: `Erstattung ${invoice.number}`, date: '2026-11-21' }]));
    assert.deepEqual(await partnerBalance(t, 'partner-p'), { open: 0, statemented: 0, paid: 0 });
    const mine = (await entriesOf(invoice.id)).filter((e) => e.status !== 'void' || e.amount_cents !== 0);
    // The payment's 7.40 is void (with its reversal, if one was written): nothing of it reaches a statement.
    assert.ok(mine.length > 0);
    assert.ok(
      mine.every((e) => e.status === 'void'),
      JSON.stringify(mine),
    );
    const check = await balanceAgainstEntries(t, partnerId);
    assert.deepEqual(check.kept, check.summed);
  });

  test('a partial refund takes back the share of the refunded net at the original percent', async () => {
    const invoice = await issueInvoice(t, 'l-part', { customer });
    await importFile(t, statement([{ amount: '85.06', text: `Rechnung ${invoice.number}`, date: '2026-11-20' }]));
    const before = await partnerBalance(t, 'partner-p');
    assert.equal(before.open, 740);
    // Half of the gross back: 42.53 of 85.06. Net taken back = 74.00 − round(74.00 × 42.53 / 85.06) = 74.00 − 37.00 = 37.00;
    // 10 % of 37.00 = 3.70.
    await importFile(t, statement([{ amount: '42.53', indicator: 'DBIT', text: `Teilerstattung ${invoice.number}`, date: '2026-11-21' }]));
    const after = await partnerBalance(t, 'partner-p');
    assert.equal(after.open, 740 - 370);
    const events = await t.handle.db
      .selectFrom('revenue_events')
      .select(['kind', 'net_cents', 'paid_on'])
      .where('invoice_id', '=', invoice.id)
      .orderBy('paid_on')
      .execute();
    assert.deepEqual(
      events.map((e) => [e.kind, Number(e.net_cents), e.paid_on]),
      [
        ['invoice_payment', 7400, '2026-11-20'],
        ['invoice_payment_reversal', -3700, '2026-11-21'],
      ],
    );
    const negative = (await entriesOf(invoice.id)).filter((e) => e.amount_cents < 0);
    assert.deepEqual(
      negative.map((e) => [e.amount_cents, e.basis_cents, e.percent, e.status]),
      [[-370, -3700, 10, 'open']],
    );
    const check = await balanceAgainstEntries(t, partnerId);
    assert.deepEqual(check.kept, check.summed);
  });

  test('a debit assigned by hand takes the share back the same way', async () => {
    const invoice = await issueInvoice(t, 'l-hand', { customer });
    await importFile(t, statement([{ amount: '85.06', text: `Rechnung ${invoice.number}`, date: '2026-11-20' }]));
    const before = (await partnerBalance(t, 'partner-p')).open;
    // A return without invoice number and unknown end-to-end reference: waits for a person.
    const result = await importFile(
      t,
      statement([
        { amount: '85.06', indicator: 'DBIT', reversal: true, returnReason: 'MD06', e2e: 'UNBEKANNT-1', text: 'Ruecklastschrift', date: '2026-11-22' },
      ]),
    );
    assert.equal(result.entries[0]!.status, 'unmatched');
    const entry = await t.handle.db.selectFrom('bank_entries').select('id').where('statement_id', '=', result.statement_id).executeTakeFirstOrThrow();
    await assignBankTransaction({ db: t.handle.db, clock: t.clock }, t.company.companyId, { entryId: entry.id, position: 1 }, invoice.number, {
      userId: t.company.userId,
      organizationId: t.company.organizationId,
      companyId: t.company.companyId,
      email: t.company.adminEmail,
    });
    // Its 7.40 is open and taken back in full: voided.
    assert.equal((await partnerBalance(t, 'partner-p')).open, before - 740);
    const check = await balanceAgainstEntries(t, partnerId);
    assert.deepEqual(check.kept, check.summed);
  });
});
