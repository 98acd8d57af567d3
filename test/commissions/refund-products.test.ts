import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestApp, testApp } from '../helpers/app.ts';
import { putCustomer } from '../invoicing/helpers.ts';
import { balanceAgainstEntries, partnerBalance, postEvent, putAgreement, putPartner, putProduct } from './helpers.ts';

// A refund whose lines name products claws back only the share of the lines the
// agreement's product scope covers (issue 24; seen: −84.89 where −127.00 is right). A
// refund naming no product reverses every entry of the sale pro rata of its net, as before.
//
// The sale: 190.00 = 127.00 of P-100 + 63.00 of P-200. Partner A earns 10 % of everything,
// B 20 % of P-100, C 10 % of P-200.

describe('refunds by product', () => {
  let t: TestApp;
  let allA: string;
  let onlyP100: string;
  let onlyP200: string;
  const partners: string[] = [];

  before(async () => {
    t = await testApp();
    await putCustomer(t, 'kunde-1');
    await putProduct(t, 'p-100', 'P-100');
    await putProduct(t, 'p-200', 'P-200');
    partners.push(await putPartner(t, 'partner-a'), await putPartner(t, 'partner-b'), await putPartner(t, 'partner-c'));
    const tiers = (percent: number) => [{ from_month: 1, to_month: null, percent }];
    allA = await putAgreement(t, 'all-a', { partner_ref: 'partner-a', start_date: '2026-01-01', applies_to: 'all_customers', tiers: tiers(10) });
    onlyP100 = await putAgreement(t, 'b-100', {
      partner_ref: 'partner-b',
      start_date: '2026-01-01',
      applies_to: 'all_customers',
      product_numbers: ['P-100'],
      tiers: tiers(20),
    });
    onlyP200 = await putAgreement(t, 'c-200', {
      partner_ref: 'partner-c',
      start_date: '2026-01-01',
      applies_to: 'all_customers',
      product_numbers: ['P-200'],
      tiers: tiers(10),
    });
  });
  after(() => t.close());

  const sale = (ref: string) =>
    postEvent(t, {
      external_ref: ref,
      occurred_at: '2026-11-10T10:00:00Z',
      net_amount: '190.00',
      customer: { source: 'crm', external_ref: 'kunde-1' },
      lines: [
        { net_amount: '127.00', product_number: 'P-100' },
        { net_amount: '63.00', product_number: 'P-200' },
      ],
    });
  const byAgreement = (entries: { agreement_id: string; basis_cents: number; amount_cents: number; percent: number; status: string }[]) =>
    Object.fromEntries(entries.map((e) => [e.agreement_id, [e.basis_cents, e.amount_cents, e.percent, e.status]]));

  test('a refund of the P-100 line takes back all of B’s share and nothing of C’s', async () => {
    const sold = await sale('sale-1');
    assert.equal(sold.statusCode, 201, sold.body);
    // A: 10 % of 190.00 = 19.00; B: 20 % of 127.00 = 25.40; C: 10 % of 63.00 = 6.30.
    assert.deepEqual(byAgreement(sold.json().entries), {
      [allA]: [19000, 1900, 10, 'open'],
      [onlyP100]: [12700, 2540, 20, 'open'],
      [onlyP200]: [6300, 630, 10, 'open'],
    });
    const refund = await postEvent(t, {
      external_ref: 'refund-1',
      occurred_at: '2026-11-12T10:00:00Z',
      net_amount: '-127.00',
      reverses_ref: 'sale-1',
      lines: [{ net_amount: '-127.00', product_number: 'P-100' }],
    });
    assert.equal(refund.statusCode, 201, refund.body);
    // A: −127.00 at 10 % = −12.70 (part of the sale: stays open). B: all of its 127.00 comes
    // back (not 127.00 × 127/190 = 84.89): reversed in full while open, so B's entry and its
    // reversal are void. C: P-200 was not refunded, nothing.
    assert.deepEqual(byAgreement(refund.json().entries), {
      [allA]: [-12700, -1270, 10, 'open'],
      [onlyP100]: [-12700, -2540, 20, 'void'],
    });
    assert.deepEqual(await partnerBalance(t, 'partner-a'), { open: 1900 - 1270, statemented: 0, paid: 0 });
    assert.deepEqual(await partnerBalance(t, 'partner-b'), { open: 0, statemented: 0, paid: 0 });
    assert.deepEqual(await partnerBalance(t, 'partner-c'), { open: 630, statemented: 0, paid: 0 });
    for (const id of partners) {
      const { kept, summed } = await balanceAgainstEntries(t, id);
      assert.deepEqual(kept, summed);
    }
  });

  test('a refund naming no product reverses every share pro rata; product refunds never take back more than the share', async () => {
    const before = { a: await partnerBalance(t, 'partner-a'), b: await partnerBalance(t, 'partner-b'), c: await partnerBalance(t, 'partner-c') };
    await sale('sale-2');
    // 95.00 of 190.00 without products: half of each share. A −9.50, B −12.70 (basis −63.50),
    // C −3.15 (basis −31.50).
    const half = await postEvent(t, { external_ref: 'refund-2a', occurred_at: '2026-11-12T10:00:00Z', net_amount: '-95.00', reverses_ref: 'sale-2' });
    assert.equal(half.statusCode, 201, half.body);
    assert.deepEqual(byAgreement(half.json().entries), {
      [allA]: [-9500, -950, 10, 'open'],
      [onlyP100]: [-6350, -1270, 20, 'open'],
      [onlyP200]: [-3150, -315, 10, 'open'],
    });
    // Then 95.00 naming P-100: B's basis has 63.50 left, so B gets back only those 63.50
    // (−12.70), and the sale is refunded in full for B and A (both void with their
    // refunds: all open), not for C (P-200 keeps 31.50: 6.30 − 3.15 = 3.15 earned).
    const rest = await postEvent(t, {
      external_ref: 'refund-2b',
      occurred_at: '2026-11-13T10:00:00Z',
      net_amount: '-95.00',
      reverses_ref: 'sale-2',
      lines: [{ net_amount: '-95.00', product_number: 'P-100' }],
    });
    assert.equal(rest.statusCode, 201, rest.body);
    assert.deepEqual(byAgreement(rest.json().entries), {
      [allA]: [-9500, -950, 10, 'void'],
      [onlyP100]: [-6350, -1270, 20, 'void'],
    });
    assert.equal((await partnerBalance(t, 'partner-a')).open, before.a.open);
    assert.equal((await partnerBalance(t, 'partner-b')).open, before.b.open);
    assert.equal((await partnerBalance(t, 'partner-c')).open, before.c.open + 315);
    for (const id of partners) {
      const { kept, summed } = await balanceAgainstEntries(t, id);
      assert.deepEqual(kept, summed);
    }
  });
});
