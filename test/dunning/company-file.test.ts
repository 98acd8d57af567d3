import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CompanyFileError, parseCompanyFile, updateCompany } from '../../src/modules/access/index.ts';
import { DEFAULT_POLICY } from '../../src/modules/dunning/policy.ts';
import { sealer, type TestApp, testApp } from '../helpers/app.ts';

// The `dunning` key of the company file (design §2 lists the keys; unknown keys refused).

const parse = (dunning: unknown) => parseCompanyFile(JSON.stringify({ dunning }), sealer, { requireName: false });

describe('company file: dunning policy', () => {
  const refusals: [string, unknown, RegExp][] = [
    ['an unknown key', { reminder: 7 }, /dunning\.reminder: extra_forbidden/],
    ['levels other than 2 or 3', { levels: 4 }, /dunning\.levels: enum/],
    ['reminder_days 0', { reminder_days: 0 }, /dunning\.reminder_days: greater_than_minimum|less_than_minimum/],
    ['interval_days as a string', { interval_days: '14' }, /dunning\.interval_days: type_error/],
    ['a fee with a decimal comma', { fees: ['0.00', '2,50', '5.00'] }, /dunning\.fees\.1: pattern/],
    ['a fee as a number', { fees: ['0.00', 2.5, '5.00'] }, /dunning\.fees\.1: type_error/],
    ['fewer fees than levels', { levels: 3, fees: ['0.00', '2.50', '5.00'] }, /needs 4 amounts/],
    ['a fee on the payment reminder', { fees: ['0.50', '2.50', '5.00'] }, /the first amount must be "0\.00"/],
    ['not an object', 'default', /dunning: type_error/],
  ];
  for (const [name, dunning, message] of refusals) {
    test(`refuses ${name}`, () => {
      assert.throws(
        () => parse(dunning),
        (error: unknown) => error instanceof CompanyFileError && message.test(error.message),
      );
    });
  }

  test('fills in every key left out', () => {
    assert.deepEqual(JSON.parse(parse({ levels: 3, lump_sum: false }).dunning!), {
      ...DEFAULT_POLICY,
      levels: 3,
      lump_sum: false,
      fees: ['0.00', '2.50', '5.00', '5.00'],
    });
  });
  test('null returns to the defaults', () => {
    assert.equal(parse(null).dunning, null);
  });

  describe('admin company update', () => {
    let t: TestApp;
    before(async () => {
      t = await testApp();
    });
    after(() => t.close());
    const stored = async () =>
      (await t.handle.db.selectFrom('companies').select('dunning').where('id', '=', t.company.companyId).executeTakeFirstOrThrow()).dunning;

    test('stores the policy, writes nothing on a refusal, and null resets it', async () => {
      assert.equal(await stored(), null, 'a new company has the defaults');
      const result = await updateCompany(t.handle.db, t.clock, sealer, t.company.companyId, JSON.stringify({ dunning: { interval_days: 10 } }));
      assert.deepEqual(result.updated, ['dunning']);
      assert.deepEqual(await stored(), { ...DEFAULT_POLICY, interval_days: 10 });
      await assert.rejects(
        updateCompany(t.handle.db, t.clock, sealer, t.company.companyId, JSON.stringify({ dunning: { fees: ['1.00', '2.00', '3.00'] } })),
        CompanyFileError,
      );
      assert.deepEqual(await stored(), { ...DEFAULT_POLICY, interval_days: 10 }, 'unchanged after the refusal');
      await updateCompany(t.handle.db, t.clock, sealer, t.company.companyId, JSON.stringify({ dunning: null }));
      assert.equal(await stored(), null);
    });
  });
});
