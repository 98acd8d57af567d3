import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type CliWorkspace, cliWorkspace } from '../helpers/cli.ts';
import { SMTP_PASSWORD, SMTP_USER, startSmtpServer, type TestSmtpServer } from '../mail/fixtures.ts';
import { BUSINESS_CUSTOMER, invoiceBody } from './helpers.ts';

// A crash while mailing never mails a customer twice (issue 11): `kontor serve` is killed
// with SIGKILL while it mails an invoice — after the attempt was committed and before the
// mail left, and after the mail left and before `sent` was committed — over SMTP (an
// in-process server) and into the .eml outbox. The restarted service answers a replay at
// once, never mails on its own when it cannot know whether the mail left, and mails
// again only when asked with {"resend": true}.

type Server = Awaited<ReturnType<CliWorkspace['spawnServer']>>;
type Boot = { company_id: string; api_key: string };

const BEFORE = 'invoice-mail.before-send';
const AFTER = 'invoice-mail.after-send';

describe('a crash while mailing an invoice (kill -9 at each step)', () => {
  let w: CliWorkspace;
  let smtp: TestSmtpServer;
  let viaSmtp: Boot;
  let viaOutbox: Boot;
  /** Invoice ids per scenario, from the answers or by reference after the crash. */
  const killed: Record<string, { key: string; body: object; boot: Boot }> = {};
  let issuedOnly: { id: string };
  let server: Server;

  const call = (boot: Boot, method: string, url: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(`http://127.0.0.1:${server.port}${url}`, {
      method,
      headers: { authorization: `Bearer ${boot.api_key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  const outboxFiles = (boot: Boot) => {
    try {
      return readdirSync(path.join(w.dataDir, 'outbox', boot.company_id)).filter((name) => name.endsWith('.eml'));
    } catch {
      return [];
    }
  };

  async function pausedThenKilled(step: string, requests: (() => Promise<unknown>)[]) {
    server = await w.spawnServer([], { KONTOR_PAUSE_AT: step });
    for (const request of requests) request().catch(() => {}); // the kill cuts the answer off
    const deadline = Date.now() + 20_000;
    while (server.output().split(`paused at ${step}`).length - 1 < requests.length) {
      if (Date.now() > deadline) throw new Error(`the server did not pause ${requests.length}× at ${step}:\n${server.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    server.child.kill('SIGKILL');
    await once(server.child, 'exit');
  }

  const sendCreate = (name: string, boot: Boot) => () => {
    const body = invoiceBody(name, { issue: true, send: true });
    killed[name] = { key: `key-${name}`, body, boot };
    return call(boot, 'POST', '/v1/invoices', body, { 'idempotency-key': `key-${name}` });
  };

  const replay = (name: string) => {
    const { key, body, boot } = killed[name]!;
    return call(boot, 'POST', '/v1/invoices', body, { 'idempotency-key': key });
  };

  before(async () => {
    w = await cliWorkspace();
    smtp = await startSmtpServer();
    // Bootstrapped through the running server (the command is forwarded to it): no second database start.
    server = await w.spawnServer();
    viaSmtp = await w.bootstrap('smtp', {
      smtp: { host: '127.0.0.1', port: smtp.port, secure: false, user: SMTP_USER, password: SMTP_PASSWORD, from: SMTP_USER },
    });
    viaOutbox = await w.bootstrap('outbox');
    for (const b of [viaSmtp, viaOutbox]) {
      const res = await call(b, 'PUT', '/v1/customers/by-ref/crm/kunde-1', BUSINESS_CUSTOMER);
      assert.equal(res.status, 201, await res.text());
    }
    const issued = await call(viaSmtp, 'POST', '/v1/invoices', invoiceBody('issued-only', { issue: true }), { 'idempotency-key': 'key-issued-only' });
    assert.equal(issued.status, 201);
    issuedOnly = (await issued.json()) as { id: string };
    server.child.kill('SIGTERM');
    await once(server.child, 'exit');

    // Killed after the attempt was committed, before the mail left.
    await pausedThenKilled(BEFORE, [sendCreate('smtp-before', viaSmtp), sendCreate('outbox-before', viaOutbox)]);
    assert.equal(smtp.received.length, 0, 'no mail left before the kill');
    // Killed after the mail left, before `sent` was committed (also POST /send).
    await pausedThenKilled(AFTER, [
      sendCreate('smtp-after', viaSmtp),
      sendCreate('outbox-after', viaOutbox),
      () => call(viaSmtp, 'POST', `/v1/invoices/${issuedOnly.id}/send`),
    ]);
    assert.equal(smtp.received.length, 2, 'two mails left over SMTP before the kill');
    assert.equal(outboxFiles(viaOutbox).length, 1, 'one mail written to the outbox before the kill');

    server = await w.spawnServer();
  });
  after(async () => {
    await smtp?.close();
    await w?.cleanup();
  });

  test('SMTP, killed before the mail left: the replay answers at once with mail_unconfirmed and nothing is mailed until resend', async () => {
    const started = Date.now();
    const res = await replay('smtp-before');
    assert.ok(Date.now() - started < 10_000, 'the replay does not wait for a dead process');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('idempotent-replayed'), 'true');
    const text = await res.text();
    const invoice = JSON.parse(text);
    assert.equal(invoice.status, 'issued');
    assert.equal(invoice.send_error.code, 'mail_unconfirmed');
    assert.equal(await (await replay('smtp-before')).text(), text, 'replays stay byte-identical');

    const refused = await call(viaSmtp, 'POST', `/v1/invoices/${invoice.id}/send`);
    assert.equal(refused.status, 422);
    const detail = ((await refused.json()) as { detail: { code: string; send_error: { code: string } } }).detail;
    assert.equal(detail.code, 'invoice_send_failed');
    assert.equal(detail.send_error.code, 'mail_unconfirmed');
    assert.equal(smtp.received.length, 2, 'not mailed on its own');

    const resent = await call(viaSmtp, 'POST', `/v1/invoices/${invoice.id}/send`, { resend: true });
    assert.equal(resent.status, 200);
    assert.equal(((await resent.json()) as { status: string }).status, 'sent');
    assert.equal(smtp.received.length, 3, 'mailed once when asked');
    const again = await call(viaSmtp, 'POST', `/v1/invoices/${invoice.id}/send`, { resend: true });
    assert.equal(again.status, 200);
    assert.equal(smtp.received.length, 3, 'a sent invoice is not mailed again');
  });

  test('SMTP, killed after the mail left: no second mail, neither by replay nor by send', async () => {
    const res = await replay('smtp-after');
    assert.equal(res.status, 200);
    const invoice = (await res.json()) as { id: string; number: string; status: string; send_error: { code: string } };
    assert.equal(invoice.send_error.code, 'mail_unconfirmed');
    const send = await call(viaSmtp, 'POST', `/v1/invoices/${invoice.id}/send`);
    assert.equal(send.status, 422);
    const subjects = await Promise.all(smtp.received.map((_, i) => smtp.parsed(i).then((m) => m.subject ?? '')));
    assert.equal(subjects.filter((s) => s.includes(invoice.number)).length, 1, 'the customer got the invoice once');
  });

  test('SMTP, POST /send killed after the mail left: send again answers mail_unconfirmed instead of mailing twice', async () => {
    const send = await call(viaSmtp, 'POST', `/v1/invoices/${issuedOnly.id}/send`);
    assert.equal(send.status, 422);
    assert.equal(((await send.json()) as { detail: { send_error: { code: string } } }).detail.send_error.code, 'mail_unconfirmed');
    const read = (await (await call(viaSmtp, 'GET', `/v1/invoices/${issuedOnly.id}`)).json()) as { status: string; number: string };
    assert.equal(read.status, 'issued');
    const subjects = await Promise.all(smtp.received.map((_, i) => smtp.parsed(i).then((m) => m.subject ?? '')));
    assert.equal(subjects.filter((s) => s.includes(read.number)).length, 1);
  });

  test('outbox, killed before the file was written: the replay says not sent, and send mails it once', async () => {
    const res = await replay('outbox-before');
    assert.equal(res.status, 200);
    const invoice = (await res.json()) as { id: string; number: string; status: string; send_error: { code: string } };
    assert.equal(invoice.status, 'issued');
    assert.equal(invoice.send_error.code, 'mail_unreachable');
    const mine = () => outboxFiles(viaOutbox).filter((name) => name.includes(invoice.number));
    assert.equal(mine().length, 0);
    const send = await call(viaOutbox, 'POST', `/v1/invoices/${invoice.id}/send`);
    assert.equal(send.status, 200);
    assert.equal(((await send.json()) as { status: string }).status, 'sent');
    assert.equal(mine().length, 1);
  });

  test('outbox, killed after the file was written: the file tells — the invoice is sent, once', async () => {
    const res = await replay('outbox-after');
    assert.equal(res.status, 200);
    const invoice = (await res.json()) as { id: string; number: string; status: string; sent_at: string | null; send_error: unknown };
    assert.equal(invoice.status, 'sent');
    assert.ok(invoice.sent_at);
    assert.equal(invoice.send_error, null);
    const send = await call(viaOutbox, 'POST', `/v1/invoices/${invoice.id}/send`);
    assert.equal(send.status, 200);
    assert.equal(outboxFiles(viaOutbox).filter((name) => name.includes(invoice.number)).length, 1);
  });
});
