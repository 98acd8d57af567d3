// What a log line may keep of an error: its class, a code, its message cut short and its
// code locations, never the data the failed work was about.
//
// The danger is the database error. pg's and PGlite's DatabaseError carry the row that
// failed (`detail`: "Failing row contains (…, Erika Muster, erika@…)"), the parameter
// (`where`: "unnamed portal parameter $2 = '…'"), and PGlite's also the statement's
// parameter values (`params`); a logger that serializes the error object writes them all.
// Its message may quote a value too ("invalid input syntax for type integer: "abc"").
// So of a database error the log keeps the SQLSTATE and the names PostgreSQL reports
// (constraint, table, column, type, routine), and the message with every quoted text
// that is not such a name replaced by "…".

/** Longest message kept; a thrower should have kept it short already. */
export const LOG_MESSAGE_LIMIT = 300;

/** Names PostgreSQL reports with an error: identifiers, never values. */
const DATABASE_NAME_FIELDS = ['code', 'severity', 'constraint', 'schema', 'table', 'column', 'dataType', 'routine'] as const;

/** Fields of other errors that may hold a statement, its values or a row: never logged. */
const VALUE_FIELDS = new Set(['detail', 'where', 'hint', 'query', 'params', 'parameters', 'internalQuery', 'queryOptions']);

/** Set below from the error itself, or logged separately. */
const OWN_KEYS = new Set(['name', 'message', 'stack', 'cause']);

/** Words after which PostgreSQL quotes an identifier, not a value: `constraint "customers_pkey"`. */
const IDENTIFIER_BEFORE_QUOTE =
  /(?:relation|constraint|column|table|index|type|function|schema|encoding|sequence|trigger|database|role|operator|view|extension|domain|cursor|savepoint|statement|portal|collation)\s$/i;

type DatabaseError = Error & Partial<Record<(typeof DATABASE_NAME_FIELDS)[number], unknown>>;

/** pg's and PGlite's DatabaseError: a five-character SQLSTATE and a severity (PGlite's class name is minified). */
export function isDatabaseError(error: unknown): error is DatabaseError {
  if (!(error instanceof Error)) return false;
  const { code, severity } = error as DatabaseError;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && typeof severity === 'string';
}

/**
 * The error's message fit for a log line or a job's last_error: for a database error with
 * the quoted values replaced by "…", otherwise as thrown (the thrower answers for it).
 */
export function messageForLog(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (!isDatabaseError(error)) return error.message;
  const names = new Set(DATABASE_NAME_FIELDS.map((field) => error[field]).filter((value): value is string => typeof value === 'string'));
  return error.message.replace(/"([^"]*)"/g, (quoted, inner: string, offset: number, whole: string) =>
    names.has(inner) || IDENTIFIER_BEFORE_QUOTE.test(whole.slice(Math.max(0, offset - 12), offset)) ? quoted : '"…"',
  );
}

function cut(text: string): string {
  const oneLine = text.replace(/\s*\n\s*/g, ' ');
  return oneLine.length > LOG_MESSAGE_LIMIT ? `${oneLine.slice(0, LOG_MESSAGE_LIMIT)}…` : oneLine;
}

/** The error's class: its constructor's name, else its `name` (a render thread's error, a rejection that is no Error). */
function errorClass(error: unknown): string {
  if (!(error instanceof Error)) return typeof error;
  if (isDatabaseError(error)) return 'DatabaseError';
  const constructorName = error.constructor?.name;
  return constructorName && constructorName !== 'Error' ? constructorName : error.name || 'Error';
}

/** The `at …` lines of the stack: code locations only (its first line repeats the message uncut). */
export function stackFrames(error: unknown): string {
  if (!(error instanceof Error) || typeof error.stack !== 'string') return '';
  return error.stack
    .split('\n')
    .filter((line) => /^\s+at /.test(line))
    .join('\n');
}

/**
 * A plain object for the log standing for `error` (and its causes, up to three deep):
 * class, message, stack frames, and for a database error its SQLSTATE and names. Other
 * errors keep their own plain fields (a thrower's invoice number, a socket's errno) except
 * those that may hold a statement or values. Not the error itself: a log serializer would
 * write every field of it and of its cause.
 */
export function errorForLog(error: unknown, depth = 0): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  if (isDatabaseError(error)) {
    for (const field of DATABASE_NAME_FIELDS) if (typeof error[field] === 'string') fields[field] = error[field];
  } else if (error instanceof Error) {
    for (const [key, value] of Object.entries(error)) {
      if (VALUE_FIELDS.has(key) || OWN_KEYS.has(key)) continue;
      if (typeof value === 'string') fields[key] = cut(value);
      else if (typeof value === 'number' || typeof value === 'boolean') fields[key] = value;
    }
  }
  const cause = error instanceof Error ? error.cause : undefined;
  return {
    ...fields,
    type: errorClass(error),
    message: cut(messageForLog(error)),
    stack: stackFrames(error),
    ...(cause !== undefined && depth < 3 ? { cause: errorForLog(cause, depth + 1) } : {}),
  };
}

/**
 * What a refusal with status 500 logs (above): the error's class, code,
 * message and stack frames, and the cause its thrower attached (`error.cause`, e.g. why an
 * invoice could not be rendered: invoicing/render-failure.ts) with its own plain fields (the
 * invoice number). A database error keeps its SQLSTATE, constraint, table and column but
 * not the statement's values or the row it quotes. The answer carries none of it.
 */
export function serverErrorLog(error: Error): Record<string, unknown> {
  const { cause, ...fields } = errorForLog(error);
  // pino's err serializer takes the type from the constructor ("Object" for a plain object),
  // from `name` when there is none.
  const err = Object.assign(Object.create(null), { name: fields.type }, fields);
  return cause === undefined ? { err } : { err, cause };
}
