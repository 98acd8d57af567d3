import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { legacyEntryKeys } from '../../src/modules/payments/entry-key.ts';
import { BankImportError, parseStatement } from '../../src/modules/payments/index.ts';
import { type TestApp, testApp } from '../helpers/app.ts';
import { putCustomer } from '../invoicing/helpers.ts';
import { camt, importCounts, importFile, issueInvoice } from './helpers.ts';

// Issue 12, point 2: an entry is identified by everything that makes it one booking, so a
// re-import is recognised and distinct bookings never are.

const ACCOUNT = '37040044/0532013000';

type Line = { amount: string; text: string; date?: string };

/** An MT940 statement part; `close` F (final) or M (the day goes on in the next part). */
function mt940Part(number: string, open: { mark: 'F' | 'M'; cents: number }, lines: Line[], close: 'F' | 'M'): { text: string; closing: number } {
  let balance = open.cents;
  const body = lines.flatMap((line) => {
    balance += Math.round(Number(line.amount.replace(',', '.')) * 100);
    const date = line.date ?? '261120';
    return [`:61:${date}${date.slice(2)}C${line.amount}NTRFNONREF`, `:86:166?00GUTSCHRIFT?20SVWZ+${line.text}?32Hans Schmidt`];
  });
  const amount = (cents: number) => `${Math.floor(cents / 100)},${String(cents % 100).padStart(2, '0')}`;
  return {
    text: [
      ':20:STARTUMSE',
      `:25:${ACCOUNT}`,
      `:28C:${number}`,
      `:60${open.mark}:C261120EUR${amount(open.cents)}`,
      ...body,
      `:62${close}:C261120EUR${amount(balance)}`,
      '-',
    ].join('\r\n'),
    closing: balance,
  };
}

/** A day split into two parts, each with the same credit. */
function splitDay(extra = '', amount = '50,00'): string {
  const first = mt940Part('00001/001', { mark: 'F', cents: 100000 }, [{ amount, text: 'Spende' }], 'M');
  const second = mt940Part('00001/002', { mark: 'M', cents: first.closing }, [{ amount, text: 'Spende' }], 'F');
  return `${first.text}\r\n${second.text}\r\n${extra}`;
}

async function storedEntries(t: TestApp) {
  return t.handle.db
    .selectFrom('bank_entries')
    .select(['id', 'entry_key', 'amount', 'direction', 'bank_reference', 'statement_id'])
    .where('company_id', '=', t.company.companyId)
    .orderBy('statement_id')
    .orderBy('position')
    .execute();
}

/** Puts the database back into the state an import before issue 12 left: stored keys of the old scheme. */
async function toLegacyKeys(t: TestApp, content: string, format: 'camt' | 'mt940') {
  const parsed = parseStatement(Buffer.from(content));
  const legacy = legacyEntryKeys(parsed.entries, format === 'camt' ? (e) => e.bankReference : () => null);
  for (const [i, entry] of parsed.entries.entries())
    await t.handle.db
      .updateTable('bank_entries')
      .set({ entry_key: legacy[i]! })
      .where('company_id', '=', t.company.companyId)
      .where('entry_key', '=', entry.key)
      .execute();
  return legacy;
}

describe('entry identity', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp();
  });
  after(() => t.close());

  test('two equal bookings in two parts of a split day (:62M:/:60M:) are both imported; the same file again imports neither', async () => {
    const before = await importCounts(t);
    const result = await importFile(t, splitDay(), 'split.sta');
    assert.deepEqual(
      result.entries.map((e) => [e.position, e.status, e.amount]),
      [
        [1, 'unmatched', '50.00'],
        [2, 'unmatched', '50.00'],
      ],
    );
    assert.equal((await importCounts(t)).entries, before.entries + 2);
    // The same statements in another file (other bytes): recognised entry by entry.
    const again = await importFile(t, splitDay('\r\n'), 'split-again.sta');
    assert.equal(again.already_imported, false);
    assert.deepEqual(
      again.entries.map((e) => [e.status, e.note]),
      [
        ['duplicate', `already imported with statement ${result.statement_id}`],
        ['duplicate', `already imported with statement ${result.statement_id}`],
      ],
    );
    assert.equal((await importCounts(t)).entries, before.entries + 2);
  });

  test('a statement the file repeats as a whole is imported once', async () => {
    const part = mt940Part('00007/001', { mark: 'F', cents: 20000 }, [{ amount: '12,34', text: 'Beitrag', date: '261118' }], 'F').text;
    const before = await importCounts(t);
    const result = await importFile(t, `${part}\r\n${part}\r\n`, 'twice.sta');
    assert.deepEqual(
      result.entries.map((e) => [e.status, e.note]),
      [
        ['unmatched', 'no invoice number found in the remittance text'],
        ['duplicate', 'its statement appears twice in this file; imported once'],
      ],
    );
    assert.equal((await importCounts(t)).entries, before.entries + 1);
  });

  test('two camt entries sharing one AcctSvcrRef (a cheque and its fee) are two bookings', async () => {
    const content = camt(
      [
        { amount: '250.00', indicator: 'DBIT', ref: 'CHQ-2026-0815', text: 'Scheck 0815' },
        { amount: '2.50', indicator: 'DBIT', ref: 'CHQ-2026-0815', text: 'Scheckgebuehr' },
      ],
      { id: 'cheque' },
    );
    const before = await importCounts(t);
    const result = await importFile(t, content, 'cheque.xml');
    assert.deepEqual(
      result.entries.map((e) => [e.status, e.amount, e.direction]),
      [
        ['ignored', '250.00', 'debit'],
        ['ignored', '2.50', 'debit'],
      ],
    );
    assert.equal((await importCounts(t)).entries, before.entries + 2);
    const again = await importFile(t, content.replace('MSG-1', 'MSG-2'), 'cheque-again.xml');
    assert.deepEqual(
      again.entries.map((e) => e.status),
      ['duplicate', 'duplicate'],
    );
  });

  test('NONREF on every entry: entries are told apart by what they book', async () => {
    const content = camt(
      [
        { amount: '10.00', ref: 'NONREF', text: 'Beitrag Mai', name: 'Anna' },
        { amount: '10.00', ref: 'NONREF', text: 'Beitrag Mai', name: 'Bernd' },
        { amount: '20.00', ref: 'NONREF', text: 'Beitrag Juni', name: 'Anna' },
        { amount: '20.00', ref: 'NONREF', text: 'Beitrag Juni', name: 'Anna' },
      ],
      { id: 'nonref' },
    );
    const before = await importCounts(t);
    const result = await importFile(t, content, 'nonref.xml');
    assert.deepEqual(
      result.entries.map((e) => e.status),
      ['unmatched', 'unmatched', 'unmatched', 'unmatched'],
    );
    assert.equal((await importCounts(t)).entries, before.entries + 4);
    const again = await importFile(t, content.replace('MSG-1', 'MSG-3'), 'nonref-again.xml');
    assert.deepEqual(
      again.entries.map((e) => e.status),
      ['duplicate', 'duplicate', 'duplicate', 'duplicate'],
    );
  });

  test('entries stored under the earlier key scheme are recognised and take the new key', async () => {
    const content = camt(
      [
        { amount: '75.00', ref: 'OLD-1', text: 'Miete' },
        { amount: '5.00', ref: 'OLD-2', text: 'Porto' },
      ],
      { id: 'legacy' },
    );
    const first = await importFile(t, content, 'legacy.xml');
    const legacy = await toLegacyKeys(t, content, 'camt');
    const keysBefore = (await storedEntries(t)).filter((e) => e.statement_id === first.statement_id).map((e) => e.entry_key);
    assert.deepEqual(keysBefore, legacy, 'the stored keys are those of the earlier scheme');

    const before = await importCounts(t);
    const again = await importFile(t, content.replace('MSG-1', 'MSG-4'), 'legacy-again.xml');
    assert.deepEqual(
      again.entries.map((e) => [e.status, e.note]),
      [
        ['duplicate', `already imported with statement ${first.statement_id}`],
        ['duplicate', `already imported with statement ${first.statement_id}`],
      ],
    );
    assert.equal((await importCounts(t)).entries, before.entries);
    const parsed = parseStatement(Buffer.from(content));
    assert.deepEqual(
      (await storedEntries(t)).filter((e) => e.statement_id === first.statement_id).map((e) => e.entry_key),
      parsed.entries.map((e) => e.key),
      'the stored entries now carry the new keys',
    );
  });

  test('a split day an earlier import kept as one booking: the booking it dropped is imported now, the one it kept is not', async () => {
    const content = splitDay('', '60,00');
    const first = await importFile(t, content, 'old.sta');
    // What the import before issue 12 stored: the first of the two, under its old key.
    const [kept, dropped] = (await storedEntries(t)).filter((e) => e.statement_id === first.statement_id);
    await t.handle.db.deleteFrom('bank_transactions').where('company_id', '=', t.company.companyId).where('entry_id', '=', dropped!.id).execute();
    await t.handle.db.deleteFrom('bank_entries').where('company_id', '=', t.company.companyId).where('id', '=', dropped!.id).execute();
    await toLegacyKeys(t, content, 'mt940');
    assert.match((await storedEntries(t)).find((e) => e.id === kept!.id)!.entry_key, /^hash:/);

    const before = await importCounts(t);
    const again = await importFile(t, `${content}\r\n`, 'new.sta');
    assert.deepEqual(
      again.entries.map((e) => e.status),
      ['duplicate', 'unmatched'],
    );
    assert.equal((await importCounts(t)).entries, before.entries + 1);
  });

  test('stored bookings that disagree with the file are refused with a message, and nothing is written', async () => {
    const content = camt([{ amount: '33.00', ref: 'DIS-1', text: 'Honorar' }], { id: 'disagree' });
    const first = await importFile(t, content, 'first.xml');
    const [stored] = (await storedEntries(t)).filter((e) => e.statement_id === first.statement_id);
    await t.handle.db.updateTable('bank_entries').set({ amount: '3.30' }).where('company_id', '=', t.company.companyId).where('id', '=', stored!.id).execute();
    const before = await importCounts(t);
    await assert.rejects(importFile(t, content.replace('MSG-1', 'MSG-5'), 'second.xml'), (error: unknown) => {
      assert.ok(error instanceof BankImportError);
      assert.equal(error.code, 'entries_disagree');
      assert.equal(
        error.message,
        'statement disagree: its entries move the balance by 33.00, the bookings Kontor holds for them by 3.30: bookings imported before from another file differ from this file. Nothing was imported; compare the two files with the bank.',
      );
      return true;
    });
    assert.deepEqual(await importCounts(t), before);
  });
});

describe('a booking announced before the day statement', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp();
    await putCustomer(t, 'kunde-1');
  });
  after(() => t.close());

  /** The camt.053 of `camt()` as a camt.054 notification (or camt.052 report) of the same bookings. */
  const asMessage = (xml: string, kind: '052' | '054') => {
    const [root, item] = kind === '054' ? ['BkToCstmrDbtCdtNtfctn', 'Ntfctn'] : ['BkToCstmrAcctRpt', 'Rpt'];
    return xml
      .replace('camt.053.001.08', `camt.${kind}.001.08`)
      .replace(/BkToCstmrStmt>/g, `${root}>`)
      .replace(/<(\/?)Stmt>/g, `<$1${item}>`);
  };

  for (const kind of ['054', '052'] as const) {
    test(`camt.${kind} first, then the day's camt.053: the payment is booked once, the statement's other entries are imported`, async () => {
      const invoice = await issueInvoice(t, `announced-${kind}`);
      const payment = { amount: invoice.total_gross, text: `Rechnung ${invoice.number}`, ref: `N-${kind}-1`, name: 'Beispiel AG' };
      const early = await importFile(t, asMessage(camt([payment], { id: `early-${kind}` }), kind), `early-${kind}.xml`);
      assert.equal(early.format, `camt.${kind}.001.08`);
      assert.deepEqual(
        early.entries.map((e) => [e.status, e.transactions[0]!.payments.map((p) => p.invoice_number)]),
        [['matched', [invoice.number]]],
      );
      const before = await importCounts(t);
      const day = await importFile(t, camt([payment, { amount: '9.99', text: 'Zinsen', ref: `N-${kind}-2` }], { id: `day-${kind}` }), `day-${kind}.xml`);
      assert.deepEqual(
        day.entries.map((e) => [e.status, e.note]),
        [
          ['duplicate', `already imported with statement ${early.statement_id}`],
          ['unmatched', 'no invoice number found in the remittance text'],
        ],
      );
      const after = await importCounts(t);
      assert.deepEqual([after.allocations, after.journalEntries, after.entries], [before.allocations, before.journalEntries, before.entries + 1]);
    });
  }

  test("MT942 first, then the day's MT940: the same booking is imported once", async () => {
    const line = [':61:2611201120C50,00NTRFNONREF', ':86:166?00GUTSCHRIFT?20SVWZ+Beitrag Dezember?32Hans Schmidt'];
    const report = [
      ':20:STARTDISP',
      ':25:37040044/0532013000',
      ':28C:00001/001',
      ':34F:EURC0,00',
      ':13D:2611201200+0100',
      ...line,
      ':90C:1EUR50,00',
      '-',
      '',
    ].join('\r\n');
    const early = await importFile(t, report, 'vormittag.sta');
    assert.deepEqual([early.format, early.entries.map((e) => e.status)], ['mt942', ['unmatched']]);
    const statement = mt940Part('00050/001', { mark: 'F', cents: 10000 }, [{ amount: '50,00', text: 'Beitrag Dezember' }], 'F');
    const before = await importCounts(t);
    const day = await importFile(t, statement.text, 'abend.sta');
    assert.deepEqual(
      day.entries.map((e) => e.status),
      ['duplicate'],
    );
    assert.equal((await importCounts(t)).entries, before.entries);
  });
});
