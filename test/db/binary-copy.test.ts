import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { binaryCopyTuples } from '../../src/db/binary-copy.ts';
import type { DatabaseHandle } from '../../src/db/connection.ts';
import { testDatabase, usePostgres } from '../helpers/database.ts';
import { mulberry32 } from '../helpers/random.ts';

// The reader of PostgreSQL's binary COPY format (src/db/binary-copy.ts), by which the GoBD
// export reads its stored documents on a server: every tuple as its fields' bytes,
// wherever the chunks of the stream happen to split them; a stream cut short or not a
// binary COPY is refused. On PostgreSQL, the rows of a real COPY are the rows of the same
// query read normally, and a reader that stops early does not leave a busy connection behind.

type Tuple = (Buffer | null)[];

/** A binary COPY stream of these tuples, written by the format's documentation. */
function encode(tuples: Tuple[], extension = Buffer.alloc(0)): Buffer {
  const parts: Buffer[] = [Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1')];
  const head = Buffer.alloc(8);
  head.writeUInt32BE(extension.length, 4);
  parts.push(head, extension);
  for (const tuple of tuples) {
    const count = Buffer.alloc(2);
    count.writeInt16BE(tuple.length);
    parts.push(count);
    for (const field of tuple) {
      const length = Buffer.alloc(4);
      length.writeInt32BE(field === null ? -1 : field.length);
      parts.push(length);
      if (field !== null) parts.push(field);
    }
  }
  parts.push(Buffer.from([0xff, 0xff]));
  return Buffer.concat(parts);
}

async function* inChunks(bytes: Buffer, cuts: number[]): AsyncGenerator<Buffer> {
  let start = 0;
  for (const cut of [...cuts, bytes.length]) {
    if (cut > start) yield bytes.subarray(start, cut);
    start = Math.max(start, cut);
  }
}

async function read(chunks: AsyncIterable<Buffer>): Promise<Tuple[]> {
  const tuples: Tuple[] = [];
  for await (const tuple of binaryCopyTuples(chunks)) tuples.push(tuple.map((f) => (f === null ? null : Buffer.from(f))));
  return tuples;
}

const TUPLES: Tuple[] = [
  [Buffer.from('inv_1'), Buffer.from('RE-2026-0001'), randomBytes(300), null],
  [Buffer.from('inv_2'), Buffer.alloc(0), Buffer.from([0, 0xff, 0x5c, 0x78]), Buffer.from('e3b0c442')],
  [Buffer.from('ü€'), null, randomBytes(70_000), Buffer.from('x')],
];

describe('reading a binary COPY stream', () => {
  test('every tuple and field as sent, wherever the stream is cut (each cut position, and random cuts)', async () => {
    const bytes = encode(TUPLES, Buffer.from([1, 2, 3]));
    // One cut at every position of the first 400 bytes and around the big field's ends.
    const positions = [...Array.from({ length: 400 }, (_, i) => i), ...Array.from({ length: 40 }, (_, i) => bytes.length - 80 + i * 2)];
    for (const cut of positions) assert.deepEqual(await read(inChunks(bytes, [cut])), TUPLES, `cut at ${cut}`);
    const random = mulberry32(28);
    for (let run = 0; run < 50; run++) {
      const cuts = Array.from({ length: 1 + Math.floor(random() * 60) }, () => Math.floor(random() * bytes.length)).sort((a, b) => a - b);
      assert.deepEqual(await read(inChunks(bytes, cuts)), TUPLES, `cuts ${cuts.join(',')}`);
    }
    // Byte by byte.
    assert.deepEqual(
      await read(
        inChunks(
          encode(TUPLES.slice(0, 2)),
          Array.from({ length: 700 }, (_, i) => i),
        ),
      ),
      TUPLES.slice(0, 2),
    );
  });

  test('no tuples: an empty result', async () => {
    assert.deepEqual(await read(inChunks(encode([]), [])), []);
  });

  test('refused: a stream cut short, one that is no binary COPY, bytes after the end', async () => {
    const bytes = encode(TUPLES);
    await assert.rejects(read(inChunks(bytes.subarray(0, bytes.length - 1), [])), /the binary COPY stream ended early/);
    await assert.rejects(read(inChunks(bytes.subarray(0, 5000), [100])), /the binary COPY stream ended early/);
    await assert.rejects(read(inChunks(Buffer.from('id,content\ninv_1,abc\n'), [])), /not a binary COPY stream/);
    await assert.rejects(read(inChunks(Buffer.concat([bytes, Buffer.from([0])]), [])), /bytes after the end of a binary COPY stream/);
  });
});

describe('a binary COPY on the PostgreSQL server', { skip: !usePostgres && 'PostgreSQL only (KONTOR_TEST_DB=postgres)' }, () => {
  let handle: DatabaseHandle;
  before(async () => {
    handle = await testDatabase();
    await sql`create table copy_probe (id text primary key, content bytea, note text)`.execute(handle.db);
    for (let i = 0; i < 40; i++)
      await sql`insert into copy_probe values (${`p${String(i).padStart(3, '0')}`}, ${i % 7 === 3 ? null : randomBytes(i * 997)}, ${i % 5 === 0 ? null : `Notiz ${i} – ü`})`.execute(
        handle.db,
      );
  });
  after(async () => {
    await handle?.close();
  });

  test('gives the rows of the same query, bytes as stored and text as UTF-8', async () => {
    const copyRows = handle.copyRows ?? assert.fail('a server handle reads by COPY');
    const expected = (
      await sql<{ id: string; content: Buffer | null; note: string | null }>`select id, content, note from copy_probe order by id`.execute(handle.db)
    ).rows;
    const got: { id: string; content: Buffer | null; note: string | null }[] = [];
    for await (const [id, content, note] of copyRows('select id, content, note from copy_probe order by id'))
      got.push({ id: String(id), content: content ? Buffer.from(content) : null, note: note ? note.toString('utf8') : null });
    assert.deepEqual(got, expected);
  });

  test('a reader that stops early leaves no busy connection: the pool goes on answering', async () => {
    const copyRows = handle.copyRows ?? assert.fail('a server handle reads by COPY');
    for (let i = 0; i < 30; i++) {
      for await (const _ of copyRows('select id, content from copy_probe order by id')) break;
    }
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from copy_probe`.execute(handle.db);
    assert.equal(rows[0]?.n, 40);
    let count = 0;
    for await (const _ of copyRows('select id from copy_probe')) count++;
    assert.equal(count, 40);
  });

  test('a query the server refuses rejects with its message and gives the connection back', async () => {
    const copyRows = handle.copyRows ?? assert.fail('a server handle reads by COPY');
    for (let i = 0; i < 25; i++)
      await assert.rejects(async () => {
        for await (const _ of copyRows('select nothing from copy_probe'));
      }, /column "nothing" does not exist/);
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from copy_probe`.execute(handle.db);
    assert.equal(rows[0]?.n, 40);
  });
});
