import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { countRows, type TestApp, testApp } from '../helpers/app.ts';
import { putCustomer } from '../invoicing/helpers.ts';

// reportUsage (issue 13, point 2): POST /v1/contracts/by-ref/{source}/{ref}/usage stores
// each record's external_ref once per contract, all or nothing, and refuses usage the
// contract cannot bill. The test clock stands at 2026-11-21T10:00Z; the company's time
// zone is Europe/Berlin.

const API_CALLS = {
  product_number: 'API-CALLS',
  name: 'API-Aufrufe',
  unit: 'Aufrufe',
  unit_price_net: '0',
  billing_interval: 'month',
  pricing_model: 'graduated',
  tiers: [
    { from: '0', to: '10000', unit_price: '0' },
    { from: '10000', to: null, unit_price: '0.002' },
  ],
};

type UsageRecord = { external_ref: string; item_ref: string; quantity: string | number; occurred_at: string };

const rec = (ref: string, overrides: Partial<UsageRecord> = {}): UsageRecord => ({
  external_ref: ref,
  item_ref: 'api',
  quantity: '12.5',
  occurred_at: '2026-11-15T12:00:00Z',
  ...overrides,
});

describe('reportUsage', () => {
  let t: TestApp;

  const contractBody = (overrides: Record<string, unknown> = {}) => ({
    customer: { source: 'crm', external_ref: 'kunde-1' },
    name: 'API-Vertrag',
    billing_interval: 'month',
    start_date: '2026-11-01',
    status: 'active',
    items: [
      { ref: 'api', product_ref: 'api-calls' },
      { ref: 'speicher', description: 'Speicher GB', unit_price_net: '0.10', pricing_model: 'per_unit', ends_after: '2026-11-20' },
    ],
    ...overrides,
  });

  /** Creates (or updates) a contract; returns its id. */
  async function contract(ref: string, overrides: Record<string, unknown> = {}): Promise<string> {
    const res = await t.request('PUT', `/v1/contracts/by-ref/crm/${ref}`, { body: contractBody(overrides) });
    assert.ok(res.statusCode === 201 || res.statusCode === 200, res.body);
    return res.json().id;
  }
  const report = (ref: string, records: unknown, key?: string) =>
    t.request('POST', `/v1/contracts/by-ref/crm/${ref}/usage`, { body: { records }, ...(key ? { key } : {}) });
  const rows = async (contractId: string) =>
    Number(
      (
        await t.handle.db
          .selectFrom('usage_records')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('contract_id', '=', contractId)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const stored = (contractId: string) =>
    t.handle.db
      .selectFrom('usage_records')
      .select(['external_ref', 'item_ref', sql<string>`quantity::text`.as('quantity'), 'occurred_on'])
      .where('contract_id', '=', contractId)
      .orderBy('external_ref')
      .execute();
  const refusal = (res: { statusCode: number; json(): { detail: Record<string, unknown> } }) => [res.statusCode, res.json().detail.code];

  before(async () => {
    t = await testApp();
    await putCustomer(t, 'kunde-1');
    assert.equal((await t.request('PUT', '/v1/products/by-ref/crm/api-calls', { body: API_CALLS })).statusCode, 201);
  });
  after(() => t.close());

  test('counts recorded and duplicates: 201 when something was stored, 200 when every record was a duplicate', async () => {
    const id = await contract('zaehlen');
    const first = await report('zaehlen', [rec('u-1'), rec('u-2', { quantity: 3 }), rec('u-3', { quantity: '0.000001' })]);
    assert.equal(first.statusCode, 201, first.body);
    assert.deepEqual(first.json(), { recorded: 3, duplicates: 0 });
    // u-3 was stored before, u-4 stands twice in the batch: the second one is a duplicate.
    const second = await report('zaehlen', [rec('u-3'), rec('u-4', { quantity: '7' }), rec('u-4', { quantity: '8' })]);
    assert.equal(second.statusCode, 201);
    assert.deepEqual(second.json(), { recorded: 1, duplicates: 2 });
    const repeat = await report('zaehlen', [rec('u-1'), rec('u-2'), rec('u-4')]);
    assert.equal(repeat.statusCode, 200);
    assert.deepEqual(repeat.json(), { recorded: 0, duplicates: 3 });
    assert.deepEqual(await stored(id), [
      { external_ref: 'u-1', item_ref: 'api', quantity: '12.5', occurred_on: '2026-11-15' },
      { external_ref: 'u-2', item_ref: 'api', quantity: '3', occurred_on: '2026-11-15' },
      { external_ref: 'u-3', item_ref: 'api', quantity: '0.000001', occurred_on: '2026-11-15' },
      { external_ref: 'u-4', item_ref: 'api', quantity: '7', occurred_on: '2026-11-15' },
    ]);
  });

  test('an external_ref is stored once per contract: another contract may use it', async () => {
    const a = await contract('eins');
    const b = await contract('zwei');
    assert.deepEqual((await report('eins', [rec('gleich')])).json(), { recorded: 1, duplicates: 0 });
    assert.deepEqual((await report('zwei', [rec('gleich')])).json(), { recorded: 1, duplicates: 0 });
    assert.deepEqual([await rows(a), await rows(b)], [1, 1]);
  });

  test('concurrent batches with overlapping refs record each ref once', async () => {
    const id = await contract('parallel');
    const batch = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => rec(`p-${String(from + i).padStart(4, '0')}`));
    // Four batches over refs 0–239; every ref is sent 1 to 3 times.
    const results = await Promise.all([
      report('parallel', batch(0, 120)),
      report('parallel', batch(60, 180)),
      report('parallel', batch(120, 240)),
      report('parallel', batch(30, 90)),
    ]);
    for (const res of results) assert.ok(res.statusCode === 201 || res.statusCode === 200, res.body);
    const answers = results.map((res) => res.json() as { recorded: number; duplicates: number });
    assert.equal(
      answers.reduce((sum, a) => sum + a.recorded, 0),
      240,
    );
    assert.equal(
      answers.reduce((sum, a) => sum + a.duplicates, 0),
      120 * 3 + 60 - 240,
    );
    assert.equal(await rows(id), 240);
  });

  test('usage needs an active or cancelled contract; an unknown contract is 404', async () => {
    const draft = await contract('entwurf', { status: 'draft' });
    const res = await report('entwurf', [rec('d-1')]);
    assert.deepEqual(refusal(res), [409, 'contract.not_active']);
    assert.match(res.json().detail.message, /draft/);
    assert.equal(await rows(draft), 0);

    const paused = await contract('pausiert');
    await contract('pausiert', { status: 'paused' });
    assert.deepEqual(refusal(await report('pausiert', [rec('p-1')])), [409, 'contract.not_active']);
    assert.equal(await rows(paused), 0);

    const ended = await contract('beendet');
    await t.handle.db.updateTable('contracts').set({ status: 'ended' }).where('id', '=', ended).execute();
    assert.deepEqual(refusal(await report('beendet', [rec('e-1')])), [409, 'contract.not_active']);
    assert.equal(await rows(ended), 0);

    // A cancelled contract runs until its end date.
    const cancelled = await contract('gekuendigt');
    await contract('gekuendigt', { status: 'cancelled', end_date: '2026-12-31' });
    assert.deepEqual((await report('gekuendigt', [rec('k-1')])).json(), { recorded: 1, duplicates: 0 });
    assert.equal(await rows(cancelled), 1);

    const before = await countRows(t.handle, 'usage_records');
    assert.deepEqual(refusal(await report('gibt-es-nicht', [rec('x-1')])), [404, 'contract_not_found']);
    const other = await t.newCompany('fremd');
    assert.deepEqual(refusal(await report('zaehlen', [rec('x-2')], other.apiKey)), [404, 'contract_not_found']);
    assert.equal(await countRows(t.handle, 'usage_records'), before);
  });

  test('item references the contract lacks: 404 with item_refs sorted and unique, nothing stored', async () => {
    const id = await contract('artikel');
    const res = await report('artikel', [
      rec('a-1'),
      rec('a-2', { item_ref: 'zeta' }),
      rec('a-3', { item_ref: 'alpha' }),
      rec('a-4', { item_ref: 'zeta' }),
      rec('a-5', { item_ref: 'speicher', occurred_at: '2026-11-10T08:00:00+01:00' }),
    ]);
    assert.deepEqual(refusal(res), [404, 'contract.item_not_found']);
    assert.deepEqual(res.json().detail.item_refs, ['alpha', 'zeta']);
    assert.equal(await rows(id), 0);
  });

  test('items billed by their quantity take no usage (issue 24): 422 contract.item_not_usage_priced with item_refs, nothing stored', async () => {
    const items = [
      { ref: 'api', product_ref: 'api-calls' },
      { ref: 'hosting', description: 'Hosting', unit_price_net: '29.00' },
      { ref: 'plaetze', description: 'Arbeitsplätze', unit_price_net: '10.00', billing_timing: 'arrears' },
      // A usage model billed in advance bills its quantity, not usage.
      { ref: 'paket', description: 'SMS-Paket', pricing_model: 'package', included_quantity: '100', unit_price_net: '5.00', billing_timing: 'advance' },
    ];
    const id = await contract('menge', { items });
    const res = await report('menge', [
      rec('q-1'),
      rec('q-2', { item_ref: 'plaetze' }),
      rec('q-3', { item_ref: 'hosting' }),
      rec('q-4', { item_ref: 'paket' }),
      rec('q-5', { item_ref: 'hosting' }),
    ]);
    assert.deepEqual(refusal(res), [422, 'contract.item_not_usage_priced']);
    assert.deepEqual(res.json().detail.item_refs, ['hosting', 'paket', 'plaetze']);
    assert.match(res.json().detail.message, /hosting, paket, plaetze/);
    assert.equal(await rows(id), 0);
    // An unknown item comes first.
    const unknown = await report('menge', [rec('q-6', { item_ref: 'hosting' }), rec('q-7', { item_ref: 'gibt-es-nicht' })]);
    assert.deepEqual(refusal(unknown), [404, 'contract.item_not_found']);
    assert.deepEqual((await report('menge', [rec('q-1')])).json(), { recorded: 1, duplicates: 0 });
  });

  test('usage before usage_open_from is refused with open_from and refs; nothing of the batch is stored', async () => {
    const id = await contract('abgerechnet');
    // The billing run billed the first half of November.
    await t.handle.db.updateTable('contracts').set({ usage_open_from: '2026-11-16' }).where('id', '=', id).execute();
    const res = await report('abgerechnet', [
      rec('b-1', { occurred_at: '2026-11-17T09:00:00Z' }),
      rec('b-2', { occurred_at: '2026-11-10T09:00:00Z' }),
      rec('b-3', { occurred_at: '2026-11-16T09:00:00Z' }),
      // 23:30 UTC on the 15th is the 16th in Berlin: open.
      rec('b-4', { occurred_at: '2026-11-15T23:30:00Z' }),
      // 22:59 UTC is still the 15th in Berlin: closed.
      rec('b-5', { occurred_at: '2026-11-15T22:59:00Z' }),
    ]);
    assert.deepEqual(refusal(res), [422, 'contract.usage_period_closed']);
    assert.deepEqual([res.json().detail.open_from, res.json().detail.refs], ['2026-11-16', ['b-2', 'b-5']]);
    assert.equal(await rows(id), 0);

    // A contract starting later opens its usage on its start date.
    const later = await contract('spaeter', { start_date: '2026-11-10' });
    const early = await report('spaeter', [rec('s-1', { occurred_at: '2026-11-09T12:00:00Z' })]);
    assert.deepEqual(
      [...refusal(early), early.json().detail.open_from, early.json().detail.refs],
      [422, 'contract.usage_period_closed', '2026-11-10', ['s-1']],
    );
    assert.equal(await rows(later), 0);
  });

  test('a batch repeated after its period was billed answers duplicates, not a refusal', async () => {
    const id = await contract('wiederholt');
    const batch = [rec('w-1', { occurred_at: '2026-11-03T10:00:00Z' }), rec('w-2', { occurred_at: '2026-11-20T10:00:00Z' })];
    assert.deepEqual((await report('wiederholt', batch)).json(), { recorded: 2, duplicates: 0 });
    await t.handle.db.updateTable('contracts').set({ usage_open_from: '2026-12-01' }).where('id', '=', id).execute();
    const again = await report('wiederholt', batch);
    assert.equal(again.statusCode, 200, again.body);
    assert.deepEqual(again.json(), { recorded: 0, duplicates: 2 });
    // A new record in the billed period is still refused, the stored ones are not named.
    const mixed = await report('wiederholt', [...batch, rec('w-3', { occurred_at: '2026-11-25T10:00:00Z' })]);
    assert.deepEqual([...refusal(mixed), mixed.json().detail.refs], [422, 'contract.usage_period_closed', ['w-3']]);
    // A duplicate is not checked further, even against items and the end date.
    const december = await report('wiederholt', [...batch, rec('w-4', { occurred_at: '2026-12-02T10:00:00Z' })]);
    assert.deepEqual([december.statusCode, december.json()], [201, { recorded: 1, duplicates: 2 }]);
    assert.equal(await rows(id), 3);
  });

  test('a batch waits while the billing run holds the contract, then meets the usage_open_from it left', async () => {
    const id = await contract('abrechnung');
    let locked!: () => void;
    let release!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    // What the billing run does: lock the contract, bill, move usage_open_from, commit.
    const billing = t.handle.db.transaction().execute(async (trx) => {
      await trx.selectFrom('contracts').select('id').where('id', '=', id).forUpdate().execute();
      locked();
      await released;
      await trx.updateTable('contracts').set({ usage_open_from: '2026-12-01' }).where('id', '=', id).execute();
    });
    await isLocked;
    const pending = report('abrechnung', [rec('r-1', { occurred_at: '2026-11-20T10:00:00Z' })]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    release();
    await billing;
    const res = await pending;
    assert.deepEqual([...refusal(res), res.json().detail.open_from], [422, 'contract.usage_period_closed', '2026-12-01']);
    assert.equal(await rows(id), 0);
  });

  test("usage after the contract's end date or its item's ends_after: validation_failed at occurred_at", async () => {
    const id = await contract('ende');
    await contract('ende', { status: 'cancelled', end_date: '2026-11-25' });
    const res = await report('ende', [
      rec('n-1', { occurred_at: '2026-11-25T22:59:59Z' }),
      rec('n-2', { occurred_at: '2026-11-25T23:00:00Z' }),
      rec('n-3', { item_ref: 'speicher', occurred_at: '2026-11-20T12:00:00+01:00' }),
      rec('n-4', { item_ref: 'speicher', occurred_at: '2026-11-21T00:00:00+01:00' }),
    ]);
    assert.deepEqual(refusal(res), [422, 'validation_failed']);
    const errors = res.json().detail.errors as { loc: unknown[]; type: string; msg: string }[];
    assert.deepEqual(
      errors.map((e) => [e.loc, e.type]),
      [
        [['body', 'records', 1, 'occurred_at'], 'greater_than_maximum'],
        [['body', 'records', 3, 'occurred_at'], 'greater_than_maximum'],
      ],
    );
    assert.match(errors[0]!.msg, /contract ends on 2026-11-25/);
    assert.match(errors[1]!.msg, /speicher ends after 2026-11-20/);
    assert.equal(await rows(id), 0);
    assert.deepEqual((await report('ende', [rec('n-1', { occurred_at: '2026-11-25T22:59:59Z' })])).json(), { recorded: 1, duplicates: 0 });
  });

  test('the schema: 1 to 1000 records, non-negative quantities with at most 6 decimals, no unknown fields; a bad record stores nothing', async () => {
    const id = await contract('schema');
    const many = Array.from({ length: 1001 }, (_, i) => rec(`m-${i}`));
    const cases: [unknown, unknown[], string][] = [
      [many, ['body', 'records'], 'too_long'],
      [[], ['body', 'records'], 'too_short'],
      [[rec('v-1'), rec('v-2', { quantity: '-1' })], ['body', 'records', 1, 'quantity'], 'less_than_minimum'],
      [[rec('v-1'), rec('v-2', { quantity: -0.5 })], ['body', 'records', 1, 'quantity'], 'less_than_minimum'],
      [[rec('v-1'), rec('v-2', { quantity: '1.0000001' })], ['body', 'records', 1, 'quantity'], 'decimal'],
      [[rec('v-1'), rec('v-2', { quantity: '1e3' })], ['body', 'records', 1, 'quantity'], 'decimal'],
      [[{ ...rec('v-1'), note: 'x' }, rec('v-2')], ['body', 'records', 0, 'note'], 'extra_forbidden'],
      [[rec('v-1'), rec('v-2', { occurred_at: '2026-11-15T12:00:00' })], ['body', 'records', 1, 'occurred_at'], 'format'],
      [[rec('v-1'), rec('v-2', { external_ref: 'mit leerzeichen' })], ['body', 'records', 1, 'external_ref'], 'pattern'],
      [[rec('v-1'), { external_ref: 'v-2', quantity: '1', occurred_at: '2026-11-15T12:00:00Z' }], ['body', 'records', 1, 'item_ref'], 'missing'],
    ];
    for (const [records, loc, type] of cases) {
      const res = await report('schema', records);
      assert.deepEqual(refusal(res), [422, 'validation_failed'], JSON.stringify(records).slice(0, 160));
      const errors = res.json().detail.errors as { loc: unknown[]; type: string }[];
      assert.ok(
        errors.some((e) => JSON.stringify(e.loc) === JSON.stringify(loc) && e.type === type),
        `${JSON.stringify(loc)} ${type}: ${JSON.stringify(errors)}`,
      );
    }
    const extra = await t.request('POST', '/v1/contracts/by-ref/crm/schema/usage', { body: { records: [rec('v-1')], rabatt: 1 } });
    assert.deepEqual(extra.json().detail.errors[0].loc, ['body', 'rabatt']);
    assert.equal(await rows(id), 0);
    // A thousand is the most.
    const thousand = await report('schema', many.slice(0, 1000));
    assert.deepEqual([thousand.statusCode, thousand.json()], [201, { recorded: 1000, duplicates: 0 }]);
    assert.equal(await rows(id), 1000);
  });

  test("occurred_on is the day in the company's time zone", async () => {
    const id = await contract('ortszeit');
    const res = await report('ortszeit', [
      rec('z-1', { occurred_at: '2026-11-30T23:30:00Z' }),
      rec('z-2', { occurred_at: '2026-11-30T22:59:59.999999Z' }),
      rec('z-3', { occurred_at: '2026-12-01T00:30:00+14:00' }),
      rec('z-4', { occurred_at: '2026-11-30t23:00:00z' }),
      // Finer than microseconds: cut, not rounded into the next day.
      rec('z-5', { occurred_at: '2026-11-30T22:59:59.99999999Z' }),
    ]);
    assert.equal(res.statusCode, 201, res.body);
    assert.deepEqual(
      (await stored(id)).map((r) => [r.external_ref, r.occurred_on]),
      [
        ['z-1', '2026-12-01'],
        ['z-2', '2026-11-30'],
        ['z-3', '2026-11-30'],
        ['z-4', '2026-12-01'],
        ['z-5', '2026-11-30'],
      ],
    );
    const at = await t.handle.db
      .selectFrom('usage_records')
      .select('occurred_at')
      .where('contract_id', '=', id)
      .where('external_ref', '=', 'z-1')
      .executeTakeFirstOrThrow();
    assert.equal(new Date(at.occurred_at).toISOString(), '2026-11-30T23:30:00.000Z');
    const cut = await t.handle.db
      .selectFrom('usage_records')
      .select(sql<string>`to_char(occurred_at at time zone 'UTC', 'HH24:MI:SS.US')`.as('time'))
      .where('contract_id', '=', id)
      .where('external_ref', '=', 'z-5')
      .executeTakeFirstOrThrow();
    assert.equal(cut.time, '22:59:59.999999');
  });

  test('needs partner:invoices:write', async () => {
    const id = await contract('scope');
    const readOnly = await t.newKey({ scopes: ['partner:invoices:read'] });
    const res = await report('scope', [rec('sc-1')], readOnly);
    assert.deepEqual([res.statusCode, res.json().detail.code, res.json().detail.scope], [403, 'api_key_scope_missing', 'partner:invoices:write']);
    assert.equal(await rows(id), 0);
  });
});
