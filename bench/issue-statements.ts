// `node bench/issue-statements.ts [N] [draft]`: issues N (default 100) 10-line invoices in
// process on an in-memory PGlite (the test app: no auth cache, one render thread) and
// prints the median request time and each SQL statement's time per invoice: where an
// issue's database work goes. A diagnostic, not part of `npm run bench`.
import { PGlite } from '@electric-sql/pglite';
import { testApp } from '../test/helpers/app.ts';
import { BUSINESS_CUSTOMER, invoiceBody, putCustomer, tenLines } from '../test/invoicing/helpers.ts';

const stats = new Map<string, { n: number; ms: number }>();
let on = false;
const orig = PGlite.prototype.query;
// biome-ignore lint/suspicious/noExplicitAny: wraps PGlite's generic query for timing
PGlite.prototype.query = async function (sql: string, params?: unknown[], opts?: unknown): Promise<any> {
  const t0 = performance.now();
  try {
    return await orig.call(this, sql, params, opts as never);
  } finally {
    if (on) {
      const key = sql.replace(/\s+/g, ' ').slice(0, 90);
      const s = stats.get(key) ?? { n: 0, ms: 0 };
      s.n++;
      s.ms += performance.now() - t0;
      stats.set(key, s);
    }
  }
};

// fast path: time each runExclusive (one statement), naming it by the SQL of its Parse message
const names = new Map<string, string>();
let current = '?';
const origStream = PGlite.prototype.execProtocolStream;
PGlite.prototype.execProtocolStream = function (msg: Uint8Array, o?: unknown) {
  const b = Buffer.from(msg.buffer, msg.byteOffset, msg.byteLength);
  let i = 0;
  while (i < b.length) {
    const code = b[i]!;
    const len = b.readInt32BE(i + 1);
    if (code === 0x50) {
      const z = b.indexOf(0, i + 5);
      const name = b.toString('utf8', i + 5, z);
      const z2 = b.indexOf(0, z + 1);
      const text = b.toString('utf8', z + 1, z2);
      names.set(name, text);
      current = text;
    }
    if (code === 0x42) {
      const z = b.indexOf(0, i + 5);
      const z2 = b.indexOf(0, z + 1);
      current = names.get(b.toString('utf8', z + 1, z2)) ?? '?';
    }
    i += 1 + len;
  }
  return origStream.call(this, msg, o as never);
};
const origRE = PGlite.prototype.runExclusive;
// biome-ignore lint/suspicious/noExplicitAny: wraps PGlite's generic runExclusive for timing
PGlite.prototype.runExclusive = async function (fn: () => Promise<unknown>): Promise<any> {
  const t0 = performance.now();
  try {
    return await origRE.call(this, fn);
  } finally {
    if (on) {
      const key = 'FAST ' + current.replace(/\s+/g, ' ').slice(0, 85);
      const s = stats.get(key) ?? { n: 0, ms: 0 };
      s.n++;
      s.ms += performance.now() - t0;
      stats.set(key, s);
    }
  }
};
const origExec = PGlite.prototype.exec;
PGlite.prototype.exec = async function (sql: string, opts?: unknown) {
  const t0 = performance.now();
  try {
    return await origExec.call(this, sql, opts as never);
  } finally {
    if (on) {
      const key = 'EXEC ' + sql.slice(0, 40);
      const s = stats.get(key) ?? { n: 0, ms: 0 };
      s.n++;
      s.ms += performance.now() - t0;
      stats.set(key, s);
    }
  }
};

const t = await testApp();
await putCustomer(t, 'kunde-1', BUSINESS_CUSTOMER);
const N = Number(process.argv[2] ?? 100);
const issue = process.argv[3] !== 'draft';
let i = 0;
const run = async () => {
  const res = await t.request('POST', '/v1/invoices', {
    body: invoiceBody(`ext-${++i}`, { issue, lines: tenLines() }),
    headers: { 'idempotency-key': `k-${i}` },
  });
  if (res.statusCode !== 201) throw new Error(res.body);
};
for (let w = 0; w < 30; w++) await run();
on = true;
const times: number[] = [];
for (let n = 0; n < N; n++) {
  const t0 = performance.now();
  await run();
  times.push(performance.now() - t0);
}
times.sort((a, b) => a - b);
console.log('median request ms', (times[Math.floor(N / 2)] ?? Number.NaN).toFixed(2));
let total = 0;
for (const [k, s] of [...stats.entries()].sort((a, b) => b[1].ms - a[1].ms)) {
  total += s.ms;
  console.log((s.ms / N).toFixed(3).padStart(7), 'ms/inv', String(s.n / N).padStart(4), 'x', k);
}
console.log('sql total per invoice', (total / N).toFixed(2));
await t.close();
