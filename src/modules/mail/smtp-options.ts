import { createHash } from 'node:crypto';
import type { SMTPPoolOptions } from 'nodemailer';
import type { SmtpSettings } from '../../db/schema.ts';

// Nodemailer options for a company mailbox (design §1: host, port, TLS, user, sealed
// password, from). Pure: the mailer decrypts the password and passes it in.

export type SmtpTimeouts = { connection: number; greeting: number; socket: number };

export const DEFAULT_TIMEOUTS: SmtpTimeouts = { connection: 10_000, greeting: 10_000, socket: 20_000 };

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|::1|\[::1\])$/i;

export function isLoopbackHost(host: string): boolean {
  return LOOPBACK.test(host.trim());
}

/**
 * TLS policy:
 * - `secure: true`: TLS from the first byte (implicit TLS, usually port 465).
 * - `secure: false`: STARTTLS whenever the server offers it; when a password would be
 *   sent to a host other than this machine, STARTTLS is required, so a missing or
 *   stripped STARTTLS never puts the password on the wire in clear text.
 * Certificates are always verified (the settings have no switch to turn that off).
 */
export function smtpPoolOptions(settings: SmtpSettings, password: string | null, timeouts: SmtpTimeouts): SMTPPoolOptions & { pool: true } {
  const sendsCredentials = settings.user !== null && password !== null;
  return {
    pool: true,
    // One connection per mailbox: invoices of a billing run go out one after the other over
    // a connection that is reused, which stays under the concurrent-connection and login
    // limits mail providers put on a mailbox. Idle connections close after 15 s, before our
    // own socket timeout would end them with an error.
    maxConnections: 1,
    maxMessages: 100,
    idleTimeout: 15_000,
    // A connection that drops while a message is handed over is retried once on a fresh one
    // (a stale pooled connection); anything beyond that is the job's retry to make.
    maxRequeues: 1,
    host: settings.host,
    port: settings.port,
    secure: settings.secure,
    requireTLS: !settings.secure && sendsCredentials && !isLoopbackHost(settings.host),
    tls: { minVersion: 'TLSv1.2', servername: isLoopbackHost(settings.host) ? undefined : settings.host },
    auth: sendsCredentials ? { user: settings.user ?? '', pass: password ?? '' } : undefined,
    connectionTimeout: timeouts.connection,
    greetingTimeout: timeouts.greeting,
    socketTimeout: timeouts.socket,
    dnsTimeout: timeouts.connection,
    disableFileAccess: true,
    disableUrlAccess: true,
    logger: false,
  };
}

/** Changes whenever anything that shapes the connection changes (including the sealed password). */
export function settingsFingerprint(settings: SmtpSettings): string {
  const { host, port, secure, user, password_sealed, from } = settings;
  return createHash('sha256')
    .update(JSON.stringify([host, port, secure, user, password_sealed, from]))
    .digest('base64url');
}
