import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { simpleParser } from 'mailparser';
import { COMPANY_FILE } from '../helpers/app.ts';
import { type CliWorkspace, cliWorkspace } from '../helpers/cli.ts';
import { BUSINESS_CUSTOMER } from '../invoicing/helpers.ts';
import { extractPages } from '../invoicing/render/pdf-reader.ts';

// The real `kontor` command: a company file with a dunning policy, `kontor serve` issuing
// an invoice, and `kontor jobs run --as-of` marking it overdue and mailing the notices
// into the outbox of the data folder (through the running server on the embedded
// database, directly with DATABASE_URL).

describe('kontor jobs run --as-of: overdue marking and dunning', () => {
  let w: CliWorkspace;
  let boot: { company_id: string; api_key: string };
  let server: Awaited<ReturnType<CliWorkspace['spawnServer']>>;
  let invoice: { id: string; number: string; due_date: string };

  const api = (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(`http://127.0.0.1:${server.port}/v1${url}`, {
      method,
      headers: { authorization: `Bearer ${boot.api_key}`, ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
  const jobsRun = async (date: string) => {
    const res = await w.run(['jobs', 'run', '--as-of', date, '--company', boot.company_id, '--json']);
    assert.equal(res.code, 0, res.stderr);
    return JSON.parse(res.stdout) as {
      as_of: string;
      tasks: Record<string, { ran: number; skipped: number; failed: number }>;
      jobs: { done: number; failed: number };
      warnings: string[];
    };
  };
  const mails = async () => {
    const folder = path.join(w.dataDir, 'outbox', boot.company_id);
    const files = (await readdir(folder).catch(() => [] as string[])).filter((name) => name.endsWith('.eml')).sort();
    return Promise.all(files.map(async (name) => simpleParser(await readFile(path.join(folder, name)))));
  };

  before(async () => {
    w = await cliWorkspace();
    const file = w.writeFile('company.json', { ...COMPANY_FILE, dunning: { reminder_days: 5, fees: ['0.00', '3.00', '6.00'] } });
    const res = await w.run(['admin', 'bootstrap', '--org', 'Mahn GmbH', '--company-file', file, '--admin-email', 'mahn@example.com', '--json']);
    assert.equal(res.code, 0, res.stderr);
    boot = JSON.parse(res.stdout);
    w.env.KONTOR_NOW = '2026-11-21T10:00:00Z';
    server = await w.spawnServer();
    assert.equal((await api('PUT', '/customers/by-ref/crm/kunde-1', BUSINESS_CUSTOMER)).status, 201);
    const created = await api(
      'POST',
      '/invoices',
      {
        customer: { source: 'crm', external_ref: 'kunde-1' },
        external_ref: 'cli-1',
        lines: [{ description: 'Beratung', quantity: '1', unit_price_net: '1000.00', vat_rate: 19 }],
        service_period: { start: '2026-11-01', end: '2026-11-30' },
        payment_terms_days: 14,
        issue: true,
      },
      { 'idempotency-key': 'cli-1' },
    );
    assert.equal(created.status, 201, await created.clone().text());
    invoice = (await created.json()) as typeof invoice;
  });
  after(async () => {
    if (server?.child.exitCode === null) {
      server.child.kill('SIGTERM');
      await once(server.child, 'exit');
    }
    await w.cleanup();
  });

  test('the day after the due date the invoice is overdue; running the day again does nothing', async () => {
    assert.equal(invoice.due_date, '2026-12-05');
    const first = await jobsRun('2026-12-06');
    assert.equal(first.as_of, '2026-12-06');
    assert.equal(first.tasks['invoices.overdue']!.ran, 1);
    assert.equal(first.tasks['invoices.dunning']!.ran, 1);
    const again = await jobsRun('2026-12-06');
    assert.equal(again.tasks['invoices.overdue']!.skipped, 1);
    assert.equal(again.tasks['invoices.dunning']!.skipped, 1);
    const view = (await (await api('GET', `/invoices/${invoice.id}`)).json()) as { overdue: boolean; dunning_level: number | null };
    assert.deepEqual([view.overdue, view.dunning_level], [true, null]);
  });

  test('the company file’s reminder_days (5) decide the reminder day; the mail with its PDF lands in the outbox', async () => {
    await jobsRun('2026-12-09');
    assert.equal((await mails()).length, 0);
    const run = await jobsRun('2026-12-10');
    assert.equal(run.jobs.done, 1);
    const [mail] = await mails();
    assert.equal(mail?.subject, `Zahlungserinnerung zu Rechnung ${invoice.number} von ${COMPANY_FILE.name}`);
    const pdf = mail!.attachments.find((a) => a.contentType === 'application/pdf')!;
    const text = extractPages(pdf.content).join('\n').replace(/\s+/g, ' ');
    assert.match(text, /Offener Rechnungsbetrag 1\.190,00 €/);
    const view = (await (await api('GET', `/invoices/${invoice.id}`)).json()) as { dunning_level: number | null };
    assert.equal(view.dunning_level, 0);

    const again = await jobsRun('2026-12-10');
    assert.equal(again.jobs.done, 0);
    assert.equal((await mails()).length, 1, 'nothing twice');
  });

  test('the 1. Mahnung carries the company’s fee; its interest in 2026-H2 warns of the stale Basiszinssatz', async () => {
    const run = await jobsRun('2026-12-24');
    assert.match(run.warnings.join('\n'), /invoices\.dunning .*: warning: the Basiszinssatz table has no rate for 2026-07-01: 1 notice\(s\)/);
    const all = await mails();
    assert.equal(all.length, 2);
    const pdf = all[1]!.attachments.find((a) => a.contentType === 'application/pdf')!;
    assert.match(extractPages(pdf.content).join('\n').replace(/\s+/g, ' '), /Mahngebühr 1\. Mahnung 3,00 €/);
  });

  test('admin company update refuses a dunning policy with a fee on the reminder or an unknown key, and keeps the policy', async () => {
    const feeOnReminder = w.writeFile('bad-fee.json', { dunning: { fees: ['1.00', '2.50', '5.00'] } });
    const refused = await w.run(['admin', 'company', 'update', '--company', boot.company_id, '--company-file', feeOnReminder]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /reminder \(level 0\) carries no fee/);
    const unknownKey = w.writeFile('bad-key.json', { dunning: { reminder: 7 } });
    const unknown = await w.run(['admin', 'company', 'update', '--company', boot.company_id, '--company-file', unknownKey]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /dunning/);

    await jobsRun('2027-01-07');
    const all = await mails();
    assert.equal(all.length, 3);
    const pdf = all[2]!.attachments.find((a) => a.contentType === 'application/pdf')!;
    assert.match(extractPages(pdf.content).join('\n').replace(/\s+/g, ' '), /Mahngebühr 2\. Mahnung 6,00 €/, 'the policy is unchanged');
  });
});
