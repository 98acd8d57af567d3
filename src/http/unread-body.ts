import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

// An answer given while the client is still sending its body — 413 once the first MiB is
// over (or at once, from Content-Length), 415 or 401 before the body is read — used to leave
// with the rest of the body unread. Fastify closes the connection after a body refusal, and
// a connection closed with bytes still unread is reset (TCP RST): a client that sends its
// whole request before it reads (most do) then meets a broken connection instead of the
// answer, or the reset throws away the answer it had already received (issue 24: 4–6 of 20
// tries at 2 MB and 20 MB). So before such an answer leaves, the rest of the body is read and
// dropped, up to DISCARD_LIMIT bytes and for at most `waitMs` (half the request timeout, so
// the answer goes before the 408 would); after a complete body the close is a clean one. A
// body beyond those limits gets its answer at once and the connection is closed.

/** At most this much of a refused body is read and dropped so that its sender gets the answer. */
export const DISCARD_LIMIT = 64 * 1024 * 1024;

/** Reads and drops the rest of `raw`'s body. True when the body ended; false when a limit ran out or the connection closed first. */
export function discardBody(raw: IncomingMessage, limitBytes: number, waitMs: number): Promise<boolean> {
  if (raw.readableEnded) return Promise.resolve(true);
  return new Promise((resolve) => {
    let read = 0;
    const finish = (ended: boolean) => {
      clearTimeout(timer);
      raw.off('data', onData);
      raw.off('end', onEnd);
      raw.off('close', onClose);
      resolve(ended);
    };
    const onData = (chunk: Buffer) => {
      read += chunk.length;
      if (read > limitBytes) finish(false);
    };
    const onEnd = () => finish(true);
    const onClose = () => finish(raw.complete);
    const timer = setTimeout(() => finish(false), waitMs);
    raw.on('data', onData);
    raw.once('end', onEnd);
    raw.once('close', onClose);
    raw.resume();
  });
}

/** Every answer to a request whose body has not fully arrived waits for it (within the limits); past them it closes the connection. */
export function installBodyDiscard(app: FastifyInstance, options: { waitMs: number; limitBytes?: number }): void {
  const limitBytes = options.limitBytes ?? DISCARD_LIMIT;
  app.addHook('onSend', (request, reply, payload, done) => {
    const raw = request.raw;
    // The common case: the whole request has arrived (every GET, every body that was read).
    // `complete` is Node's word for it; a request injected in tests (light-my-request) has
    // none, but its stream has ended once its body was read.
    if (raw.complete || raw.readableEnded || raw.destroyed) return done(null, payload);
    // discardBody never rejects.
    void discardBody(raw, limitBytes, options.waitMs).then((ended) => {
      if (!ended) reply.header('connection', 'close');
      done(null, payload);
    });
  });
}
