import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../shared/errors.ts';
import { freshRequestId } from './request-id.ts';
import { type Timeouts, writeRawRefusal } from './transport.ts';
import { installBodyDiscard } from './unread-body.ts';

// What every request meets once it is a request (issue 24): its X-Request-Id on the answer,
// and the refusals Node or Fastify would otherwise write themselves — without an id and
// outside the envelope {detail: {code, message}} — or not at all:
//   - an HTTP/1.1 request without Host: 400 malformed_request (RFC 9112 §3.2 asks for a 400);
//   - an Expect other than 100-continue: 417 expectation_failed (100-continue is met as before);
//   - a request that arrives while the server closes: 503 service_unavailable, Connection: close;
//   - CONNECT (no tunnels here): 405 method_not_allowed, written to the socket, then closed;
// and a refusal given before its body has arrived waits for the rest of it (unread-body.ts).

const UNMET_EXPECTATION = Symbol('kontor.unmetExpectation');

type MarkedRequest = IncomingMessage & { [UNMET_EXPECTATION]?: true };

export function installTransportHooks(app: FastifyInstance, timeouts: Timeouts): void {
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });

  // Node answers an unknown expectation with a bare 417 unless someone listens: the request
  // goes on to Fastify marked, and the hook below refuses it like any other request.
  app.server.on('checkExpectation', (request: MarkedRequest, response: ServerResponse) => {
    request[UNMET_EXPECTATION] = true;
    app.server.emit('request', request, response);
  });
  // Node closes a CONNECT without a word unless someone listens.
  app.server.on('connect', (_request: IncomingMessage, socket: Duplex) => {
    const reqId = freshRequestId();
    app.log.info({ reqId }, 'CONNECT refused');
    socket.on('error', () => {});
    writeRawRefusal(socket, 'method_not_allowed', reqId);
    socket.end();
  });

  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    const raw = request.raw as MarkedRequest;
    if (closing) return done(new AppError('service_unavailable'));
    if (raw.httpVersionMajor === 1 && raw.httpVersionMinor === 1 && raw.headers.host === undefined) {
      reply.header('connection', 'close');
      return done(new AppError('malformed_request', {}, 'An HTTP/1.1 request needs a Host header.'));
    }
    if (raw[UNMET_EXPECTATION]) return done(new AppError('expectation_failed'));
    done();
  });

  installBodyDiscard(app, { waitMs: Math.floor(timeouts.requestMs / 2) });
}
