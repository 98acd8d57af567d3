import assert from 'node:assert/strict';
import { once } from 'node:events';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { BIN, type CliWorkspace, cliWorkspace } from '../helpers/cli.ts';
import { childrenOf, ended, poll, type Watched, watch } from '../helpers/processes.ts';
import { camt } from './helpers.ts';

// Issue 24, point 3: a refund's reversal (its row, booking, invoice update, revenue share,
// change-feed position) is written in the import's one transaction; nothing of it happens
// after the commit. kill -9 of `kontor bank import` just before its commit leaves the
// invoice paid and nothing booked; the same file imported again takes the money back once.

const NOW = '2026-11-21T10:00:00Z';

describe('kill -9 during the import of a refund', () => {
  let w: CliWorkspace;
  const started: Watched[] = [];
  const orphans: number[] = [];
  beforeEach(async () => {
    w = await cliWorkspace();
  });
  afterEach(async () => {
    for (const p of started.splice(0)) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    for (const pid of orphans.splice(0)) if (!ended(pid)) process.kill(pid, 'SIGKILL');
    await w.cleanup();
  });

  test('nothing is taken back by the killed import; imported again, the refund is taken back once', async () => {
    const booted = await w.bootstrap('refund');
    // An issued invoice through the API (85.06 EUR gross), then the server stops.
    const server = await w.spawnServer([], { KONTOR_NOW: NOW });
    const api = (method: string, url: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(`http://127.0.0.1:${server.port}/v1${url}`, {
        method,
        headers: { authorization: `Bearer ${booted.api_key}`, 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    const customer = await api('PUT', '/customers/by-ref/crm/kunde-1', {
      name: 'Beispiel AG',
      email: 'buchhaltung@beispiel.example',
      street: 'Ringstraße',
      house_number: '5',
      zip: '80331',
      city: 'München',
      country_code: 'DE',
      customer_type: 'business',
      vat_id: 'DE136695976',
    });
    assert.equal(customer.status, 201, await customer.text());
    const created = await api(
      'POST',
      '/invoices',
      {
        customer: { source: 'crm', external_ref: 'kunde-1' },
        external_ref: 'crash-refund',
        lines: [
          { description: 'Pro-Tarif November', quantity: '1', unit: 'Monat', unit_price_net: '49.00', vat_rate: 19 },
          { description: 'Fachbuch', quantity: '2', unit: 'Stück', unit_price_net: '12.50', vat_rate: 7 },
        ],
        service_period: { start: '2026-11-01', end: '2026-11-30' },
        issue: true,
      },
      { 'idempotency-key': 'crash-refund-1' },
    );
    const body = await created.text();
    assert.equal(created.status, 201, body);
    const invoice = JSON.parse(body) as { id: string; number: string; total_gross: string };
    assert.equal(invoice.total_gross, '85.06');
    server.child.kill('SIGTERM');
    await once(server.child, 'exit');

    const env = { KONTOR_NOW: NOW };
    w.writeFile('zahlung.xml', camt([{ amount: '85.06', text: `Rechnung ${invoice.number}`, date: '2026-11-20' }], { id: 'PAY', msgId: 'PAY' }));
    const paid = await w.run(['bank', 'import', 'zahlung.xml', '--company', booted.company_id, '--json'], env);
    assert.equal(paid.code, 0, paid.stderr);
    w.writeFile(
      'erstattung.xml',
      camt([{ amount: '85.06', indicator: 'DBIT', text: `Erstattung ${invoice.number}`, date: '2026-11-21' }], { id: 'REFUND', msgId: 'REFUND' }),
    );
    const state = () =>
      w.withDatabase(async (db) => ({
        invoice: await db.selectFrom('invoices').select(['status', 'amount_paid_cents']).where('id', '=', invoice.id).executeTakeFirstOrThrow(),
        reversals: (await db.selectFrom('payment_reversals').select('id').execute()).length,
        bookings: (await db.selectFrom('journal_entries').select('id').where('document_type', '=', 'payment').execute()).length,
      }));

    // The import stops with everything written and nothing committed, and is killed there.
    const launcher = watch(process.execPath, [BIN, 'bank', 'import', 'erstattung.xml', '--company', booted.company_id, '--json'], {
      cwd: w.dir,
      env: { ...w.env, KONTOR_WORKER: 'off', KONTOR_PAUSE_AT: 'bank-import.before-commit', ...env },
    });
    started.push(launcher);
    await launcher.waitFor(/kontor: paused at bank-import.before-commit/);
    const [child] = childrenOf(launcher.child.pid!);
    if (child) orphans.push(child);
    launcher.child.kill('SIGKILL');
    if (child) await poll('the import child to end', () => ended(child), 3000);

    // Paid as before: one payment booked, nothing taken back.
    assert.deepEqual(await state(), { invoice: { status: 'paid', amount_paid_cents: 8506 }, reversals: 0, bookings: 1 });

    const again = await w.run(['bank', 'import', 'erstattung.xml', '--company', booted.company_id, '--json'], env);
    assert.equal(again.code, 0, again.stderr);
    const result = JSON.parse(again.stdout) as { already_imported: boolean; totals: { reversed: string } };
    assert.deepEqual([result.already_imported, result.totals.reversed], [false, '85.06']);
    const twice = await w.run(['bank', 'import', 'erstattung.xml', '--company', booted.company_id, '--json'], env);
    assert.equal(JSON.parse(twice.stdout).already_imported, true);
    assert.deepEqual(await state(), { invoice: { status: 'issued', amount_paid_cents: 0 }, reversals: 1, bookings: 2 });
  });
});
