import net from 'node:net';

// HTTP over a bare TCP connection, for what a client library would not send or would hide:
// requests that are not valid HTTP, stalls, bodies sent before a single byte is read back.

export type RawAnswer = {
  /** Everything the server sent, as latin1 text. */
  text: string;
  /** The first answer's status (0: no answer), headers (lower-case names) and body. */
  status: number;
  headers: Record<string, string>;
  body: string;
  /** A socket error the client saw (EPIPE, ECONNRESET), if any. */
  error: string | undefined;
  closedAfterMs: number;
};

/** Splits the first HTTP answer in `text` into status, headers and body (Content-Length or chunked). */
export function parseAnswer(text: string): Pick<RawAnswer, 'status' | 'headers' | 'body'> {
  const end = text.indexOf('\r\n\r\n');
  if (!text.startsWith('HTTP/1.1 ') || end < 0) return { status: 0, headers: {}, body: '' };
  const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let rest = text.slice(end + 4);
  let body = '';
  if (headers['transfer-encoding'] === 'chunked') {
    for (;;) {
      const lineEnd = rest.indexOf('\r\n');
      const size = Number.parseInt(rest.slice(0, lineEnd), 16);
      if (!(size > 0)) break;
      body += rest.slice(lineEnd + 2, lineEnd + 2 + size);
      rest = rest.slice(lineEnd + 4 + size);
    }
  } else {
    body = rest.slice(0, Number(headers['content-length'] ?? rest.length));
  }
  return { status: Number(statusLine!.split(' ')[1]), headers, body };
}

export type ExchangeOptions = {
  /** Read nothing until `send` is done, as a client that writes the whole request first (default: read as it comes). */
  readAfterSending?: boolean;
  /** Give up (and report what came) when the server holds the connection this long. */
  giveUpMs?: number;
};

/**
 * Opens a connection, lets `send` write to it, and collects what the server answers until it
 * closes the connection (or `giveUpMs` passes).
 */
export function exchange(port: number, send: (socket: net.Socket) => Promise<void> | void, options: ExchangeOptions = {}): Promise<RawAnswer> {
  const giveUpMs = options.giveUpMs ?? 10_000;
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    let error: string | undefined;
    if (options.readAfterSending) socket.pause();
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
    });
    socket.on('error', (e: NodeJS.ErrnoException) => {
      error ??= e.code ?? e.message;
    });
    const timer = setTimeout(() => socket.destroy(), giveUpMs);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, ...parseAnswer(text), error, closedAfterMs: Date.now() - started });
    });
    socket.on('connect', async () => {
      try {
        await send(socket);
      } catch (e) {
        error ??= (e as NodeJS.ErrnoException).code ?? String(e);
      }
      if (options.readAfterSending) socket.resume();
    });
  });
}

/** Writes `data` and waits until the socket took it (or closed). */
export async function write(socket: net.Socket, data: string | Buffer): Promise<void> {
  if (socket.destroyed) throw Object.assign(new Error('closed'), { code: 'CLOSED' });
  if (!socket.write(data))
    await new Promise<void>((resolve) => {
      const done = () => {
        socket.off('drain', done);
        socket.off('close', done);
        resolve();
      };
      socket.once('drain', done);
      socket.once('close', done);
    });
}

/** Sends `size` bytes of body, in chunked framing or plain, `piece` bytes at a time, pausing `pauseMs` between pieces. */
export async function sendBody(socket: net.Socket, size: number, options: { chunked: boolean; piece?: number; pauseMs?: number }): Promise<void> {
  const piece = options.piece ?? 64 * 1024;
  const filler = Buffer.alloc(piece, 'x');
  for (let sent = 0; sent < size && !socket.destroyed; sent += piece) {
    const part = filler.subarray(0, Math.min(piece, size - sent));
    await write(socket, options.chunked ? Buffer.concat([Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from('\r\n')]) : part);
    if (options.pauseMs) await new Promise((resolve) => setTimeout(resolve, options.pauseMs));
  }
  if (options.chunked && !socket.destroyed) await write(socket, '0\r\n\r\n');
}
