import type pg from 'pg';
import { to } from 'pg-copy-streams';

// Rows of a query as PostgreSQL sends them in a binary COPY (`copy (select …) to stdout
// (format binary)`): every field as its bytes, a bytea as the stored bytes. The GoBD
// export reads its 4.8 GiB of stored documents this way. A normal query hands bytea out as
// hex text twice its size, which the server encodes and node decodes (measured on 20,000
// documents of 24 KB: 2.5 s paged and hex, 0.8 s as a binary COPY); node-postgres cannot
// read results in binary format (its protocol parser decodes every field as UTF-8 text).
// pg-copy-streams carries the COPY with backpressure; the tuple format is read here
// (https://www.postgresql.org/docs/current/sql-copy.html, "Binary Format") because the
// one npm reader of it (pg-copy-streams-binary) brings six dependencies for these 60 lines.

const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');

/** Bytes arriving in chunks, taken from the front as whole pieces. */
class Chunks {
  private chunks: Buffer[] = [];
  private offset = 0;
  available = 0;

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.available += chunk.length;
  }

  /** The next n bytes (the caller checked `available`); copied only where they span chunks. */
  take(n: number): Buffer {
    if (n === 0) return Buffer.alloc(0);
    this.available -= n;
    const first = this.chunks[0] as Buffer;
    if (first.length - this.offset >= n) {
      const piece = first.subarray(this.offset, this.offset + n);
      this.offset += n;
      if (this.offset === first.length) this.drop();
      return piece;
    }
    const piece = Buffer.allocUnsafe(n);
    let filled = 0;
    while (filled < n) {
      const chunk = this.chunks[0] as Buffer;
      const count = Math.min(chunk.length - this.offset, n - filled);
      chunk.copy(piece, filled, this.offset, this.offset + count);
      filled += count;
      this.offset += count;
      if (this.offset === chunk.length) this.drop();
    }
    return piece;
  }

  /** The next four bytes as a signed integer, left in place (the caller checked `available`). */
  peekInt32(): number {
    const first = this.chunks[0] as Buffer;
    if (first.length - this.offset >= 4) return first.readInt32BE(this.offset);
    const saved = { chunks: [...this.chunks], offset: this.offset, available: this.available };
    const value = this.take(4).readInt32BE(0);
    Object.assign(this, saved);
    return value;
  }

  private drop(): void {
    this.chunks.shift();
    this.offset = 0;
  }
}

/** Reads the binary COPY format from chunks: the header once, then each tuple as its fields (null for SQL NULL). */
export async function* binaryCopyTuples(chunks: AsyncIterable<Buffer>): AsyncGenerator<(Buffer | null)[]> {
  const input = new Chunks();
  type State = 'header' | 'extension' | 'tuple' | 'done';
  let state = 'header' as State;
  let extension = 0;
  let fields: (Buffer | null)[] = [];
  let fieldCount = -1;
  for await (const chunk of chunks) {
    input.push(chunk);
    for (;;) {
      if (state === 'header') {
        if (input.available < SIGNATURE.length + 8) break;
        const head = input.take(SIGNATURE.length + 8);
        if (!head.subarray(0, SIGNATURE.length).equals(SIGNATURE)) throw new Error('not a binary COPY stream');
        extension = head.readUInt32BE(SIGNATURE.length + 4);
        state = 'extension';
      } else if (state === 'extension') {
        if (input.available < extension) break;
        input.take(extension);
        state = 'tuple';
      } else if (state === 'tuple') {
        if (fieldCount === -1) {
          if (input.available < 2) break;
          const count = input.take(2).readInt16BE(0);
          if (count === -1) {
            state = 'done';
            continue;
          }
          fieldCount = count;
          fields = [];
        }
        while (fields.length < fieldCount) {
          if (input.available < 4) break;
          const length = input.peekInt32();
          if (length === -1) {
            input.take(4);
            fields.push(null);
            continue;
          }
          // Wait for the whole field before taking its length.
          if (input.available < 4 + length) break;
          input.take(4);
          fields.push(input.take(length));
        }
        if (fields.length < fieldCount) break;
        fieldCount = -1;
        yield fields;
      } else {
        if (input.available > 0) throw new Error('bytes after the end of a binary COPY stream');
        break;
      }
    }
  }
  if (state !== 'done') throw new Error('the binary COPY stream ended early');
}

/** The rows of `select` (SQL text, values already in it as literals) through one connection of the pool. */
export async function* copyRows(pool: pg.Pool, select: string): AsyncGenerator<(Buffer | null)[]> {
  const client = await pool.connect();
  let failed = false;
  try {
    const stream = client.query(to(`copy (${select}) to stdout (format binary)`));
    try {
      yield* binaryCopyTuples(stream);
    } catch (error) {
      failed = true;
      stream.destroy();
      throw error;
    } finally {
      // A caller that stops early leaves the COPY running: the connection cannot be reused.
      if (!stream.readableEnded) failed = true;
    }
  } finally {
    client.release(failed);
  }
}
