import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

// A random prefix per process and a counter: unique across processes without paying
// for random bytes on every request.
const processPrefix = `req_${randomBytes(5).toString('hex')}`;
let counter = 0;

/** A new id, for an answer written where no request object exists (transport.ts). */
export function freshRequestId(): string {
  counter = (counter + 1) % 0x1000000;
  return `${processPrefix}${counter.toString(16).padStart(6, '0')}`;
}

/** Keeps a caller's X-Request-Id when it is short and plain, else makes one. */
export function newRequestId(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  if (typeof given === 'string' && SAFE_REQUEST_ID.test(given)) return given;
  return freshRequestId();
}
