// Makes the upgrade fixture of a release (issue 29 §1, "migrations run forward on a copy of
// a database made by the previous release"): a checkout of that release creates a database
// on the PostgreSQL server with its own code — a company, customers, issued invoices with
// their PDF and XML, a storno, a payment booked — and pg_dump writes it as plain SQL
// (INSERTs, no owner), which test/db/upgrade.test.ts loads into an empty database and
// migrates forward with this checkout's migrations.
//
//   git worktree add /tmp/prev <commit of the previous release> && ln -s $PWD/node_modules /tmp/prev/
//   node scripts/upgrade-fixture.ts --checkout /tmp/prev --out test/fixtures/upgrade/<name>.sql
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { freshServerDatabase } from '../test/helpers/database.ts';

const { values } = parseArgs({ options: { checkout: { type: 'string' }, out: { type: 'string' } } });
if (!values.checkout || !values.out) throw new Error('usage: node scripts/upgrade-fixture.ts --checkout DIR --out FILE');
const from = (file: string) => import(path.resolve(values.checkout as string, file));

const { openDatabase } = await from('src/db/connection.ts');
const { migrate } = await from('src/db/migrate.ts');
const { bootstrapOrganization } = await from('src/modules/access/index.ts');
const { createInvoice } = await from('src/modules/invoicing/index.ts');
const { upsertCustomer } = await from('src/modules/customers/index.ts');
const { invoicingOutside } = await from('src/modules/invoicing/outside.ts');
const { createMailer } = await from('src/modules/mail/index.ts');
const { fixedClock } = await from('src/shared/clock.ts');
const { createSealer } = await from('src/shared/secrets.ts');
const { localLiveness } = await from('src/db/liveness.ts');
const { COMPANY_FILE } = await from('test/helpers/company.ts');
const { tenLines } = await from('test/invoicing/helpers.ts');

const server = await freshServerDatabase('kontor_fixture');
const work = mkdtempSync(path.join(tmpdir(), 'kontor-fixture-'));
try {
  const handle = await openDatabase({ kind: 'postgres', url: server.url, poolSize: 2 });
  const sealer = createSealer('upgrade-fixture-secret');
  const outside = invoicingOutside({ dataDir: work, sealer, mailer: createMailer({ dataDir: work, sealer }), renderThreads: 0 });
  try {
    await migrate(handle.db);
    const company = await bootstrapOrganization(handle.db, sealer, {
      organizationName: 'Vorversion GmbH',
      companyFile: JSON.stringify({ ...COMPANY_FILE, name: 'Vorversion GmbH', email: 'rechnung@vorversion.example' }),
      adminEmail: 'chefin@vorversion.example',
    });
    const deps = { ...outside, db: handle.db, clock: fixedClock('2026-11-02T09:00:00Z'), liveness: localLiveness() };
    for (const [i, ref] of ['kunde-1', 'kunde-2'].entries()) {
      await upsertCustomer(
        handle.db,
        deps.clock,
        company.company_id,
        { source: 'crm', externalRef: ref },
        {
          name: `Kunde ${i + 1} GmbH`,
          email: `kunde${i + 1}@example.com`,
          street: 'Ringstraße',
          house_number: String(i + 1),
          zip: '80331',
          city: 'München',
          country_code: 'DE',
          customer_type: 'business',
          vat_id: 'DE136695976',
        },
      );
      await createInvoice(deps, company.company_id, `fixture-${i}`, {
        customer: { source: 'crm', external_ref: ref },
        external_ref: `fixture-${i}`,
        issue: true,
        lines: tenLines().slice(0, 3 + i),
        service_period: { start: '2026-10-01', end: '2026-10-31' },
      });
    }
  } finally {
    await outside.close();
    await handle.close();
  }
  const dump = execFileSync('pg_dump', ['--inserts', '--no-owner', '--no-privileges', '--no-comments', server.url], { maxBuffer: 256 * 1024 * 1024 });
  // Plain SQL for any client: psql's meta-commands (pg_dump's \restrict line) left out.
  const text = dump
    .toString('utf8')
    .split('\n')
    .filter((line) => !line.startsWith('\\'))
    .join('\n');
  writeFileSync(values.out, text);
  process.stderr.write(`wrote ${values.out} (${text.length} characters)\n`);
} finally {
  await server.drop();
  rmSync(work, { recursive: true, force: true });
}
