import assert from 'node:assert/strict';
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { BIN, type Booted, type CliWorkspace, cliWorkspace } from '../helpers/cli.ts';
import { watch } from '../helpers/processes.ts';
import { sepaSchemaErrors } from './sepa-schema.ts';

// Issue 24, point 5: `kontor admin payout run --out FILE` commits the run (statements paid,
// the pain.001 stored) before it writes FILE. Killed with SIGKILL right after that commit,
// or with the file written under its temporary name but not yet renamed, FILE is missing —
// never empty or partial — while the run stays committed; `kontor admin payout file RUN_ID
// --out FILE` writes the stored file again, byte for byte.

const PARTNERS = 2;

async function setUp(w: CliWorkspace): Promise<Booted> {
  const server = await w.spawnServer();
  const booted = await w.bootstrap('payout');
  const api = async (method: string, url: string, body: unknown, expected: number[]) => {
    const res = await fetch(`http://127.0.0.1:${server.port}/v1${url}`, {
      method,
      headers: { authorization: `Bearer ${booted.api_key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    assert.ok(expected.includes(res.status), `${method} ${url}: ${res.status} ${text}`);
    return JSON.parse(text);
  };
  for (let i = 1; i <= PARTNERS; i++) {
    await api(
      'PUT',
      `/commission-partners/by-ref/crm/p-${i}`,
      {
        name: `Partner ${i} GmbH`,
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
      { partner_ref: `p-${i}`, start_date: '2026-01-01', applies_to: 'all_customers', tiers: [{ from_month: 1, to_month: null, percent: 10 * i }] },
      [201],
    );
  }
  // 1,000.00 paid in October: 10 % → 100.00 + 19.00 VAT; 20 % → 200.00 + 38.00.
  await api('POST', '/revenue-events', { source: 'crm', external_ref: 'oct-1', occurred_at: '2026-10-10T10:00:00Z', net_amount: '1000.00' }, [201]);
  server.child.kill('SIGTERM');
  await once(server.child, 'exit');
  return booted;
}

describe('a payout run killed between its commit and its file leaves no partial file, and the file can be written again', () => {
  let w: CliWorkspace;
  let booted: Booted;
  let statementIds: string[];
  const admin = () => `payout@example.com`;

  before(async () => {
    w = await cliWorkspace();
    w.env.KONTOR_NOW = '2026-11-21T10:00:00Z';
    booted = await setUp(w);
    const ran = await w.run(['jobs', 'run', '--as-of', '2026-11-01', '--json']);
    assert.equal(ran.code, 0, ran.stderr);
    const listed = await w.run(['admin', 'statement', 'list', '--company', booted.company_id, '--json']);
    assert.equal(listed.code, 0, listed.stderr);
    const statements = JSON.parse(listed.stdout) as { id: string; partner_id: string }[];
    assert.equal(statements.length, PARTNERS);
    statementIds = statements.map((s) => s.id);
    for (const s of statements) {
      const set = await w.run(['admin', 'partner', 'payout-account', s.partner_id, '--by', admin(), '--iban', 'DE02120300000000202051']);
      assert.equal(set.code, 0, set.stderr);
    }
  });
  after(() => w?.cleanup());

  async function killedAt(step: string, args: string[]) {
    const run = watch(process.execPath, [BIN, ...args], { cwd: w.dir, env: { ...w.env, KONTOR_PAUSE_AT: step } });
    await run.waitFor(new RegExp(`paused at ${step.replaceAll('.', '\\.')}`), 60_000);
    run.child.kill('SIGKILL');
    await once(run.child, 'exit');
  }

  const storedRuns = () =>
    w.withDatabase(async (db) => ({
      runs: await db.selectFrom('payout_runs').select(['id', 'file', 'total_cents']).where('company_id', '=', booted.company_id).execute(),
      paid: await db.selectFrom('commission_statements').select('id').where('company_id', '=', booted.company_id).where('paid_at', 'is not', null).execute(),
    }));

  test('killed right after the commit: FILE missing, the run committed; the fetch writes the stored file byte for byte', async () => {
    const file = path.join(w.dir, 'payout.xml');
    await killedAt('payout-file.after-commit', [
      'admin',
      'payout',
      'run',
      '--company',
      booted.company_id,
      '--statements',
      statementIds.join(','),
      '--execution-date',
      '2026-11-25',
      '--out',
      'payout.xml',
      '--by',
      admin(),
    ]);
    assert.equal(existsSync(file), false, 'no file under the name given');
    assert.deepEqual(
      readdirSync(w.dir).filter((name) => name.includes('payout.xml')),
      [],
      'nothing half-written beside it',
    );
    const { runs, paid } = await storedRuns();
    assert.equal(runs.length, 1, 'the run is committed');
    // 119.00 + 238.00 = 357.00
    assert.equal(Number(runs[0]!.total_cents), 35700);
    assert.equal(paid.length, PARTNERS, 'both statements paid');

    const fetched = await w.run(['admin', 'payout', 'file', runs[0]!.id, '--out', 'payout.xml', '--by', admin(), '--json']);
    assert.equal(fetched.code, 0, fetched.stderr);
    assert.deepEqual(JSON.parse(fetched.stdout), {
      run_id: runs[0]!.id,
      message_id: JSON.parse(fetched.stdout).message_id,
      execution_date: '2026-11-25',
      payments: PARTNERS,
      total: '357.00',
      file,
    });
    assert.ok(readFileSync(file).equals(Buffer.from(runs[0]!.file, 'utf8')), 'byte-identical to the stored file');
    assert.deepEqual(await sepaSchemaErrors(readFileSync(file, 'utf8')), []);
    // A second run for the same statements pays nothing twice.
    const again = await w.run([
      'admin',
      'payout',
      'run',
      '--company',
      booted.company_id,
      '--statements',
      statementIds.join(','),
      '--execution-date',
      '2026-11-25',
      '--out',
      'payout-2.xml',
      '--by',
      admin(),
    ]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /bereits als bezahlt vermerkt/);
    assert.equal(existsSync(path.join(w.dir, 'payout-2.xml')), false);
  });

  test('killed with the file written under its temporary name: FILE missing, an earlier FILE untouched; written again it is whole', async () => {
    const { runs } = await storedRuns();
    const file = path.join(w.dir, 'copy.xml');
    await killedAt('payout-file.before-rename', ['admin', 'payout', 'file', runs[0]!.id, '--out', 'copy.xml', '--by', admin()]);
    assert.equal(existsSync(file), false, 'never a partial file under the name given');
    const leftovers = readdirSync(w.dir).filter((name) => name.startsWith('.copy.xml.') && name.endsWith('.tmp'));
    assert.equal(leftovers.length, 1, 'the temporary file a crash leaves is hidden beside it');
    // Over an existing file: the old content stays until the new one is whole.
    const old = path.join(w.dir, 'payout.xml');
    const before = readFileSync(old);
    await killedAt('payout-file.before-rename', ['admin', 'payout', 'file', runs[0]!.id, '--out', 'payout.xml', '--by', admin()]);
    assert.ok(readFileSync(old).equals(before));
    const written = await w.run(['admin', 'payout', 'file', runs[0]!.id, '--out', 'copy.xml', '--by', admin()]);
    assert.equal(written.code, 0, written.stderr);
    assert.match(written.stdout, /written to .*copy\.xml/);
    assert.ok(readFileSync(file).equals(Buffer.from(runs[0]!.file, 'utf8')));
  });

  test('the fetch refuses an unknown run and a person who is no admin of its company', async () => {
    const unknown = await w.run(['admin', 'payout', 'file', 'prn_00000000000000000000000000', '--out', 'x.xml', '--by', admin()]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no payout run prn_0+/);
    const { runs } = await storedRuns();
    const stranger = await w.run(['admin', 'payout', 'file', runs[0]!.id, '--out', 'x.xml', '--by', 'nobody@example.com']);
    assert.equal(stranger.code, 1);
    assert.match(stranger.stderr, /no active member with access/);
    assert.equal(existsSync(path.join(w.dir, 'x.xml')), false);
  });
});
