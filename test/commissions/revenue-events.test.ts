import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { prepareRevenueEvent } from '../../src/modules/commissions/revenue-event-input.ts';
import { RevenueEventWriter } from '../../src/modules/commissions/revenue-event-writer.ts';
import { countRows, type TestApp, testApp } from '../helpers/app.ts';
import { putCustomer } from '../invoicing/helpers.ts';
import { balanceAgainstEntries, listEntries, partnerBalance, postEvent, putAgreement, putPartner, putProduct } from './helpers.ts';

// createRevenueEvent (issue 14, point 4) and the ledger entries it writes (point 5): stored
// once per (source, external_ref), a repeat answers 200 with the first event; entries per
// qualifying agreement with the tier of the contract month; refunds negative at the
// original percent, voided with their revenue while open; every refusal writes nothing.
// The test clock stands at 2026-11-21; the company's time zone is Europe/Berlin.

describe('createRevenueEvent and its ledger entries', () => {
  let t: TestApp;
  let allId: string;
  let scopedId: string;
  let partnerA: string;
  let partnerB: string;
  const written = async () => ({
    events: await countRows(t.handle, 'revenue_events'),
    lines: await countRows(t.handle, 'revenue_event_lines'),
    entries: await countRows(t.handle, 'commission_entries'),
    anchors: await countRows(t.handle, 'commission_anchors'),
  });

  before(async () => {
    t = await testApp();
    await putCustomer(t, 'kunde-1');
    await putCustomer(t, 'kunde-2', { name: 'Zweite GmbH' });
    await putProduct(t, 'p-100', 'P-100');
    await putProduct(t, 'p-200', 'P-200');
    partnerA = await putPartner(t, 'partner-a');
    partnerB = await putPartner(t, 'partner-b');
    // A: 10 % on every customer's revenue in months 1–12 from the first paid revenue, 5 % after.
    allId = await putAgreement(t, 'all-a', {
      partner_ref: 'partner-a',
      start_date: '2025-01-01',
      applies_to: 'all_customers',
      tiers: [
        { from_month: 1, to_month: 12, percent: 10 },
        { from_month: 13, to_month: null, percent: 5 },
      ],
    });
    // B: 12.5 % of revenue of product P-100 only, every customer, from 2026-06-01.
    scopedId = await putAgreement(t, 'scoped-b', {
      partner_ref: 'partner-b',
      start_date: '2025-01-01',
      accrue_from: '2026-06-01',
      applies_to: 'all_customers',
      product_numbers: ['P-100'],
      tiers: [{ from_month: 1, to_month: null, percent: 12.5 }],
    });
  });
  after(() => t.close());

  test('an event is stored once and earns one entry per qualifying agreement', async () => {
    const body = {
      external_ref: 'pay-1',
      occurred_at: '2026-11-20T23:30:00Z', // 21 November in Berlin
      net_amount: '100.05',
      customer: { source: 'crm', external_ref: 'kunde-1' },
      description: 'Shop-Bestellung 4711',
      lines: [
        { net_amount: '80.05', product_number: 'P-100', description: 'Lizenz' },
        { net_amount: '20.00', product_ref: 'p-200' },
      ],
    };
    const res = await postEvent(t, body);
    assert.equal(res.statusCode, 201, res.body);
    const event = res.json();
    assert.equal(event.paid_on, '2026-11-21');
    assert.equal(event.net_amount, '100.05');
    assert.deepEqual(event.customer, { source: 'crm', external_ref: 'kunde-1' });
    assert.equal(event.lines.length, 2);
    const byAgreement = new Map(event.entries.map((e: { agreement_id: string }) => [e.agreement_id, e]));
    // 10 % of 100.05 = 10.005 → 10.01 (half up); 12.5 % of 80.05 = 10.00625 → 10.01.
    assert.deepEqual(byAgreement.get(allId), {
      id: (byAgreement.get(allId) as { id: string }).id,
      partner_id: partnerA,
      agreement_id: allId,
      contract_month: 1,
      percent: 10,
      basis_cents: 10005,
      amount_cents: 1001,
      status: 'open',
    });
    assert.equal((byAgreement.get(scopedId) as { basis_cents: number }).basis_cents, 8005);
    assert.equal((byAgreement.get(scopedId) as { amount_cents: number }).amount_cents, 1001);

    const before = await written();
    const repeat = await postEvent(t, { ...body, net_amount: '1.00', lines: undefined });
    assert.equal(repeat.statusCode, 200);
    assert.deepEqual(repeat.json(), event);
    assert.deepEqual(await written(), before);

    const entries = await listEntries(t, { partner_source: 'crm', partner_ref: 'partner-a' });
    const entry = entries.find((e) => e.revenue_event_id === event.id) as Record<string, unknown>;
    assert.equal(entry.source_type, 'revenue_event');
    assert.equal(entry.source_id, 'pay-1');
    assert.equal(entry.customer_name, 'Beispiel AG');
    assert.equal(entry.partner_name, 'Partner partner-a');
    assert.equal(entry.service_period_start, '2026-11-21');
    assert.equal(entry.paid_at, '2026-11-20T23:30:00.000Z');
    assert.equal(entry.statement_id, null);
  });

  test('the contract month counts from the first paid revenue and picks the tier', async () => {
    const first = await postEvent(t, {
      external_ref: 'k2-jan',
      occurred_at: '2026-01-15T10:00:00Z',
      net_amount: '50.00',
      customer: { source: 'crm', external_ref: 'kunde-2' },
    });
    assert.equal(first.statusCode, 201, first.body);
    const a1 = first.json().entries.find((e: { agreement_id: string }) => e.agreement_id === allId);
    assert.equal(a1.contract_month, 1);
    assert.equal(a1.percent, 10);
    // Before accrue_from of B: nothing for B.
    assert.equal(first.json().entries.length, 1);
    const later = await postEvent(t, {
      external_ref: 'k2-2027-jan',
      occurred_at: '2027-01-04T10:00:00Z',
      net_amount: '50.00',
      customer: { source: 'crm', external_ref: 'kunde-2' },
    });
    const a13 = later.json().entries.find((e: { agreement_id: string }) => e.agreement_id === allId);
    assert.equal(a13.contract_month, 13);
    assert.equal(a13.percent, 5);
    assert.equal(a13.amount_cents, 250);
    // Revenue without a customer has its own anchor.
    const anonymous = await postEvent(t, { external_ref: 'anon-1', occurred_at: '2026-03-01T10:00:00Z', net_amount: '10.00' });
    assert.equal(anonymous.json().entries[0].contract_month, 1);
    assert.equal(anonymous.json().customer, null);
  });

  test('a refund writes negative entries at the original percent; a full refund of open entries voids both', async () => {
    const sale = await postEvent(t, {
      external_ref: 'sale-r',
      occurred_at: '2026-11-21T09:00:00Z',
      net_amount: '200.00',
      customer: { source: 'crm', external_ref: 'kunde-1' },
    });
    assert.equal(sale.statusCode, 201, sale.body);
    const original = sale.json().entries[0];
    assert.equal(original.amount_cents, 2000);
    const balanceBefore = await partnerBalance(t, 'partner-a');

    const part = await postEvent(t, { external_ref: 'refund-r1', occurred_at: '2026-11-21T10:00:00Z', net_amount: '-50.00', reverses_ref: 'sale-r' });
    assert.equal(part.statusCode, 201, part.body);
    const partEntry = part.json().entries[0];
    assert.equal(partEntry.basis_cents, -5000);
    assert.equal(partEntry.amount_cents, -500);
    assert.equal(partEntry.percent, 10);
    assert.equal(partEntry.contract_month, original.contract_month);
    assert.equal(partEntry.status, 'open');
    assert.deepEqual(part.json().customer, { source: 'crm', external_ref: 'kunde-1' });
    assert.equal(part.json().reverses_ref, 'sale-r');
    assert.equal((await partnerBalance(t, 'partner-a')).open, balanceBefore.open - 500);

    const over = await postEvent(t, { external_ref: 'refund-r-over', occurred_at: '2026-11-21T10:00:00Z', net_amount: '-150.01', reverses_ref: 'sale-r' });
    assert.equal(over.statusCode, 422);
    assert.equal(over.json().detail.code, 'validation_failed');
    assert.deepEqual(over.json().detail.errors[0].loc, ['body', 'net_amount']);

    const rest = await postEvent(t, { external_ref: 'refund-r2', occurred_at: '2026-11-21T11:00:00Z', net_amount: '-150.00', reverses_ref: 'sale-r' });
    assert.equal(rest.statusCode, 201, rest.body);
    assert.equal(rest.json().entries[0].amount_cents, -1500);
    assert.equal(rest.json().entries[0].status, 'void');
    const statuses = await t.handle.db.selectFrom('commission_entries').select(['id', 'status']).where('id', 'in', [original.id, partEntry.id]).execute();
    assert.deepEqual(statuses.map((s) => s.status).sort(), ['void', 'void']);
    assert.equal((await partnerBalance(t, 'partner-a')).open, balanceBefore.open - 2000);
    const check = await balanceAgainstEntries(t, partnerA);
    assert.deepEqual(check.kept, check.summed);
  });

  test('refusals write nothing', async () => {
    const base = { occurred_at: '2026-11-21T09:00:00Z', net_amount: '10.00' };
    const cases: [Record<string, unknown>, number, string, unknown?][] = [
      [{ ...base, external_ref: 'x1', net_amount: '10.005' }, 422, 'validation_failed', ['body', 'net_amount']],
      [{ ...base, external_ref: 'x2', currency: 'USD' }, 422, 'validation_failed', ['body', 'currency']],
      [{ ...base, external_ref: 'x3', net_amount: '-10.00' }, 422, 'validation_failed', ['body', 'net_amount']],
      [{ ...base, external_ref: 'x4', lines: [{ net_amount: '9.99' }] }, 422, 'commission.revenue_lines_do_not_add_up'],
      [{ ...base, external_ref: 'x5', customer: { source: 'crm', external_ref: 'nobody' } }, 404, 'customer_not_found'],
      [{ ...base, external_ref: 'x6', lines: [{ net_amount: '10.00', product_number: 'NOPE' }] }, 404, 'commission.product_not_found'],
      [{ ...base, external_ref: 'x7', net_amount: '-1.00', reverses_ref: 'never-sold' }, 404, 'commission.revenue_event_not_found'],
      [{ ...base, external_ref: 'x8', iban: 'DE02120300000000202051' }, 422, 'validation_failed', ['body', 'iban']],
      [{ ...base, external_ref: 'x9', net_amount: 10 }, 422, 'validation_failed', ['body', 'net_amount']],
      [{ ...base, external_ref: 'x10', net_amount: '1000000000.00' }, 422, 'validation_failed', ['body', 'net_amount']],
    ];
    const before = await written();
    const balance = await partnerBalance(t, 'partner-a');
    for (const [body, status, code, loc] of cases) {
      const res = await postEvent(t, body);
      assert.equal(res.statusCode, status, `${body.external_ref}: ${res.body}`);
      assert.equal(res.json().detail.code, code, body.external_ref as string);
      if (loc) assert.deepEqual(res.json().detail.errors[0].loc, loc, body.external_ref as string);
    }
    const unknownProduct = await postEvent(t, {
      ...base,
      external_ref: 'x11',
      lines: [
        { net_amount: '5.00', product_number: 'NOPE-2' },
        { net_amount: '5.00', product_ref: 'nope-ref' },
      ],
    });
    assert.deepEqual(unknownProduct.json().detail.product_numbers, ['NOPE-2']);
    assert.deepEqual(unknownProduct.json().detail.product_refs, ['nope-ref']);
    assert.deepEqual(await written(), before);
    assert.deepEqual(await partnerBalance(t, 'partner-a'), balance);
    const noScope = await postEvent(t, { ...base, external_ref: 'x12' }, await t.newKey({ scopes: ['partner:invoices:write'] }));
    assert.equal(noScope.statusCode, 403);
    assert.equal(noScope.json().detail.scope, 'partner:commissions:write');
  });

  test('concurrent events each write once; concurrent repeats of one reference give one event', async () => {
    const before = await partnerBalance(t, 'partner-a');
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        postEvent(t, {
          external_ref: `burst-${i % 30}`,
          occurred_at: '2026-11-21T12:00:00Z',
          net_amount: '10.00',
          customer: { source: 'crm', external_ref: 'kunde-1' },
        }),
      ),
    );
    assert.deepEqual(answers.map((a) => a.statusCode).sort(), [...Array(10).fill(200), ...Array(30).fill(201)].sort());
    const ids = new Set(answers.map((a) => a.json().id));
    assert.equal(ids.size, 30);
    // Partner A: 10 % of 10.00 per event, 30 events.
    assert.equal((await partnerBalance(t, 'partner-a')).open, before.open + 30 * 100);
    for (const id of [partnerA, partnerB]) {
      const check = await balanceAgainstEntries(t, id);
      assert.deepEqual(check.kept, check.summed);
    }
  });

  test('a refund in the same burst as its sale is written after it', async () => {
    const [sale, refund] = await Promise.all([
      postEvent(t, { external_ref: 'same-burst', occurred_at: '2026-11-21T12:00:00Z', net_amount: '30.00' }),
      postEvent(t, { external_ref: 'same-burst-refund', occurred_at: '2026-11-21T12:05:00Z', net_amount: '-30.00', reverses_ref: 'same-burst' }),
    ]);
    assert.equal(sale.statusCode, 201, sale.body);
    assert.equal(refund.statusCode, 201, refund.body);
    assert.equal(refund.json().reverses_id, sale.json().id);
    assert.ok(refund.json().entries.every((e: { status: string }) => e.status === 'void'));
  });

  test('sales and refunds in overlapping bursts: every refund after its sale, balances equal the entries', async () => {
    // Waves of sales one event-loop turn apart, so that batches overlap in flight; every
    // third sale is refunded in full as soon as it is answered, while later waves are written.
    const answers: Promise<Awaited<ReturnType<typeof postEvent>>>[] = [];
    for (let wave = 0; wave < 6; wave++) {
      for (let i = 0; i < 15; i++) {
        const n = wave * 15 + i;
        const sale = postEvent(t, {
          external_ref: `wave-${n}`,
          occurred_at: '2026-11-21T12:00:00Z',
          net_amount: '12.34',
          customer: { source: 'crm', external_ref: 'kunde-2' },
        });
        answers.push(sale);
        if (i % 3 === 0)
          answers.push(
            sale.then(() =>
              postEvent(t, { external_ref: `wave-refund-${n}`, occurred_at: '2026-11-21T13:00:00Z', net_amount: '-12.34', reverses_ref: `wave-${n}` }),
            ),
          );
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    const settled = await Promise.all(answers);
    for (const answer of settled) assert.equal(answer.statusCode, 201, answer.body);
    const refunds = settled.map((a) => a.json()).filter((body) => body.reverses_id !== null);
    assert.equal(refunds.length, 30);
    // A full refund of open entries voids them with the sale's: nothing is left to earn.
    for (const refund of refunds)
      assert.ok(
        refund.entries.every((e: { status: string }) => e.status === 'void'),
        JSON.stringify(refund.entries),
      );
    for (const id of [partnerA, partnerB]) {
      const check = await balanceAgainstEntries(t, id);
      assert.deepEqual(check.kept, check.summed);
    }
  });

  test("a refund submitted while its sale's batch is written waits for that batch", async () => {
    // The writer keeps two batches in flight; the refund must not go into the second one
    // while the first, holding its sale, is not committed yet.
    const writer = new RevenueEventWriter(t.handle.db, t.clock);
    const companyId = t.company.companyId;
    const sales = Array.from({ length: 20 }, (_, i) =>
      writer.submit(companyId, prepareRevenueEvent({ source: 'crm', external_ref: `inflight-${i}`, occurred_at: '2026-11-21T12:00:00Z', net_amount: '5.00' })),
    );
    await new Promise((resolve) => setImmediate(resolve));
    const refund = writer.submit(
      companyId,
      prepareRevenueEvent({
        source: 'crm',
        external_ref: 'inflight-refund',
        occurred_at: '2026-11-21T12:00:00Z',
        net_amount: '-5.00',
        reverses_ref: 'inflight-0',
      }),
    );
    for (const sale of await Promise.all(sales)) assert.equal(sale.status, 201);
    const answer = await refund;
    assert.equal(answer.status, 201);
    assert.equal(answer.body.reverses_id, (await sales[0])?.body.id);
  });

  test('a refund that reaches the writer before its sale in the same batch is written after it', async () => {
    const writer = new RevenueEventWriter(t.handle.db, t.clock);
    const companyId = t.company.companyId;
    // Both submitted in the same turn of the event loop: one batch, the refund first.
    const refund = writer.submit(
      companyId,
      prepareRevenueEvent({ source: 'crm', external_ref: 'early-refund', occurred_at: '2026-11-21T12:00:00Z', net_amount: '-7.00', reverses_ref: 'late-sale' }),
    );
    const sale = writer.submit(
      companyId,
      prepareRevenueEvent({ source: 'crm', external_ref: 'late-sale', occurred_at: '2026-11-21T11:00:00Z', net_amount: '7.00' }),
    );
    const [saleAnswer, refundAnswer] = await Promise.all([sale, refund]);
    assert.equal(saleAnswer.status, 201);
    assert.equal(refundAnswer.status, 201);
    assert.equal(refundAnswer.body.reverses_id, saleAnswer.body.id);
  });

  test('a refund whose sale arrives a moment later, in another batch, is written after it; one for no sale is refused', async () => {
    const writer = new RevenueEventWriter(t.handle.db, t.clock);
    const companyId = t.company.companyId;
    const refund = writer.submit(
      companyId,
      prepareRevenueEvent({
        source: 'crm',
        external_ref: 'split-refund',
        occurred_at: '2026-11-21T12:00:00Z',
        net_amount: '-3.00',
        reverses_ref: 'split-sale',
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 5));
    const sale = await writer.submit(
      companyId,
      prepareRevenueEvent({ source: 'crm', external_ref: 'split-sale', occurred_at: '2026-11-21T11:00:00Z', net_amount: '3.00' }),
    );
    const answer = await refund;
    assert.equal(answer.status, 201);
    assert.equal(answer.body.reverses_id, sale.body.id);
    await assert.rejects(
      writer.submit(
        companyId,
        prepareRevenueEvent({
          source: 'crm',
          external_ref: 'orphan-refund',
          occurred_at: '2026-11-21T12:00:00Z',
          net_amount: '-3.00',
          reverses_ref: 'no-such-sale',
        }),
      ),
      (error: { code?: string }) => error.code === 'commission.revenue_event_not_found',
    );
  });

  test("the database refuses an entry whose partner is not its agreement's", async () => {
    const entry = await t.handle.db.selectFrom('commission_entries').selectAll().where('partner_id', '=', partnerA).executeTakeFirstOrThrow();
    const before = await countRows(t.handle, 'commission_entries');
    await assert.rejects(
      t.handle.db
        .insertInto('commission_entries')
        .values({ ...entry, id: 'cen_wrong_partner', partner_id: partnerB, seq: undefined } as never)
        .execute(),
      (error: { code?: string }) => error.code === '23503',
    );
    assert.equal(await countRows(t.handle, 'commission_entries'), before);
  });

  test('the entry list filters by partner and status and pages with a cursor', async () => {
    const all = await listEntries(t);
    const ofA = await listEntries(t, { partner_source: 'crm', partner_ref: 'partner-a' });
    const ofB = await listEntries(t, { partner_source: 'crm', partner_ref: 'partner-b' });
    assert.equal(ofA.length + ofB.length, all.length);
    assert.ok(ofA.every((e) => e.partner_id === partnerA));
    const voids = await listEntries(t, { status: 'void' });
    assert.ok(voids.length >= 4 && voids.every((e) => e.status === 'void'));
    const page = await t.request('GET', '/v1/commission-entries?limit=3');
    assert.equal(page.json().data.length, 3);
    const next = await t.request('GET', `/v1/commission-entries?limit=3&cursor=${page.json().next_cursor}`);
    assert.deepEqual(next.json().data[0], all[3]);
    const unknown = await t.request('GET', '/v1/commission-entries?partner_source=crm&partner_ref=nobody');
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.json().detail.code, 'commission.partner_not_found');
    const half = await t.request('GET', '/v1/commission-entries?partner_source=crm');
    assert.equal(half.statusCode, 422);
    const badCursor = await t.request('GET', '/v1/commission-entries?cursor=abc');
    assert.equal(badCursor.statusCode, 422);
  });
});
