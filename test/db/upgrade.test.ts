import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import pg from 'pg';
import { runCommand } from '../../src/cli/commands.ts';
import { bufferIo } from '../../src/cli/io.ts';
import { type DatabaseHandle, openDatabase } from '../../src/db/connection.ts';
import { listMigrations, migrate, pendingMigrations } from '../../src/db/migrate.ts';
import { nextNumbers, readCompanySettings } from '../../src/modules/access/company-settings.ts';
import { directorySink, taxPeriod, ustvaReport, writeGobdExport } from '../../src/modules/tax/index.ts';
import { fixedClock } from '../../src/shared/clock.ts';
import { createSealer } from '../../src/shared/secrets.ts';
import { freshServerDatabase, usePostgres } from '../helpers/database.ts';

// Issue 29 §1, upgrades: a database made by an earlier release — kept as plain SQL in
// test/fixtures/upgrade/ (scripts/upgrade-fixture.ts: that release's own code created a
// company, customers and issued invoices with their stored PDF and XML, then pg_dump) —
// is loaded into an empty database; `kontor migrate --dry-run` names the migrations it
// lacks and changes nothing; `migrate` applies exactly those, and the data answers as
// before: settings, the next number of the gapless range, the tax figures, and every
// stored document with the checksum it was stored with.

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/upgrade');

/** An empty database with the fixture's SQL loaded, on the suite's kind of database. */
async function loaded(file: string): Promise<{ handle: DatabaseHandle; drop(): Promise<void> }> {
  const text = readFileSync(path.join(FIXTURES, file), 'utf8');
  if (usePostgres) {
    const server = await freshServerDatabase();
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    await client.query(text);
    await client.end();
    const handle = await openDatabase({ kind: 'postgres', url: server.url });
    return { handle, drop: async () => (await handle.close(), await server.drop()) };
  }
  const handle = await openDatabase({ kind: 'pglite' });
  await handle.pglite?.exec(text);
  // pg_dump empties the search path of the session that loads it; PGlite has one session.
  await handle.pglite?.exec('reset search_path');
  return { handle, drop: () => handle.close() };
}

for (const file of readdirSync(FIXTURES).filter((name) => name.endsWith('.sql'))) {
  test(`${file}: migrates forward, --dry-run first; the data answers as before`, async () => {
    const { handle, drop } = await loaded(file);
    const out = mkdtempSync(path.join(tmpdir(), 'kontor-upgrade-'));
    try {
      const db = handle.db;
      const had = new Set((await db.selectFrom('schema_migrations').select('version').execute()).map((row) => row.version));
      const lacking = (await listMigrations()).map((m) => m.version).filter((version) => !had.has(version));
      const pending = await pendingMigrations(db);
      assert.deepEqual(
        pending.map((m) => m.version),
        lacking,
      );

      const dry = bufferIo();
      const ctx = { db, clock: fixedClock('2026-11-29T09:00:00Z'), sealer: createSealer('upgrade'), cwd: out };
      assert.equal(await runCommand(['migrate', '--dry-run'], dry, ctx), 0, dry.stderr);
      if (lacking.length > 0) {
        assert.match(dry.stdout, new RegExp(`^${lacking.length} migration\\(s\\) would be applied, each in its own transaction:$`, 'm'));
        for (const version of lacking) assert.match(dry.stdout, new RegExp(`^${version}( — |$)`, 'm'));
      }
      if (lacking.includes('0050_vat_return_period')) {
        assert.match(dry.stdout, /^0050_vat_return_period — How often the company files the Umsatzsteuer-Voranmeldung/m);
        assert.match(dry.stdout, /^ {4}add column vat_return_period text not null default 'monthly'/m);
      }
      assert.deepEqual(
        (await pendingMigrations(db)).map((m) => m.version),
        lacking,
        'the dry run changed nothing',
      );

      assert.deepEqual(await migrate(db), lacking);
      assert.deepEqual(await pendingMigrations(db), []);
      const after = bufferIo();
      assert.equal(await runCommand(['migrate', '--dry-run'], after, ctx), 0);
      assert.match(after.stdout, /^migrations are up to date; nothing would change$/m);

      // The data of the earlier release, read by this one.
      const company = await db
        .selectFrom('companies')
        .select(['id', 'organization_id', 'invoice_number_pattern', 'contract_number_pattern'])
        .executeTakeFirstOrThrow();
      const settings = await readCompanySettings(db, company.id);
      assert.equal(settings.vat_return_period, 'monthly');
      const invoices = await db.selectFrom('invoices').select(['number', 'issue_date']).where('company_id', '=', company.id).orderBy('number').execute();
      assert.deepEqual(
        invoices.map((i) => i.number),
        ['RE-2026-00001', 'RE-2026-00002'],
      );
      const next = await nextNumbers(db, company.id, '2026-11-29', { invoice: company.invoice_number_pattern, contract: company.contract_number_pattern });
      assert.equal(next.invoice, 'RE-2026-00003', 'the gapless range goes on');
      const november = await ustvaReport(db, company.id, taxPeriod('2026-11'));
      assert.ok((november.lines.find((line) => line.key === '81')?.booked_cents ?? 0) > 0, 'the journal feeds the Voranmeldung');
      const user = await db.selectFrom('users').select('id').executeTakeFirstOrThrow();
      const exported = await writeGobdExport(
        db,
        company.id,
        {
          from: '2026-10-01',
          to: '2026-11-30',
          now: new Date('2026-11-29T09:00:00Z'),
          actor: { userId: user.id, organizationId: company.organization_id, companyId: company.id },
        },
        directorySink(path.join(out, 'gobd')),
      );
      assert.equal(exported.documents, 4, 'two invoices, each with its PDF and XML');
      assert.deepEqual(exported.hash_mismatches, [], 'every stored document has the checksum it was stored with');
    } finally {
      await drop();
      rmSync(out, { recursive: true, force: true });
    }
  });
}
