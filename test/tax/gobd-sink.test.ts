import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { unzipSync } from 'fflate';
import { directorySink, zipSink } from '../../src/modules/tax/index.ts';

// Where the GoBD export's files go: a folder whose documents a writer thread writes (with a
// bounded backlog several readers wait on), or one streamed ZIP.

describe('the GoBD export sinks', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'kontor-gobd-sink-'));
  after(() => rmSync(root, { recursive: true, force: true }));
  const content = (lane: number, i: number) => Buffer.from(`Beleg ${lane}-${i} `.repeat(1 + (i % 50)));

  test('a folder: three senders of 700 documents each, more than the backlog holds, all written as sent', async () => {
    const dir = path.join(root, 'folder');
    const sink = directorySink(dir);
    await Promise.all(
      [0, 1, 2].map(async (lane) => {
        for (let i = 0; i < 700; i++) await sink.whole(`dokumente/l${lane}/${i}.pdf`, content(lane, i));
      }),
    );
    const table = sink.file('tabelle.csv');
    await table.write('"A";"B"\r\n');
    await table.end();
    await sink.close();
    for (const lane of [0, 1, 2]) {
      assert.equal(readdirSync(path.join(dir, 'dokumente', `l${lane}`)).length, 700);
      for (const i of [0, 349, 699]) assert.ok(readFileSync(path.join(dir, 'dokumente', `l${lane}`, `${i}.pdf`)).equals(content(lane, i)));
    }
    assert.equal(readFileSync(path.join(dir, 'tabelle.csv'), 'utf8'), '"A";"B"\r\n');
  });

  test('a folder that cannot be written: the failure reaches the sender', async () => {
    // A file where the folder should be: every document fails with ENOTDIR.
    const blocker = path.join(root, 'blocker');
    writeFileSync(blocker, 'kein Ordner');
    const sink = directorySink(path.join(blocker, 'export'));
    await assert.rejects(async () => {
      for (let i = 0; i < 600; i++) await sink.whole(`dokumente/${i}.pdf`, content(0, i));
      await sink.close();
    }, /cannot write a document: ENOTDIR/);
    await sink.close().catch(() => {});
  });

  test('a ZIP: the same files, in order, with a fixed time', async () => {
    const zip = zipSink(new Date('2026-12-31T12:00:00Z'));
    const chunks: Buffer[] = [];
    zip.stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    const ended = new Promise((resolve) => zip.stream.on('end', resolve));
    for (let i = 0; i < 5; i++) await zip.sink.whole(`dokumente/${i}.pdf`, content(0, i));
    const table = zip.sink.file('tabelle.csv');
    await table.write('"A";"B"\r\n');
    await table.end();
    await zip.sink.close();
    zip.finish();
    await ended;
    const files = unzipSync(new Uint8Array(Buffer.concat(chunks)));
    assert.deepEqual(Object.keys(files), ['dokumente/0.pdf', 'dokumente/1.pdf', 'dokumente/2.pdf', 'dokumente/3.pdf', 'dokumente/4.pdf', 'tabelle.csv']);
    assert.ok(Buffer.from(files['dokumente/3.pdf'] as Uint8Array).equals(content(0, 3)));
  });
});
