import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import type { SmtpSettings } from '../../src/db/schema.ts';
import type { InvoiceDocument } from '../../src/modules/invoicing/document.ts';
import type { MailingCompany } from '../../src/modules/mail/index.ts';
import { createSealer } from '../../src/shared/secrets.ts';

// An issued invoice as the invoicing module freezes it, a company, and a real SMTP server
// in the test process (no TLS, PLAIN/LOGIN auth) that keeps what it receives.

export const sealer = createSealer('mail-test-secret');

export function invoiceDocument(overrides: Partial<InvoiceDocument> = {}): InvoiceDocument {
  return {
    type: 'invoice',
    number: 'RE-2026-00001',
    issueDate: '2026-01-15',
    dueDate: '2026-02-14',
    servicePeriod: { start: '2026-01-01', end: '2026-01-31' },
    currency: 'EUR',
    seller: {
      name: 'Muster Software GmbH',
      legalForm: 'GmbH',
      street: 'Hauptstraße',
      houseNumber: '5',
      zip: '10115',
      city: 'Berlin',
      countryCode: 'DE',
      vatId: 'DE123456789',
      taxNumber: '30/123/45678',
      email: 'buchhaltung@muster-software.de',
      phone: '+49 30 1234567',
      contactName: 'Max Mustermann',
      iban: 'DE89370400440532013000',
      bic: 'COBADEFFXXX',
      bankName: 'Commerzbank',
    },
    buyer: {
      name: 'Beispiel AG',
      street: 'Marktplatz',
      houseNumber: '1',
      zip: '80331',
      city: 'München',
      countryCode: 'DE',
      vatId: 'DE987654321',
      email: 'rechnungen@beispiel.de',
      customerNumber: '10001',
      customerType: 'business',
      contactName: 'Erika Musterfrau',
      leitwegId: null,
    },
    verdict: 'domestic',
    lines: [
      {
        position: 1,
        description: 'Softwarelizenz Januar',
        quantity: '1',
        unit: 'Monat',
        unitCode: 'MON',
        unitPriceNet: '1037.44',
        vatRate: 19,
        category: 'S',
        netAmount: '1037.44',
        taxExemptionReason: null,
        productNumber: 'LIZ-1',
      },
    ],
    vatBreakdown: [{ category: 'S', rate: 19, taxableAmount: '1037.44', taxAmount: '197.11', exemptionReason: null, exemptionCode: null }],
    totals: { net: '1037.44', tax: '197.11', gross: '1234.55' },
    paymentTermsDays: 30,
    notes: [],
    buyerReference: '10001',
    precedingInvoice: null,
    eInvoice: 'zugferd',
    ...overrides,
  };
}

export function stornoDocument(): InvoiceDocument {
  const original = invoiceDocument();
  return invoiceDocument({
    type: 'storno',
    number: 'RE-2026-00002',
    issueDate: '2026-01-20',
    dueDate: '2026-01-20',
    lines: original.lines.map((line) => ({ ...line, quantity: '-1', netAmount: '-1037.44' })),
    vatBreakdown: [{ category: 'S', rate: 19, taxableAmount: '-1037.44', taxAmount: '-197.11', exemptionReason: null, exemptionCode: null }],
    totals: { net: '-1037.44', tax: '-197.11', gross: '-1234.55' },
    notes: ['Storno der Rechnung RE-2026-00001 vom 15.01.2026.'],
    precedingInvoice: { number: 'RE-2026-00001', issueDate: '2026-01-15' },
  });
}

export const SMTP_USER = 'rechnung@muster-software.de';
export const SMTP_PASSWORD = 'Sehr-geheim!2026';

export function company(smtp: SmtpSettings | null, id = 'com_mailtest01'): MailingCompany {
  return { id, name: 'Muster Software GmbH', email: 'buchhaltung@muster-software.de', smtp };
}

export function smtpSettings(port: number, overrides: Partial<SmtpSettings> & { password?: string | null } = {}): SmtpSettings {
  const { password = SMTP_PASSWORD, ...rest } = overrides;
  return {
    host: '127.0.0.1',
    port,
    secure: false,
    user: SMTP_USER,
    password_sealed: password === null ? null : sealer.seal(password),
    from: SMTP_USER,
    ...rest,
  };
}

export type TestSmtpServer = {
  port: number;
  /** Raw messages as received (DATA), parsed on demand. */
  received: { envelopeTo: string[]; raw: Buffer }[];
  connections: number;
  parsed(index: number): Promise<ParsedMail>;
  close(): Promise<void>;
};

/** A plain-text SMTP server on 127.0.0.1 with a random port; recipients at @rejected.example get 550. */
export async function startSmtpServer(options: Partial<SMTPServerOptions> = {}): Promise<TestSmtpServer> {
  const state: TestSmtpServer = {
    port: 0,
    received: [],
    connections: 0,
    async parsed(index) {
      const entry = state.received[index];
      if (!entry) throw new Error(`no message #${index} received (got ${state.received.length})`);
      return simpleParser(entry.raw);
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = new SMTPServer({
    secure: false,
    hideSTARTTLS: true,
    authOptional: false,
    allowInsecureAuth: true,
    authMethods: ['PLAIN', 'LOGIN'],
    disableReverseLookup: true,
    logger: false,
    onConnect(_session, callback) {
      state.connections++;
      callback();
    },
    onAuth(auth, _session, callback) {
      if (auth.username === SMTP_USER && auth.password === SMTP_PASSWORD) return callback(null, { user: auth.username });
      callback(Object.assign(new Error('5.7.8 Authentication credentials invalid'), { responseCode: 535 }));
    },
    onRcptTo(address, _session, callback) {
      if (address.address.endsWith('@rejected.example')) return callback(Object.assign(new Error('5.1.1 Mailbox unavailable'), { responseCode: 550 }));
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        state.received.push({ envelopeTo: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks) });
        callback();
      });
    },
    ...options,
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  state.port = (server.server.address() as net.AddressInfo).port;
  return state;
}

/** A port on which nothing listens (bound once, then released). */
export async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', () => resolve()));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** A TCP server that accepts connections and never says a word (for the greeting timeout). */
export async function silentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

export async function tempDataDir(): Promise<{ dir: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'kontor-mail-'));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

export const pdfBytes = Buffer.from('%PDF-1.7\n% Kontor test PDF\n%%EOF\n', 'latin1');
export const xmlBytes = Buffer.from('<?xml version="1.0" encoding="UTF-8"?>\n<rsm:CrossIndustryInvoice>Müller</rsm:CrossIndustryInvoice>\n', 'utf8');
