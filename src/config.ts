import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import { randomBase62 } from './shared/ids.ts';

// The environment, parsed and checked once. Command-line flags override it.

export type Config = {
  /** PostgreSQL server URL; unset means the embedded PGlite database in dataDir. */
  databaseUrl: string | undefined;
  dataDir: string;
  host: string;
  port: number;
  logLevel: string;
  /** ISO date-time where the clock starts (tests, demos); unset means real time. */
  now: string | undefined;
  /** Secret that seals stored credentials; unset means <dataDir>/secret.key. */
  secretKey: string | undefined;
  /** Whether `serve` runs the worker and scheduler in-process. */
  worker: boolean;
  /** Threads that render invoice documents; 0 renders on the main thread; unset = one per spare core. */
  renderThreads: number | undefined;
  /** KONTOR_BASE_RATES_FILE: the operator's Basiszinssatz entries; unset = <dataDir>/base-rates.json if present (dunning/base-rate-file.ts). */
  baseRatesFile: string | undefined;
  /** KONTOR_EVENT_RETENTION_DAYS: days finished webhook deliveries, their attempts and events are kept (webhooks/prune-webhook-history.ts). */
  eventRetentionDays: number;
  /**
   * KONTOR_TRUST_PROXY: whose X-Forwarded-Proto/-For/-Host Kontor believes. false (off, the
   * default): nobody's, the connection's own address and scheme count; a list of addresses
   * or CIDR ranges: the proxies connecting from there; 'in-front': whoever connects (Kontor
   * is reachable only through its proxy).
   */
  trustProxy: false | 'in-front' | string[];
  /** KONTOR_STOP_TIMEOUT: seconds a stop (SIGTERM, SIGINT) waits for requests in flight and running jobs. */
  stopTimeoutSeconds: number;
  /** KONTOR_METRICS_PORT: the port of GET /metrics (Prometheus); unset = no metrics. */
  metricsPort: number | undefined;
  /** KONTOR_METRICS_HOST: the address the metrics port listens on. */
  metricsHost: string;
};

export class ConfigError extends Error {}

function port(value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new ConfigError(`port must be 0–65535, got ${value}`);
  return n;
}

function stopTimeout(value: string | undefined): number {
  if (value === undefined || value === '') return 30;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 3600) throw new ConfigError(`KONTOR_STOP_TIMEOUT must be 1–3600 seconds, got ${value}`);
  return n;
}

function renderThreads(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 16) throw new ConfigError(`KONTOR_RENDER_THREADS must be 0–16, got ${value}`);
  return n;
}

/**
 * KONTOR_EVENT_RETENTION_DAYS (default 90). Read again by the daily task webhooks.prune,
 * which gets no Config; loadConfig checks it at start, so a bad value stops the process there.
 */
export function eventRetentionDays(env: NodeJS.ProcessEnv = process.env): number {
  const value = env.KONTOR_EVENT_RETENTION_DAYS;
  if (value === undefined || value === '') return 90;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 36_500)
    throw new ConfigError(`KONTOR_EVENT_RETENTION_DAYS must be a whole number of days from 1 to 36500, got ${value}`);
  return n;
}

/** KONTOR_TRUST_PROXY: off (default), true (the one in front), or addresses/CIDRs separated by commas. */
export function trustProxy(value: string | undefined): Config['trustProxy'] {
  const text = (value ?? '').trim();
  if (text === '' || text === 'off' || text === 'false') return false;
  if (text === 'true') return 'in-front';
  const entries = text.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    const [address = '', prefix, ...rest] = entry.split('/');
    const family = isIP(address);
    const bits = family === 4 ? 32 : 128;
    const goodPrefix = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= bits);
    if (['loopback', 'linklocal', 'uniquelocal'].includes(entry)) continue;
    if (family === 0 || !goodPrefix || rest.length > 0)
      throw new ConfigError(`KONTOR_TRUST_PROXY must be off, true, or addresses/CIDR ranges separated by commas (e.g. 127.0.0.1,10.0.0.0/8), got ${value}`);
  }
  return entries;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, flags: { data?: string; port?: string; host?: string } = {}): Config {
  const now = env.KONTOR_NOW || undefined;
  if (now !== undefined && Number.isNaN(new Date(now).getTime())) throw new ConfigError(`KONTOR_NOW is not an ISO date-time: ${now}`);
  const databaseUrl = env.DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) throw new ConfigError('DATABASE_URL must start with postgres:// or postgresql://');
  const logLevel = env.LOG_LEVEL || 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) throw new ConfigError(`LOG_LEVEL ${logLevel} is not a pino level`);
  return {
    databaseUrl,
    dataDir: path.resolve(flags.data ?? env.KONTOR_DATA ?? './data'),
    host: flags.host ?? env.KONTOR_HOST ?? '127.0.0.1',
    port: port(flags.port ?? env.PORT, 8080),
    logLevel,
    now,
    secretKey: env.KONTOR_SECRET_KEY || undefined,
    worker: env.KONTOR_WORKER !== 'off',
    renderThreads: renderThreads(env.KONTOR_RENDER_THREADS),
    baseRatesFile: env.KONTOR_BASE_RATES_FILE ? path.resolve(env.KONTOR_BASE_RATES_FILE) : undefined,
    eventRetentionDays: eventRetentionDays(env),
    trustProxy: trustProxy(env.KONTOR_TRUST_PROXY),
    stopTimeoutSeconds: stopTimeout(env.KONTOR_STOP_TIMEOUT),
    metricsPort: env.KONTOR_METRICS_PORT === undefined || env.KONTOR_METRICS_PORT === '' ? undefined : port(env.KONTOR_METRICS_PORT, 0),
    metricsHost: env.KONTOR_METRICS_HOST || '127.0.0.1',
  };
}

/** The sealing secret: KONTOR_SECRET_KEY, else a key made once in the data folder (owner-only). */
export function instanceSecret(config: Config): string {
  if (config.secretKey) return config.secretKey;
  const file = path.join(config.dataDir, 'secret.key');
  if (!existsSync(file)) {
    mkdirSync(config.dataDir, { recursive: true });
    writeFileSync(file, randomBase62(48), { mode: 0o600, flag: 'wx' });
  }
  return readFileSync(file, 'utf8').trim();
}
