import type { NodemailerError } from 'nodemailer';
import type { SendError } from './types.ts';

// Turns what nodemailer reports into the interface's SendError with a German message.
// The split: `mail_rejected` means the server answered "no" and a person has to change
// something (address, credentials, content); `mail_unreachable` means no answer or
// "not now" (connection, DNS, TLS, timeout, 4xx), where sending again later can work.
// Server replies are quoted for whoever fixes the mailbox, with the password and its
// base64 forms (as AUTH PLAIN / LOGIN send them) blanked out.

export type ErrorContext = { host: string; port: number; user: string | null; password: string | null };

export function classifySmtpError(error: unknown, context: ErrorContext): SendError {
  const err = (error ?? {}) as NodemailerError;
  const server = `${context.host}:${context.port}`;
  const reply = err.response ? ` Antwort des Servers: ${clean(err.response, context)}` : '';
  const responseCode = typeof err.responseCode === 'number' ? err.responseCode : null;

  if (responseCode !== null && responseCode >= 400 && responseCode < 500) {
    return unreachable(`Der Mailserver ${server} hat die Mail vorübergehend nicht angenommen. Bitte später erneut senden.${reply}`);
  }
  if (responseCode === 530 && /tls/i.test(err.response ?? '')) {
    return rejected(
      `Der Mailserver ${server} verlangt eine verschlüsselte Verbindung (STARTTLS). Bitte die TLS-Einstellung des SMTP-Postfachs prüfen.${reply}`,
    );
  }
  if (responseCode === 530 || (err.code === 'ENOAUTH' && !context.password)) {
    return rejected(
      `Der Mailserver ${server} verlangt eine Anmeldung, für das SMTP-Postfach der Firma ist aber kein Benutzer mit Passwort hinterlegt.${reply}`,
    );
  }
  switch (err.code) {
    case 'EAUTH':
      return rejected(`Der Mailserver ${server} hat die Anmeldung abgelehnt. Bitte Benutzername und Passwort des SMTP-Postfachs der Firma prüfen.${reply}`);
    case 'ENOAUTH':
      return rejected(
        `Der Mailserver ${server} hat keine Anmeldung mit Benutzer und Passwort angeboten. Bitte die SMTP-Einstellungen der Firma prüfen.${reply}`,
      );
    case 'EENVELOPE':
      if (err.command?.toUpperCase().startsWith('MAIL')) {
        return rejected(`Der Mailserver ${server} hat die Absenderadresse abgelehnt. Bitte die Absenderadresse des SMTP-Postfachs prüfen.${reply}`);
      }
      if (err.rejected?.length) {
        return rejected(
          `Der Mailserver ${server} hat die Empfängeradresse ${err.rejected.join(', ')} abgelehnt. Bitte die E-Mail-Adresse des Kunden prüfen.${reply}`,
        );
      }
      return rejected(`Der Mailserver ${server} hat die Mail abgelehnt.${reply}`);
    case 'EDNS':
      return unreachable(`Der Name des Mailservers „${context.host}“ lässt sich nicht auflösen. Bitte den SMTP-Server der Firma prüfen.`);
    case 'ETIMEDOUT':
      return unreachable(`Der Mailserver ${server} hat nicht rechtzeitig geantwortet (${timeoutText(err.timeoutType)}). Bitte später erneut senden.`);
    case 'ETLS':
    case 'EREQUIRETLS':
      return unreachable(
        `Mit dem Mailserver ${server} kam keine verschlüsselte Verbindung (TLS) zustande (Zertifikat ungültig oder STARTTLS nicht angeboten). Bitte die TLS-Einstellung des SMTP-Postfachs prüfen.`,
      );
    case 'ECONNECTION':
    case 'ESOCKET':
    case 'EPROXY':
      return unreachable(`Der Mailserver ${server} ist nicht erreichbar (${socketText(err)}). Bitte später erneut senden oder Server und Port prüfen.`);
  }
  if (responseCode !== null && responseCode >= 500) {
    return rejected(`Der Mailserver ${server} hat die Mail abgelehnt.${reply}`);
  }
  return unreachable(`Die Mail konnte nicht an ${server} übergeben werden (${clean(err.message ?? String(error), context)}).`);
}

function rejected(message: string): SendError {
  return { code: 'mail_rejected', message };
}

function unreachable(message: string): SendError {
  return { code: 'mail_unreachable', message };
}

function timeoutText(type: NodemailerError['timeoutType']): string {
  if (type === 'CONNECT_TIMEOUT') return 'Verbindungsaufbau';
  if (type === 'GREETING_TIMEOUT') return 'keine Begrüßung des Servers';
  if (type === 'UPGRADE_TIMEOUT') return 'TLS-Aufbau';
  return 'Zeitüberschreitung während der Übertragung';
}

function socketText(err: NodemailerError): string {
  const cause = err.originalCode ?? err.code;
  if (cause === 'ECONNREFUSED') return 'Verbindung abgelehnt';
  if (cause === 'ECONNRESET' || cause === 'ECONNECTION') return 'Verbindung abgebrochen';
  if (cause === 'EHOSTUNREACH' || cause === 'ENETUNREACH') return 'Netz oder Host nicht erreichbar';
  return 'Netzwerkfehler';
}

/** One line, bounded, with every form of the password blanked out. */
function clean(text: string, context: ErrorContext): string {
  let out = text.replace(/\s+/g, ' ').trim();
  for (const secret of secretForms(context)) out = out.split(secret).join('***');
  return out.length > 300 ? `${out.slice(0, 300)}…` : out;
}

function secretForms({ user, password }: ErrorContext): string[] {
  if (!password) return [];
  const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
  return [password, b64(password), b64(`\u0000${user ?? ''}\u0000${password}`), b64(`${user ?? ''}\u0000${user ?? ''}\u0000${password}`)].filter(
    (s) => s.length >= 3,
  );
}
