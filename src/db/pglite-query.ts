import { type PGlite, parse, type Results } from '@electric-sql/pglite';
import { isGoneStatement, isStalePlan } from './prepared-statements.ts';

// Why this exists: PGlite's own `query(sql, params)` makes six separate calls into the
// WebAssembly backend per statement (Parse; Describe statement, to learn the parameter
// types it then serialises with; Bind; Describe portal; Execute; Sync), each with its
// own round through PGlite's protocol wrappers, and it parses, analyses and plans the
// text anew every time. For our short OLTP statements that overhead was most of their
// cost (0.35–1.5 ms each; an issued invoice ran ~17 of them).
//
// Here one statement is one call: the whole extended-protocol exchange (Close of evicted
// statements, Parse, Bind, Describe portal, Execute, Sync) is encoded into a single
// message for `execProtocolStream`. Parameters go as text with type 0 ("unspecified"),
// so PostgreSQL infers their types from the statement exactly as PGlite's query and
// node-postgres (our PostgreSQL mode) let it; values are serialised like node-postgres
// does, bytes (Buffer, Uint8Array) too: in binary format, as they are (a stored PDF of
// 40 KB then costs no hex text to write and none for PostgreSQL to parse). Statements
// are prepared under a name once per SQL text (a bounded LRU), later executions only
// Bind/Execute: PostgreSQL then skips parse analysis (plans are still made per execution,
// force_custom_plan in connection.ts). Rows are parsed by PGlite's own `parseResults`
// with the instance's parsers, and errors are PGlite's DatabaseError objects decorated as
// its query decorates them, so callers see exactly what `pglite.query` returned or threw.
//
// Prepared statements are session objects, not transactional: a ROLLBACK does not drop
// them. A Parse that fails (syntax error, aborted transaction) creates nothing, so a name
// enters the cache only after ParseComplete. A schema change can make a prepared
// statement unusable ("cached plan must not change result type", 0A000); the dialect
// calls `forget()` before every parameterless statement that may change the schema, and a
// statement failing that way (or with "prepared statement does not exist", 26000)
// outside a transaction is prepared afresh and run once more.

type DatabaseError = Error & { code?: string; query?: string; params?: unknown[]; queryOptions?: unknown };
type Message = { name: string; status?: string };

/** Thrown by the serialiser for values it does not handle: the caller falls back to pglite.query. */
class Unsupported extends Error {}

/** A parameter as sent: text, or bytes in binary format. */
type Param = string | Uint8Array | null;

/** A parameter like node-postgres sends it: bytes as they are (binary format), everything else as text. */
function toParam(value: unknown): Param {
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  return toText(value);
}

/** A value as PostgreSQL text input, like node-postgres's prepareValue (Dates in UTC ISO form). */
export function toText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
    case 'bigint':
      return String(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      if (value instanceof Date) return value.toISOString(); // an invalid Date throws, as in PGlite
      if (ArrayBuffer.isView(value)) return `\\x${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex')}`;
      if (value instanceof ArrayBuffer) return `\\x${Buffer.from(value).toString('hex')}`;
      if (Array.isArray(value)) return arrayLiteral(value);
      if (typeof (value as { toPostgres?: unknown }).toPostgres === 'function') throw new Unsupported('toPostgres');
      return JSON.stringify(value);
    default:
      throw new Unsupported(typeof value);
  }
}

/** A JS array as a PostgreSQL array literal: elements quoted, NULL for null/undefined, nested arrays as dimensions. */
function arrayLiteral(items: readonly unknown[]): string {
  let out = '{';
  for (let i = 0; i < items.length; i++) {
    if (i > 0) out += ',';
    const item = items[i];
    if (item === null || item === undefined) out += 'NULL';
    else if (Array.isArray(item)) out += arrayLiteral(item);
    else {
      const text = toText(item)!;
      out += `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
    }
  }
  return `${out}}`;
}

/** Frontend messages of the extended protocol, written into one buffer. */
class Writer {
  buf: Buffer;
  pos = 0;
  #start = 0;
  constructor(size: number) {
    this.buf = Buffer.allocUnsafe(size);
  }
  #ensure(n: number) {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n + 256));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }
  begin(code: number) {
    this.#ensure(5);
    this.buf[this.pos] = code;
    this.#start = this.pos + 1;
    this.pos += 5;
  }
  end() {
    this.buf.writeInt32BE(this.pos - this.#start, this.#start);
  }
  byte(b: number) {
    this.#ensure(1);
    this.buf[this.pos++] = b;
  }
  int16(n: number) {
    this.#ensure(2);
    this.buf.writeInt16BE(n, this.pos);
    this.pos += 2;
  }
  int32(n: number) {
    this.#ensure(4);
    this.buf.writeInt32BE(n, this.pos);
    this.pos += 4;
  }
  cstring(s: string) {
    const length = Buffer.byteLength(s);
    this.#ensure(length + 1);
    this.pos += this.buf.write(s, this.pos, length, 'utf8');
    this.buf[this.pos++] = 0;
  }
  /** A length-prefixed parameter value (-1 for NULL). */
  value(s: Param) {
    if (s === null) return this.int32(-1);
    if (typeof s !== 'string') {
      this.#ensure(s.byteLength + 4);
      this.buf.writeInt32BE(s.byteLength, this.pos);
      this.buf.set(s, this.pos + 4);
      this.pos += 4 + s.byteLength;
      return;
    }
    const length = Buffer.byteLength(s);
    this.#ensure(length + 4);
    this.buf.writeInt32BE(length, this.pos);
    this.pos += 4;
    this.pos += this.buf.write(s, this.pos, length, 'utf8');
  }
  bytes(): Uint8Array {
    return this.buf.subarray(0, this.pos);
  }
}

const P = 0x50; // Parse
const B = 0x42; // Bind
const D = 0x44; // Describe
const E = 0x45; // Execute
const S = 0x53; // Sync
const C = 0x43; // Close

function writeExchange(w: Writer, closes: readonly string[], parseAs: string | undefined, name: string, text: string, values: readonly Param[]) {
  for (const closed of closes) {
    w.begin(C);
    w.byte(S); // 'S': a statement
    w.cstring(closed);
    w.end();
  }
  if (parseAs !== undefined) {
    w.begin(P);
    w.cstring(parseAs);
    w.cstring(text);
    w.int16(0); // no parameter types: PostgreSQL infers them
    w.end();
  }
  w.begin(B);
  w.cstring(''); // unnamed portal
  w.cstring(name);
  if (values.every((v) => typeof v === 'string' || v === null)) {
    w.int16(0); // all parameters in text format
  } else {
    w.int16(values.length); // a format per parameter: bytes binary, the rest text
    for (const v of values) w.int16(typeof v === 'string' || v === null ? 0 : 1);
  }
  w.int16(values.length);
  for (const v of values) w.value(v);
  w.int16(0); // all result columns in text format
  w.end();
  w.begin(D);
  w.byte(0x50); // 'P': the portal
  w.cstring('');
  w.end();
  w.begin(E);
  w.cstring('');
  w.int32(0); // all rows
  w.end();
  w.begin(S);
  w.end();
}

export type PgliteQueryOptions = {
  /** How many prepared statements to keep (least recently used ones are closed); 0 sends every statement unnamed. */
  cacheSize?: number;
};

export type PgliteQuery = {
  /** Runs one parameterised statement; the result and errors are those of `pglite.query(sql, params)`. */
  query<T = Record<string, unknown>>(sql: string, params: readonly unknown[]): Promise<Results<T>>;
  /** Closes all prepared statements (lazily, with the next statement): call after a schema change. */
  forget(): void;
  /** For tests and benches: statements prepared now, and how many statements were run on the fallback. */
  stats(): { prepared: number; fallbacks: number };
};

// Statement names are unique in the process, so several instances on one PGlite never collide.
let counter = 0;

export function pgliteQuery(pglite: PGlite, options: PgliteQueryOptions = {}): PgliteQuery {
  const cacheSize = options.cacheSize ?? 256;
  const prepared = new Map<string, string>(); // SQL text → statement name, least recently used first
  let toClose: string[] = [];
  let fallbacks = 0;

  const forget = () => {
    for (const name of prepared.values()) toClose.push(name);
    prepared.clear();
  };

  /** One exchange; returns the backend's messages. Runs inside PGlite's query mutex. */
  const exchange = async (sql: string, values: readonly Param[], fresh: boolean) => {
    let name = fresh ? undefined : prepared.get(sql);
    let parseAs: string | undefined;
    if (name !== undefined) {
      // Most recently used goes last.
      prepared.delete(sql);
      prepared.set(sql, name);
    } else if (cacheSize > 0) {
      name = `kontor_${++counter}`;
      parseAs = name;
      if (prepared.size >= cacheSize) {
        // Make room: the least recently used statement is closed in this same exchange.
        const [oldSql, oldName] = prepared.entries().next().value!;
        prepared.delete(oldSql);
        toClose.push(oldName);
      }
    } else {
      name = '';
      parseAs = '';
    }
    const closes = toClose;
    toClose = [];
    let bytes = 0;
    for (const v of values) if (v !== null && typeof v !== 'string') bytes += v.byteLength;
    const w = new Writer(128 + sql.length * (parseAs === undefined ? 0 : 3) + values.length * 16 + bytes + closes.length * 24);
    writeExchange(w, closes, parseAs, name, sql, values);
    const messages = (await pglite.execProtocolStream(w.bytes(), { syncToFs: false, throwOnError: false })) as unknown as Message[];
    if (parseAs) {
      // Only a statement PostgreSQL accepted exists under its name.
      if (messages.some((m) => m.name === 'parseComplete')) prepared.set(sql, parseAs);
    }
    return { messages, reused: parseAs === undefined };
  };

  const query = async <T>(sql: string, params: readonly unknown[]): Promise<Results<T>> => {
    let values: Param[];
    try {
      if (!pglite.ready || params.length > 65535 || sql.includes('/dev/blob')) throw new Unsupported('state');
      values = params.map(toParam);
    } catch {
      // Anything unusual (a closed instance, COPY blobs, a value we do not serialise, an
      // invalid Date) goes the way it went before, with PGlite's behaviour and errors.
      fallbacks++;
      return pglite.query<T>(sql, params as unknown[]);
    }
    return pglite.runExclusive(async () => {
      let { messages, reused } = await exchange(sql, values, false);
      let error = messages.find((m) => m.name === 'error') as DatabaseError | undefined;
      const status = (messages.findLast((m) => m.name === 'readyForQuery') as Message | undefined)?.status;
      if (error && reused && (isGoneStatement(error) || isStalePlan(error))) {
        // Our prepared statement is gone or stale: drop it; outside a transaction nothing
        // happened, so prepare it afresh and run it once more.
        const name = prepared.get(sql);
        if (name !== undefined) {
          prepared.delete(sql);
          toClose.push(name);
        }
        if (status === 'I') {
          ({ messages } = await exchange(sql, values, true));
          error = messages.find((m) => m.name === 'error') as DatabaseError | undefined;
        }
      }
      if (error) {
        // As PGlite's query decorates its errors (makePGliteError).
        error.query = sql;
        error.params = params as unknown[];
        error.queryOptions = undefined;
        throw error;
      }
      // PGlite's query syncs the file system after a statement outside pglite.transaction()
      // (always, for us); inside BEGIN … COMMIT nothing is durable before the COMMIT, whose
      // exec syncs, so syncing after autocommit statements keeps durability identical.
      if (messages.findLast((m) => m.name === 'readyForQuery')?.status === 'I') await pglite.syncToFs();
      return parse.parseResults(messages as never, pglite.parsers)[0] as Results<T>;
    });
  };

  return {
    query,
    forget,
    stats: () => ({ prepared: prepared.size, fallbacks }),
  };
}
