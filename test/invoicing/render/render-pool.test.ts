import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, test } from 'node:test';
import { renderInvoiceDocuments } from '../../../src/modules/invoicing/render/index.ts';
import { createRenderPool } from '../../../src/modules/invoicing/render/render-pool.ts';
import { domesticInvoice, stornoInvoice } from './fixtures.ts';

describe('render threads', () => {
  test('a render thread gives the same bytes as rendering on the main thread', async () => {
    const pool = createRenderPool(2);
    try {
      const [threaded, stornoThreaded] = await Promise.all([pool.render(domesticInvoice), pool.render(stornoInvoice)]);
      const direct = await renderInvoiceDocuments(domesticInvoice);
      assert.ok(Buffer.isBuffer(threaded.pdf));
      assert.ok(threaded.pdf.equals(direct.pdf), 'same PDF bytes');
      assert.ok(threaded.xml?.equals(direct.xml!), 'same XML bytes');
      assert.match(stornoThreaded.xml!.toString('utf8'), /<ram:TypeCode>384<\/ram:TypeCode>/);
    } finally {
      await pool.close();
    }
  });

  test('a document the renderer refuses fails its promise with the reason', async () => {
    const pool = createRenderPool(1);
    try {
      const broken = { ...domesticInvoice, eInvoice: 'zugferd', lines: null } as unknown as typeof domesticInvoice;
      await assert.rejects(pool.render(broken));
      const ok = await pool.render(domesticInvoice);
      assert.equal(ok.pdf.subarray(0, 5).toString(), '%PDF-', 'the thread goes on after a failure');
    } finally {
      await pool.close();
    }
  });

  test('a thread that dies fails its renders and is replaced on the next one', async () => {
    const pool = createRenderPool(1, new URL('./crashing-render-worker.ts', import.meta.url));
    try {
      await assert.rejects(pool.render({ ...domesticInvoice, number: 'CRASH' }), /render thread stopped/);
      const again = await pool.render(domesticInvoice);
      assert.equal(again.pdf.subarray(0, 5).toString(), '%PDF-', 'a new thread rendered it');
    } finally {
      await pool.close();
    }
  });

  test('render threads do not keep a process alive: it ends when its work is done, pool closed or not', async () => {
    const child = spawn(process.execPath, ['--liftoff-only', new URL('./render-unclosed.ts', import.meta.url).pathname], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const [code, signal] = await once(child, 'exit');
    clearTimeout(timer);
    assert.equal(signal, null, `the process did not end by itself:\n${output}`);
    assert.equal(code, 0, output);
    assert.match(output, /rendered %PDF-/);
  });
});
