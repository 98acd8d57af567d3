import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { BIN, type Booted, type CliWorkspace, cliWorkspace } from '../helpers/cli.ts';
import { watch } from '../helpers/processes.ts';

// A statement run is done exactly once (issue 14, point 6): `kontor jobs run` killed with
// SIGKILL between its side effects (the commit of one partner's statement, the storing of
// its documents, the mail) and started again leaves one statement per partner with gapless
// GS numbers, every PDF and e-invoice stored, each statement mailed once and `sent`.

const PARTNERS = 4;

async function setUp(w: CliWorkspace): Promise<Booted> {
  const server = await w.spawnServer();
  const booted = await w.bootstrap('provision');
  const api = async (method: string, url: string, body: unknown, expected: number[]) => {
    const res = await fetch(`http://127.0.0.1:${server.port}/v1${url}`, {
      method,
      headers: { authorization: `Bearer ${booted.api_key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    assert.ok(expected.includes(res.status), `${method} ${url}: ${res.status} ${await res.text()}`);
  };
  for (let i = 1; i <= PARTNERS; i++) {
    await api(
      'PUT',
      `/commission-partners/by-ref/crm/p-${i}`,
      {
        name: `Partner ${i} GmbH`,
        email: `p${i}@partner.example`,
        tax_status: 'domestic_regular',
        billing_mode: 'self_billing',
        self_billing_agreed_on: '2026-01-01',
        vat_id: 'DE136695976',
        street: 'Weg',
        house_number: String(i),
        zip: '10115',
        city: 'Berlin',
        country_code: 'DE',
      },
      [200],
    );
    await api(
      'PUT',
      `/commission-agreements/by-ref/crm/ag-${i}`,
      { partner_ref: `p-${i}`, start_date: '2026-01-01', applies_to: 'all_customers', tiers: [{ from_month: 1, to_month: null, percent: i }] },
      [201],
    );
  }
  await api('POST', '/revenue-events', { source: 'crm', external_ref: 'nov-1', occurred_at: '2026-11-10T10:00:00Z', net_amount: '1000.00' }, [201]);
  server.child.kill('SIGTERM');
  await once(server.child, 'exit');
  return booted;
}

describe('a statement run killed between its side effects makes and mails every statement once', () => {
  let w: CliWorkspace;
  let booted: Booted;

  async function killedAt(step: string) {
    const run = watch(process.execPath, [BIN, 'jobs', 'run', '--as-of', '2026-12-01'], { cwd: w.dir, env: { ...w.env, KONTOR_PAUSE_AT: step } });
    await run.waitFor(new RegExp(`paused at ${step.replace('.', '\\.')}`), 60_000);
    run.child.kill('SIGKILL');
    await once(run.child, 'exit');
    await w.withDatabase((db) =>
      db
        .updateTable('jobs')
        .set({ locked_until: new Date(Date.now() - 1000) })
        .where('status', '=', 'running')
        .execute(),
    );
  }

  before(async () => {
    w = await cliWorkspace();
    w.env.KONTOR_NOW = '2026-11-21T10:00:00Z';
    booted = await setUp(w);
    await killedAt('statement-run.after-commit');
    await killedAt('statement-render.before-store');
    await killedAt('statement-mail.after-send');
    const again = await w.run(['jobs', 'run', '--as-of', '2026-12-01', '--json']);
    assert.equal(again.code, 0, again.stderr);
  });
  after(() => w?.cleanup());

  test('one statement per partner, gapless numbers, documents stored, every job done', async () => {
    const result = await w.withDatabase(async (db) => ({
      statements: await db
        .selectFrom('commission_statements')
        .select(['id', 'number', 'status', 'gross_cents'])
        .where('company_id', '=', booted.company_id)
        .orderBy('number')
        .execute(),
      files: await db.selectFrom('commission_statement_files').select(['statement_id', 'kind']).where('company_id', '=', booted.company_id).execute(),
      jobs: await db.selectFrom('jobs').select(['name', 'status']).where('company_id', '=', booted.company_id).execute(),
      journal: await db
        .selectFrom('journal_entries')
        .select('document_id')
        .where('company_id', '=', booted.company_id)
        .where('document_type', '=', 'commission_statement')
        .execute(),
    }));
    assert.deepEqual(
      result.statements.map((s) => s.number),
      Array.from({ length: PARTNERS }, (_, i) => `GS-2026-${String(i + 1).padStart(5, '0')}`),
    );
    assert.ok(result.statements.every((s) => s.status === 'sent'));
    assert.equal(result.files.length, PARTNERS * 2, 'PDF and XML of each');
    assert.equal(result.journal.length, PARTNERS, 'booked once each');
    assert.ok(
      result.jobs.every((job) => job.status === 'done'),
      JSON.stringify(result.jobs.filter((job) => job.status !== 'done')),
    );
    const mails = readdirSync(path.join(w.dataDir, 'outbox', booted.company_id)).filter((name) => name.endsWith('.eml'));
    assert.equal(mails.length, PARTNERS, 'each mailed once');
  });
});
