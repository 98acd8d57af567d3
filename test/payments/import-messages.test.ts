import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestApp, testApp } from '../helpers/app.ts';
import { camt, importFile } from './helpers.ts';

// Issue 12, point 5: what the import says is something a person can act on.

describe('import messages', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp();
  });
  after(() => t.close());

  test('amounts are shown with two decimals however the file writes them', async () => {
    const mt940 = [
      ':20:STARTUMSE',
      ':25:37040044/0532013000',
      ':28C:00031/001',
      ':60F:C261110EUR100,',
      ':61:2611101110C119,NTRFNONREF',
      ':86:166?00GUTSCHRIFT?20SVWZ+Beitrag?32Hans Schmidt',
      ':61:2611101110C0,5NTRFNONREF',
      ':86:166?00GUTSCHRIFT?20SVWZ+Rest?32Hans Schmidt',
      ':62F:C261110EUR219,5',
      '-',
      '',
    ].join('\r\n');
    const result = await importFile(t, mt940, 'amounts.sta');
    assert.deepEqual(
      result.entries.map((e) => [e.amount, e.transactions.map((tx) => tx.amount)]),
      [
        ['119.00', ['119.00']],
        ['0.50', ['0.50']],
      ],
    );
    assert.equal(result.totals.received, '119.50');
    const xml = await importFile(t, camt([{ amount: '85.5', text: 'Beitrag' }], { id: 'amounts' }), 'amounts.xml');
    assert.deepEqual(
      xml.entries.map((e) => [e.amount, e.transactions.map((tx) => tx.amount)]),
      [['85.50', ['85.50']]],
    );
  });

  test('statements of another account give one warning for the account, not one per statement', async () => {
    const other = 'DE83500105175555555555';
    const day = (id: string, date: string) =>
      camt([{ amount: '1.00', text: `Zins ${id}`, date }], { id, iban: other })
        .replace(/^[\s\S]*?<Stmt>/, '<Stmt>')
        .replace(/<\/BkToCstmrStmt>[\s\S]*$/, '');
    const file = camt([{ amount: '2.00', text: 'Zins eigen', date: '2026-11-02' }], { id: 'own' }).replace(
      '</Stmt></BkToCstmrStmt>',
      `</Stmt>${day('other-1', '2026-11-03')}${day('other-2', '2026-11-04')}</BkToCstmrStmt>`,
    );
    const result = await importFile(t, file, 'accounts.xml');
    assert.equal(result.entries.length, 3);
    assert.deepEqual(result.warnings, [
      `2 statements (other-1, other-2) are for account ${other}, not the company's account DE89370400440532013000; their entries were imported all the same`,
    ]);
  });
});

describe('import warnings', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp();
  });
  after(() => t.close());

  test('one warning per cause: five statements without closing balance give one line naming them', async () => {
    const day = (n: number) =>
      [
        ':20:STARTUMSE',
        ':25:37040044/0532013000',
        `:28C:0004${n}/001`,
        ':60F:C261110EUR100,00',
        `:61:26111${n}111${n}C1,00NTRFNONREF`,
        `:86:166?00GUTSCHRIFT?20SVWZ+Tag ${n}`,
        '-',
      ].join('\r\n');
    const result = await importFile(t, `${[1, 2, 3, 4, 5].map(day).join('\r\n')}\r\n`, 'ohne-schlusssaldo.sta');
    assert.equal(result.entries.length, 5);
    assert.deepEqual(result.warnings, [
      'MT940 statement 1 (STARTUMSE 00041/001); MT940 statement 2 (STARTUMSE 00042/001); MT940 statement 3 (STARTUMSE 00043/001) and 2 more: no closing balance (:62F:): the entries are imported without the balance check',
    ]);
  });
});
