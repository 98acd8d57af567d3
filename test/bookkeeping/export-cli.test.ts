import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import iconv from 'iconv-lite';
import { type CommandContext, runCommand } from '../../src/cli/commands.ts';
import { bufferIo } from '../../src/cli/io.ts';
import type { DatabaseHandle } from '../../src/db/connection.ts';
import { fixedClock } from '../../src/shared/clock.ts';
import { testDatabase } from '../helpers/database.ts';
import { book, bookkeepingCompany, invoiceDocument, sealer } from './fixtures.ts';

describe('kontor export datev', () => {
  let handle: DatabaseHandle;
  let companyId: string;
  let dir: string;
  let ctx: CommandContext;

  before(async () => {
    handle = await testDatabase();
    companyId = await bookkeepingCompany(handle);
    await book(handle, companyId, 'SKR03', invoiceDocument({ number: 'RE-2026-00001', issueDate: '2026-02-10' }), 'inv_cli_1');
    dir = mkdtempSync(path.join(tmpdir(), 'kontor-datev-'));
    ctx = { db: handle.db, clock: fixedClock('2026-11-21T10:00:00Z'), sealer, cwd: dir };
  });
  after(async () => {
    await handle.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('writes EXTF_Buchungsstapel_<from>_<to>.csv into the current directory and prints path and bookings', async () => {
    const io = bufferIo();
    const code = await runCommand(['export', 'datev', '--company', companyId, '--from', '2026-01-01', '--to', '2026-12-31'], io, ctx);
    assert.equal(code, 0, io.stderr);
    const file = path.join(dir, 'EXTF_Buchungsstapel_2026-01-01_2026-12-31.csv');
    assert.equal(io.stdout, `${file}\n2 booking(s)\n`);
    const content = iconv.decode(readFileSync(file), 'win1252');
    assert.ok(content.startsWith('"EXTF";700;21;"Buchungsstapel";13;20261121110000000;'));
    assert.equal(content.split('\r\n').length, 5);
  });

  test('--out relative to the current directory, --json answers {file, bookings, warnings}', async () => {
    const io = bufferIo();
    const code = await runCommand(
      ['export', 'datev', '--company', companyId, '--from', '2026-02-01', '--to', '2026-02-28', '--out', 'februar.csv', '--json'],
      io,
      ctx,
    );
    assert.equal(code, 0, io.stderr);
    const answer = JSON.parse(io.stdout);
    assert.deepEqual({ file: answer.file, bookings: answer.bookings }, { file: path.join(dir, 'februar.csv'), bookings: 2 });
    // The test company has no DATEV numbers: said on stderr and in the answer.
    assert.equal(answer.warnings.length, 1);
    assert.match(io.stderr, /warning: the company has no DATEV consultant and client number/);
    assert.ok(existsSync(path.join(dir, 'februar.csv')));
  });

  test('a range across two fiscal years is refused with exit code 1 and no file', async () => {
    const io = bufferIo();
    const code = await runCommand(['export', 'datev', '--company', companyId, '--from', '2025-12-01', '--to', '2026-01-31'], io, ctx);
    assert.equal(code, 1);
    assert.match(io.stderr, /one fiscal year/);
    assert.equal(existsSync(path.join(dir, 'EXTF_Buchungsstapel_2025-12-01_2026-01-31.csv')), false);
  });

  test('missing or malformed options are usage errors (exit code 2)', async () => {
    const missing = bufferIo();
    assert.equal(await runCommand(['export', 'datev', '--company', companyId, '--from', '2026-01-01'], missing, ctx), 2);
    assert.match(missing.stderr, /--to is required/);
    const malformed = bufferIo();
    assert.equal(await runCommand(['export', 'datev', '--company', companyId, '--from', '01.01.2026', '--to', '2026-01-31'], malformed, ctx), 2);
    assert.match(malformed.stderr, /--from must be a date/);
  });

  test('an unwritable --out is refused with exit code 1', async () => {
    const io = bufferIo();
    const code = await runCommand(
      ['export', 'datev', '--company', companyId, '--from', '2026-01-01', '--to', '2026-01-31', '--out', 'missing-dir/x.csv'],
      io,
      ctx,
    );
    assert.equal(code, 1);
    assert.match(io.stderr, /cannot write .*ENOENT/);
  });
});
