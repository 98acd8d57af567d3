import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AddressObject } from 'mailparser';
import { createMailer, invoiceMail, invoiceMessageId } from '../../src/modules/mail/index.ts';
import {
  company,
  freePort,
  invoiceDocument,
  pdfBytes,
  SMTP_PASSWORD,
  sealer,
  silentServer,
  smtpSettings,
  startSmtpServer,
  type TestSmtpServer,
  tempDataDir,
  xmlBytes,
} from './fixtures.ts';

// Sending over a real SMTP server in this process (smtp-server, plain text on 127.0.0.1,
// PLAIN/LOGIN auth) and reading what arrived back with mailparser.

const addresses = (field: AddressObject | AddressObject[] | undefined) => [field ?? []].flat().flatMap((a) => a.value.map((v) => v.address));

describe('sending over SMTP', () => {
  let server: TestSmtpServer;
  let data: Awaited<ReturnType<typeof tempDataDir>>;
  let mailer: ReturnType<typeof createMailer>;

  before(async () => {
    server = await startSmtpServer();
    data = await tempDataDir();
    mailer = createMailer({ dataDir: data.dir, sealer, timeouts: { connection: 2000, greeting: 2000, socket: 4000 } });
  });
  after(async () => {
    mailer.close();
    await server.close();
    await data.remove();
  });

  test('delivers the invoice mail with its German text and both attachments byte for byte', async () => {
    const doc = invoiceDocument({ eInvoice: 'xrechnung' });
    const messageId = invoiceMessageId('com_mailtest01', doc.number);
    const before = server.received.length;
    const outcome = await mailer.send(company(smtpSettings(server.port)), { ...invoiceMail(doc, { pdf: pdfBytes, xml: xmlBytes }), messageId });
    assert.deepEqual(outcome, { ok: true, messageId: '<RE-2026-00001.com_mailtest01@kontor>', via: 'smtp' });

    assert.deepEqual(server.received[before]?.envelopeTo, ['rechnungen@beispiel.de']);
    const mail = await server.parsed(before);
    assert.equal(mail.subject, 'Rechnung RE-2026-00001 von Muster Software GmbH');
    assert.equal(mail.messageId, '<RE-2026-00001.com_mailtest01@kontor>');
    assert.deepEqual(mail.from?.value, [{ address: 'rechnung@muster-software.de', name: 'Muster Software GmbH' }]);
    assert.deepEqual(addresses(mail.to), ['rechnungen@beispiel.de']);
    assert.deepEqual(addresses(mail.replyTo), ['buchhaltung@muster-software.de']);
    for (const part of [
      'Guten Tag Erika Musterfrau,',
      'Rechnungsbetrag: 1.234,55 €',
      'Fällig am: 14.02.2026',
      'IBAN: DE89 3704 0044 0532 0130 00',
      'Verwendungszweck: RE-2026-00001',
    ]) {
      assert.ok(mail.text?.includes(part), `missing "${part}" in:\n${mail.text}`);
    }
    assert.ok(typeof mail.html === 'string' && mail.html.includes('1.234,55 €'));
    assert.deepEqual(
      mail.attachments.map((a) => ({ filename: a.filename, contentType: a.contentType, content: a.content })),
      [
        { filename: 'RE-2026-00001.pdf', contentType: 'application/pdf', content: pdfBytes },
        { filename: 'RE-2026-00001.xml', contentType: 'application/xml', content: xmlBytes },
      ],
    );
  });

  test('reuses the pooled connection for the next mail of the same company', async () => {
    const settings = smtpSettings(server.port);
    const first = await mailer.send(company(settings, 'com_pooled'), invoiceMail(invoiceDocument(), { pdf: pdfBytes, xml: null }));
    const connections = server.connections;
    const second = await mailer.send(company(settings, 'com_pooled'), invoiceMail(invoiceDocument({ number: 'RE-2026-00003' }), { pdf: pdfBytes, xml: null }));
    assert.ok(first.ok && second.ok);
    assert.equal(server.connections, connections, 'no new connection for the second mail');
    assert.notEqual(first.messageId, second.messageId, 'generated Message-IDs differ');
  });

  test('changed settings take effect on the next mail', async () => {
    const good = smtpSettings(server.port);
    assert.ok((await mailer.send(company(good, 'com_changed'), invoiceMail(invoiceDocument(), { pdf: pdfBytes, xml: null }))).ok);
    const outcome = await mailer.send(
      company(smtpSettings(server.port, { password: 'falsch' }), 'com_changed'),
      invoiceMail(invoiceDocument(), { pdf: pdfBytes, xml: null }),
    );
    assert.equal(outcome.ok ? 'sent' : outcome.error.code, 'mail_rejected');
  });

  test('a recipient the server refuses (550) is mail_rejected', async () => {
    const doc = invoiceDocument();
    const mail = invoiceMail({ ...doc, buyer: { ...doc.buyer, email: 'niemand@rejected.example' } }, { pdf: pdfBytes, xml: null });
    const outcome = await mailer.send(company(smtpSettings(server.port)), mail);
    assert.equal(outcome.ok, false);
    if (outcome.ok) return;
    assert.equal(outcome.error.code, 'mail_rejected');
    assert.match(outcome.error.message, /Empfängeradresse niemand@rejected\.example abgelehnt/);
    assert.match(outcome.error.message, /550/);
  });

  test('a wrong password is mail_rejected and the message does not contain the password', async () => {
    const wrong = 'Falsches-Passwort-42';
    const outcome = await mailer.send(
      company(smtpSettings(server.port, { password: wrong }), 'com_wrongpass'),
      invoiceMail(invoiceDocument(), { pdf: pdfBytes, xml: null }),
    );
    assert.equal(outcome.ok, false);
    if (outcome.ok) return;
    assert.equal(outcome.error.code, 'mail_rejected');
    assert.match(outcome.error.message, /Anmeldung abgelehnt/);
    for (const secret of [wrong, SMTP_PASSWORD, Buffer.from(wrong).toString('base64')]) assert.ok(!outcome.error.message.includes(secret));
  });

  test('a missing or blank recipient is recipient_missing and opens no connection', async () => {
    const connections = server.connections;
    for (const to of [null, '', '   ', 'keine-adresse']) {
      const mail = { ...invoiceMail(invoiceDocument(), { pdf: pdfBytes, xml: null }), to };
      const outcome = await mailer.send(company(smtpSettings(server.port), 'com_norecipient'), mail);
      assert.equal(outcome.ok ? 'sent' : outcome.error.code, 'recipient_missing', `for ${JSON.stringify(to)}`);
    }
    assert.equal(server.connections, connections);
  });
});

describe('SMTP server out of reach', () => {
  const mailer = createMailer({ dataDir: '/nonexistent', sealer, timeouts: { connection: 1000, greeting: 300, socket: 2000 } });
  after(() => mailer.close());

  test('nothing listening on the port is mail_unreachable', async () => {
    const port = await freePort();
    const outcome = await mailer.send(company(smtpSettings(port)), invoiceMail(invoiceDocument(), { pdf: pdfBytes, xml: null }));
    assert.equal(outcome.ok, false);
    if (outcome.ok) return;
    assert.equal(outcome.error.code, 'mail_unreachable');
    assert.match(outcome.error.message, /nicht erreichbar \(Verbindung abgelehnt\)/);
    assert.ok(!outcome.error.message.includes(SMTP_PASSWORD));
  });

  test('a server that never greets is mail_unreachable after the greeting timeout', async () => {
    const silent = await silentServer();
    try {
      const outcome = await mailer.send(company(smtpSettings(silent.port), 'com_silent'), invoiceMail(invoiceDocument(), { pdf: pdfBytes, xml: null }));
      assert.equal(outcome.ok ? 'sent' : outcome.error.code, 'mail_unreachable');
      if (!outcome.ok) assert.match(outcome.error.message, /nicht rechtzeitig geantwortet/);
    } finally {
      await silent.close();
    }
  });

  test('a host name that does not resolve is mail_unreachable', async () => {
    const outcome = await mailer.send(
      company(smtpSettings(25, { host: 'smtp.kontor-test.invalid' }), 'com_nodns'),
      invoiceMail(invoiceDocument(), { pdf: pdfBytes, xml: null }),
    );
    assert.equal(outcome.ok ? 'sent' : outcome.error.code, 'mail_unreachable');
  });
});
