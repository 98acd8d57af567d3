import { isUtf8 } from 'node:buffer';
import { type ServerOptions, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import { AppError, ERROR_CATALOGUE, type ErrorCode } from '../shared/errors.ts';
import { sendError } from './error-handler.ts';
import { freshRequestId } from './request-id.ts';

// What happens before a route sees a request: how long a client may take to send it, what
// a path that cannot be decoded or an unreadable HTTP message gets, and which bodies are
// read. Every answer here has the documented body {detail: {code, message}} and an
// X-Request-Id, and repeats nothing of what was sent (not the URL, not the bytes).
// transport-hooks.ts adds what is checked once a request object exists.

export type Timeouts = {
  /** Time from the first byte of a request to its last (headers and body); then 408 and the connection is closed. */
  requestMs: number;
  /** Time from the first byte of a request to the end of its headers. */
  headersMs: number;
};

/** Enough for a 1 MiB body on a slow line; a client that stops sending holds a connection no longer. */
export const DEFAULT_TIMEOUTS: Timeouts = { requestMs: 30_000, headersMs: 10_000 };

/** The timeouts `timeouts` asks for, completed with the defaults (headers never longer than the request). */
export function resolveTimeouts(timeouts: Partial<Timeouts> = {}): Timeouts {
  const requestMs = timeouts.requestMs ?? DEFAULT_TIMEOUTS.requestMs;
  return { requestMs, headersMs: Math.min(timeouts.headersMs ?? DEFAULT_TIMEOUTS.headersMs, requestMs) };
}

type TransportOptions = Pick<FastifyServerOptions, 'requestTimeout' | 'clientErrorHandler' | 'return503OnClosing'> & {
  http: ServerOptions;
  frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => void;
};

/** Options for Fastify(): the timeouts, and the documented answers to requests that cannot be routed or read. */
export function transportOptions(timeouts: Partial<Timeouts> = {}): TransportOptions {
  const { requestMs, headersMs } = resolveTimeouts(timeouts);
  return {
    requestTimeout: requestMs,
    // Node checks its connections against the timeouts every connectionsCheckingInterval
    // (30 s by default, which would let a stalled client stay up to twice as long). An
    // HTTP/1.1 request without Host is refused in transport-hooks.ts, in the envelope and
    // with an id, instead of by Node's bare 400.
    http: {
      requestTimeout: requestMs,
      headersTimeout: headersMs,
      connectionsCheckingInterval: Math.max(25, Math.floor(headersMs / 10)),
      requireHostHeader: false,
    },
    // While closing, transport-hooks.ts answers 503 service_unavailable in the envelope;
    // Fastify's own 503 has another body and no id.
    return503OnClosing: false,
    // A path whose percent-encoding is broken or not UTF-8 (%ZZ, %E4), or a path segment over
    // maxParamLength: Fastify's own answer would quote the URL.
    frameworkErrors(error, request, reply) {
      request.log.info({ code: error.code }, 'request path refused');
      reply.header('x-request-id', request.id);
      sendError(reply, new AppError('malformed_request'));
    },
    clientErrorHandler,
  };
}

/**
 * A refusal written straight to the socket, where no request object exists: the status line,
 * Connection: close, the id and the envelope. As Node itself does, nothing is written once a
 * response to this request has begun.
 */
export function writeRawRefusal(socket: Duplex, code: ErrorCode, requestId: string): void {
  const [status, message] = ERROR_CATALOGUE[code];
  const body = JSON.stringify({ detail: { code, message } });
  const response = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (!socket.writable || response?.headersSent) return;
  socket.write(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nX-Request-Id: ${requestId}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

/**
 * Node's 'clientError': the request timed out (ERR_HTTP_REQUEST_TIMEOUT, also for the
 * headers timeout) or its HTTP could not be parsed (bad request line, header overflow).
 * No request object exists, so the answer is written to the socket, which is then closed;
 * its id is a fresh one, logged with the refusal.
 */
function clientErrorHandler(this: FastifyInstance, error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const code = error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 'request_timeout' : 'malformed_request';
  const reqId = freshRequestId();
  this.log.info({ reqId, code: error.code }, code === 'request_timeout' ? 'request timed out' : 'unreadable request');
  writeRawRefusal(socket, code, reqId);
  socket.destroy(error);
}

/**
 * Request bodies are JSON in UTF-8 and nothing else. Fastify's JSON parser decodes invalid
 * UTF-8 to U+FFFD, which would be stored; this one refuses such a body with malformed_body
 * and otherwise parses as Fastify does (empty body, prototype poisoning refused). Fastify's
 * text/plain parser is removed, so a text/plain body is 415 like any other media type.
 */
export function installBodyParsers(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    if (!isUtf8(body as Buffer)) {
      done(new AppError('malformed_body', {}, 'The request body is not valid UTF-8.'), undefined);
      return;
    }
    // Fastify's parser answers through done and returns nothing.
    void parseJson(request, (body as Buffer).toString('utf8'), done);
  });
}
