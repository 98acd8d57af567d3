import assert from 'node:assert/strict';
import { chmod, mkdir, readdir, readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { simpleParser } from 'mailparser';
import { createMailer, invoiceMail, invoiceMessageId } from '../../src/modules/mail/index.ts';
import { company, invoiceDocument, pdfBytes, sealer, tempDataDir, xmlBytes } from './fixtures.ts';

// Without SMTP settings a mail becomes an .eml file under <data>/outbox/<company_id>/
// and counts as sent (design §1).

describe('outbox without SMTP', () => {
  let data: Awaited<ReturnType<typeof tempDataDir>>;
  let mailer: ReturnType<typeof createMailer>;
  const at = new Date('2026-01-15T09:30:05.123Z');

  before(async () => {
    data = await tempDataDir();
    mailer = createMailer({ dataDir: data.dir, sealer, now: () => at });
  });
  after(async () => {
    mailer.close();
    await data.remove();
  });

  test('writes the complete mail as an owner-only .eml file and reports it as sent', async () => {
    const doc = invoiceDocument({ eInvoice: 'xrechnung' });
    const messageId = invoiceMessageId('com_outbox01', doc.number);
    const outcome = await mailer.send(company(null, 'com_outbox01'), { ...invoiceMail(doc, { pdf: pdfBytes, xml: xmlBytes }), messageId });
    const expectedPath = path.join(data.dir, 'outbox', 'com_outbox01', '20260115-093005-RE-2026-00001.com_outbox01_kontor.eml');
    assert.deepEqual(outcome, { ok: true, messageId: '<RE-2026-00001.com_outbox01@kontor>', via: 'outbox', path: expectedPath });

    assert.equal((await stat(expectedPath)).mode & 0o777, 0o600);
    assert.equal((await stat(path.dirname(expectedPath))).mode & 0o777, 0o700);
    assert.equal((await stat(path.join(data.dir, 'outbox'))).mode & 0o777, 0o700);
    assert.deepEqual(await readdir(path.dirname(expectedPath)), [path.basename(expectedPath)], 'no temp file left behind');

    const mail = await simpleParser(await readFile(expectedPath));
    assert.equal(mail.subject, 'Rechnung RE-2026-00001 von Muster Software GmbH');
    assert.equal(mail.messageId, '<RE-2026-00001.com_outbox01@kontor>');
    assert.equal(mail.date?.toISOString(), '2026-01-15T09:30:05.000Z');
    assert.deepEqual(mail.from?.value, [{ address: 'buchhaltung@muster-software.de', name: 'Muster Software GmbH' }]);
    assert.ok(mail.text?.includes('Rechnungsbetrag: 1.234,55 €'));
    assert.ok(mail.text?.includes('IBAN: DE89 3704 0044 0532 0130 00'));
    assert.deepEqual(
      mail.attachments.map((a) => [a.filename, a.contentType, a.content]),
      [
        ['RE-2026-00001.pdf', 'application/pdf', pdfBytes],
        ['RE-2026-00001.xml', 'application/xml', xmlBytes],
      ],
    );
  });

  test('a second mail with the same Message-ID in the same second gets its own file', async () => {
    const mail = { ...invoiceMail(invoiceDocument(), { pdf: pdfBytes, xml: null }), messageId: '<same@kontor>' };
    const first = await mailer.send(company(null, 'com_outbox02'), mail);
    const second = await mailer.send(company(null, 'com_outbox02'), mail);
    assert.ok(first.ok && second.ok);
    assert.notEqual(first.path, second.path);
    assert.deepEqual((await readdir(path.join(data.dir, 'outbox', 'com_outbox02'))).sort(), [
      '20260115-093005-same_kontor-2.eml',
      '20260115-093005-same_kontor.eml',
    ]);
  });

  test('an outbox folder removed while the process runs, or loose before its first mail, is made owner-only again', async () => {
    const mail = { ...invoiceMail(invoiceDocument(), { pdf: pdfBytes, xml: null }), messageId: '<again@kontor>' };
    const folder = path.join(data.dir, 'outbox', 'com_outbox04');
    assert.ok((await mailer.send(company(null, 'com_outbox04'), mail)).ok);
    // Removed by hand while the process runs: the next mail makes the folder again.
    await rm(folder, { recursive: true });
    const again = await mailer.send(company(null, 'com_outbox04'), mail);
    assert.ok(again.ok && again.path?.startsWith(folder));
    assert.equal((await stat(folder)).mode & 0o777, 0o700);
    assert.deepEqual(await readdir(folder), [path.basename(again.path!)]);
    // A folder that was loose before this process's first mail to it is tightened then.
    const other = path.join(data.dir, 'outbox', 'com_outbox05');
    await rm(other, { recursive: true, force: true });
    await mkdir(other, { mode: 0o755 });
    await chmod(other, 0o755);
    assert.ok((await mailer.send(company(null, 'com_outbox05'), mail)).ok);
    assert.equal((await stat(other)).mode & 0o777, 0o700);
  });

  test('a missing recipient is recipient_missing and writes nothing', async () => {
    const outcome = await mailer.send(company(null, 'com_outbox03'), { ...invoiceMail(invoiceDocument(), { pdf: pdfBytes, xml: null }), to: null });
    assert.equal(outcome.ok ? 'sent' : outcome.error.code, 'recipient_missing');
    await assert.rejects(stat(path.join(data.dir, 'outbox', 'com_outbox03')), { code: 'ENOENT' });
  });

  test('a company id that is not a plain folder name is refused', async () => {
    await assert.rejects(mailer.send(company(null, '../escape'), invoiceMail(invoiceDocument(), { pdf: pdfBytes, xml: null })), TypeError);
  });
});
