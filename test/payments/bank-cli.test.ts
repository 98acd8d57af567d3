import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { strToU8, zipSync } from 'fflate';
import { type CommandContext, runCommand } from '../../src/cli/commands.ts';
import { bufferIo } from '../../src/cli/io.ts';
import { sealer, type TestApp, testApp } from '../helpers/app.ts';
import { type CliWorkspace, cliWorkspace } from '../helpers/cli.ts';
import { BUSINESS_CUSTOMER, invoiceBody, putCustomer } from '../invoicing/helpers.ts';
import { camt, fixture, issueInvoice } from './helpers.ts';

describe('kontor bank import (real command line, server holding the data folder)', () => {
  let w: CliWorkspace;
  let server: Awaited<ReturnType<CliWorkspace['spawnServer']>>;
  let boot: { company_id: string; api_key: string };
  let invoice: { id: string; number: string };
  const api = (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(`http://127.0.0.1:${server.port}${url}`, {
      method,
      headers: { authorization: `Bearer ${boot.api_key}`, ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });

  before(async () => {
    w = await cliWorkspace();
    w.env.KONTOR_NOW = '2026-11-21T10:00:00Z';
    boot = await w.bootstrap('bank');
    server = await w.spawnServer();
    assert.equal((await api('PUT', '/v1/customers/by-ref/crm/kunde-1', BUSINESS_CUSTOMER)).status, 201);
    const created = await api('POST', '/v1/invoices', invoiceBody('cli-1', { issue: true }), { 'idempotency-key': 'cli-1' });
    assert.equal(created.status, 201);
    invoice = (await created.json()) as typeof invoice;
  });
  after(() => w.cleanup());

  test('imports a statement, prints one JSON document with --json, and the invoice is paid', async () => {
    const file = w.writeFile('kontoauszug.xml', camt([{ amount: '85.06', text: `Rechnung ${invoice.number}`, name: 'Beispiel AG' }], { id: 'cli' }));
    const res = await w.run(['bank', 'import', path.basename(file), '--company', boot.company_id, '--json']);
    assert.equal(res.code, 0, res.stderr);
    const result = JSON.parse(res.stdout);
    assert.equal(result.file_name, 'kontoauszug.xml');
    assert.equal(result.entries[0].status, 'matched');
    assert.deepEqual(result.entries[0].transactions[0].payments[0], {
      invoice_id: invoice.id,
      invoice_number: invoice.number,
      amount: '85.06',
      effect: 'paid',
      open_after: '0.00',
    });
    const paid = (await (await api('GET', `/v1/invoices/${invoice.id}`)).json()) as { status: string; amount_paid: string };
    assert.deepEqual([paid.status, paid.amount_paid], ['paid', '85.06']);

    const again = await w.run(['bank', 'import', 'kontoauszug.xml', '--company', boot.company_id]);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /^kontoauszug\.xml was imported already at 2026-11-21T\S+ \(statement bst_\w+\); nothing was booked again\.\n$/);
  });

  test('a refused file exits 1 with the message on stderr and writes nothing', async () => {
    const good = camt([{ amount: '10.00', text: 'RE-2026-00042' }], { id: 'refused' });
    w.writeFile('cut.xml', good.slice(0, 200));
    const res = await w.run(['bank', 'import', 'cut.xml', '--company', boot.company_id, '--json']);
    assert.equal(res.code, 1);
    assert.equal(res.stdout, '');
    assert.match(res.stderr, /^kontor: cut\.xml: the XML is cut off or malformed: .* Nothing was imported\.\n$/);
    // Had the refused file been stored, its entry would now count as already imported.
    w.writeFile('whole.xml', good);
    const whole = JSON.parse((await w.run(['bank', 'import', 'whole.xml', '--company', boot.company_id, '--json'])).stdout);
    assert.equal(whole.entries[0].status, 'unmatched');
  });
  test('a ZIP archive is imported file by file in the order of the names; a refused file fails the command and leaves the others', async () => {
    const day = (id: string, amount: string) => strToU8(camt([{ amount, text: `Zahlung ${id}` }], { id }));
    const zip = zipSync({
      '2026-11-21.xml': day('zip-21', '21.00'),
      '2026-11-20.xml': day('zip-20', '20.00'),
      '__MACOSX/._2026-11-20.xml': strToU8('resource fork'),
      'kaputt.xml': strToU8('<Document'),
    });
    writeFileSync(path.join(w.dir, 'camt-tag.zip'), zip);
    const res = await w.run(['bank', 'import', 'camt-tag.zip', '--company', boot.company_id, '--json']);
    assert.equal(res.code, 1);
    const outcome = JSON.parse(res.stdout);
    assert.equal(outcome.archive, 'camt-tag.zip');
    assert.deepEqual(
      outcome.imports.map((i: { file_name: string; entries: { amount: string }[] }) => [i.file_name, i.entries.map((e) => e.amount)]),
      [
        ['camt-tag.zip/2026-11-20.xml', ['20.00']],
        ['camt-tag.zip/2026-11-21.xml', ['21.00']],
      ],
    );
    assert.deepEqual(
      outcome.refused.map((r: { file_name: string }) => r.file_name),
      ['camt-tag.zip/kaputt.xml'],
    );
    assert.match(res.stderr, /^kontor: camt-tag\.zip\/kaputt\.xml: the XML is cut off or malformed.*\. Nothing was imported from this file\.\n$/);

    const again = await w.run(['bank', 'import', 'camt-tag.zip', '--company', boot.company_id]);
    assert.equal(again.code, 1);
    assert.match(again.stdout, /^camt-tag\.zip: 3 files, 2 imported, 1 refused\n/);
    assert.match(again.stdout, /camt-tag\.zip\/2026-11-20\.xml was imported already/);
    assert.match(again.stdout, /camt-tag\.zip\/2026-11-21\.xml was imported already/);
  });

  test('through the server, every refusal names the file', async () => {
    w.writeFile('fremd.xml', camt([{ amount: '10.00', text: 'x' }], { id: 'fremd' }));
    const unknown = await w.run(['bank', 'import', 'fremd.xml', '--company', 'cmp_unknown']);
    assert.equal(unknown.code, 1);
    assert.equal(unknown.stderr, 'kontor: fremd.xml: no company cmp_unknown\n');
    w.writeFile('leer.sta', '');
    const empty = await w.run(['bank', 'import', 'leer.sta', '--company', boot.company_id]);
    assert.equal(empty.code, 1);
    assert.equal(empty.stderr, 'kontor: leer.sta: the file is empty. Nothing was imported.\n');
  });
});

describe('kontor bank import (command handler)', () => {
  let t: TestApp;
  let dir: string;
  let ctx: CommandContext;

  before(async () => {
    t = await testApp();
    await putCustomer(t, 'kunde-1');
    for (let i = 1; i <= 5; i++) await issueInvoice(t, `cli-${i}`);
    dir = mkdtempSync(path.join(tmpdir(), 'kontor-bank-'));
    ctx = { db: t.handle.db, clock: t.clock, sealer, cwd: dir };
  });
  after(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('prints matched, unmatched and ignored entries with their notes, and totals', async () => {
    writeFileSync(path.join(dir, 'camt-v08.xml'), fixture('camt053-v08.xml'));
    const io = bufferIo();
    const code = await runCommand(['bank', 'import', 'camt-v08.xml', '--company', t.company.companyId], io, ctx);
    assert.equal(code, 0, io.stderr);
    const lines = io.stdout.split('\n');
    assert.match(
      lines[0]!,
      /^Imported camt-v08\.xml \(camt\.053\.001\.08; 2026-11-21-EUR \(DE89370400440532013000\), 2026-11-21-USD \(DE83500105175555555555\)\) as bst_\w+: 5 entries$/,
    );
    assert.match(lines[1]!, /^warning: statement 2026-11-21-USD is for account DE83500105175555555555/);
    assert.deepEqual(lines.slice(2), [
      '',
      'Matched',
      '  #1  2026-11-21  +85.06 EUR  Alpha GmbH  RE-2026-00002 paid (85.06)',
      '  #1  2026-11-21  +85.06 EUR  Beta KG  RE-2026-00003 paid (85.06)',
      '  #2  2026-11-21  +100.00 EUR  Gamma UG  RE-2026-00004 paid (85.06); 14.94 EUR credit for Beispiel AG',
      '  #3  2026-11-21  +50.00 EUR  Delta e.K.  RE-2026-00005 partially paid (50.00, 35.06 open)',
      '',
      'Unmatched (kept for a person to assign)',
      '  #4  2026-11-21  +25.00 EUR  Erika Muster  no invoice number found in the remittance text — "Spende Sommerfest"',
      '',
      'Ignored',
      '  #5  2026-11-21  +40.00 USD  Omega Inc.  USD entry ignored (Kontor books EUR only)',
      '',
      'Totals: 3 matched, 0 partly matched, 1 unmatched, 1 ignored, 0 already imported',
      '        received 345.12 EUR: applied 305.18 EUR to invoices (3 paid, 1 partially paid), customer credit 14.94 EUR, unassigned 25.00 EUR',
      '',
    ]);
  });

  test('a missing file or company is refused with exit code 1; missing arguments are usage errors', async () => {
    const missing = bufferIo();
    assert.equal(await runCommand(['bank', 'import', 'nope.xml', '--company', t.company.companyId], missing, ctx), 1);
    assert.match(missing.stderr, /^kontor: cannot read .*nope\.xml: ENOENT/);
    writeFileSync(path.join(dir, 'one.xml'), camt([{ amount: '1.00', text: 'x' }], { id: 'one' }));
    const unknown = bufferIo();
    assert.equal(await runCommand(['bank', 'import', 'one.xml', '--company', 'cmp_nobody'], unknown, ctx), 1);
    assert.equal(unknown.stderr, 'kontor: one.xml: no company cmp_nobody\n');
    const usage = bufferIo();
    assert.equal(await runCommand(['bank', 'import', 'one.xml'], usage, ctx), 2);
    assert.match(usage.stderr, /--company is required/);
    const noFile = bufferIo();
    assert.equal(await runCommand(['bank', 'import', '--company', t.company.companyId], noFile, ctx), 2);
  });
});
