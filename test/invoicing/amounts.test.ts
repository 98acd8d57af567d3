import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { exportDatevBuchungsstapel } from '../../src/modules/bookkeeping/index.ts';
import { amountLimitIssues } from '../../src/modules/invoicing/amount-limits.ts';
import { centsToDecimal, exactLineNet, exactTotals, invoiceTotals, lineNetCents, type VatRate } from '../../src/modules/invoicing/totals.ts';
import { type TestApp, testApp } from '../helpers/app.ts';
import { mulberry32 } from '../helpers/random.ts';
import { counts, invoiceBody, newKey, postInvoice, putCustomer } from './helpers.ts';
import { extractPages } from './render/pdf-reader.ts';

// Amounts stay exact at any size the API accepts, and the API accepts only what a bank can
// pay: every line net and total within ± 999,999,999.99 EUR (one SEPA transfer), unit
// prices at most 999999999.999999. Design §4 line arithmetic, checked against a reference
// written here in BigInt (not the code under test).

const MAX_CENTS = 99_999_999_999n;

// --- reference arithmetic -------------------------------------------------------------

/** "-12.345" → units -12345n at scale 3. */
function parseDecimal(text: string): { units: bigint; scale: number } {
  const negative = text.startsWith('-');
  const [integer = '0', fraction = ''] = (negative ? text.slice(1) : text).split('.');
  const units = BigInt(`${integer}${fraction}`);
  return { units: negative ? -units : units, scale: fraction.length };
}

/** n / d rounded half up, ties away from zero (so a negated input gives the negated result). */
function roundedQuotient(n: bigint, d: bigint): bigint {
  const abs = n < 0n ? -n : n;
  const q = (2n * abs + d) / (2n * d);
  return n < 0n ? -q : q;
}

function referenceLineNet(quantity: string, price: string): bigint {
  const q = parseDecimal(quantity);
  const p = parseDecimal(price);
  return roundedQuotient(q.units * p.units * 100n, 10n ** BigInt(q.scale + p.scale));
}

function referenceText(cents: bigint): string {
  const sign = cents < 0n ? '-' : '';
  const abs = cents < 0n ? -cents : cents;
  return `${sign}${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`;
}

// --- seeded random invoices -------------------------------------------------------------

type Line = { quantity: string; unitPriceNet: string; vatRate: VatRate };

function randomDecimal(rng: () => number, maxIntegerDigits: number): string {
  const int = (n: number) => Math.floor(rng() * n);
  const integerDigits = int(maxIntegerDigits + 1);
  let integer = integerDigits === 0 ? '0' : String(1 + int(9));
  for (let i = 1; i < integerDigits; i++) integer += String(int(10));
  const decimals = int(7);
  let fraction = '';
  for (let i = 0; i < decimals; i++) fraction += String(int(10));
  return decimals > 0 ? `${integer}.${fraction}` : integer;
}

/** 1–40 lines; two invoices in three of everyday sizes, the third with numbers as long as the API takes. */
function randomInvoice(rng: () => number): Line[] {
  const count = 1 + Math.floor(rng() * 40);
  const large = rng() < 1 / 3;
  return Array.from({ length: count }, () => ({
    quantity: randomDecimal(rng, large ? 12 : 4),
    unitPriceNet: randomDecimal(rng, large ? 9 : 4),
    vatRate: ([0, 7, 19] as const)[Math.floor(rng() * 3)]!,
  }));
}

const negated = (text: string) => (text.startsWith('-') ? text.slice(1) : `-${text}`);

describe('line arithmetic at any size (design §4)', () => {
  test('a line of 1,000,000 × 999999999999.99 is exactly 999999999999990000.00 (toNumber made it …0000.76)', () => {
    const net = exactLineNet({ quantity: '1000000', unitPriceNet: '999999999999.99' });
    assert.equal(net, 99_999_999_999_999_000_000n);
    assert.equal(centsToDecimal(net), '999999999999990000.00');
    const totals = exactTotals([{ vatRate: 19, net }]);
    assert.deepEqual([totals.net, totals.tax, totals.gross].map(centsToDecimal), ['999999999999990000.00', '189999999999998100.00', '1189999999999988100.00']);
    assert.throws(() => lineNetCents({ quantity: '1000000', unitPriceNet: '999999999999.99', vatRate: 19 }), RangeError, 'never a rounded number');
    assert.deepEqual(amountLimitIssues([{ description: 'x', quantity: '1000000', unit_price_net: '999999999999.99', vat_rate: 19 }]), [
      {
        loc: ['body', 'lines', 0],
        type: 'greater_than_maximum',
        msg: "The line's net amount (quantity × unit_price_net) is above 999999999.99 EUR, the most one SEPA transfer can carry",
      },
    ]);
  });

  test('random invoices and their stornos: line nets, tax per rate and net + tax = gross, exactly (seeded)', (t) => {
    const seed = Number(process.env.KONTOR_AMOUNTS_SEED ?? Math.floor(Math.random() * 2 ** 32));
    t.diagnostic(`seed ${seed} (repeat with KONTOR_AMOUNTS_SEED=${seed})`);
    const rng = mulberry32(seed);
    let withinLimits = 0;
    for (let n = 0; n < 300; n++) {
      const lines = randomInvoice(rng);
      const where = `seed ${seed}, invoice ${n}: ${JSON.stringify(lines)}`;
      for (const [sign, priced] of [
        [1n, lines],
        [-1n, lines.map((line) => ({ ...line, quantity: negated(line.quantity) }))],
      ] as const) {
        const expectedNets = priced.map((line) => referenceLineNet(line.quantity, line.unitPriceNet));
        const nets = priced.map((line) => exactLineNet(line));
        assert.deepEqual(nets, expectedNets, `line nets, ${where}`);
        const totals = exactTotals(priced.map((line, i) => ({ vatRate: line.vatRate, net: nets[i]! })));
        for (const rate of [19, 7, 0] as const) {
          const net = expectedNets.filter((_, i) => priced[i]!.vatRate === rate).reduce((sum, x) => sum + x, 0n);
          const entry = totals.perRate.find((r) => r.rate === rate);
          if (!priced.some((line) => line.vatRate === rate)) {
            assert.equal(entry, undefined, where);
            continue;
          }
          assert.deepEqual(entry, { rate, net, tax: roundedQuotient(net * BigInt(rate), 100n) }, `rate ${rate}, ${where}`);
        }
        assert.deepEqual(
          totals.perRate.map((r) => r.rate),
          [19, 7, 0].filter((rate) => priced.some((line) => line.vatRate === rate)),
          'rates in descending order',
        );
        assert.equal(
          totals.net,
          expectedNets.reduce((sum, x) => sum + x, 0n),
          where,
        );
        assert.equal(
          totals.tax,
          totals.perRate.reduce((sum, r) => sum + r.tax, 0n),
          where,
        );
        assert.equal(totals.gross, totals.net + totals.tax, `net + tax = gross, ${where}`);
        for (const amount of [totals.net, totals.tax, totals.gross, ...nets]) {
          assert.match(centsToDecimal(amount), /^-?\d+\.\d{2}$/);
          assert.equal(centsToDecimal(amount), referenceText(amount), where);
        }

        const inLimits = [...nets, totals.net, totals.tax, totals.gross].every((x) => x <= MAX_CENTS && x >= -MAX_CENTS);
        if (sign === 1n) {
          // The API's check refuses exactly the invoices beyond the limits.
          const body = lines.map((line) => ({ description: 'x', quantity: line.quantity, unit_price_net: line.unitPriceNet, vat_rate: line.vatRate }));
          assert.equal(amountLimitIssues(body).length === 0, inLimits, `limit check, ${where}`);
          if (inLimits) withinLimits++;
        }
        if (inLimits) {
          // Within the limits the stored form (numbers of cents) is the same, exactly.
          const numbers = invoiceTotals(priced.map((line) => ({ vatRate: line.vatRate, netCents: lineNetCents(line) })));
          assert.deepEqual([numbers.netCents, numbers.taxCents, numbers.grossCents], [totals.net, totals.tax, totals.gross].map(Number), where);
          assert.equal(numbers.netCents + numbers.taxCents, numbers.grossCents, where);
        }
      }
      // A storno is the invoice with negative signs: every amount exactly negated.
      const storno = exactTotals(lines.map((line) => ({ vatRate: line.vatRate, net: exactLineNet({ ...line, quantity: negated(line.quantity) }) })));
      const original = exactTotals(lines.map((line) => ({ vatRate: line.vatRate, net: exactLineNet(line) })));
      assert.deepEqual(
        storno,
        {
          net: -original.net,
          tax: -original.tax,
          gross: -original.gross,
          perRate: original.perRate.map((r) => ({ rate: r.rate, net: -r.net, tax: -r.tax })),
        },
        `storno mirrors, ${where}`,
      );
    }
    assert.ok(withinLimits > 100, `most random invoices are within the limits (${withinLimits} of 300), so both sides are tried`);
  });
});

describe('createInvoice refuses amounts beyond what a bank can pay', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp({ now: '2026-11-21T10:00:00Z' });
    await putCustomer(t, 'kunde-1');
  });
  after(() => t.close());

  const line = (quantity: string, unitPriceNet: string, vatRate = 19) => ({
    description: 'Leistung',
    quantity,
    unit: 'Stück',
    unit_price_net: unitPriceNet,
    vat_rate: vatRate,
    ...(vatRate === 0 ? { tax_exemption_reason: 'Steuerfreie Leistung' } : {}),
  });
  // 840336134.44 net + 19 % (159663865.5436 → .54) + 0.01 at 7 % (tax 0.0007 → 0.00) = 999999999.99
  const largest = [line('1', '840336134.44'), line('1', '0.01', 7)];

  const refusals: { rule: string; lines: unknown[]; loc: (string | number)[] }[] = [
    { rule: 'a unit price above 999999999.999999', lines: [line('1', '10.00'), line('0.001', '1000000000')], loc: ['body', 'lines', 1, 'unit_price_net'] },
    { rule: 'a line net above 999999999.99', lines: [line('1', '10.00'), line('2', '500000000')], loc: ['body', 'lines', 1] },
    { rule: 'a line net rounding up to 1000000000.00', lines: [line('1', '999999999.995')], loc: ['body', 'lines', 0] },
    {
      rule: 'the line of 1,000,000 × 999999999999.99 that came out as …0000.76',
      lines: [line('1000000', '999999999999.99')],
      loc: ['body', 'lines', 0, 'unit_price_net'],
    },
    { rule: 'a net total above 999999999.99 over lines each within it', lines: [line('1', '600000000', 0), line('1', '600000000', 0)], loc: ['body', 'lines'] },
    { rule: 'a gross total above 999999999.99 through the VAT', lines: [line('1', '900000000')], loc: ['body', 'lines'] },
    { rule: 'one cent more than the largest invoice', lines: [line('1', '840336134.44'), line('1', '0.02', 7)], loc: ['body', 'lines'] },
  ];

  test('each refusal is 422 validation_failed greater_than_maximum at its line or the lines; nothing is created, no number drawn, the key stays free', async () => {
    const first = await postInvoice(t, invoiceBody('before-refusals', { issue: true }));
    assert.equal(first.statusCode, 201, first.body);
    const seq = Number(first.json().number.slice(-5));
    const before = await counts(t);
    for (const [i, refusal] of refusals.entries()) {
      const key = newKey();
      const ref = `refused-${i}`;
      for (const issue of [true, false]) {
        const res = await postInvoice(t, invoiceBody(ref, { issue, lines: refusal.lines }), key);
        assert.equal(res.statusCode, 422, `${refusal.rule}: ${res.body}`);
        const detail = res.json().detail;
        assert.equal(detail.code, 'validation_failed', refusal.rule);
        assert.deepEqual(
          detail.errors.map((e: { loc: unknown; type: string }) => [e.loc, e.type]),
          [[refusal.loc, 'greater_than_maximum']],
          refusal.rule,
        );
        assert.match(detail.errors[0].msg, /999999999\.99/, `${refusal.rule}: the message names the limit`);
      }
      assert.equal((await t.request('GET', `/v1/invoices/by-ref/crm/${ref}`)).statusCode, 404, refusal.rule);
      assert.deepEqual(await counts(t), before, `${refusal.rule}: nothing stored, no number drawn`);
      // The Idempotency-Key was not used up: it serves a valid request afterwards.
      const valid = await postInvoice(t, invoiceBody(`draft-after-${i}`), key);
      assert.equal(valid.statusCode, 201, `${refusal.rule}: ${valid.body}`);
      before.invoices += 1;
      before.lines += 2;
      before.keys += 1;
    }
    const next = await postInvoice(t, invoiceBody('after-refusals', { issue: true }));
    assert.equal(next.statusCode, 201, next.body);
    assert.equal(Number(next.json().number.slice(-5)), seq + 1, 'the next invoice takes the next number: no gap');
  });

  test('a unit price of exactly 999999999.999999 passes the schema; the line net decides', async () => {
    const res = await postInvoice(t, invoiceBody('max-unit-price', { lines: [line('0.5', '999999999.999999')] }));
    assert.equal(res.statusCode, 201, res.body);
    assert.deepEqual([res.json().total_net, res.json().total_tax, res.json().total_gross], ['500000000.00', '95000000.00', '595000000.00']);
  });

  test('the largest invoice (999999999.99) is issued, stored, booked, exported and rendered; its storno too', async () => {
    const res = await postInvoice(t, invoiceBody('largest', { issue: true, lines: largest }));
    assert.equal(res.statusCode, 201, res.body);
    const invoice = res.json();
    assert.deepEqual([invoice.total_net, invoice.total_tax, invoice.total_gross], ['840336134.45', '159663865.54', '999999999.99']);
    const stored = await t.request('GET', `/v1/invoices/${invoice.id}`);
    assert.equal(stored.json().total_gross, '999999999.99');
    const lineRows = await t.handle.db.selectFrom('invoice_lines').select('net_cents').where('invoice_id', '=', invoice.id).orderBy('position').execute();
    assert.deepEqual(
      lineRows.map((r) => r.net_cents),
      [84_033_613_444, 1],
    );

    const booked = await t.handle.db
      .selectFrom('journal_lines as l')
      .innerJoin('journal_entries as e', (join) => join.onRef('e.company_id', '=', 'l.company_id').onRef('e.id', '=', 'l.entry_id'))
      .select(['l.account', 'l.side', 'l.amount_cents'])
      .where('e.document_id', '=', invoice.id)
      .orderBy('l.position')
      .execute();
    assert.deepEqual(
      booked.map((l) => [l.side, l.amount_cents]),
      [
        ['S', 99_999_999_999],
        ['H', 84_033_613_444],
        ['H', 1],
        ['H', 15_966_386_554],
      ],
    );

    const pdf = await t.request('GET', `/v1/invoices/${invoice.id}/pdf`);
    assert.equal(pdf.statusCode, 200);
    const text = extractPages(pdf.rawPayload).join('\n');
    for (const amount of ['840.336.134,44', '840.336.134,45', '159.663.865,54', '999.999.999,99']) assert.ok(text.includes(amount), `the PDF prints ${amount}`);
    const xml = (await t.request('GET', `/v1/invoices/${invoice.id}/xml`)).body;
    assert.match(xml, /<ram:LineTotalAmount>840336134\.45<\/ram:LineTotalAmount>/);
    assert.match(xml, /<ram:TaxTotalAmount currencyID="EUR">159663865\.54<\/ram:TaxTotalAmount>/);
    assert.match(xml, /<ram:GrandTotalAmount>999999999\.99<\/ram:GrandTotalAmount>/);
    assert.match(xml, /<ram:DuePayableAmount>999999999\.99<\/ram:DuePayableAmount>/);

    const cancel = await t.request('POST', `/v1/invoices/${invoice.id}/cancel`);
    assert.equal(cancel.statusCode, 201, cancel.body);
    assert.deepEqual([cancel.json().total_net, cancel.json().total_tax, cancel.json().total_gross], ['-840336134.45', '-159663865.54', '-999999999.99']);
    const stornoXml = (await t.request('GET', `/v1/invoices/${cancel.json().id}/xml`)).body;
    assert.match(stornoXml, /<ram:GrandTotalAmount>-999999999\.99<\/ram:GrandTotalAmount>/);

    // The database holds the same line for any other writer (migration 0011).
    const row = await t.handle.db
      .selectFrom('invoice_lines')
      .selectAll()
      .where('invoice_id', '=', invoice.id)
      .where('position', '=', 1)
      .executeTakeFirstOrThrow();
    await assert.rejects(
      t.handle.db
        .insertInto('invoice_lines')
        .values({ ...row, position: 3, net_cents: 100_000_000_000 })
        .execute(),
      /invoice_lines_net_payable/,
    );

    const datev = (await exportDatevBuchungsstapel(t.handle.db, t.company.companyId, { from: '2026-11-01', to: '2026-11-30' })).toString('latin1');
    assert.ok(datev.includes('999999999,98;'), 'the 19 % booking with its VAT folded in (gross on the automatic account)');
  });
});
