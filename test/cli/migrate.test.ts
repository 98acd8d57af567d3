import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { listMigrations } from '../../src/db/migrate.ts';
import { type CliWorkspace, cliWorkspace } from '../helpers/cli.ts';
import { usePostgres } from '../helpers/database.ts';

// `kontor migrate --dry-run` as a process: it opens the database without migrating it (every
// other command brings the schema up to date first), names what `migrate` would apply and
// changes nothing. A fresh PostgreSQL database lacks every migration; a fresh embedded data
// folder starts from the migrated template and lacks none.

let w: CliWorkspace;
before(async () => {
  w = await cliWorkspace();
});
after(() => w.cleanup());

test('kontor migrate --dry-run names what migrate would apply, and changes nothing', async () => {
  const all = (await listMigrations()).map((m) => m.version);
  const expected = usePostgres ? all : [];
  for (let round = 0; round < 2; round++) {
    const dry = await w.run(['migrate', '--dry-run', '--json']);
    assert.equal(dry.code, 0, dry.stderr);
    assert.deepEqual(
      (JSON.parse(dry.stdout) as { pending: { version: string }[] }).pending.map((m) => m.version),
      expected,
      `dry run ${round + 1}`,
    );
  }
  const applied = await w.run(['migrate', '--json']);
  assert.deepEqual((JSON.parse(applied.stdout) as { applied: string[] }).applied, expected);
  const again = await w.run(['migrate', '--dry-run']);
  assert.match(again.stdout, /^migrations are up to date; nothing would change$/m);
});
