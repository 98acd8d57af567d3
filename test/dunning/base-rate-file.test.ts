import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { bufferIo } from '../../src/cli/io.ts';
import { runCli } from '../../src/cli/run-cli.ts';
import { BaseRateFileError, loadBaseRates, mergeBaseRates, parseBaseRateFile } from '../../src/modules/dunning/base-rate-file.ts';
import { activeBaseRates, BASE_RATES, halfYearOf, missingHalfYears, useBaseRates } from '../../src/modules/dunning/base-rates.ts';
import { type CliWorkspace, cliWorkspace } from '../helpers/cli.ts';

// The operator's base-rates.json (dunning/base-rate-file.ts): checked strictly, merged with
// the built-in Basiszinssatz table, and a bad file refuses the start of the processes that
// dun. The rates in these tests are made up; only the built-in table holds published ones.

const LAST_BUILT_IN = BASE_RATES.at(-1)!;

describe('half-years without a rate (the last one carried forward)', () => {
  test('the built-in table ends with 2026-01-01, so 2026-H2 has no rate of its own', () => {
    assert.deepEqual(LAST_BUILT_IN, { from: '2026-01-01', rate: '1.27' });
    assert.deepEqual(missingHalfYears('2026-06-30'), []);
    assert.deepEqual(missingHalfYears('2026-07-01'), ['2026-07-01']);
    assert.deepEqual(missingHalfYears('2026-11-24'), ['2026-07-01']);
    assert.deepEqual(missingHalfYears('2027-01-01'), ['2026-07-01', '2027-01-01']);
  });

  test('a table reaching the half-year leaves none missing', () => {
    assert.deepEqual(missingHalfYears('2026-11-24', [...BASE_RATES, { from: '2026-07-01', rate: '9.99' }]), []);
  });

  test('halfYearOf names 1 January or 1 July', () => {
    assert.deepEqual(['2026-01-01', '2026-06-30', '2026-07-01', '2026-12-31'].map(halfYearOf), ['2026-01-01', '2026-01-01', '2026-07-01', '2026-07-01']);
  });
});

describe('parseBaseRateFile refuses what is not a plain, ordered list of published-looking rates', () => {
  const ok = (text: string) => parseBaseRateFile(text, 'base-rates.json');
  test('accepts entries with negative and positive two-decimal rates, oldest first (a byte-order mark is ignored)', () => {
    assert.deepEqual(ok('\uFEFF[{"from":"2022-07-01","rate":"-0.88"},{"from":"2023-01-01","rate":"1.62"}]'), [
      { from: '2022-07-01', rate: '-0.88' },
      { from: '2023-01-01', rate: '1.62' },
    ]);
    assert.deepEqual(ok('[]'), []);
  });

  const refusals: [string, string, RegExp][] = [
    ['not JSON', '[{"from":"2026-07-01",}]', /not JSON/],
    ['an object instead of an array', '{"from":"2026-07-01","rate":"1.27"}', /must be a JSON array/],
    ['a number as rate (no floats for rates)', '[{"from":"2026-07-01","rate":1.27}]', /entry 1: "rate" must be a string/],
    ['a rate with one decimal', '[{"from":"2026-07-01","rate":"1.3"}]', /"rate" must be percent with two decimals/],
    ['a rate with an exponent', '[{"from":"2026-07-01","rate":"1e2"}]', /"rate" must be percent with two decimals/],
    ['a rate with a comma', '[{"from":"2026-07-01","rate":"1,27"}]', /"rate" must be percent with two decimals/],
    ['a day other than 1 January or 1 July', '[{"from":"2026-07-02","rate":"1.27"}]', /"from" must be 1 January or 1 July/],
    ['1 April', '[{"from":"2026-04-01","rate":"1.27"}]', /"from" must be 1 January or 1 July/],
    ['a date before the base rate existed', '[{"from":"2001-07-01","rate":"3.62"}]', /lies before the base rate began \(2002-01-01\)/],
    ['an unknown key', '[{"from":"2026-07-01","rate":"1.27","note":"x"}]', /exactly the keys "from" and "rate"/],
    ['a missing key', '[{"from":"2026-07-01"}]', /exactly the keys "from" and "rate"/],
    ['a duplicate', '[{"from":"2026-07-01","rate":"1.27"},{"from":"2026-07-01","rate":"1.27"}]', /entry 2: 2026-07-01 is listed twice/],
    [
      'an unsorted list',
      '[{"from":"2027-01-01","rate":"1.27"},{"from":"2026-07-01","rate":"1.27"}]',
      /entry 2: 2026-07-01 comes after 2027-01-01; list the entries oldest first/,
    ],
    ['null as entry', '[null]', /entry 1 must be an object/],
  ];
  for (const [name, text, message] of refusals) {
    test(`refuses ${name}`, () => {
      assert.throws(
        () => ok(text),
        (error: Error) => error instanceof BaseRateFileError && message.test(error.message) && /^base-rate file base-rates\.json: /.test(error.message),
      );
    });
  }
});

describe('mergeBaseRates', () => {
  const merge = (added: { from: string; rate: string }[]) => mergeBaseRates(BASE_RATES, added, 'base-rates.json');

  test('appends the next half-year', () => {
    const merged = merge([{ from: '2026-07-01', rate: '2.22' }]);
    assert.deepEqual(merged.at(-1), { from: '2026-07-01', rate: '2.22' });
    assert.equal(merged.length, BASE_RATES.length + 1);
  });

  test('accepts a half-year of the built-in table with the same rate (it changes nothing)', () => {
    assert.deepEqual(merge([{ from: '2026-01-01', rate: '1.27' }]), [...BASE_RATES]);
  });

  test('extends the table backwards with the negative rates before 2023', () => {
    const merged = merge([{ from: '2022-07-01', rate: '-0.88' }]);
    assert.deepEqual(merged[0], { from: '2022-07-01', rate: '-0.88' });
  });

  test('refuses a half-year whose rate disagrees with the built-in table, naming both', () => {
    assert.throws(() => merge([{ from: '2025-07-01', rate: '1.28' }]), /2025-07-01 has rate 1\.28, but Kontor's built-in table has 1\.27 for that half-year/);
  });

  test('refuses a gap: every half-year from the first to the last needs its line', () => {
    assert.throws(() => merge([{ from: '2027-01-01', rate: '1.27' }]), /no rate for 2026-07-01 \(between 2026-01-01 and 2027-01-01\)/);
    assert.throws(() => merge([{ from: '2022-01-01', rate: '-0.88' }]), /no rate for 2022-07-01/);
  });
});

describe('loadBaseRates', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'kontor-base-rates-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('without a file in the data folder: the built-in table', async () => {
    const setup = await loadBaseRates({ dataDir: path.join(dir, 'empty') });
    assert.equal(setup.table, BASE_RATES);
    assert.equal(setup.file, path.join(dir, 'empty', 'base-rates.json'));
  });

  test('the data folder’s base-rates.json is merged', async () => {
    const data = path.join(dir, 'data');
    mkdirSync(data);
    writeFileSync(path.join(data, 'base-rates.json'), '[{"from":"2026-07-01","rate":"2.22"}]');
    const setup = await loadBaseRates({ dataDir: data });
    assert.deepEqual(setup.table.at(-1), { from: '2026-07-01', rate: '2.22' });
  });

  test('KONTOR_BASE_RATES_FILE must exist', async () => {
    await assert.rejects(loadBaseRates({ dataDir: dir, file: path.join(dir, 'nope.json') }), /KONTOR_BASE_RATES_FILE names .*nope\.json, which does not exist/);
  });
});

describe('a bad base-rate file refuses the start of serve, worker and jobs run', () => {
  let w: CliWorkspace;
  before(async () => {
    w = await cliWorkspace();
  });
  after(() => w.cleanup());

  test('jobs run and worker refuse a base-rates.json in the data folder with a 1 April entry, naming file and entry', async () => {
    mkdirSync(w.dataDir, { recursive: true });
    writeFileSync(path.join(w.dataDir, 'base-rates.json'), '[{"from":"2026-04-01","rate":"1.27"}]');
    try {
      for (const args of [['jobs', 'run', '--as-of', '2026-12-01'], ['worker']]) {
        const res = await w.run(args);
        assert.equal(res.code, 1, `${args.join(' ')}: ${res.stdout}${res.stderr}`);
        assert.match(res.stderr, /^kontor: base-rate file .*base-rates\.json: entry 1: "from" must be 1 January or 1 July/m);
      }
    } finally {
      rmSync(path.join(w.dataDir, 'base-rates.json'));
    }
  });

  test('KONTOR_BASE_RATES_FILE naming a missing file refuses the start', async () => {
    const res = await w.run(['jobs', 'run', '--as-of', '2026-12-01'], { KONTOR_BASE_RATES_FILE: 'missing.json' });
    assert.equal(res.code, 1);
    assert.match(res.stderr, /kontor: KONTOR_BASE_RATES_FILE names .*missing\.json, which does not exist/);
  });
});

describe('runCli installs the operator’s table for the run', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'kontor-base-rates-cli-'));
  });
  after(() => {
    useBaseRates({ table: BASE_RATES, file: null });
    rmSync(dir, { recursive: true, force: true });
  });

  test('jobs run with KONTOR_BASE_RATES_FILE: the dunning runs of the process use the merged table', async () => {
    const file = path.join(dir, 'rates.json');
    writeFileSync(file, JSON.stringify([{ from: '2026-07-01', rate: '2.22' }]));
    const saved = { file: process.env.KONTOR_BASE_RATES_FILE, url: process.env.DATABASE_URL };
    process.env.KONTOR_BASE_RATES_FILE = file;
    delete process.env.DATABASE_URL; // an embedded database in the test's own folder
    try {
      const io = bufferIo();
      const code = await runCli(['jobs', 'run', '--as-of', '2026-12-01', '--json', '--data', path.join(dir, 'data')], io);
      assert.equal(code, 0, io.stderr);
      assert.deepEqual(JSON.parse(io.stdout).warnings, []);
    } finally {
      if (saved.file === undefined) delete process.env.KONTOR_BASE_RATES_FILE;
      else process.env.KONTOR_BASE_RATES_FILE = saved.file;
      if (saved.url !== undefined) process.env.DATABASE_URL = saved.url;
    }
    assert.equal(activeBaseRates().file, file);
    assert.deepEqual(activeBaseRates().table.at(-1), { from: '2026-07-01', rate: '2.22' });
  });
});
