import type { InvoiceDocument } from './document.ts';

// What the log learns about a rendering that failed (the 500 `invoice_render_failed`
// answer says nothing; error-handler.ts logs this as the error's cause, with the request
// id): the number of the invoice being issued, the error's class, its message, and the
// code locations of its stack.
//
// The message comes from pdfkit/fontkit, the e-invoice step or a render thread. Today
// those name fonts, numbers, pages, schema paths and keywords (Ajv without `verbose`
// reports no values) or a thread's exit code, not the document's data. A library may
// quote a value some day, so the document's personal data (seller and buyer fields,
// line texts) is taken out of the message, as are e-mail addresses, and the message is
// cut to MESSAGE_LIMIT characters. Values the libraries would quote transformed (cut
// short, re-encoded other than as XML) would still pass; the log is the operator's.

export const MESSAGE_LIMIT = 300;
const REDACTED = '[redacted]';
/** Party fields that hold codes, not data about a person ("business" would otherwise vanish from messages). */
const CODES = new Set(['countryCode', 'customerType']);
const EMAIL = /[^\s"'<>()[\]@]+@[^\s"'<>()[\]@]+\.[a-z]{2,}/gi;

/** An Error fit for the log that stands for `error`, the failure of rendering `doc`. */
export function renderFailureForLog(error: unknown, doc: InvoiceDocument): Error & { invoice_number: string } {
  const type = errorClass(error);
  const message = safeMessage(error instanceof Error ? error.message : String(error), doc);
  const cause = Object.assign(new Error(message), { invoice_number: doc.number });
  cause.name = type;
  cause.stack = [`${type}: ${message}`, ...stackFrames(error)].join('\n');
  return cause;
}

function errorClass(error: unknown): string {
  if (!(error instanceof Error)) return typeof error;
  // A render thread's error arrives as an Error named after the thread's class (render-pool.ts).
  const constructorName = error.constructor?.name;
  return constructorName && constructorName !== 'Error' ? constructorName : error.name || 'Error';
}

/** The message without the document's personal data and e-mail addresses, on one line, cut short. */
export function safeMessage(message: string, doc: InvoiceDocument): string {
  let safe = message;
  // Whole values only (not inside a longer word or number: a house number "123" must not
  // eat the end of the invoice number RE-2026-000123).
  for (const value of personalStrings(doc)) {
    safe = safe.replace(new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(value)}(?![\\p{L}\\p{N}])`, 'gu'), REDACTED);
  }
  safe = safe.replace(EMAIL, REDACTED).replace(/\s*\n\s*/g, ' ');
  return safe.length > MESSAGE_LIMIT ? `${safe.slice(0, MESSAGE_LIMIT)}…` : safe;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Every text of the parties and the lines (three characters or more), also XML-escaped, longest first. */
function personalStrings(doc: InvoiceDocument): string[] {
  const values = new Set<string>();
  const add = (value: unknown): void => {
    if (typeof value === 'string') {
      if (value.trim().length < 3) return;
      values.add(value);
      values.add(value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;'));
    } else if (Array.isArray(value)) value.forEach(add);
    else if (value && typeof value === 'object') {
      for (const [key, field] of Object.entries(value)) if (!CODES.has(key)) add(field);
    }
  };
  add(doc.seller);
  add(doc.buyer);
  add(doc.buyerReference);
  for (const line of doc.lines) add(line.description);
  return [...values].sort((a, b) => b.length - a.length);
}

/** The `at …` lines of the error's stack (code locations only; the message lines are left out). */
function stackFrames(error: unknown): string[] {
  if (!(error instanceof Error) || typeof error.stack !== 'string') return [];
  return error.stack
    .split('\n')
    .filter((line) => /^\s+at /.test(line))
    .slice(0, 12);
}
