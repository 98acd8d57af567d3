import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runDueWork } from '../../src/jobs/index.ts';
import { createRenderPool } from '../../src/modules/invoicing/render/render-pool.ts';
import { createMailer } from '../../src/modules/mail/index.ts';
import { renderStatementDocuments } from '../../src/modules/statements/render/index.ts';
import type { StatementDocument } from '../../src/modules/statements/statement-document.ts';
import { postEvent, putPartner, SELF_BILLING_PARTNER } from '../commissions/helpers.ts';
import { sealer, type TestApp, testApp } from '../helpers/app.ts';
import { signedIn } from '../web/client.ts';
import { privateSettlement, regularGutschrift, reverseChargeGutschrift } from './fixtures.ts';
import { putTenPercentOfAll } from './self-billing-setup.ts';

// Issue 26, point 3: statements render on the render threads of invoices (render-pool.ts),
// not on the main thread — the delivery job, the API's and the app's downloads through the
// process's renderers (InvoicingDeps.renderStatement) — and the bytes are those rendering
// on the calling thread gives (a pure function of the document).

const CRASHING_WORKER = new URL('../invoicing/render/crashing-render-worker.ts', import.meta.url);

describe('a render thread renders statements', () => {
  test('to the same bytes as rendering here: Gutschrift with ZUGFeRD, with XRechnung, settlement', async () => {
    const pool = createRenderPool(2);
    try {
      const docs = [regularGutschrift, { ...reverseChargeGutschrift, eInvoice: 'xrechnung' as const }, privateSettlement];
      const threaded = await Promise.all(docs.map((doc) => pool.renderStatement(doc)));
      for (const [i, doc] of docs.entries()) {
        const here = await renderStatementDocuments(doc);
        const there = threaded[i] as (typeof threaded)[number];
        assert.ok(Buffer.isBuffer(there.pdf));
        assert.ok(there.pdf.equals(here.pdf), `${doc.number}: same PDF bytes`);
        assert.equal(there.xml === null, here.xml === null, `${doc.number}: an e-invoice on both or neither`);
        if (here.xml) assert.ok(there.xml?.equals(here.xml), `${doc.number}: same XML bytes`);
      }
    } finally {
      await pool.close();
    }
  });

  test('a statement the renderer refuses fails with its reason; the thread goes on', async () => {
    const pool = createRenderPool(1);
    try {
      await assert.rejects(pool.renderStatement({ ...privateSettlement, eInvoice: 'xrechnung' }), /only a Gutschrift gets an e-invoice/);
      const ok = await pool.renderStatement(privateSettlement);
      assert.equal(ok.pdf.subarray(0, 5).toString(), '%PDF-');
    } finally {
      await pool.close();
    }
  });

  test('goes to the thread, not this one: a thread that dies on it fails the statement, the next renders', async () => {
    const pool = createRenderPool(1, CRASHING_WORKER);
    try {
      await assert.rejects(pool.renderStatement({ ...regularGutschrift, number: 'CRASH' }), /render thread stopped/);
      const again = await pool.renderStatement(regularGutschrift);
      assert.equal(again.pdf.subarray(0, 5).toString(), '%PDF-', 'a new thread rendered it');
    } finally {
      await pool.close();
    }
  });
});

describe('statement files come from the render threads handed to the process', () => {
  let t: TestApp;
  // The process's render threads, counting what they are asked to render.
  const pool = createRenderPool(1);
  const rendered: string[] = [];
  const renderStatement = (doc: StatementDocument) => {
    rendered.push(doc.number);
    return pool.renderStatement(doc);
  };
  const statements = () =>
    t.handle.db
      .selectFrom('commission_statements')
      .select(['id', 'number', 'document'])
      .where('company_id', '=', t.company.companyId)
      .orderBy('number')
      .execute();
  const storedFiles = async (id: string) => {
    const rows = await t.handle.db.selectFrom('commission_statement_files').select(['kind', 'content']).where('statement_id', '=', id).execute();
    return { pdf: rows.find((r) => r.kind === 'pdf')?.content ?? null, xml: rows.find((r) => r.kind === 'xml')?.content ?? null };
  };
  const forgetFiles = (id: string) => t.handle.db.deleteFrom('commission_statement_files').where('statement_id', '=', id).execute();

  before(async () => {
    t = await testApp({ invoicing: { renderStatement } });
    await putPartner(t, 'gs', { ...SELF_BILLING_PARTNER, name: 'Vertrieb Nord GmbH', email: 'abrechnung@nord.example' });
    await putPartner(t, 'private', {
      name: 'Erika Empfehlung',
      tax_status: 'private_person',
      billing_mode: 'settlement',
      street: 'Weg',
      house_number: '2',
      zip: '10115',
      city: 'Berlin',
      country_code: 'DE',
    });
    for (const ref of ['gs', 'private']) await putTenPercentOfAll(t, ref);
    await postEvent(t, { external_ref: 'oct-1', occurred_at: '2026-10-10T10:00:00Z', net_amount: '1000.00' });
    t.clock.set('2026-11-01T12:00:00Z');
    const summary = await runDueWork(
      { db: t.handle.db, clock: t.clock, mailer: createMailer({ dataDir: t.dataDir, sealer }), services: { invoicing: t.invoicing } },
      { asOf: '2026-11-01', companyId: t.company.companyId, log: () => {} },
    );
    assert.equal(summary.jobs.failed, 0, JSON.stringify(summary));
  });
  after(async () => {
    await t.close();
    await pool.close();
  });

  test('the delivery job renders each issued statement there once, and stores the bytes rendering here gives', async () => {
    const made = await statements();
    assert.deepEqual(
      made.map((s) => s.number),
      ['AB-2026-00001', 'GS-2026-00001'],
    );
    assert.deepEqual([...rendered].sort(), ['AB-2026-00001', 'GS-2026-00001'], 'every statement went to the render threads, once');
    for (const statement of made) {
      const here = await renderStatementDocuments(statement.document as StatementDocument);
      const stored = await storedFiles(statement.id);
      assert.ok(stored.pdf && Buffer.from(stored.pdf).equals(here.pdf), `${statement.number}: the stored PDF is the one rendered here`);
      assert.equal(stored.xml === null, here.xml === null);
      if (here.xml) assert.ok(stored.xml && Buffer.from(stored.xml).equals(here.xml), `${statement.number}: the stored XML is the one rendered here`);
    }
  });

  test('a PDF not stored yet is rendered there for the API and for the app, the same bytes, and stored', async () => {
    const gs = (await statements()).find((s) => s.number === 'GS-2026-00001') as { id: string; number: string };
    const before = await storedFiles(gs.id);
    await forgetFiles(gs.id);
    rendered.length = 0;
    const res = await t.request('GET', `/v1/commission-statements/${gs.id}/pdf`);
    assert.equal(res.statusCode, 200, res.body);
    assert.ok(res.rawPayload.equals(Buffer.from(before.pdf as Uint8Array)), 'the API sends the same PDF');
    assert.deepEqual(rendered, ['GS-2026-00001'], 'rendered on the render threads');
    assert.ok((await storedFiles(gs.id)).pdf, 'and stored');

    await forgetFiles(gs.id);
    rendered.length = 0;
    const admin = await signedIn(t);
    const xml = await t.app.inject({
      method: 'GET',
      url: `/app/statements/${gs.id}/xml`,
      headers: { host: 'kontor.test', cookie: `kontor_session=${admin.cookies.get('kontor_session')}` },
    });
    assert.equal(xml.statusCode, 200, xml.body);
    assert.ok(xml.rawPayload.equals(Buffer.from(before.xml as Uint8Array)), 'the app sends the same e-invoice');
    assert.deepEqual(rendered, ['GS-2026-00001'], 'rendered on the render threads');
  });
});
