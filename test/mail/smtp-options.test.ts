import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEFAULT_TIMEOUTS } from '../../src/modules/mail/index.ts';
import { classifySmtpError } from '../../src/modules/mail/send-error.ts';
import { smtpPoolOptions } from '../../src/modules/mail/smtp-options.ts';
import { smtpSettings } from './fixtures.ts';

describe('SMTP connection options', () => {
  const remote = { ...smtpSettings(587), host: 'smtp.example.de' };

  test('uses the agreed timeouts', () => {
    const options = smtpPoolOptions(remote, 'pw', DEFAULT_TIMEOUTS);
    assert.deepEqual([options.connectionTimeout, options.greetingTimeout, options.socketTimeout], [10_000, 10_000, 20_000]);
  });

  test('secure: true is TLS from the first byte', () => {
    const options = smtpPoolOptions({ ...remote, port: 465, secure: true }, 'pw', DEFAULT_TIMEOUTS);
    assert.equal(options.secure, true);
    assert.equal(options.requireTLS, false);
  });

  test('requires STARTTLS before a password goes to another host', () => {
    assert.equal(smtpPoolOptions(remote, 'pw', DEFAULT_TIMEOUTS).requireTLS, true);
  });

  test('takes STARTTLS when offered but does not insist without credentials or on this machine', () => {
    assert.equal(smtpPoolOptions({ ...remote, user: null, password_sealed: null }, null, DEFAULT_TIMEOUTS).requireTLS, false);
    assert.equal(smtpPoolOptions({ ...remote, host: 'localhost' }, 'pw', DEFAULT_TIMEOUTS).requireTLS, false);
  });
});

describe('classifying SMTP failures', () => {
  const context = { host: 'smtp.example.de', port: 587, user: 'u@example.de', password: 'Geheim123' };

  test('a temporary 4xx answer is mail_unreachable (sending later can work)', () => {
    const error = Object.assign(new Error('greylisted'), { code: 'EENVELOPE', responseCode: 451, response: '451 4.7.1 Greylisted', rejected: ['a@b.de'] });
    assert.equal(classifySmtpError(error, context).code, 'mail_unreachable');
  });

  test('a permanent 5xx answer to the message is mail_rejected', () => {
    const error = Object.assign(new Error('spam'), { code: 'EMESSAGE', responseCode: 554, response: '554 5.7.1 Message rejected as spam' });
    assert.equal(classifySmtpError(error, context).code, 'mail_rejected');
  });

  test('server replies are quoted with every form of the password blanked out', () => {
    const plain = Buffer.from('\u0000u@example.de\u0000Geheim123').toString('base64');
    const error = Object.assign(new Error('auth'), { code: 'EAUTH', responseCode: 535, response: `535 bad credentials Geheim123 ${plain}` });
    const { code, message } = classifySmtpError(error, context);
    assert.equal(code, 'mail_rejected');
    assert.ok(!message.includes('Geheim123') && !message.includes(plain), message);
    assert.match(message, /535 bad credentials \*\*\* \*\*\*/);
  });
});
