// Child process: what authentication costs a request, in-process over the real database:
// createAuthenticator's authenticate('Bearer kt_…') plus the scope check app.ts does.
// Warm: the verified key is cached (a SHA-256 and a map look-up); cold: the cache is
// dropped first, so the key's facts are loaded from the database.
// Input: one JSON argument (AuthInput); output: one JSON line on stdout.
import { openDatabase } from '../src/db/connection.ts';
import { createAuthenticator } from '../src/http/auth.ts';
import { createClock } from '../src/shared/clock.ts';
import type { Target } from './ceiling.ts';
import { percentile } from './stats.ts';

export type AuthInput = { target: Target; apiKey: string };
export type AuthOutput = { warmMedianUs: number; warmP99Us: number; warmCalls: number; coldMedianMs: number; coldP99Ms: number; coldCalls: number };

const BATCHES = 100;
const BATCH = 1000;
const COLD_CALLS = 300;
const SCOPE = 'partner:customers:write';

async function main(input: AuthInput): Promise<AuthOutput> {
  const handle = await openDatabase(
    input.target.kind === 'postgres' ? { kind: 'postgres', url: input.target.url, poolSize: 1 } : { kind: 'pglite', dataDir: input.target.dataDir },
  );
  try {
    const authenticator = createAuthenticator(handle.db, createClock());
    const header = `Bearer ${input.apiKey}`;
    const check = async () => {
      const auth = await authenticator.authenticate(header);
      if (!auth.scopes.includes(SCOPE)) throw new Error(`the key lacks ${SCOPE}`);
    };

    const cold: number[] = [];
    for (let i = 0; i < COLD_CALLS; i++) {
      authenticator.forget();
      const t0 = performance.now();
      await check();
      cold.push(performance.now() - t0);
    }

    // Warm: per-call time = a batch's time / its calls (a single call is too short to time
    // alone); median and p99 over the batches. A batch that meets the 4 s cache expiry
    // pays one look-up, as a real request would.
    for (let i = 0; i < BATCH; i++) await check();
    const warm: number[] = [];
    for (let b = 0; b < BATCHES; b++) {
      const t0 = performance.now();
      for (let i = 0; i < BATCH; i++) await check();
      warm.push(((performance.now() - t0) * 1000) / BATCH);
    }
    const coldSorted = Float64Array.from(cold).sort();
    const warmSorted = Float64Array.from(warm).sort();
    return {
      warmMedianUs: percentile(warmSorted, 50),
      warmP99Us: percentile(warmSorted, 99),
      warmCalls: BATCHES * BATCH,
      coldMedianMs: percentile(coldSorted, 50),
      coldP99Ms: percentile(coldSorted, 99),
      coldCalls: COLD_CALLS,
    };
  } finally {
    await handle.close();
  }
}

const output = await main(JSON.parse(process.argv[2] ?? '{}') as AuthInput);
process.stdout.write(`${JSON.stringify(output)}\n`);
